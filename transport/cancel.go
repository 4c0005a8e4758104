package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// StatelessRevision is the first protocol revision whose Streamable HTTP
// transport has no sessions, no GET stream and no resumption
// (2026-07-28/basic/transports/streamable-http, "Earlier Streamable HTTP
// Revisions"). A [StreamableHTTP] connection applies that revision's rules
// once the client has set a version at least this one through
// [ProtocolVersionSetter]; revisions are dates, so they compare as
// strings.
const StatelessRevision = "2026-07-28"

// Events of a Streamable HTTP connection about one request, reported
// through [HTTPOptions].OnEvent.
const (
	// EventRequestCancelled: [RequestCanceller].CancelRequest ended the
	// POST or response stream of a request still in flight; detail names
	// the request: "tools/call (id 3)". Over Streamable HTTP of 2026-07-28 that is the
	// cancellation itself.
	EventRequestCancelled = "request cancelled"
	// EventResponseLost: a request's response stream ended or broke before
	// its response, on a connection that cannot resume it (protocol
	// 2026-07-28 and later); detail names the request and the cause. Read
	// returns a [*RequestError] wrapping [ErrResponseLost] for it.
	EventResponseLost = "response stream lost"
)

// ErrResponseLost is wrapped by the [*RequestError] that Read returns when
// the response stream (or JSON body) of a request ended or broke before
// the response, on a connection that cannot resume streams (protocol
// [StatelessRevision] and later, where the server treats the broken stream
// as a cancellation). The request is lost; the revision says the client
// re-issues it as a new request with a new id, if it still wants it.
var ErrResponseLost = errors.New("the response stream ended before the response arrived")

// RequestCanceller is implemented by connections that carry each request
// in an exchange of its own (Streamable HTTP: a POST and its response),
// where ending that exchange is how the 2026-07-28 revision cancels a
// request ("closing the SSE response stream is the cancellation signal";
// no notifications/cancelled is expected, basic/patterns/cancellation).
// Over stdio, where there is no such exchange, the client sends
// notifications/cancelled instead.
type RequestCanceller interface {
	// CancelRequest ends the exchange of the request with id, as the
	// client wrote it: a POST still waiting for its answer is aborted, a
	// response stream being read is closed, and no *RequestError for it
	// follows; a response read already may still reach Read. It reports
	// whether the connection cancels requests this way — true even when
	// that request had already finished — and false when it has no
	// exchange per request (an [Auto] connection that fell back to legacy
	// HTTP+SSE, a [Trace] of a stdio connection): then the caller sends
	// notifications/cancelled. It may be called from any goroutine.
	CancelRequest(id json.RawMessage) bool
}

// exchange is a request's POST and response body, as CancelRequest ends
// them.
type exchange struct {
	m      msgInfo
	cancel context.CancelFunc
}

// track registers the exchange of request id, whose context cancel ends.
// The returned function replaces cancel: it ends the exchange and forgets
// it.
func (c *streamableConn) track(m msgInfo, cancel context.CancelFunc) context.CancelFunc {
	id := m.id
	x := &exchange{m: m, cancel: cancel}
	c.mu.Lock()
	if c.exchanges == nil {
		c.exchanges = make(map[string]*exchange)
	}
	c.exchanges[id] = x
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		if c.exchanges[id] == x {
			delete(c.exchanges, id)
		}
		c.mu.Unlock()
		cancel()
	}
}

// CancelRequest implements [RequestCanceller]: the request's POST or
// response stream is closed, which a server of 2026-07-28 must treat as
// the cancellation of the request. Its pending entry goes first, so the
// goroutine reading the body sees a cancelled request, not a lost one,
// and neither reports it nor resumes the stream.
func (c *streamableConn) CancelRequest(id json.RawMessage) bool {
	key := normID(id)
	if key == "" {
		return true
	}
	c.answered(key)
	c.mu.Lock()
	x := c.exchanges[key]
	delete(c.exchanges, key)
	c.mu.Unlock()
	if x != nil {
		x.cancel()
		c.event(EventRequestCancelled, x.m.String())
	}
	return true
}

// stateless reports whether the client set a protocol version of
// [StatelessRevision] or later: streams are then not resumable.
func (c *streamableConn) stateless() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version >= StatelessRevision
}

// lost fails request m, whose stream or body ended before its response on
// a stateless connection: the request is lost (no Last-Event-ID, no
// redelivery), and the client decides whether to send it again.
func (c *streamableConn) lost(m msgInfo, cause error) {
	if c.isClosed() || !c.isPending(m.id) {
		return // closed, answered on another stream, or cancelled
	}
	detail := map[string]any{"request": m.String()}
	err := fmt.Errorf("POST %s: %s: %w (streams of protocol %s and later cannot be resumed)", c.urlString(c.url), m, ErrResponseLost, StatelessRevision)
	if cause != nil {
		detail["error"] = cause.Error()
		err = fmt.Errorf("POST %s: %s: %w: %v (streams of protocol %s and later cannot be resumed)", c.urlString(c.url), m, ErrResponseLost, cause, StatelessRevision)
	}
	c.event(EventResponseLost, detail)
	c.failRequest(m, err)
}

// CancelRequest implements [RequestCanceller] for whichever connection is
// (or will be) chosen: before the choice, requests go out as Streamable
// HTTP; legacy HTTP+SSE has no exchange per request.
func (a *autoConn) CancelRequest(id json.RawMessage) bool {
	inner := a.current()
	if inner == nil {
		return a.first.CancelRequest(id)
	}
	if rc, ok := inner.(RequestCanceller); ok {
		return rc.CancelRequest(id)
	}
	return false
}

// CancelRequest passes the cancellation on to the traced connection when it
// cancels requests by their exchange (see [RequestCanceller]); false
// otherwise.
func (c *traceConn) CancelRequest(id json.RawMessage) bool {
	if rc, ok := c.conn.(RequestCanceller); ok {
		return rc.CancelRequest(id)
	}
	return false
}
