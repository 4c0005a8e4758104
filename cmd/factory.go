package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/config"
	"github.com/mcpctl/mcpctl/internal/demo"
	"github.com/mcpctl/mcpctl/render"
	"github.com/mcpctl/mcpctl/transport"
)

// Version is mcpctl's version, set at build time with
// -ldflags "-X github.com/mcpctl/mcpctl/cmd.Version=v1.2.3".
var Version = "dev"

// Factory holds what every command needs. Dependencies that cost something
// to build are functions or are built on first use, so a command pays only
// for what it uses: `mcpctl version` reads no file.
type Factory struct {
	IOStreams *IOStreams
	// Environ returns the environment (os.Environ in production).
	Environ func() []string
	// Getwd returns the working directory, where project files naming
	// servers are looked for (os.Getwd in production).
	Getwd func() (string, error)
	// GOOS is the operating system whose file locations are used.
	GOOS string
	// ConfigFile is the --config flag: mcpctl's config file, or "" for
	// [config.DefaultPath].
	ConfigFile string

	// flagChanged reports whether the running command's flag was given on
	// the command line; set before the command runs.
	flagChanged func(name string) bool
	// loaded holds what was read from files, shared by copies of the
	// Factory.
	loaded *loaded
}

// loaded is what a Factory read from files, once per command run.
type loaded struct {
	config    *config.Config
	configErr error
	catalog   *config.Catalog
}

// NewFactory returns a Factory bound to ios.
func NewFactory(ios *IOStreams) *Factory {
	return &Factory{IOStreams: ios, Environ: os.Environ, Getwd: os.Getwd, GOOS: runtime.GOOS, loaded: &loaded{}}
}

func (f *Factory) state() *loaded {
	if f.loaded == nil {
		f.loaded = &loaded{}
	}
	return f.loaded
}

// host describes this machine's file locations.
func (f *Factory) host() config.Host {
	cwd := ""
	if f.Getwd != nil {
		cwd, _ = f.Getwd()
	}
	return config.HostFrom(f.Environ(), cwd, f.GOOS)
}

// Config loads mcpctl's config file on first use: --config, or the default
// place, where a missing file is an empty config.
func (f *Factory) Config() (*config.Config, error) {
	st := f.state()
	if st.config == nil && st.configErr == nil {
		path, explicit := f.ConfigFile, f.ConfigFile != ""
		if !explicit {
			path = config.DefaultPath(f.host())
		}
		st.config, st.configErr = config.Load(path, explicit)
		if st.configErr != nil {
			st.configErr = &FlagError{Err: st.configErr}
		}
	}
	return st.config, st.configErr
}

// Catalog finds every named server, on first use: mcpctl's config and the
// editors' files (see [config.Sources] for the order).
func (f *Factory) Catalog() (*config.Catalog, error) {
	st := f.state()
	if st.catalog == nil {
		cfg, err := f.Config()
		if err != nil {
			return nil, err
		}
		st.catalog = config.Discover(f.host(), cfg)
	}
	return st.catalog, nil
}

// changed reports whether the flag name was given on the command line.
func (f *Factory) changed(name string) bool {
	return f.flagChanged != nil && f.flagChanged(name)
}

// lookupEnv reads one variable of f.Environ.
func (f *Factory) lookupEnv(name string) (string, bool) {
	for _, kv := range f.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v, true
		}
	}
	return "", false
}

// ServerOptions select and configure the server a command talks to. They are
// filled by the flags of [addServerFlags] and the words after "--".
type ServerOptions struct {
	// Server names a server defined in mcpctl's config or an editor's file
	// (-s NAME); Connect fills the fields below from its definition.
	Server    string
	Demo      bool
	URL       string   // an HTTP server
	Transport string   // auto, http or sse, for URL
	Headers   []string // -H 'Name: value'
	// NamedHeaders are the headers of a named server's definition, already
	// expanded; -H wins over them.
	NamedHeaders    http.Header
	Bearer          string // env:VAR or file:PATH holding a bearer token
	CACert          string
	Insecure        bool
	Elicit          string   // how to answer elicitation/create; "" declares no elicitation
	Command         []string // the stdio server's argv, after "--"
	Env             []string // -e KEY=VAL for the stdio server
	Cwd             string
	Timeout         time.Duration
	ProtocolVersion string
	Trace           string // "", "-" (stderr) or a file
	ServerStderr    string // "" (stream to stderr), "quiet" or a file
	// Grace is how long a stdio server gets at each step of its shutdown;
	// zero means transport.DefaultGrace. Not a flag: completions shorten it.
	Grace   time.Duration
	Verbose bool
}

