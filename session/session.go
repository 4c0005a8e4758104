// Package session owns a connected MCP session and the one guarded
// pipeline every request to the server passes through, whoever made it: a
// command, the shell, a batch, a test file, or a host behind the proxy.
//
// The pipeline's stages run in this order for the requests a policy
// governs and an audit trail records (tools/call, resources/read,
// prompts/get): policy decision (approval, scopes, rate limit) → signing →
// send → result checks (the official schema of the negotiated revision,
// the tool's outputSchema) → signature verification → audit record. Every
// other request is sent as it is, its result checked against the official
// schema.
//
// The raw [client.Client] is not reachable through a [Session]: its
// methods are the only way to the server. [Session.Call] takes requests
// the caller did not build (a host's raw JSON-RPC), and routes the
// governed methods through the same stages.
package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpctl/mcpctl/auth"
	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/transport"
)

// Config says how to open a session.
type Config struct {
	// Name describes the server in messages ("npx -y …", a URL, "demo").
	Name string
	// Transport reaches the server.
	Transport transport.Transport
	// Client are the client's options: its info, the revision offered,
	// features and their handlers, hooks. Checks, when set, becomes its
	// OnResult.
	Client client.Options
	// Checks checks every result against the official schema; nil checks
	// none.
	Checks *ResultChecks
	// Stages are the governed requests' stages.
	Stages Stages
	// Lazy skips listing the server's capabilities after the handshake in
	// the modern era (see [client.Client.Discover]).
	Lazy bool
	// Roots are the roots the client declares, nil without.
	Roots *client.Roots
	// Closers release what the transport opened (files), after the client.
	Closers []func() error
	// Hurry, when closed, makes Close stop waiting for the server to exit
	// and kill it.
	Hurry <-chan struct{}
	// RememberEra, when set, is called with the era detected by a probe
	// and the server's name and version, to cache it; its error is
	// returned by [Session.EraNotRemembered].
	RememberEra func(era, server string) error
}

// Session is a connected session. Its request methods are safe for
// concurrent use, as the client's are.
type Session struct {
	c        *client.Client
	name     string
	pipe     *pipeline
	checks   *ResultChecks
	book     toolBook
	roots    *client.Roots
	closers  []func() error
	conn     transport.Connection
	hurry    <-chan struct{}
	lent     bool
	eraError error
	// signer and verifier, when set, replace the pipeline's for this
	// session's calls (a lent session whose borrower signs).
	signer   Signer
	verifier Verifier
	// stopQuick stops shortening the server's grace when the context of
	// Connect ends (see Connect).
	stopQuick func() bool
}

// ConnectError is a session that could not be opened: Name is the server's
// description.
type ConnectError struct {
	Name string
	Err  error
}

func (e *ConnectError) Error() string { return fmt.Sprintf("connecting to %s: %v", e.Name, e.Err) }
func (e *ConnectError) Unwrap() error { return e.Err }

// Connect starts or reaches the server and performs the MCP handshake.
// The caller must Close the session. On an error, what cfg opened is
// released.
func Connect(ctx context.Context, cfg Config) (*Session, error) {
	s := &Session{name: cfg.Name, pipe: &pipeline{st: cfg.Stages}, checks: cfg.Checks,
		roots: cfg.Roots, closers: cfg.Closers, hurry: cfg.Hurry}
	opts := cfg.Client
	if cfg.Checks != nil {
		opts.OnResult = cfg.Checks.Check
	}
	t := keepConn(cfg.Transport, s)
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
		return nil, &ConnectError{Name: s.name, Err: err}
	}
	s.c = c
	// The command was interrupted (Ctrl-C, SIGTERM): its server gets the
	// short grace of a failure, even if no request was in flight to be
	// cancelled (watch, a shell between lines) or Close has begun.
	s.stopQuick = context.AfterFunc(ctx, s.shortenGrace)
	if !cfg.Lazy {
		if err := c.Discover(ctx); err != nil {
			s.shortenGrace()
			s.Close()
			return nil, &ConnectError{Name: s.name, Err: err}
		}
	}
	if d := c.Detection(); d.Remember != "" && cfg.RememberEra != nil {
		info := c.InitializeResult().ServerInfo
		s.eraError = cfg.RememberEra(d.Remember, info.Name+" "+info.Version)
	}
	return s, nil
}

// EraNotRemembered is the error of caching the era a probe detected, nil
// when it was cached or there was nothing to cache.
func (s *Session) EraNotRemembered() error { return s.eraError }

// Name describes the server in messages.
func (s *Session) Name() string { return s.name }

