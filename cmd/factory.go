package cmd

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/config"
	"github.com/mcpctl/mcpctl/render"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/session"
	"github.com/mcpctl/mcpctl/signing"
	"github.com/mcpctl/mcpctl/transport"
)

// Version, Commit and Date are what a release build stamps into the binary
// with -ldflags "-X github.com/mcpctl/mcpctl/cmd.Version=v1.2.3" (and
// cmd.Commit, cmd.Date: the full commit hash and its RFC 3339 time; see
// .goreleaser.yaml). Left as they are, `mcpctl version` reads the Go
// toolchain's build info instead, which `go build` and `go install` record.
var (
	Version = "dev"
	Commit  = ""
	Date    = ""
)

// Factory holds what every command needs: the streams, the environment
// and the working directory, injected, and dependencies built on first use
// from them, so a command pays only for what it uses: `mcpctl version`
// reads no file. It holds no flag values besides --config and no state set
// by one command for another: what a command line gives reaches the
// factory's methods through the options passed to them.
//
// One Factory serves one command run; the dependencies it builds (the
// config, the catalog of named servers, the redactor) are the run's.
type Factory struct {
	IOStreams *IOStreams
	// Environ returns the environment (os.Environ in production). It is
	// the one source of environment variables for settings (MCPCTL_*),
	// key loading (env:NAME), ${VAR} expansion and the stdio server's
	// environment, so tests give each run its own and run in parallel.
	Environ func() []string
	// Getwd returns the working directory, where project files naming
	// servers are looked for (os.Getwd in production).
	Getwd func() (string, error)
	// GOOS is the operating system whose file locations are used.
	GOOS string
	// ConfigFile is the --config flag: mcpctl's config file, or "" for
	// [config.DefaultPath].
	ConfigFile string
	// LoadConfig reads mcpctl's config file (config.Load in production).
	LoadConfig func(path string, explicit bool, lookupEnv config.LookupEnv) (*config.Config, error)
	// Discover reads the editors' files naming servers (config.Discover in
	// production).
	Discover func(h config.Host, c *config.Config) *config.Catalog
	// Hurry is closed when the user asks a second time to stop (a second
	// Ctrl-C): a shutdown in progress stops waiting and kills what it
	// started. Nil never hurries.
	Hurry <-chan struct{}

	// built holds what was built on first use, shared by copies of the
	// Factory (see quiet).
	built *built
	// shared, when set, is the session Connect lends instead of
	// connecting: the shell's copy of the Factory runs many commands in
	// one session (see [Factory.sharing]).
	shared *session.Session
}

// built is what a Factory built for its command run. Its parts are built
// on first use under its locks, so sessions may be opened concurrently
// (mcpctl test --parallel).
type built struct {
	mu        sync.Mutex // guards redactor, warner and results
	configMu  sync.Mutex // guards config and configErr
	catalogMu sync.Mutex // guards catalog; held while the config is read
	config    *config.Config
	configErr error
	catalog   *config.Catalog
	redactor  *transport.Redactor
	warner    *render.Warner
	utf8Once  sync.Once
	textOnce  sync.Once // the warning of invalid UTF-8 in text output
	results   *session.ResultChecks
	schemas   schema.Cache // tools' schemas, compiled once a run
}

// toolSchema compiles a tool's inputSchema or outputSchema once per run
// for the same text (see [schema.Cache]): the shell's lines and the
// factory's copies share the run's cache.
func (f *Factory) toolSchema(raw json.RawMessage) (*schema.Schema, error) {
	return f.state().schemas.Compile(raw)
}

// parseToolArgs parses KEY=VALUE words typed by tool's inputSchema. A
// schema that does not compile types nothing (argumentsCheck says so).
func (f *Factory) parseToolArgs(tool *client.Tool, words []string, opts schema.ArgOptions) (map[string]any, error) {
	if sch, err := f.toolSchema(tool.InputSchema); err == nil {
		return sch.ParseArgs(words, opts)
	}
	return schema.ParseArgs(words, nil, opts)
}

// NewFactory returns a Factory bound to ios and the process's environment,
// working directory and files.
func NewFactory(ios *IOStreams) *Factory {
	return &Factory{IOStreams: ios, Environ: os.Environ, Getwd: os.Getwd, GOOS: runtime.GOOS,
		LoadConfig: config.Load, Discover: config.Discover, built: &built{}}
}

