package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mcpctl/mcpctl/transport"
)

// Origins: which program's file a server definition comes from.
const (
	OriginMcpctl        = "mcpctl"
	OriginClaudeCode    = "claude-code"
	OriginCursor        = "cursor"
	OriginVSCode        = "vscode"
	OriginClaudeDesktop = "claude-desktop"
	OriginWindsurf      = "windsurf"
)

// Transports a server definition can name. A URL server without one is
// reached with TransportAuto: Streamable HTTP, falling back to legacy SSE.
const (
	TransportStdio = "stdio"
	TransportAuto  = "auto"
	TransportHTTP  = "http"
	TransportSSE   = "sse"
)

// Server is one named server definition as its file has it: ${…}
// references are not expanded yet (see [Server.Expand]).
type Server struct {
	Name string
	// Origin is the program whose file defines the server (OriginCursor, …).
	Origin string
	// File is the file's path.
	File string
	// Dir is the project folder for a definition in a project file, the
	// value of ${workspaceFolder}; empty for user files.
	Dir string
	// Scope is the kind of file the definition is in: ScopeConfig,
	// ScopeUser or ScopeProject.
	Scope string
	// Raw is an editor's entry as written (compact JSON), what trust in a
	// project entry is remembered by (see [Server.Fingerprint]).
	Raw []byte
	// Trusted says that the user approved this project entry as it is
	// written (see [TrustStore.Mark]); [Server.Expand] refuses a project
	// entry without it.
	Trusted bool

	// Transport is TransportStdio for a command, else how to reach URL.
	Transport string
	Command   string
	Args      []string
	Env       map[string]string
	Cwd       string
	URL       string
	Headers   map[string]string
	// Timeout, when positive, is the server's own request timeout.
	Timeout time.Duration
	// MaxMessageSize, when positive, is the server's own limit on one
	// message in bytes (mcpctl's config only: max-message-size).
	MaxMessageSize int64
	// InheritEnv passes mcpctl's whole environment to a stdio server
	// rather than the safe default set (mcpctl's config only:
	// inherit-env). Env is added in both cases.
	InheritEnv bool
	// Era is the protocol era to speak to the server: EraAuto (detect,
	// also when empty), EraLegacy or EraModern (mcpctl's config only:
	// era).
	Era string
	// Auth is how mcpctl authorizes itself to an HTTP server that asks for
	// OAuth (mcpctl's config only).
	Auth Auth
	// Policy is the tool-policy file for calls to the server (mcpctl's
	// config only: policy), relative paths resolved against the config
	// file's folder.
	Policy string

	// Inputs are the VS Code inputs the file declares, which ${input:ID}
	// references in the definition ask for.
	Inputs []Input
}

// Auth are a server's OAuth settings, the config keys of the flags of the
// same names. Secrets are never written here: ClientSecret, ClientKey,
// Assertion and IDToken are references, env:VAR or file:PATH, read when the
// server is used.
type Auth struct {
	ClientID          string `yaml:"client-id,omitempty"`
	ClientSecret      string `yaml:"client-secret,omitempty"`
	Issuer            string `yaml:"issuer,omitempty"`
	ClientKey         string `yaml:"client-key,omitempty"`
	ClientMetadataURL string `yaml:"client-metadata-url,omitempty"`
	Grant             string `yaml:"grant,omitempty"`
	Assertion         string `yaml:"assertion,omitempty"`
	IDToken           string `yaml:"id-token,omitempty"`
	IDPTokenEndpoint  string `yaml:"idp-token-endpoint,omitempty"`
	IDPClientID       string `yaml:"idp-client-id,omitempty"`
	Scope             string `yaml:"scope,omitempty"`
	DPoP              string `yaml:"dpop,omitempty"`
}

// IsZero reports whether no setting is given.
func (a Auth) IsZero() bool { return a == Auth{} }

// check verifies that the secret settings are references, not secrets.
func (a Auth) check() error {
	for _, f := range []struct{ key, v string }{{"client-secret", a.ClientSecret}, {"client-key", a.ClientKey}, {"assertion", a.Assertion}, {"id-token", a.IDToken}} {
		if f.v != "" && !strings.HasPrefix(f.v, "env:") && !strings.HasPrefix(f.v, "file:") {
			return fmt.Errorf("%s: want env:VAR or file:PATH (the secret itself does not belong in the file)", f.key)
		}
	}
	return nil
}

// Input is a value VS Code asks the user for when a server starts,
// declared in the file's "inputs" and used as ${input:ID}.
type Input struct {
	ID          string   `json:"id"`
	Type        string   `json:"type"` // promptString or pickString
	Description string   `json:"description"`
	Default     string   `json:"default"`
	Password    bool     `json:"password"`
	Options     []string `json:"options"`
}