// Roots are the roots the session declares, nil when it declares none.
func (s *Session) Roots() *client.Roots { return s.roots }

// Lend returns the session for another to use and not close: its Close
// leaves the session open (the shell lends its session to each command).
func (s *Session) Lend() *Session {
	l := &Session{c: s.c, name: s.name, pipe: s.pipe, checks: s.checks, roots: s.roots,
		conn: s.conn, hurry: s.hurry, lent: true}
	l.book.share(&s.book)
	return l
}

// LendSigning is [Session.Lend] for a borrower that signs its calls or
// verifies their results itself (a shell line's --sign-key and
// --verify-key): its signer and verifier, when not nil, take the place of
// the session's in the pipeline; every other stage is the session's.
func (s *Session) LendSigning(sg Signer, v Verifier) *Session {
	l := s.Lend()
	l.signer, l.verifier = sg, v
	return l
}

// Checks are the session's result checks, nil without.
func (s *Session) Checks() *ResultChecks { return s.checks }

// Close ends the session and releases its files. When hurry is closed
// before the server has exited (a second Ctrl-C), it kills the server at
// once and returns without waiting for the rest of the shutdown.
func (s *Session) Close() error {
	if s.lent {
		return nil
	}
	return closeHurried(s.close, s.kill, s.hurry)
}

func (s *Session) close() error {
	var errs []error
	if s.c != nil {
		errs = append(errs, s.c.Close())
	}
	if s.stopQuick != nil {
		s.stopQuick()
	}
	for _, c := range s.closers {
		errs = append(errs, c())
	}
	return errors.Join(errs...)
}

func (s *Session) shortenGrace() {
	if g, ok := s.conn.(transport.GraceShortener); ok {
		g.ShortenGrace()
	}
}

// killer is a connection whose peer can be stopped at once, without the
// polite steps of Close: [transport.Command]'s, by SIGKILL to the server's
// process group.
type killer interface{ Kill() error }

func (s *Session) kill() {
	if k, ok := s.conn.(killer); ok {
		_ = k.Kill()
	}
}

// ErrHurried is what a hurried Close returns.
var ErrHurried = errors.New("interrupted again: stopped waiting for the server to exit")

// closeHurried runs closeFn, and returns early, after calling kill, if
// hurry is closed first.
func closeHurried(closeFn func() error, kill func(), hurry <-chan struct{}) error {
	if hurry == nil {
		return closeFn()
	}
	select {
	case <-hurry:
		kill()
		return ErrHurried
	default:
	}
	done := make(chan error, 1)
	go func() { done <- closeFn() }()
	select {
	case err := <-done:
		return err
	case <-hurry:
		kill()
		return ErrHurried
	}
}

// keepConn wraps t so that the connection it makes is kept in s.conn. The
// wrapper still describes itself as t does (a trace records it).
func keepConn(t transport.Transport, s *Session) transport.Transport {
	k := transport.Func(func(ctx context.Context) (transport.Connection, error) {
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

// What the session knows of the server, from the handshake.

// InitializeResult is the server's answer to initialize (or discover).
func (s *Session) InitializeResult() *client.InitializeResult { return s.c.InitializeResult() }

// ProtocolVersion is the negotiated revision.
func (s *Session) ProtocolVersion() string { return s.c.ProtocolVersion() }

// HandshakeTime is how long the handshake took.
func (s *Session) HandshakeTime() time.Duration { return s.c.HandshakeTime() }

// HasCapability reports whether the server declared the capability.
func (s *Session) HasCapability(name string) bool { return s.c.HasCapability(name) }

// Detection says how the session's era was settled.
func (s *Session) Detection() client.Detection { return s.c.Detection() }

// Era is the session's protocol era.
func (s *Session) Era() string { return s.c.Era() }

// TaskCapabilities are the server's task capabilities.
func (s *Session) TaskCapabilities() client.TaskCapabilities { return s.c.TaskCapabilities() }

// PlanTask decides whether a call to tool runs as a task.
func (s *Session) PlanTask(tool *client.Tool, mode client.TaskMode) (bool, error) {
	return s.c.PlanTask(tool, mode)
}

// LogLevel is the log level the session set, "" when none.
func (s *Session) LogLevel() string { return s.c.LogLevel() }

// Done is closed when the session has ended.
func (s *Session) Done() <-chan struct{} { return s.c.Done() }

// Tool returns the listing of the named tool when the session has listed
// tools, nil otherwise.
func (s *Session) Tool(name string) *client.Tool { return s.book.lookup(name) }