// addServerFlags registers the server selection flags on cmd.
func addServerFlags(cmd *cobra.Command, o *ServerOptions) {
	fs := cmd.Flags()
	fs.StringVarP(&o.Server, "server", "s", "", "Use the server `NAME` from mcpctl's config or an editor's MCP file (see mcpctl servers)")
	fs.BoolVar(&o.Demo, "demo", false, "Use the built-in demo server (in-process, nothing to install)")
	fs.StringVar(&o.URL, "url", "", "`URL` of an HTTP server (Streamable HTTP, or legacy HTTP+SSE)")
	fs.StringVar(&o.Transport, "transport", "auto", "HTTP transport for --url: auto, http (Streamable HTTP) or sse (legacy HTTP+SSE)")
	fs.StringArrayVarP(&o.Headers, "header", "H", nil, "Send the HTTP header `'Name: value'` (repeatable; ${VAR} is expanded from the environment)")
	fs.StringVar(&o.Bearer, "bearer", "", "Send Authorization: Bearer with the token in `env:VAR` or file:PATH")
	fs.StringVar(&o.CACert, "cacert", "", "Trust the CA certificates in PEM `FILE` for https")
	fs.BoolVar(&o.Insecure, "insecure", false, "Do not verify the server's TLS certificate (unsafe)")
	fs.StringVar(&o.Elicit, "elicit", "", "Answer the server's elicitation requests: accept-defaults, decline, cancel or @answers.json (declares the elicitation capability)")
	fs.StringArrayVarP(&o.Env, "env", "e", nil, "Set `KEY=VAL` in the stdio server's environment (repeatable)")
	fs.StringVar(&o.Cwd, "cwd", "", "Working `directory` for the stdio server")
	fs.DurationVar(&o.Timeout, "timeout", client.DefaultTimeout, "Timeout for each request to the server")
	fs.StringVar(&o.ProtocolVersion, "protocol-version", client.LatestProtocolVersion, "MCP protocol `version` to offer in initialize")
	markSetting(cmd, "timeout")
	markSetting(cmd, "protocol-version")
	fs.StringVar(&o.Trace, "trace", "", "Write every JSON-RPC message as NDJSON to `FILE` (- for stderr)")
	fs.StringVar(&o.ServerStderr, "server-stderr", "", "Where the stdio server's stderr goes: quiet, or a `FILE` (default: mcpctl's stderr)")
	fs.BoolVarP(&o.Verbose, "verbose", "v", false, "Show connection details on stderr, and which definition -s NAME uses")
	_ = cmd.RegisterFlagCompletionFunc("transport", cobra.FixedCompletions([]cobra.Completion{"auto", "http", "sse"}, cobra.ShellCompDirectiveNoFileComp))
}

// setServerArgs splits cobra's positional arguments at "--": the words after
// it are the stdio server's command line.
func setServerArgs(cmd *cobra.Command, args []string, o *ServerOptions) []string {
	if dash := cmd.ArgsLenAtDash(); dash >= 0 {
		o.Command = args[dash:]
		return args[:dash]
	}
	return args
}

// describe names the server for error messages.
func (o *ServerOptions) describe() string {
	if o.Server != "" {
		return fmt.Sprintf("server %q", o.Server)
	}
	if o.Demo {
		return "the demo server"
	}
	if o.URL != "" {
		if u, err := url.Parse(o.URL); err == nil {
			return u.Redacted()
		}
		return "the --url server"
	}
	return fmt.Sprintf("%q", strings.Join(o.Command, " "))
}