// Mask replaces secrets in text shown to people.
const Mask = "****"

// RedactURL hides what may be a secret in a URL: the user information,
// every query value and the fragment. It is [transport.RedactURL], the
// rule every place that shows a URL follows; it works on the text, so
// that the rest, ${…} references included, stays as written.
func RedactURL(s string) string { return transport.RedactURL(s) }

// Problem is a file, or one server in it, that could not be used. Problems
// are reported, and do not stop the other files from being read.
type Problem struct {
	File   string
	Origin string
	// Name is the server the problem is about; empty for the whole file.
	Name string
	Err  error
}

func (p *Problem) Error() string {
	if p.Name == "" {
		return fmt.Sprintf("%s (%s): %v", p.File, p.Origin, p.Err)
	}
	return fmt.Sprintf("%s (%s): server %q: %v", p.File, p.Origin, p.Name, p.Err)
}

func (p *Problem) Unwrap() error { return p.Err }

// Catalog is every server definition found, in order of precedence: for a
// name defined more than once, the first one wins.
type Catalog struct {
	Servers []Server
	// Problems are the files and definitions that could not be read.
	Problems []*Problem
	// Searched are the files looked for, found or not, in order.
	Searched []Source
}

// NotFoundError says that no file defines a server name.
type NotFoundError struct {
	Name  string
	Known []string
	// Ignored are project files left unread as unsafe (see
	// [UnsafeFileError]), which may define the name.
	Ignored []string
}

func (e *NotFoundError) Error() string {
	msg := fmt.Sprintf("no server named %q (known: %s; mcpctl servers lists them)", e.Name, strings.Join(e.Known, ", "))
	if len(e.Known) == 0 {
		msg = fmt.Sprintf("no server named %q: none is defined in mcpctl's config or in an editor's MCP file (mcpctl servers --help says where they are looked for)", e.Name)
	}
	if len(e.Ignored) > 0 {
		msg += fmt.Sprintf("; ignored as others could have written them: %s", strings.Join(e.Ignored, ", "))
	}
	return msg
}

// notFound is the [*NotFoundError] for name.
func (c *Catalog) notFound(name string) *NotFoundError {
	e := &NotFoundError{Name: name, Known: c.Names()}
	for _, p := range c.Problems {
		if unsafe := (*UnsafeFileError)(nil); errors.As(p.Err, &unsafe) {
			e.Ignored = append(e.Ignored, p.File)
		}
	}
	return e
}

// Find returns the definition of name that wins and the ones it shadows.
// A name written scope:NAME (project:github, user:github, config:github)
// picks the first definition of NAME from that scope's files, which is how
// a project's server is chosen over the user's own of the same name. When
// no definition is usable it returns the problem that names the server, or
// a [*NotFoundError].
func (c *Catalog) Find(name string) (Server, []Server, error) {
	scope, bare := SplitScope(name)
	var found []Server
	for _, s := range c.Servers {
		if s.Name == bare {
			found = append(found, s)
		}
	}
	if scope != "" {
		i := slices.IndexFunc(found, func(s Server) bool { return s.Scope == scope })
		if i < 0 {
			if len(found) > 0 {
				return Server{}, nil, fmt.Errorf("server %q is not defined in a %s file (it is in %s)", bare, scope, found[0].File)
			}
			return Server{}, nil, c.notFound(bare)
		}
		return found[i], slices.Delete(slices.Clone(found), i, i+1), nil
	}
	if len(found) > 0 {
		return found[0], found[1:], nil
	}
	for _, p := range c.Problems {
		if p.Name == name {
			return Server{}, nil, p
		}
	}
	return Server{}, nil, c.notFound(name)
}

// SplitScope splits a server name written scope:NAME; scope is "" when
// name has no known scope before a colon.
func SplitScope(name string) (scope, bare string) {
	if sc, rest, ok := strings.Cut(name, ":"); ok && rest != "" {
		switch sc {
		case ScopeConfig, ScopeUser, ScopeProject:
			return sc, rest
		}
	}
	return "", name
}

