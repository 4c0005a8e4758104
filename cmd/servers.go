package cmd

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/config"
	"github.com/mcpctl/mcpctl/render"
)

// ServersOptions are the options of `mcpctl servers` (the list).
type ServersOptions struct {
	Factory *Factory
	Output  OutputOptions
}

// NewCmdServers builds `mcpctl servers` and its subcommands. runF replaces
// the list's run function in tests.
func NewCmdServers(f *Factory, runF func(*ServersOptions) error) *cobra.Command {
	opts := &ServersOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "servers [flags]",
		Short: "List, add, show and remove named servers",
		Long: `List every named server mcpctl knows, for use with -s NAME on any command
that talks to a server. Servers come from mcpctl's own config file and from
the MCP files of editors and agents, in this order of precedence (a name
defined in several places is taken from the first):

  1. mcpctl's config file: --config FILE, else
     $XDG_CONFIG_HOME/mcpctl/config.yaml or ~/.config/mcpctl/config.yaml
  2. user files: ~/.claude.json (Claude Code: the current project's servers,
     then the top-level ones), ~/.cursor/mcp.json (Cursor),
     claude_desktop_config.json (Claude Desktop: ~/.config/Claude on Linux,
     ~/Library/Application Support/Claude on macOS, %APPDATA%\Claude on
     Windows), ~/.codeium/windsurf/mcp_config.json (Windsurf), and VS Code's
     user mcp.json (Code/User/ next to Claude Desktop's folder)
  3. project files, in the working directory, then each parent up to the
     repository root or your home folder: .mcp.json (Claude Code),
     .cursor/mcp.json (Cursor), .vscode/mcp.json (VS Code). A file not
     yours, or writable by others, is ignored with a warning.

A project file comes with the repository, so its servers need your
approval: until mcpctl servers trust NAME (or a yes on the terminal), -s
NAME neither starts nor contacts one and expands none of its ${…}
references; an edit to the entry asks again. A project server never
replaces your own of the same name: yours is used, with a warning, and
-s project:NAME picks the project's.

-v on a command says which definition -s picked. In definitions, ${VAR}
and ${env:VAR} are environment variables (${VAR:-default} too), and VS
Code's ${input:ID} is asked for on the terminal, or taken from
MCPCTL_INPUT_ID (the ID in upper case, other characters as _).

The list (NAME, SOURCE, KIND, TARGET, TRUST) runs and contacts nothing;
-o json prints {"servers": [...]}. The guide: docs/servers.md.`,
		Example: `  mcpctl servers
  mcpctl servers add everything -- npx -y @modelcontextprotocol/server-everything
  mcpctl servers add remote --url https://example.com/mcp -H 'Authorization: Bearer ${TOKEN}'
  mcpctl servers show everything
  mcpctl list -s everything
  mcpctl servers -o json --jq '.servers[].name'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.Output.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return serversRun(opts)
		},
	}
	addOutputFlags(cmd, &opts.Output)
	cmd.AddCommand(newCmdServersList(f), newCmdServersAdd(f, nil), newCmdServersShow(f), newCmdServersRemove(f),
		newCmdServersTrust(f, false), newCmdServersTrust(f, true), newCmdServersWrap(f), newCmdServersUnwrap(f))
	return cmd
}

func newCmdServersList(f *Factory) *cobra.Command {
	opts := &ServersOptions{Factory: f}
	cmd := &cobra.Command{
		Use:     "list [flags]",
		Aliases: []string{"ls"},
		Short:   "List named servers (the same as mcpctl servers)",
		Example: "  mcpctl servers list -o json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.Output.validate(); err != nil {
				return err
			}
			return serversRun(opts)
		},
	}
	addOutputFlags(cmd, &opts.Output)
	return cmd
}

// serverEntry is one line of the list, and its -o json form.
type serverEntry struct {
	Name     string `json:"name"`
	Origin   string `json:"origin"`
	File     string `json:"file"`
	Scope    string `json:"scope"`
	Kind     string `json:"kind"`
	Target   string `json:"target"`
	Trust    string `json:"trust"`
	Shadowed bool   `json:"shadowed"`
}

func serversRun(opts *ServersOptions) error {
	f := opts.Factory
	cat, err := f.Catalog()
	if err != nil {
		return err
	}
	p := f.printer()
	for _, pr := range cat.Problems {
		p.Warning(pr.Error())
	}
	// Without a store every project entry reads as untrusted, as -s
	// would treat it.
	store, err := f.trustStore()
	if err != nil {
		p.Warning(err.Error())
		store = &config.TrustStore{}
	}
	seen := map[string]bool{}
	entries := make([]serverEntry, 0, len(cat.Servers))
	for _, s := range cat.Servers {
		entries = append(entries, serverEntry{
			Name: s.Name, Origin: s.Origin, File: s.File, Scope: s.Scope,
			Kind: s.Transport, Target: target(s), Trust: store.State(s), Shadowed: seen[s.Name],
		})
		seen[s.Name] = true
	}
	// By name; for one name, in order of precedence.
	slices.SortStableFunc(entries, func(a, b serverEntry) int { return strings.Compare(a.Name, b.Name) })
	if opts.Output.structured() {
		return opts.Output.write(p, map[string]any{"servers": entries})
	}
	home := f.host().Home
	rows := make([][]string, 0, len(entries))
	for _, e := range entries {
		name, file := e.Name, e.File
		if p.TTY {
			if e.Shadowed {
				name += " (shadowed)"
			}
			file = tildePath(file, home)
		}
		rows = append(rows, []string{name, file, e.Kind, e.Target, e.Trust})
	}
	// The file is whole so it can be opened; the target wraps.
	cols := []render.Column{{Header: "NAME", Whole: true}, {Header: "SOURCE", Whole: true}, {Header: "KIND", Whole: true}, {Header: "TARGET"}, {Header: "TRUST", Whole: true}}
	return p.Columns(cols, rows, "No named servers: add one with mcpctl servers add, or define one in an editor's MCP file.")
}

// target is the command line or URL of a server for lists, with URLs (also
// in arguments, as mcp-remote takes them) stripped of credentials.
func target(s config.Server) string {
	if s.Transport != config.TransportStdio {
		return config.RedactURL(s.URL)
	}
	words := append([]string{s.Command}, s.Args...)
	for i, w := range words {
		words[i] = quoteWord(redactURLWord(w))
	}
	return strings.Join(words, " ")
}

// redactURLWord redacts w if it is an http(s) URL.
func redactURLWord(w string) string {
	if u, err := url.Parse(w); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return config.RedactURL(w)
	}
	return w
}

// quoteWord quotes a command-line word that would otherwise read as two.
func quoteWord(w string) string {
	if w == "" || strings.ContainsAny(w, " \t\n\"'") {
		return fmt.Sprintf("%q", w)
	}
	return w
}

// tildePath writes a path under home as ~/….
func tildePath(path, home string) string {
	if home != "" && home != "/" {
		if rest, ok := strings.CutPrefix(path, strings.TrimRight(home, `/\`)); ok && (rest == "" || rest[0] == '/' || rest[0] == '\\') {
			return "~" + rest
		}
	}
	return path
}

// ServersAddOptions are the options of `mcpctl servers add`.
type ServersAddOptions struct {
	Factory *Factory
	Name    string
	// Server is the definition, from the same server flags every command
	// takes (those a definition holds); a zero Timeout or MaxMessageSize
	// means none of the server's own.
	Server ServerOptions
	Force  bool
}

func newCmdServersAdd(f *Factory, runF func(*ServersAddOptions) error) *cobra.Command {
	opts := &ServersAddOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "add <name> {--url URL | -- command [args...]} [flags]",
		Short: "Add a named server to mcpctl's config file",
		Long: `Add a server to the servers: map of mcpctl's config file (--config FILE, or
$XDG_CONFIG_HOME/mcpctl/config.yaml, else ~/.config/mcpctl/config.yaml),
creating the file and its folder if needed; the rest of the file, comments
included, is kept. A stdio server is the command after --, with -e KEY=VAL
--cwd and --inherit-env; an HTTP server is --url, with -H 'Name: value' and
--transport; both take --timeout and --max-message-size.
Values are written as given: write ${VAR} (quoted against the shell) to
keep a secret in the environment rather than in the file. A name already in
the file is replaced only with --force. mcpctl's config comes first, so the
server shadows any editor's server of the same name.`,
		Example: `  mcpctl servers add everything -- npx -y @modelcontextprotocol/server-everything
  mcpctl servers add github --url https://api.githubcopilot.com/mcp/ -H 'Authorization: Bearer ${GITHUB_TOKEN}'
  mcpctl servers add weather -e API_KEY='${WEATHER_KEY}' --timeout 2m -- python3 weather.py`,
		RunE: func(cmd *cobra.Command, args []string) error {
			args = setServerArgs(cmd, args, &opts.Server)
			if len(args) != 1 {
				return flagErrorf("servers add takes one name, then --url URL or -- command, e.g. mcpctl servers add everything -- npx -y @modelcontextprotocol/server-everything")
			}
			opts.Name = args[0]
			if runF != nil {
				return runF(opts)
			}
			return serversAddRun(opts)
		},
	}
	registerServerFlags(cmd, &opts.Server, defineFlags)
	cmd.Flags().BoolVar(&opts.Force, "force", false, "Replace a server of the same name in mcpctl's config")
	return cmd
}