// validate checks the command line: one server chosen, and values that
// make sense. For -s NAME the checks that depend on the server's kind wait
// until its definition is known (see [Factory.resolve]).
func (o *ServerOptions) validate() error {
	chosen := 0
	for _, set := range []bool{o.Demo, o.URL != "", len(o.Command) > 0} {
		if set {
			chosen++
		}
	}
	switch {
	case o.Server != "" && chosen > 0:
		return flagErrorf("-s %s names the server already: drop --demo, --url or the command after --", o.Server)
	case chosen > 1:
		return flagErrorf("choose one server: --demo, --url URL, or a stdio command after --")
	case chosen == 0 && o.Server == "":
		return flagErrorf("no server given: pass -s NAME, --demo, --url URL, or a stdio server command after --, e.g. mcpctl list -- npx -y @modelcontextprotocol/server-everything")
	}
	return o.check()
}

// check validates the values of the options. Before a named server is
// resolved, what depends on its kind is left for later.
func (o *ServerOptions) check() error {
	unresolved := o.Server != "" && !o.Demo && o.URL == "" && len(o.Command) == 0
	switch {
	case !unresolved && o.URL == "" && (len(o.Headers) > 0 || o.Bearer != "" || o.CACert != "" || o.Insecure):
		return flagErrorf("-H, --bearer, --cacert and --insecure apply to --url servers only")
	case o.Timeout <= 0:
		return flagErrorf("--timeout must be positive, got %s", o.Timeout)
	}
	if o.URL != "" {
		u, err := url.Parse(o.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return flagErrorf("invalid --url %q: expected an http:// or https:// URL", config.RedactURL(o.URL))
		}
		switch o.Transport {
		case "auto", "http", "sse":
		default:
			return flagErrorf("invalid --transport %q: expected auto, http or sse", o.Transport)
		}
	}
	for _, kv := range o.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return flagErrorf("invalid -e %q: expected KEY=VAL", kv)
		}
	}
	if o.ProtocolVersion != "" {
		known := false
		for _, v := range client.SupportedProtocolVersions() {
			known = known || v == o.ProtocolVersion
		}
		if !known {
			return flagErrorf("unsupported --protocol-version %q (supported: %s)", o.ProtocolVersion, strings.Join(client.SupportedProtocolVersions(), ", "))
		}
	}
	return nil
}

// resolve returns o with the named server's definition filled in: its
// command, environment and folder, or its URL, headers and transport, with
// ${…} references expanded. Flags given on the command line win: -e, -H,
// --cwd, --transport and --timeout.
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
	h := f.host()
	def, err = def.Expand(config.Expander{LookupEnv: f.lookupEnv, Home: h.Home, Cwd: h.Cwd, Input: f.askInput})
	if err != nil {
		return nil, &FlagError{Err: err}
	}
	r := *o
	if def.Transport == config.TransportStdio {
		r.Command = append([]string{def.Command}, def.Args...)
		env := make([]string, 0, len(def.Env)+len(o.Env))
		for _, k := range slices.Sorted(maps.Keys(def.Env)) {
			env = append(env, k+"="+def.Env[k])
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
	} else {
		r.URL = def.URL
		if !f.changed("transport") {
			r.Transport = def.Transport
		}
		if len(def.Headers) > 0 {
			r.NamedHeaders = http.Header{}
			for k, v := range def.Headers {
				r.NamedHeaders.Set(k, v)
			}
		}
	}
	if def.Timeout > 0 && !f.changed("timeout") {
		r.Timeout = def.Timeout
	}
	if err := r.check(); err != nil {
		return nil, &FlagError{Err: fmt.Errorf("server %q from %s: %w", def.Name, def.File, err)}
	}
	return &r, nil
}

// session is a connected client plus what must be released with it.
type session struct {
	*client.Client
	closers []func() error
	name    string
}

// Close ends the session and releases its files.
func (s *session) Close() error {
	var errs []error
	if s.Client != nil {
		errs = append(errs, s.Client.Close())
	}
	for _, c := range s.closers {
		errs = append(errs, c())
	}
	return errors.Join(errs...)
}

// transportFunc adapts a function to [transport.Transport].
type transportFunc func(ctx context.Context) (transport.Connection, error)

func (f transportFunc) Connect(ctx context.Context) (transport.Connection, error) { return f(ctx) }