// Names lists the server names, sorted, each once.
func (c *Catalog) Names() []string {
	var names []string
	for _, s := range c.Servers {
		names = append(names, s.Name)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// Scopes of the files servers come from, in order of precedence.
const (
	ScopeConfig  = "config"  // mcpctl's own config file
	ScopeUser    = "user"    // files in the user's home or application data
	ScopeProject = "project" // files in the working directory or a parent
)

// Source is a file that may define servers.
type Source struct {
	Origin string
	Scope  string
	Path   string
	// Dir is the project folder of a project file.
	Dir string
	// Found reports, after [Discover], whether the file exists.
	Found bool

	format format
	base   string // the folder a user file's path starts from
}

// format says how a file lays out its servers.
type format int

const (
	formatMcpctl     format = iota // config.yaml: servers:
	formatMcpServers               // {"mcpServers": {...}}, the common form
	formatClaudeJSON               // ~/.claude.json: mcpServers, and projects[dir].mcpServers
	formatVSCode                   // .vscode/mcp.json: servers and inputs
	formatWindsurf                 // mcpServers, with serverUrl for HTTP
)

// Sources lists the files servers are looked for in, most important first:
//
//  1. mcpctl's config file (configPath);
//  2. user files: ~/.claude.json (Claude Code: the servers of the
//     project, looked up by the working directory and its parents, then its
//     top-level mcpServers), ~/.cursor/mcp.json (Cursor),
//     claude_desktop_config.json (Claude Desktop: in $XDG_CONFIG_HOME/Claude
//     or ~/.config/Claude on Linux, ~/Library/Application Support/Claude on
//     macOS, %APPDATA%\Claude on Windows), ~/.codeium/windsurf/mcp_config.json
//     (Windsurf), and VS Code's user mcp.json (Code/User/mcp.json in the same
//     application-data folder as Claude Desktop's);
//  3. project files, in the working directory and then each parent up to
//     the repository root (the first folder with .git) or the home folder,
//     never above it (see [Host.ProjectDirs]): .mcp.json (Claude Code),
//     .cursor/mcp.json (Cursor) and .vscode/mcp.json (VS Code).
//
// Project files come last: whoever wrote the repository wrote them, and a
// name they define must not replace the user's own server of that name.
func Sources(h Host, configPath string) []Source {
	srcs := []Source{{Origin: OriginMcpctl, Scope: ScopeConfig, Path: configPath, format: formatMcpctl}}
	var user []Source
	appData := h.appDataDir()
	user = append(user,
		Source{Origin: OriginClaudeCode, Scope: ScopeUser, Path: h.join(h.Home, ".claude.json"), format: formatClaudeJSON, base: h.Home},
		Source{Origin: OriginCursor, Scope: ScopeUser, Path: h.join(h.Home, ".cursor", "mcp.json"), format: formatMcpServers, base: h.Home},
		Source{Origin: OriginClaudeDesktop, Scope: ScopeUser, Path: h.join(appData, "Claude", "claude_desktop_config.json"), format: formatMcpServers, base: appData},
		Source{Origin: OriginWindsurf, Scope: ScopeUser, Path: h.join(h.Home, ".codeium", "windsurf", "mcp_config.json"), format: formatWindsurf, base: h.Home},
		Source{Origin: OriginVSCode, Scope: ScopeUser, Path: h.join(appData, "Code", "User", "mcp.json"), format: formatVSCode, base: appData},
	)
	// Without a home directory (HOME unset) there are no user files:
	// relative paths would read the working directory's instead.
	user = slices.DeleteFunc(user, func(s Source) bool { return s.base == "" })
	userPaths := map[string]bool{}
	for _, s := range user {
		userPaths[s.Path] = true
	}
	srcs = append(srcs, user...)
	for _, dir := range h.ProjectDirs() {
		for _, s := range []Source{
			{Origin: OriginClaudeCode, Path: h.join(dir, ".mcp.json"), format: formatMcpServers},
			{Origin: OriginCursor, Path: h.join(dir, ".cursor", "mcp.json"), format: formatMcpServers},
			{Origin: OriginVSCode, Path: h.join(dir, ".vscode", "mcp.json"), format: formatVSCode},
		} {
			// In a home folder outside any repository, ~/.cursor/mcp.json
			// is Cursor's user file, not a project's.
			if !userPaths[s.Path] {
				s.Scope, s.Dir = ScopeProject, dir
				srcs = append(srcs, s)
			}
		}
	}
	return srcs
}

// appDataDir is the folder desktop applications keep their settings in.
func (h Host) appDataDir() string {
	switch h.GOOS {
	case "darwin":
		if h.Home == "" {
			return ""
		}
		return h.join(h.Home, "Library", "Application Support")
	case "windows":
		if h.AppData != "" || h.Home == "" {
			return h.AppData
		}
		return h.join(h.Home, "AppData", "Roaming")
	}
	if h.XDGConfigHome != "" {
		return h.XDGConfigHome
	}
	if h.Home == "" {
		return ""
	}
	return h.join(h.Home, ".config")
}

// ProjectDirs are the folders project files are looked for in, nearest
// first: the working directory and its parents up to the repository root
// (the first folder with .git) or the home folder, whichever comes first.
// The walk never goes above the home folder nor reaches the file system
// root: outside the home folder, a working directory in no repository is
// the only folder searched. They are real paths only when the host is this
// machine.
func (h Host) ProjectDirs() []string {
	if h.Cwd == "" {
		return nil
	}
	home := ""
	if h.Home != "" {
		home = filepath.Clean(h.Home)
	}
	// A home of / would bound nothing.
	if home == filepath.Dir(home) {
		home = ""
	}
	var dirs []string
	dir := filepath.Clean(h.Cwd)
	for {
		if dir == filepath.Dir(dir) {
			// The file system root is nobody's project.
			break
		}
		dirs = append(dirs, dir)
		if dir == home {
			return dirs
		}
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return dirs
		}
		dir = filepath.Dir(dir)
	}
	// No repository and no home on the way up: only the working directory.
	if len(dirs) > 1 {
		dirs = dirs[:1]
	}
	return dirs
}

// Discover reads every source: mcpctl's config c (which may be nil) and
// the editors' files that exist. Files that cannot be read or parsed become
// problems, never errors: one broken editor file must not hide the others.
func Discover(h Host, c *Config) *Catalog {
	configPath := ""
	if c != nil {
		configPath = c.Path
	}
	cat := &Catalog{}
	for _, src := range Sources(h, configPath) {
		var (
			servers []Server
			err     error
		)
		if src.format == formatMcpctl {
			if c == nil || !c.Exists {
				cat.Searched = append(cat.Searched, src)
				continue
			}
			src.Found = true
			servers, err = c.servers(&cat.Problems)
		} else {
			var data []byte
			data, err = os.ReadFile(src.Path)
			if errors.Is(err, os.ErrNotExist) || err == nil && len(strings.TrimSpace(string(data))) == 0 {
				cat.Searched = append(cat.Searched, src)
				continue
			}
			src.Found = true
			if err == nil && src.Scope == ScopeProject {
				if uerr := checkProjectFile(src.Path); uerr != nil {
					cat.Searched = append(cat.Searched, src)
					cat.Problems = append(cat.Problems, &Problem{File: src.Path, Origin: src.Origin, Err: uerr})
					continue
				}
			}
			if err == nil {
				servers, err = parseEditorFile(src, data, h, &cat.Problems)
			}
		}
		cat.Searched = append(cat.Searched, src)
		if err != nil {
			cat.Problems = append(cat.Problems, &Problem{File: src.Path, Origin: src.Origin, Err: err})
		}
		for i := range servers {
			servers[i].Scope = src.Scope
		}
		cat.Servers = append(cat.Servers, servers...)
	}
	return cat
}

// The protocol eras a server may be pinned to (the era key, --era).
const (
	EraAuto   = "auto"
	EraLegacy = "legacy"
	EraModern = "modern"
)

// CheckEra rejects an era other than "", auto, legacy and modern.
func CheckEra(era string) error {
	switch era {
	case "", EraAuto, EraLegacy, EraModern:
		return nil
	}
	return fmt.Errorf("era: %q is not auto, legacy or modern", era)
}

// configServer is a server in mcpctl's config file.
type configServer struct {
	Command   string            `yaml:"command,omitempty"`
	Args      []string          `yaml:"args,omitempty"`
	Env       map[string]string `yaml:"env,omitempty"`
	Cwd       string            `yaml:"cwd,omitempty"`
	URL       string            `yaml:"url,omitempty"`
	Headers   map[string]string `yaml:"headers,omitempty"`
	Transport string            `yaml:"transport,omitempty"`
	Timeout   string            `yaml:"timeout,omitempty"`
	// MaxMessageSize is a size as [ParseSize] reads it.
	MaxMessageSize string `yaml:"max-message-size,omitempty"`
	InheritEnv     bool   `yaml:"inherit-env,omitempty"`
	Era            string `yaml:"era,omitempty"`
	Policy         string `yaml:"policy,omitempty"`
	Auth           `yaml:",inline"`
}

// configServerKeys are the keys a server of the config file may have.
func configServerKeys() []string {
	return []string{"command", "args", "env", "cwd", "url", "headers", "transport", "timeout", "max-message-size", "inherit-env", "era", "policy",
		"client-id", "client-secret", "client-key", "client-metadata-url", "grant", "assertion", "id-token", "idp-token-endpoint", "idp-client-id", "scope", "dpop"}
}

// servers reads the servers: map of the config file. Each entry is checked
// on its own: a broken one becomes a problem.
func (c *Config) servers(problems *[]*Problem) ([]Server, error) {
	m := mappingValue(c.root(), "servers")
	if m == nil {
		return nil, nil
	}
	if m.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("line %d: servers: want a mapping of names to server definitions", m.Line)
	}
	var out []Server
	for i := 0; i+1 < len(m.Content); i += 2 {
		name, def := m.Content[i].Value, m.Content[i+1]
		s, err := decodeConfigServer(name, def)
		if err != nil {
			*problems = append(*problems, &Problem{File: c.Path, Origin: OriginMcpctl, Name: name, Err: fmt.Errorf("line %d: %w", def.Line, err)})
			continue
		}
		s.Origin, s.File = OriginMcpctl, c.Path
		if s.Policy != "" && !filepath.IsAbs(s.Policy) {
			s.Policy = filepath.Join(filepath.Dir(c.Path), s.Policy)
		}
		out = append(out, s)
	}
	return out, nil
}

