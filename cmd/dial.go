package cmd

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/config"
	"github.com/mcpctl/mcpctl/internal/demo"
	"github.com/mcpctl/mcpctl/render"
	"github.com/mcpctl/mcpctl/session"
	"github.com/mcpctl/mcpctl/transport"
)

// sharing returns a copy of f whose Connect lends s, open, to every
// command run with it, and whose commands use ios.
func (f *Factory) sharing(s *session.Session, ios *IOStreams) *Factory {
	c := *f
	c.shared = s
	c.IOStreams = ios
	return &c
}

// Connect starts or reaches the server described by o and performs the MCP
// handshake: it turns the options into a [session.Config] (the client's
// options, the transport, the pipeline's stages) and opens the session.
// The caller must Close the session.
func (f *Factory) Connect(ctx context.Context, o *ServerOptions) (*session.Session, error) {
	if f.shared != nil {
		// A command run in the shell's session signs and verifies as its
		// own flags say.
		sg, v := o.Sign.stages()
		return f.shared.LendSigning(sg, v), nil
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
	cfg := session.Config{Name: o.describe(), Hurry: f.Hurry, Lazy: o.Lazy}
	if cfg.Stages, err = f.stages(o); err != nil {
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
			if o.OnViolation != nil {
				o.OnViolation(red.String(msg))
			}
		},
	}
	if o.OnStdoutNoise != nil && !o.Demo && o.URL == "" {
		// JSON on a stdio server's stdout, but not a JSON-RPC message.
		opts.OnIgnored = func(msg string) { o.OnStdoutNoise(red.String(msg)) }
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
	cfg.Roots = feats.Roots
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
		cfg.RememberEra = func(era, server string) error {
			return f.rememberEra(eraKey, era, strings.TrimSpace(server))
		}
	}
	if !o.LintsResults {
		rc := f.resultChecks(o.Strict)
		if o.OnViolation != nil {
			rc = f.observedResultChecks(o.OnViolation)
		}
		// The revision results are likely to come in, compiled while the
		// server starts.
		likely := o.ProtocolVersion
		if likely == "" {
			likely = client.LatestProtocolVersion
			if era == config.EraModern || opts.KnownEra == config.EraModern {
				likely = client.ModernProtocolVersion
			}
		}
		rc.Prepare(likely)
		cfg.Checks = rc
	}
	cfg.Client = opts
	if cfg.Transport, err = f.transport(o, &cfg.Closers); err != nil {
		for _, c := range cfg.Closers {
			_ = c()
		}
		return nil, err
	}
	s, err := session.Connect(ctx, cfg)
	if err != nil {
		return nil, f.endpointHint(ctx, o, err)
	}
	if err := s.EraNotRemembered(); err != nil && o.Verbose {
		fmt.Fprintf(ios.ErrOut, "mcpctl: could not remember the era of %s (the next command probes again): %v\n", s.Name(), err)
	}
	if o.Verbose {
		info := s.InitializeResult().ServerInfo
		if info.Name == "" {
			fmt.Fprintf(ios.ErrOut, "connected (protocol %s, era %s from the cache: no handshake)\n", s.ProtocolVersion(), s.Detection().Era)
		} else {
			fmt.Fprintf(ios.ErrOut, "connected to %s %s (protocol %s) in %s\n", info.Name, info.Version, s.ProtocolVersion(), s.HandshakeTime().Round(time.Microsecond))
		}
	}
	return s, nil
}

// stages builds the pipeline's stages for o: the policy in force, the
// signing and verification o.Sign asks for, the check of tools'
// outputSchema, and the audit trail.
func (f *Factory) stages(o *ServerOptions) (session.Stages, error) {
	var st session.Stages
	gate, err := f.policyGate(o)
	if err != nil {
		return st, err
	}
	st.Policy = gate
	trail, prepare, err := f.auditTrail(o)
	if err != nil {
		return st, err
	}
	if trail != nil {
		st.Recorder, st.Prepare = trail, prepare
	}
	st.Signer, st.Verifier = o.Sign.stages()
	st.Outputs = &session.OutputChecks{Schemas: &f.state().schemas, Warn: func(msg string) { f.printer().Warning(msg) }}
	return st, nil
}

// resultChecks returns the run's checks of results against the official
// schema, built on first use: one for every session of the run.
func (f *Factory) resultChecks(strict bool) *session.ResultChecks {
	st := f.state()
	red := f.Redactor() // before st.mu, which it takes
	st.mu.Lock()
	if st.results == nil {
		st.results = &session.ResultChecks{
			Warn:   func(kind, msg string) { f.Warner().Warn(kind, msg) },
			Redact: red.String,
		}
	}
	r := st.results
	st.mu.Unlock()
	if strict {
		r.SetStrict()
	}
	return r
}

// observedResultChecks returns checks of one session's results whose
// violations go to observe besides the warning: the caller judges them
// (test, step by step), so they are not the run's --strict verdict.
func (f *Factory) observedResultChecks(observe func(string)) *session.ResultChecks {
	return &session.ResultChecks{
		Warn: func(kind, msg string) {
			f.Warner().Warn(kind, msg)
			if kind == session.KindSchemaViolation {
				observe(msg)
			}
		},
		Redact: f.Redactor().String,
	}
}

// transport builds the transport o describes, wrapped in a trace when
// --trace is given. What it opens is added to closers, to be closed with
// the session.
func (f *Factory) transport(o *ServerOptions, closers *[]func() error) (transport.Transport, error) {
	ios := f.IOStreams
	red := f.Redactor()
	var tr *transport.Trace
	if o.Trace != "" {
		w := ios.ErrOut
		if o.Trace != "-" {
			file, err := f.openSink("--trace", o.Trace, "the trace is incomplete")
			if err != nil {
				return nil, err
			}
			*closers = append(*closers, file.Close)
			w = file
		}
		tr = &transport.Trace{W: w, Redactor: red}
	}
	if o.TraceTo != nil {
		if tr == nil {
			tr = &transport.Trace{W: o.TraceTo, Redactor: red}
		} else {
			tr.W = io.MultiWriter(tr.W, o.TraceTo)
		}
	}
	var t transport.Transport
	switch {
	case o.Demo:
		t = transport.Func(func(ctx context.Context) (transport.Connection, error) {
			clientConn, serverConn := transport.NewPipe()
			go func() { _ = demo.Serve(context.Background(), serverConn) }()
			return clientConn, nil
		})
	case o.URL != "":
		// Credentials in the URL (a key in its query, a password) are
		// hidden wherever the URL or a message echoing it is shown.
		red.Add(transport.URLSecrets(o.URL)...)
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
			*closers = append(*closers, dim.Flush)
			stderr = dim
		case "quiet":
		default:
			file, err := f.openSink("--server-stderr", o.ServerStderr, "the rest of the server's stderr is lost")
			if err != nil {
				return nil, err
			}
			*closers = append(*closers, file.Close)
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
			OnViolation:    violationReporter(f.Warner(), o.OnStdoutNoise, o.OnViolation),
			Grace:          o.Grace,
		}
	}
	if o.Record != "" {
		// Inside the trace, so that a trace still shows what crossed the
		// wire; the recording holds messages only, never HTTP headers.
		file, err := f.openSink("--record", o.Record, "the recording is incomplete")
		if err != nil {
			return nil, err
		}
		*closers = append(*closers, file.Close)
		t = transport.NewRecorder(t, file, red)
	}
	if tr != nil {
		tr.Transport = t
		return tr, nil
	}
	return t, nil
}