// Connect starts or reaches the server described by o and performs the MCP
// handshake. The caller must Close the session.
func (f *Factory) Connect(ctx context.Context, o *ServerOptions) (*session, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	o, err := f.resolve(o)
	if err != nil {
		return nil, err
	}
	ios := f.IOStreams
	s := &session{name: o.describe()}
	opts := client.Options{
		ClientInfo:      client.Implementation{Name: "mcpctl", Version: Version},
		ProtocolVersion: o.ProtocolVersion,
		Timeout:         o.Timeout,
		OnNotification:  f.notificationPrinter(),
		OnEvent:         f.eventPrinter(o.Verbose),
		OnProtocolWarning: func(msg string) {
			fmt.Fprintln(ios.ErrOut, "mcpctl: protocol violation: "+msg)
		},
	}
	if o.Elicit != "" {
		el, err := elicitation(o.Elicit)
		if err != nil {
			return nil, err
		}
		opts.Capabilities = map[string]any{"elicitation": el.Capability()}
		opts.Handlers = map[string]client.RequestHandler{"elicitation/create": el.Handler()}
	}
	t, err := f.transport(o, s)
	if err != nil {
		s.Close()
		return nil, err
	}
	c, err := client.Connect(ctx, t, opts)
	if err != nil {
		s.Close()
		var connErr *transport.ConnectError
		if errors.As(err, &connErr) {
			// It names the URL already: "connecting to URL: connection refused".
			return nil, connErr
		}
		return nil, fmt.Errorf("connecting to %s: %w", s.name, err)
	}
	s.Client = c
	if o.Verbose {
		info := c.InitializeResult().ServerInfo
		fmt.Fprintf(ios.ErrOut, "connected to %s %s (protocol %s) in %s\n", info.Name, info.Version, c.ProtocolVersion(), c.HandshakeTime().Round(time.Microsecond))
	}
	return s, nil
}

// transport builds the transport o describes, wrapped in a trace when
// --trace is given. Files it opens are closed with s.
func (f *Factory) transport(o *ServerOptions, s *session) (transport.Transport, error) {
	ios := f.IOStreams
	var tr *transport.Trace
	if o.Trace != "" {
		w := ios.ErrOut
		if o.Trace != "-" {
			file, err := os.Create(o.Trace)
			if err != nil {
				return nil, fmt.Errorf("opening --trace file: %w", err)
			}
			s.closers = append(s.closers, file.Close)
			w = file
		}
		tr = &transport.Trace{W: w}
	}
	var t transport.Transport
	switch {
	case o.Demo:
		t = transportFunc(func(ctx context.Context) (transport.Connection, error) {
			clientConn, serverConn := transport.NewPipe()
			go func() { _ = demo.Serve(context.Background(), serverConn) }()
			return clientConn, nil
		})
	case o.URL != "":
		httpOpts, err := httpOptions(o, f.Environ, ios)
		if err != nil {
			return nil, err
		}
		for name, values := range o.NamedHeaders {
			if _, set := httpOpts.Header[name]; !set {
				httpOpts.Header[name] = values
			}
		}
		if tr != nil {
			// The trace shows which transport auto-detection chose.
			httpOpts.OnEvent = tr.Note
		}
		if t, err = transport.NewHTTPTransport(o.Transport, httpOpts); err != nil {
			return nil, flagErrorf("%v", err)
		}
	default:
		var stderr io.Writer
		switch o.ServerStderr {
		case "":
			dim := render.DimWriter(ios.ErrOut, ios.ColorErrEnabled())
			// The transport stops writing to stderr when it is closed; a last
			// line without a newline is flushed then.
			s.closers = append(s.closers, dim.Flush)
			stderr = dim
		case "quiet":
		default:
			file, err := os.Create(o.ServerStderr)
			if err != nil {
				return nil, fmt.Errorf("opening --server-stderr file: %w", err)
			}
			s.closers = append(s.closers, file.Close)
			stderr = file
		}
		t = &transport.Command{
			Path:   o.Command[0],
			Args:   o.Command[1:],
			Env:    o.Env,
			Dir:    o.Cwd,
			Stderr: stderr,
			Warn:   ios.ErrOut,
			Grace:  o.Grace,
		}
	}
	if tr != nil {
		tr.Transport = t
		return tr, nil
	}
	return t, nil
}