func decodeConfigServer(name string, def *yaml.Node) (Server, error) {
	if def.Kind != yaml.MappingNode {
		return Server{}, errors.New("want a mapping with command: or url:")
	}
	for i := 0; i < len(def.Content); i += 2 {
		if k := def.Content[i].Value; !slices.Contains(configServerKeys(), k) {
			return Server{}, fmt.Errorf("unknown key %q (known: %s)", k, strings.Join(configServerKeys(), ", "))
		}
	}
	var cs configServer
	if err := def.Decode(&cs); err != nil {
		return Server{}, err
	}
	s := Server{Name: name, Command: cs.Command, Args: cs.Args, Env: cs.Env, Cwd: cs.Cwd, URL: cs.URL, Headers: cs.Headers, InheritEnv: cs.InheritEnv, Era: cs.Era, Auth: cs.Auth, Policy: cs.Policy}
	if err := CheckEra(cs.Era); err != nil {
		return Server{}, err
	}
	if err := cs.Auth.check(); err != nil {
		return Server{}, err
	}
	if cs.MaxMessageSize != "" {
		n, err := ParseSize(cs.MaxMessageSize)
		if err != nil {
			return Server{}, fmt.Errorf("max-message-size: %w", err)
		}
		s.MaxMessageSize = n
	}
	if cs.Timeout != "" {
		d, err := parseTimeout(cs.Timeout)
		if err != nil {
			return Server{}, fmt.Errorf("timeout: %w", err)
		}
		s.Timeout = d
	}
	var err error
	if s.Transport, err = transportOf(cs.Transport, s.Command, s.URL); err != nil {
		return Server{}, err
	}
	if s.InheritEnv && s.Transport != TransportStdio {
		return Server{}, errors.New("inherit-env applies to a command, not to a url")
	}
	if !s.Auth.IsZero() && s.Transport == TransportStdio {
		return Server{}, errors.New("the OAuth settings (client-id, grant, …) apply to a url, not to a command")
	}
	return s, nil
}

