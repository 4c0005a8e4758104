package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpctl/mcpctl/auth"
	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/config"
	"github.com/mcpctl/mcpctl/internal/demo"
	"github.com/mcpctl/mcpctl/render"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/signing"
	"github.com/mcpctl/mcpctl/transport"
)

// Version is mcpctl's version, set at build time with
// -ldflags "-X github.com/mcpctl/mcpctl/cmd.Version=v1.2.3".
var Version = "dev"

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
	shared *session
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
	results   *resultChecks
	schemas   schema.Cache // tools' schemas, compiled once a run
}

// toolSchema compiles a tool's inputSchema or outputSchema once per run
// for the same text (see [schema.Cache]): the shell's lines and the
// factory's copies share the run's cache.
func (f *Factory) toolSchema(raw json.RawMessage) (*schema.Schema, error) {
	return f.state().schemas.Compile(raw)
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
	h := f.host()
	def, err = def.Expand(config.Expander{LookupEnv: f.LookupEnv, Home: h.Home, Cwd: h.Cwd, Input: f.askInput})
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

// session is a connected client plus what must be released with it.
type session struct {
	*client.Client
	closers []func() error
	name    string
	// conn is the transport's own connection (under any trace), which a
	// hurried Close kills.
	conn transport.Connection
	// hurry, when closed, makes Close stop waiting (see [Factory.Hurry]).
	hurry <-chan struct{}
	// lent says the session belongs to another (the shell): Close leaves
	// it open.
	lent bool
	// roots are the roots --root gave, nil without: a session that changes
	// them tells the server with NotifyRootsChanged.
	roots *client.Roots
	// guard checks and records the requests a policy and an audit trail
	// govern (guard.go); nil lets everything through.
	guard *guard
	// book remembers the tools listed this session, for the guard.
	book *toolBook
}

// Close ends the session and releases its files. When hurry is closed
// before the server has exited (a second Ctrl-C), it kills the server at
// once and returns without waiting for the rest of the shutdown.
func (s *session) Close() error {
	if s.lent {
		return nil
	}
	return closeHurried(s.close, s.kill, s.hurry)
}

// sharing returns a copy of f whose Connect lends s, open, to every
// command run with it, and whose commands use ios.
func (f *Factory) sharing(s *session, ios *IOStreams) *Factory {
	c := *f
	c.shared = s
	c.IOStreams = ios
	return &c
}

func (s *session) close() error {
	var errs []error
	if s.Client != nil {
		errs = append(errs, s.Client.Close())
	}
	for _, c := range s.closers {
		errs = append(errs, c())
	}
	return errors.Join(errs...)
}

// killer is a connection whose peer can be stopped at once, without the
// polite steps of Close.
//
// [transport.Command]'s connection implements it: SIGKILL to the server's
// process group.
type killer interface{ Kill() error }

func (s *session) kill() {
	if k, ok := s.conn.(killer); ok {
		_ = k.Kill()
	}
}

// errHurried is what a hurried Close returns.
var errHurried = errors.New("interrupted again: stopped waiting for the server to exit")

// closeHurried runs closeFn, and returns early, after calling kill, if
// hurry is closed first.
func closeHurried(closeFn func() error, kill func(), hurry <-chan struct{}) error {
	if hurry == nil {
		return closeFn()
	}
	select {
	case <-hurry:
		kill()
		return errHurried
	default:
	}
	done := make(chan error, 1)
	go func() { done <- closeFn() }()
	select {
	case err := <-done:
		return err
	case <-hurry:
		kill()
		return errHurried
	}
}

// transportFunc adapts a function to [transport.Transport].
type transportFunc func(ctx context.Context) (transport.Connection, error)

func (f transportFunc) Connect(ctx context.Context) (transport.Connection, error) { return f(ctx) }

// keepConn wraps t so that the connection it makes is kept in s.conn. The
// wrapper still describes itself as t does (a trace records it).
func keepConn(t transport.Transport, s *session) transport.Transport {
	k := transportFunc(func(ctx context.Context) (transport.Connection, error) {
		conn, err := t.Connect(ctx)
		s.conn = conn
		return conn, err
	})
	if str, ok := t.(fmt.Stringer); ok {
		return describedTransport{k, str}
	}
	return k
}

// describedTransport is a transport with the description of another.
type describedTransport struct {
	transport.Transport
	fmt.Stringer
}

// Connect starts or reaches the server described by o and performs the MCP
// handshake. The caller must Close the session.
func (f *Factory) Connect(ctx context.Context, o *ServerOptions) (*session, error) {
	if f.shared != nil {
		lent := *f.shared
		lent.lent = true
		return &lent, nil
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	o, err := f.resolve(o)
	if err != nil {
		return nil, err
	}
	// On a terminal, a spinner while the server starts and handshakes,
	// erased before anything is printed.
	f, stopSpinner := f.spinning(o.describe())
	defer stopSpinner()
	ios := f.IOStreams
	red := f.Redactor()
	s := &session{name: o.describe(), hurry: f.Hurry, book: &toolBook{}}
	if s.guard, err = f.guardFor(o); err != nil {
		return nil, err
	}
	era := o.era()
	eraKey := ""
	opts := client.Options{
		ClientInfo:      client.Implementation{Name: "mcpctl", Version: Version},
		ProtocolVersion: o.ProtocolVersion,
		Era:             era,
		Timeout:         o.Timeout,
		OnNotification:  o.OnNotification,
		OnEvent:         f.eventPrinter(o.Verbose),
		OnProtocolWarning: func(msg string) {
			f.Warner().Warn(violationKind, protocolViolation(red.String(msg)))
			if o.OnStdoutNoise != nil && !o.Demo && o.URL == "" && strings.HasPrefix(msg, "ignoring a message from the server that is ") {
				// JSON on a stdio server's stdout, but not a JSON-RPC message.
				o.OnStdoutNoise(red.String(msg))
			}
		},
	}
	if opts.OnNotification == nil {
		opts.OnNotification = f.notificationPrinter()
	}
	// Roots, sampling and elicitation (features.go): declared only when
	// answered.
	feats, err := f.features(o)
	if err != nil {
		return nil, err
	}
	if len(feats.Capabilities) > 0 {
		opts.Capabilities, opts.Handlers = feats.Capabilities, feats.Handlers
	}
	s.roots = feats.Roots
	if len(o.Extensions) > 0 {
		if opts.Capabilities == nil {
			opts.Capabilities = map[string]any{}
		}
		opts.Capabilities["extensions"] = o.Extensions
	}
	if era == config.EraAuto {
		if o.URL == "" && !o.Demo {
			// stdio: a legacy server may ignore the probe.
			opts.ProbeTimeout = client.DefaultProbeTimeout
		}
		eraKey = o.eraKey()
		if !o.FreshEra {
			opts.KnownEra = f.knownEra(eraKey)
		}
	}
	if !o.LintsResults {
		rc := f.resultChecks(o.Strict)
		// The revision results are likely to come in, compiled while the
		// server starts.
		likely := o.ProtocolVersion
		if likely == "" {
			likely = client.LatestProtocolVersion
			if era == config.EraModern || opts.KnownEra == config.EraModern {
				likely = client.ModernProtocolVersion
			}
		}
		rc.prepare(likely)
		opts.OnResult = rc.check
	}
	t, err := f.transport(o, s)
	if err != nil {
		s.Close()
		return nil, err
	}
	c, err := client.Connect(ctx, t, opts)
	if err != nil {
		s.Close()
		// An authorization that failed says so without the transport's
		// "connecting to" wording, which would suggest a network problem.
		var authErr *auth.Error
		if errors.As(err, &authErr) {
			return nil, fmt.Errorf("%s: %w", s.name, authErr)
		}
		var connErr *transport.ConnectError
		if errors.As(err, &connErr) && !errors.As(err, new(*client.ConnectTimeoutError)) {
			// It names the URL already: "connecting to URL: connection refused".
			return nil, connErr
		}
		return nil, fmt.Errorf("connecting to %s: %w", s.name, err)
	}
	s.Client = c
	if !o.Lazy {
		if err := c.Discover(ctx); err != nil {
			s.Close()
			return nil, fmt.Errorf("connecting to %s: %w", s.name, err)
		}
	}
	d := c.Detection()
	if d.Remember != "" {
		info := c.InitializeResult().ServerInfo
		if err := f.rememberEra(eraKey, d.Remember, strings.TrimSpace(info.Name+" "+info.Version)); err != nil && o.Verbose {
			fmt.Fprintf(ios.ErrOut, "mcpctl: could not remember the era of %s (the next command probes again): %v\n", s.name, err)
		}
	}
	if o.Verbose {
		info := c.InitializeResult().ServerInfo
		if info.Name == "" {
			fmt.Fprintf(ios.ErrOut, "connected (protocol %s, era %s from the cache: no handshake)\n", c.ProtocolVersion(), d.Era)
		} else {
			fmt.Fprintf(ios.ErrOut, "connected to %s %s (protocol %s) in %s\n", info.Name, info.Version, c.ProtocolVersion(), c.HandshakeTime().Round(time.Microsecond))
		}
	}
	return s, nil
}

// transport builds the transport o describes, wrapped in a trace when
// --trace is given. Files it opens are closed with s; the connection it
// makes is kept in s.conn.
func (f *Factory) transport(o *ServerOptions, s *session) (transport.Transport, error) {
	ios := f.IOStreams
	red := f.Redactor()
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
		tr = &transport.Trace{W: w, Redactor: red}
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
		httpOpts, err := f.httpOptions(o)
		if err != nil {
			return nil, err
		}
		for name, values := range o.NamedHeaders {
			if _, set := httpOpts.Header[name]; !set {
				httpOpts.Header[name] = values
			}
		}
		// The trace records the transport's events (which transport
		// auto-detection chose, redirects followed, sessions); -v shows them.
		httpOpts.OnEvent = f.transportEvents(tr, o.Verbose)
		// OAuth, unless the command line or the definition authorizes
		// the requests itself (--bearer, -H Authorization).
		if httpOpts.Header.Get("Authorization") == "" {
			az, err := f.authTransport(o, httpOpts.TLSConfig, httpOpts.OnEvent)
			if err != nil {
				return nil, err
			}
			httpOpts.Client = &http.Client{Transport: az}
		}
		if t, err = transport.NewHTTPTransport(o.Transport, httpOpts); err != nil {
			return nil, flagErrorf("%v", err)
		}
	default:
		var stderr io.Writer
		switch o.ServerStderr {
		case "":
			dim := render.StderrWriter(ios.ErrOut, ios.IsStderrTTY(), ios.ColorErrEnabled())
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
		for _, kv := range o.Env {
			_, v, _ := strings.Cut(kv, "=")
			addEnvSecret(red, v)
		}
		t = &transport.Command{
			Path:           o.Command[0],
			Args:           o.Command[1:],
			Env:            o.Env,
			Environ:        f.environ(),
			InheritEnv:     o.InheritEnv,
			MaxMessageSize: o.MaxMessageSize,
			Dir:            o.Cwd,
			Stderr:         stderr,
			OnViolation:    violationReporter(f.Warner(), o.OnStdoutNoise),
			Grace:          o.Grace,
		}
	}
	t = keepConn(t, s)
	if o.Record != "" {
		// Inside the trace, so that a trace still shows what crossed the
		// wire; the recording holds messages only, never HTTP headers.
		file, err := os.Create(o.Record)
		if err != nil {
			return nil, fmt.Errorf("opening --record file: %w", err)
		}
		s.closers = append(s.closers, file.Close)
		t = transport.NewRecorder(t, file, red)
	}
	if tr != nil {
		tr.Transport = t
		return tr, nil
	}
	return t, nil
}