func serversAddRun(opts *ServersAddOptions) error {
	f := opts.Factory
	s, err := opts.Server.definition(opts.Name)
	if err != nil {
		return err
	}
	path, err := f.configPath()
	if err != nil {
		return err
	}
	if err := config.AddServer(path, s, opts.Force); err != nil {
		var invalid *config.InvalidError
		switch {
		case errors.Is(err, config.ErrExists):
			return flagErrorf("%v; --force replaces it", err)
		case errors.As(err, &invalid):
			return &FlagError{Err: err}
		}
		// The file could not be read or written: not a usage error.
		return fmt.Errorf("adding server %q: %w", s.Name, err)
	}
	msg := fmt.Sprintf("added server %q to %s", s.Name, path)
	if cat, err := f.Catalog(); err == nil {
		for _, other := range cat.Servers {
			if other.Name == s.Name && other.Origin != config.OriginMcpctl {
				msg += fmt.Sprintf("; it shadows the one in %s (%s)", other.File, other.Origin)
			}
		}
	}
	fmt.Fprintln(f.IOStreams.ErrOut, msg)
	return nil
}

// configPath is where mcpctl's config file is, or would be created.
func (f *Factory) configPath() (string, error) {
	if f.ConfigFile != "" {
		return f.ConfigFile, nil
	}
	if p := config.DefaultPath(f.host()); p != "" {
		return p, nil
	}
	return "", flagErrorf("no place for mcpctl's config file: neither HOME nor XDG_CONFIG_HOME is set; name one with --config FILE")
}