func (f *Factory) state() *built {
	if f.built == nil {
		f.built = &built{}
	}
	return f.built
}

// host describes this machine's file locations.
func (f *Factory) host() config.Host {
	cwd := ""
	if f.Getwd != nil {
		cwd, _ = f.Getwd()
	}
	return config.HostFrom(f.environ(), cwd, f.GOOS)
}

// home is the home folder of mcpctl's environment, or "". Not f.host():
// it needs no working directory.
func (f *Factory) home() string { return config.HostFrom(f.environ(), "", f.GOOS).Home }

func (f *Factory) environ() []string {
	if f.Environ == nil {
		return nil
	}
	return f.Environ()
}

// LookupEnv reads one variable of [Factory.Environ], as os.LookupEnv does.
func (f *Factory) LookupEnv(name string) (string, bool) {
	env := f.environ()
	// The last entry wins, as in a process environment.
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v, true
		}
	}
	return "", false
}

// Redactor is the run's one redactor: every secret the command line and
// the named server give (-H values, the --bearer token, -e values, the
// definition's env and header values, keys loaded with [Factory.LoadKey])
// is added to it, and every path that prints or traces text uses it.
func (f *Factory) Redactor() *transport.Redactor {
	st := f.state()
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.redactor == nil {
		st.redactor = transport.NewRedactor()
	}
	return st.redactor
}

// Warner is the run's one sink for warnings that may repeat (protocol
// violations, schema violations of results): the first few of each kind
// are printed, the rest counted and summed up when the run ends.
func (f *Factory) Warner() *render.Warner {
	st := f.state()
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.warner == nil {
		ios := f.IOStreams
		st.warner = &render.Warner{Out: ios.ErrOut, Terminal: ios.IsStderrTTY() || ios.ColorErrEnabled()}
	}
	return st.warner
}

// LoadKey loads the key the value spec of flag names (env:NAME from
// [Factory.Environ], or file:PATH) and adds it to the run's redactor. A bad
// spec, an unset variable or an unreadable file is a usage error naming
// flag; no message holds the key.
func (f *Factory) LoadKey(flag, spec string) ([]byte, error) {
	key, err := signing.LoadKeyFrom(spec, f.LookupEnv)
	if err != nil {
		return nil, &FlagError{Err: fmt.Errorf("--%s: %w", flag, err)}
	}
	f.Redactor().Add(string(key))
	return key, nil
}

// Config loads mcpctl's config file on first use: --config, or the default
// place, where a missing file is an empty config.
func (f *Factory) Config() (*config.Config, error) {
	st := f.state()
	st.configMu.Lock()
	defer st.configMu.Unlock()
	if st.config == nil && st.configErr == nil {
		path, explicit := f.ConfigFile, f.ConfigFile != ""
		if !explicit {
			path = config.DefaultPath(f.host())
		}
		load := f.LoadConfig
		if load == nil {
			load = config.Load
		}
		st.config, st.configErr = load(path, explicit, f.LookupEnv)
		if st.configErr != nil {
			st.configErr = &FlagError{Err: st.configErr}
		} else {
			f.warnUnknownKeys(st.config)
		}
	}
	return st.config, st.configErr
}

// Catalog finds every named server, on first use: mcpctl's config and the
// editors' files (see [config.Sources] for the order).
func (f *Factory) Catalog() (*config.Catalog, error) {
	st := f.state()
	st.catalogMu.Lock()
	defer st.catalogMu.Unlock()
	if st.catalog == nil {
		cfg, err := f.Config()
		if err != nil {
			return nil, err
		}
		discover := f.Discover
		if discover == nil {
			discover = config.Discover
		}
		st.catalog = discover(f.host(), cfg)
	}
	return st.catalog, nil
}

