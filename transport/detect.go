package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
)

// Auto is a [Transport] for a URL that may serve either Streamable HTTP or
// the legacy HTTP+SSE transport, detected as the backwards-compatibility
// section of the 2025-11-25 transports specification describes.
//
// The first message written (initialize, for a client) is POSTed as
// Streamable HTTP. If the server answers 400, 404 or 405, the connection
// falls back to legacy SSE: it GETs the same URL, expects the `endpoint`
// event, and writes the same message there. Any other failure (401, 500, a
// refused connection) is returned as is, because it says nothing about the
// transport. The choice is reported through OnEvent as
// [EventTransportChosen] with detail "streamable-http" or "sse", and holds
// for the rest of the connection. A 400 whose body is a JSON-RPC response
// to the message is an answer, not a refusal, so no fallback happens.
//
// A refused redirect ([*RedirectError]) and a session that expired are
// errors, not reasons to fall back. A message written with [WriteOptions.Probe] never
// causes the fallback either.
//
// Read waits until the choice is made. SetProtocolVersion is passed on to
// the chosen connection (legacy SSE has no use for it). Everything else,
// concurrency rules included, behaves as [StreamableHTTP] or [SSE] does.
type Auto struct {
	// Options configure the connection; URL is the server's URL.
	Options HTTPOptions
}

// String describes the transport for traces: "auto URL".
func (t *Auto) String() string { return "auto " + displayURL(t.Options.URL) }

// Connect checks the options; detection happens on the first Write.
func (t *Auto) Connect(ctx context.Context) (Connection, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b, err := newHTTPBase(t.Options)
	if err != nil {
		return nil, err
	}
	return &autoConn{
		base:   b,
		first:  newStreamableConn(b),
		chosen: make(chan struct{}),
		done:   make(chan struct{}),
	}, nil
}

// autoConn is the Connection of Auto.
type autoConn struct {
	base  *httpBase
	first *streamableConn // the Streamable HTTP attempt

	decideMu sync.Mutex // held by the Write that decides

	mu      sync.Mutex
	inner   Connection    // set once, before chosen is closed
	chosen  chan struct{} // closed when inner is set
	closed  bool
	version string // from SetProtocolVersion, for the connection chosen later
	done    chan struct{}

	closeOnce sync.Once
}

func (a *autoConn) current() Connection {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.inner
}

// Read waits for the transport to be chosen and reads from it.
func (a *autoConn) Read(ctx context.Context) (json.RawMessage, error) {
	select {
	case <-a.chosen:
		return a.current().Read(ctx)
	default:
	}
	select {
	case <-a.chosen:
		return a.current().Read(ctx)
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-a.done:
		return nil, ErrClosed
	}
}

// Write sends msg; the first successful Write decides the transport.
func (a *autoConn) Write(ctx context.Context, msg json.RawMessage, opts WriteOptions) error {
	return a.WriteParts(ctx, [][]byte{msg}, opts)
}

// WriteParts implements [PartsWriter] for whichever connection is (or
// will be) chosen.
func (a *autoConn) WriteParts(ctx context.Context, parts [][]byte, opts WriteOptions) error {
	if inner := a.current(); inner != nil {
		return WriteParts(ctx, inner, parts, opts)
	}
	a.decideMu.Lock()
	if inner := a.current(); inner != nil {
		a.decideMu.Unlock()
		return WriteParts(ctx, inner, parts, opts)
	}
	defer a.decideMu.Unlock()
	err := a.first.WriteParts(ctx, parts, opts)
	if opts.Probe {
		// An era probe: an answer settles the transport, a refusal
		// settles nothing (see WriteOptions.Probe).
		if err != nil {
			return err
		}
		return a.choose(a.first, "streamable-http")
	}
	var he *HTTPError
	if !errors.As(err, &he) || (he.Status != http.StatusBadRequest && he.Status != http.StatusNotFound && he.Status != http.StatusMethodNotAllowed) {
		if err != nil {
			// Undecided: nothing was learnt about the transport.
			return err
		}
		return a.choose(a.first, "streamable-http")
	}

	a.base.event(EventFallback, he.Status)
	a.first.Close()
	legacy, lerr := connectSSE(ctx, a.base)
	if lerr != nil {
		return fmt.Errorf("%w; the legacy HTTP+SSE transport failed too: %w", err, lerr)
	}
	if err := WriteParts(ctx, legacy, parts, opts); err != nil {
		legacy.Close()
		return err
	}
	return a.choose(legacy, "sse")
}

// SetProtocolVersion implements [ProtocolVersionSetter], for whichever
// connection is (or will be) chosen.
func (a *autoConn) SetProtocolVersion(version string) {
	a.mu.Lock()
	a.version = version
	inner := a.inner
	a.mu.Unlock()
	if inner == nil {
		// Undecided: the Streamable HTTP attempt is the one that sends
		// requests until the choice.
		a.first.SetProtocolVersion(version)
		return
	}
	if s, ok := inner.(ProtocolVersionSetter); ok {
		s.SetProtocolVersion(version)
	}
}

// choose makes c the connection for good, unless Close came first.
func (a *autoConn) choose(c Connection, name string) error {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		c.Close()
		return ErrClosed
	}
	a.inner = c
	if s, ok := c.(ProtocolVersionSetter); ok && a.version != "" {
		s.SetProtocolVersion(a.version)
	}
	close(a.chosen)
	a.mu.Unlock()
	a.base.event(EventTransportChosen, name)
	return nil
}

// Close closes whichever connection exists.
func (a *autoConn) Close() error {
	var err error
	a.closeOnce.Do(func() {
		a.mu.Lock()
		a.closed = true
		inner := a.inner
		a.mu.Unlock()
		close(a.done)
		if inner != nil && inner != Connection(a.first) {
			err = inner.Close()
		}
		// Closing first again (after a fallback) is harmless.
		if e := a.first.Close(); err == nil {
			err = e
		}
	})
	return err
}

// WritesConcurrently implements [ConcurrentWriter]: writes before the
// decision are serialised by the connection itself, and both candidates
// allow concurrent writes.
func (a *autoConn) WritesConcurrently() bool { return true }