// parseTimeout reads a duration ("30s", "2m") or a number of seconds.
func parseTimeout(v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil {
		d, err = time.ParseDuration(v + "s")
	}
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("invalid duration %q: want e.g. 30s or 2m", v)
	}
	return d, nil
}

// transportOf checks that a definition has a command or a URL, not both,
// and normalizes the transport its file names ("type" in editors' files).
func transportOf(kind, command, url string) (string, error) {
	switch {
	case command != "" && url != "":
		return "", errors.New("has both a command and a url: keep one")
	case command == "" && url == "":
		return "", errors.New("has neither a command nor a url")
	}
	switch strings.ToLower(kind) {
	case "", TransportAuto:
		if command != "" {
			return TransportStdio, nil
		}
		return TransportAuto, nil
	case TransportStdio:
		if command == "" {
			return "", errors.New("type stdio needs a command")
		}
		return TransportStdio, nil
	case TransportHTTP, "streamable-http", "streamablehttp", "streamable_http":
		if url == "" {
			return "", fmt.Errorf("type %s needs a url", kind)
		}
		return TransportHTTP, nil
	case TransportSSE:
		if url == "" {
			return "", fmt.Errorf("type %s needs a url", kind)
		}
		return TransportSSE, nil
	}
	return "", fmt.Errorf("unknown transport %q: want stdio, http or sse", kind)
}

// mappingValue returns the value of key in mapping node m, or nil.
func mappingValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}