// resolve returns o with the named server's definition filled in: its
// command, environment and folder, or its URL, headers and transport, with
// ${…} references expanded. Flags given on the command line (o.Given) win
// over the definition's settings: -e, -H, --cwd, --transport, --timeout,
// --max-message-size and --inherit-env.
func (f *Factory) resolve(o *ServerOptions) (*ServerOptions, error) {
	if o.Server == "" {
		return o, nil
	}
	cat, err := f.Catalog()
	if err != nil {
		return nil, err
	}
	def, shadowed, err := cat.Find(o.Server)
	if err != nil {
		return nil, &FlagError{Err: err}
	}
	if o.Verbose {
		msg := fmt.Sprintf("using server %q from %s (%s)", def.Name, def.File, def.Origin)
		for _, sh := range shadowed {
			msg += fmt.Sprintf("; it shadows the one in %s (%s)", sh.File, sh.Origin)
		}
		fmt.Fprintln(f.IOStreams.ErrOut, msg)
	}
	// A project's entry is neither started nor expanded unless approved.
	if def, err = f.vetNamed(cat, def, shadowed); err != nil {
		return nil, err
	}
	return f.resolveDef(o, def)
}

// resolveDef returns o with the server definition def filled in (see
// resolve), def already vetted.
func (f *Factory) resolveDef(o *ServerOptions, def config.Server) (*ServerOptions, error) {
	h := f.host()
	def, err := def.Expand(config.Expander{LookupEnv: f.LookupEnv, Home: h.Home, Cwd: h.Cwd, Input: f.askInput})
	if err != nil {
		return nil, &FlagError{Err: err}
	}
	r := *o
	red := f.Redactor()
	if def.Transport == config.TransportStdio {
		r.Command = append([]string{def.Command}, def.Args...)
		env := make([]string, 0, len(def.Env)+len(o.Env))
		for _, k := range slices.Sorted(maps.Keys(def.Env)) {
			env = append(env, k+"="+def.Env[k])
			addEnvSecret(red, def.Env[k])
		}
		// Later entries win in a process environment: -e goes last.
		r.Env = append(env, o.Env...)
		if r.Cwd == "" {
			r.Cwd = def.Cwd
		}
		if r.Cwd == "" {
			// As the editors do: a project's server starts in the project.
			r.Cwd = def.Dir
		}
		if def.InheritEnv && !o.Given["inherit-env"] {
			r.InheritEnv = true
		}
	} else {
		r.URL = def.URL
		r.Auth = mergeAuth(o.Auth, def.Auth)
		if !o.Given["transport"] {
			r.Transport = def.Transport
		}
		if len(def.Headers) > 0 {
			r.NamedHeaders = http.Header{}
			for k, v := range def.Headers {
				r.NamedHeaders.Set(k, v)
				addHeaderSecret(red, k, v)
			}
		}
	}
	if def.Timeout > 0 && !o.Given["timeout"] {
		r.Timeout = def.Timeout
	}
	if def.MaxMessageSize > 0 && !o.Given["max-message-size"] {
		r.MaxMessageSize = def.MaxMessageSize
	}
	if r.Policy.File == "" && def.Policy != "" {
		r.Policy.File, r.Policy.From = def.Policy, fmt.Sprintf("server %q in %s", def.Name, def.File)
	}
	if def.Era != "" && !o.Given["era"] {
		r.Era = def.Era
	}
	if err := r.check(); err != nil {
		return nil, &FlagError{Err: fmt.Errorf("server %q from %s: %w", def.Name, def.File, err)}
	}
	return &r, nil
}

// addHeaderSecret adds the value of header name to the redactor, and the
// credential of an "Scheme credential" value (Bearer, Basic, …) on its own
// too: an error message may echo the token without its scheme. Headers
// that describe content rather than grant access are left out: hiding
// "application/json" everywhere would hide the reason of many errors.
func addHeaderSecret(r *transport.Redactor, name, value string) {
	switch http.CanonicalHeaderKey(name) {
	case "Accept", "Content-Type", "User-Agent", "Accept-Language", "Accept-Encoding":
		return
	}
	r.Add(value)
	if _, cred, ok := strings.Cut(strings.TrimSpace(value), " "); ok {
		r.Add(cred)
	}
}

// addEnvSecret adds an environment value to the redactor, unless it is a
// boolean or a number: hiding every "true" or "8080" in messages would make
// them unreadable and protect nothing.
func addEnvSecret(r *transport.Redactor, value string) {
	if _, err := strconv.ParseBool(value); err == nil {
		return
	}
	if _, err := strconv.ParseFloat(value, 64); err == nil {
		return
	}
	r.Add(value)
}
