package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// HTTP header names of the Streamable HTTP transport.
const (
	headerSessionID       = "Mcp-Session-Id"
	headerProtocolVersion = "Mcp-Protocol-Version"
	headerLastEventID     = "Last-Event-Id"
)

// StreamableHTTP is a [Transport] for the Streamable HTTP transport (MCP
// 2025-03-26 and later): every message is POSTed to one endpoint and the
// server answers a request with one JSON message or an SSE stream.
//
// The connection handles what HTTP requires and nothing more of MCP:
//
//   - Write POSTs the message with Accept: application/json,
//     text/event-stream. It returns once the response status is known: an
//     error status becomes an [*HTTPError] (or, for a request answered with
//     a JSON-RPC response carrying its id, that response is delivered to
//     Read instead), no response at all a [*ConnectError]. Notifications
//     and responses expect 202 (200 and 204 are accepted too). The body of
//     a request's answer is read in the background: every message in it
//     (server requests, notifications, then the response) reaches Read in
//     order. Note that servers writing application/json, or SSE servers
//     that send nothing before the result, send the headers only when the
//     result is ready: Write then lasts as long as the request. Write is
//     safe to call concurrently with itself, so an answer to a server
//     request can be sent while a call is pending.
//   - Mcp-Session-Id is taken from the first response that has one and sent
//     on every later request. MCP-Protocol-Version is taken from the result
//     of the initialize request as it passes through Read and sent on every
//     later request, so the client need not know about HTTP.
//   - After notifications/initialized is accepted, a GET opens the server's
//     own event stream, and that Write waits (up to a second) for the GET's
//     answer so that the stream is in place before the next request. A 4xx
//     means the server has none ([EventGetStreamUnsupported]) and is no
//     error. The stream is reopened after retry when the server ends it.
//   - Resumption (SEP-1699): the last event id and the retry field of every
//     stream are remembered. When a request's stream ends before its
//     response arrived, the connection waits exactly retry (default
//     [DefaultRetry]) and resumes with a GET carrying Last-Event-ID; after
//     [DefaultMaxReconnects] attempts in a row without progress, or when
//     the stream gave no event id, Read returns an error naming the
//     request: its answer can no longer arrive, so the session should be
//     considered broken. Responses are matched by id whatever stream they
//     arrive on.
//   - Session expiry: a 404 to a request carrying the session ID means the
//     server ended the session. The connection re-initializes
//     transparently: it replays the initialize request and
//     notifications/initialized it saw written earlier, without session ID,
//     consumes their answers itself, and retries the failed POST once with
//     the new session. If that fails, Write returns a
//     [*SessionExpiredError].
//   - Close cancels every stream and sends DELETE with the session ID
//     (bounded by [DefaultCloseTimeout]; a 405 or any failure is ignored).
type StreamableHTTP struct {
	// Options configure the connection; URL is the MCP endpoint.
	Options HTTPOptions
}

// String describes the transport for traces: "streamable-http URL".
func (t *StreamableHTTP) String() string {
	return "streamable-http " + displayURL(t.Options.URL)
}

// Connect checks the options. Streamable HTTP has no connection of its own:
// the first request is the first Write.
func (t *StreamableHTTP) Connect(ctx context.Context) (Connection, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b, err := newHTTPBase(t.Options)
	if err != nil {
		return nil, err
	}
	return newStreamableConn(b), nil
}

// SessionExpiredError is returned by Write when the server answered 404 to
// a request carrying the session ID and re-initializing failed (or was not
// possible because no initialize request was written on this connection).
type SessionExpiredError struct {
	// URL is the MCP endpoint.
	URL string
	// Err is why re-initializing failed.
	Err error
}

// Error reads like `http://…/mcp: the server ended the session (404 Not
// Found) and re-initializing failed: …`.
func (e *SessionExpiredError) Error() string {
	return fmt.Sprintf("%s: the server ended the session (404 Not Found) and re-initializing failed: %v", e.URL, e.Err)
}

// Unwrap returns the cause.
func (e *SessionExpiredError) Unwrap() error { return e.Err }

// displayURL is raw without its password, for descriptions.
func displayURL(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	return raw
}

// rpcPeek is what the transport reads of a message: enough to tell a
// request, a notification and a response apart, and the result of
// initialize.
type rpcPeek struct {
	Method string          `json:"method"`
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// msgInfo describes a message written by the client.
type msgInfo struct {
	method string
	id     string // normalised id; "" for notifications
}

func (m msgInfo) isRequest() bool { return m.method != "" && m.id != "" }

// String names the message in errors: "tools/call (id 3)".
func (m msgInfo) String() string {
	switch {
	case m.isRequest():
		return fmt.Sprintf("%s (id %s)", m.method, m.id)
	case m.method != "":
		return m.method
	case m.id != "":
		return "the response to id " + m.id
	}
	return "a message"
}

// normID is a JSON-RPC id as a map key; "" for none or null.
func normID(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	return string(raw)
}

func peekOutgoing(msg []byte) msgInfo {
	var p rpcPeek
	if json.Unmarshal(msg, &p) != nil {
		// Not an object: nothing to learn, send it as is.
		return msgInfo{}
	}
	return msgInfo{method: p.Method, id: normID(p.ID)}
}

// streamState is what a stream reader remembers across reconnections.
type streamState struct {
	name     string // for messages: "the GET stream", "the stream of tools/call (id 3)"
	lastID   string
	retry    time.Duration
	progress bool // an event or a new event id since the last reset
}

// streamableConn is the Connection of StreamableHTTP.
type streamableConn struct {
	*httpBase
	inbox
	life   context.Context // ends at Close; parent of every request
	cancel context.CancelFunc
	wg     sync.WaitGroup // body readers and stream loops

	reinitMu sync.Mutex // one re-initialization at a time

	mu             sync.Mutex
	closed         bool
	sessionID      string
	version        string // MCP-Protocol-Version to send
	initID         string // id of the initialize request awaiting its result
	initMsg        []byte // the initialize request, replayed on session expiry
	initializedMsg []byte // notifications/initialized, likewise
	pending        map[string]chan struct{}
	getRunning     bool
	warnedBadSID   bool

	closeOnce sync.Once
}

func newStreamableConn(b *httpBase) *streamableConn {
	life, cancel := context.WithCancel(context.Background())
	return &streamableConn{
		httpBase: b,
		inbox:    newInbox(),
		life:     life,
		cancel:   cancel,
		pending:  make(map[string]chan struct{}),
	}
}

// spawn runs f in a goroutine that Close waits for; false if closed.
func (c *streamableConn) spawn(f func()) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		f()
	}()
	return true
}

// closedOr is ErrClosed after Close, err otherwise: a request cut short by
// Close should say so, not "context canceled".
func (c *streamableConn) closedOr(err error) error {
	if c.isClosed() {
		return ErrClosed
	}
	return err
}

// Read returns the next message from any of the connection's streams.
func (c *streamableConn) Read(ctx context.Context) (json.RawMessage, error) {
	return c.read(ctx)
}

// Write POSTs msg; see [StreamableHTTP].
func (c *streamableConn) Write(ctx context.Context, msg json.RawMessage) error {
	if c.isClosed() {
		return ErrClosed
	}
	body := bytes.Clone(msg) // the caller may reuse msg; we may replay it
	m := peekOutgoing(body)
	switch {
	case m.method == "initialize" && m.isRequest():
		// A new session: what we knew of the previous one no longer holds.
		c.mu.Lock()
		c.initMsg, c.initID, c.initializedMsg = body, m.id, nil
		c.sessionID, c.version = "", ""
		c.mu.Unlock()
	case m.method == "notifications/initialized":
		c.mu.Lock()
		c.initializedMsg = body
		c.mu.Unlock()
	}
	if err := c.send(ctx, body, m, true); err != nil {
		return err
	}
	if m.method == "notifications/initialized" {
		// Wait (briefly) for the GET stream's answer, so that it is open
		// before the client's next request: servers send requests
		// unrelated to a POST, and with application/json answers even
		// related ones, only there; and the resumption of a POST stream
		// must not race with the stream's opening.
		t := time.NewTimer(getOpenWait)
		defer t.Stop()
		select {
		case <-c.startGET():
		case <-t.C:
		case <-ctx.Done():
		case <-c.done:
		}
	}
	return nil
}

// getOpenWait bounds how long Write of notifications/initialized waits for
// the answer to the GET that opens the server's event stream. Servers answer
// at once (with a stream or 405); one that holds the headers back costs this
// much once per connection.
const getOpenWait = time.Second

// send POSTs one message and deals with the answer. mayReinit is false on
// the retry after a re-initialization.
func (c *streamableConn) send(ctx context.Context, body []byte, m msgInfo, mayReinit bool) error {
	// Wait out a re-initialization in progress: until it ends there is no
	// session to send with.
	c.reinitMu.Lock()
	c.reinitMu.Unlock()
	var answered chan struct{}
	if m.isRequest() {
		// Registered before sending: the answer may come on another stream
		// before the POST returns.
		answered = c.addPending(m.id)
	}
	req, resp, sid, cancel, err := c.post(ctx, body, m)
	if err != nil {
		c.dropPending(m.id)
		return c.closedOr(err)
	}
	if resp.StatusCode == http.StatusNotFound && sid != "" && m.method != "initialize" && mayReinit {
		drain(resp)
		cancel()
		c.dropPending(m.id)
		if err := c.reinitialize(ctx, sid); err != nil {
			return c.closedOr(err)
		}
		return c.send(ctx, body, m, false)
	}
	c.captureSession(resp)

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer cancel()
		c.dropPending(m.id)
		return c.closedOr(c.statusError(req, resp, m))
	}

	ct := mediaType(resp.Header.Get("Content-Type"))
	if !m.isRequest() {
		if ct == "text/event-stream" {
			// Not what the spec says for a notification or response, but
			// the messages are the server's: deliver them.
			st := &streamState{name: "the stream answering " + m.String(), retry: c.opts.Retry}
			if !c.spawn(func() { defer cancel(); defer resp.Body.Close(); c.consume(resp.Body, st) }) {
				resp.Body.Close()
				cancel()
				return ErrClosed
			}
			return nil
		}
		defer cancel()
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		if len(bytes.TrimSpace(data)) > 0 {
			c.warnf("%s answered %s with HTTP %d and a body (%s); expected 202 Accepted and no body; ignored",
				redactURL(c.url), m, resp.StatusCode, excerpt(c.redact(data), false))
		}
		return nil
	}

	switch ct {
	case "text/event-stream":
		st := &streamState{name: "the stream of " + m.String(), retry: c.opts.Retry}
		if !c.spawn(func() { c.postStream(resp, cancel, m, st, answered) }) {
			resp.Body.Close()
			cancel()
			return ErrClosed
		}
		return nil
	case "application/json":
		if !c.spawn(func() { c.jsonBody(resp, cancel, m) }) {
			resp.Body.Close()
			cancel()
			return ErrClosed
		}
		return nil
	}
	defer cancel()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<10))
	resp.Body.Close()
	if len(bytes.TrimSpace(data)) == 0 && (resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent) {
		// The spec wants JSON or SSE here; perhaps the answer comes on the
		// GET stream. The client's timeout covers the case where it never
		// does.
		c.warnf("%s answered %s with HTTP %d and no body; expected application/json or text/event-stream; waiting for the answer on the GET stream",
			redactURL(c.url), m, resp.StatusCode)
		return nil
	}
	c.dropPending(m.id)
	return fmt.Errorf("POST %s: unexpected Content-Type %q in the answer to %s (want application/json or text/event-stream): %q",
		redactURL(c.url), resp.Header.Get("Content-Type"), m, excerpt(c.redact(data), isHTML(resp.Header.Get("Content-Type"), data)))
}

// post sends one POST. sid is the session ID it carried. The response body
// lives until cancel is called.
func (c *streamableConn) post(ctx context.Context, body []byte, m msgInfo) (req *http.Request, resp *http.Response, sid string, cancel context.CancelFunc, err error) {
	rctx, cancel := context.WithCancel(c.life)
	req, err = c.newRequest(rctx, http.MethodPost, c.url, body)
	if err != nil {
		cancel()
		return nil, nil, "", nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	sid, ver := c.session()
	if sid != "" {
		req.Header.Set(headerSessionID, sid)
	}
	if ver != "" && m.method != "initialize" {
		req.Header.Set(headerProtocolVersion, ver)
	}
	resp, err = c.do(ctx, req, cancel)
	if err != nil {
		return nil, nil, "", nil, err
	}
	return req, resp, sid, cancel, nil
}

// statusError turns an error status into the error Write returns, except
// that a JSON-RPC response to the very request (a 400 or 404 carrying a
// JSON-RPC error, as servers of 2026-07-28 send) is the server's answer:
// it is delivered to Read and Write succeeds. 401 and 403 are always
// errors, so that their WWW-Authenticate challenge reaches the user. It
// closes the body.
func (c *streamableConn) statusError(req *http.Request, resp *http.Response, m msgInfo) error {
	if !m.isRequest() || resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden ||
		mediaType(resp.Header.Get("Content-Type")) != "application/json" {
		return c.httpError(req, resp)
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	var p rpcPeek
	if json.Unmarshal(data, &p) == nil && p.Method == "" && normID(p.ID) == m.id && (p.Error != nil || p.Result != nil) {
		msg := bytes.TrimSpace(data)
		if c.spawn(func() { c.deliver(msg, "the answer to "+m.String()) }) {
			return nil
		}
		return ErrClosed
	}
	return c.httpErrorBody(req, resp, data)
}

// session returns the session ID and protocol version to send.
func (c *streamableConn) session() (sid, version string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessionID, c.version
}

// captureSession adopts the session ID of resp if there is none yet.
func (c *streamableConn) captureSession(resp *http.Response) {
	v := resp.Header.Get(headerSessionID)
	if v == "" {
		return
	}
	valid := true
	for i := 0; i < len(v); i++ {
		if v[i] < 0x21 || v[i] > 0x7e {
			valid = false
			break
		}
	}
	c.mu.Lock()
	if !valid {
		warned := c.warnedBadSID
		c.warnedBadSID = true
		c.mu.Unlock()
		if !warned {
			c.warnf("%s sent an Mcp-Session-Id with characters outside visible ASCII; ignored", redactURL(c.url))
		}
		return
	}
	adopted := c.sessionID == ""
	if adopted {
		c.sessionID = v
	}
	c.mu.Unlock()
	if adopted {
		c.event(EventSessionID, map[string]any{"length": len(v)})
	}
}

func (c *streamableConn) addPending(id string) chan struct{} {
	ch := make(chan struct{})
	c.mu.Lock()
	c.pending[id] = ch
	c.mu.Unlock()
	return ch
}

func (c *streamableConn) dropPending(id string) {
	if id == "" {
		return
	}
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// failRequest makes Read return err: the answer to m cannot arrive.
func (c *streamableConn) failRequest(m msgInfo, err error) {
	c.dropPending(m.id)
	c.push(inbound{err: err})
}

// deliver hands one message (or a JSON array of them) to Read, after
// noting what the transport needs from it. It returns false once the
// connection is closed.
func (c *streamableConn) deliver(data []byte, from string) bool {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		// A batch, as 2025-03-26 servers may send: one message each.
		var batch []json.RawMessage
		if err := json.Unmarshal(data, &batch); err != nil {
			c.warnf("ignoring data on %s that is not JSON (%v): %s", from, err, excerpt(c.redact(data), false))
			return true
		}
		for _, m := range batch {
			if !c.deliver(m, from) {
				return false
			}
		}
		return true
	}
	var p rpcPeek
	if err := json.Unmarshal(data, &p); err != nil {
		c.warnf("ignoring data on %s that is not a JSON-RPC message (%v): %s", from, err, excerpt(c.redact(data), false))
		return true
	}
	if id := normID(p.ID); id != "" && p.Method == "" {
		c.answered(id, p.Result)
	}
	return c.push(inbound{msg: data})
}

// answered notes the response to request id: it is no longer pending, and
// if it answers initialize its protocolVersion is the header to send from
// now on.
func (c *streamableConn) answered(id string, result json.RawMessage) {
	c.mu.Lock()
	if ch, ok := c.pending[id]; ok {
		close(ch)
		delete(c.pending, id)
	}
	var version string
	if c.initID == id {
		c.initID = ""
		var r struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if json.Unmarshal(result, &r) == nil && r.ProtocolVersion != "" {
			c.version = r.ProtocolVersion
			version = r.ProtocolVersion
		}
	}
	c.mu.Unlock()
	if version != "" {
		c.event(EventProtocolVersion, version)
	}
}

// jsonBody delivers an application/json answer.
func (c *streamableConn) jsonBody(resp *http.Response, cancel context.CancelFunc, m msgInfo) {
	defer cancel()
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if c.isClosed() {
		return
	}
	if err != nil {
		c.failRequest(m, fmt.Errorf("POST %s: reading the answer to %s: %w", redactURL(c.url), m, err))
		return
	}
	if len(bytes.TrimSpace(data)) == 0 {
		c.failRequest(m, fmt.Errorf("POST %s: the answer to %s is an empty application/json body", redactURL(c.url), m))
		return
	}
	if !c.deliver(data, "the answer to "+m.String()) {
		return
	}
	if c.isPending(m.id) {
		c.failRequest(m, fmt.Errorf("POST %s: the application/json answer to %s is not its response: %q",
			redactURL(c.url), m, excerpt(c.redact(data), false)))
	}
}

func (c *streamableConn) isPending(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.pending[id]
	return ok
}

// consume delivers the events of one SSE body, updating st. It returns
// nil at the end of the body, or the read error.
func (c *streamableConn) consume(body io.Reader, st *streamState) error {
	p := newSSEReader(body, st.lastID)
	for {
		ev, err := p.Next()
		if p.lastID != st.lastID {
			st.lastID = p.lastID
			st.progress = true
		}
		if p.retrySet {
			st.retry = p.retry
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		st.progress = true
		if ev.Type != "" && ev.Type != "message" {
			c.warnf("ignoring an event of type %q on %s", ev.Type, st.name)
			continue
		}
		if !c.deliver(ev.Data, st.name) {
			return ErrClosed
		}
	}
}

// postStream reads the SSE answer to request m, resuming it with GET and
// Last-Event-ID when it ends before the response arrived.
func (c *streamableConn) postStream(resp *http.Response, cancel context.CancelFunc, m msgInfo, st *streamState, answered chan struct{}) {
	readErr := c.consume(resp.Body, st)
	resp.Body.Close()
	cancel()
	failures := 0
	for {
		if c.isClosed() || isDone(answered) {
			return
		}
		if st.lastID == "" {
			c.failRequest(m, c.streamEndError(m, st, readErr,
				"the server ended the event stream before answering, with no event id to resume from"))
			return
		}
		if st.progress {
			failures = 0
		} else {
			failures++
		}
		if failures >= c.opts.MaxReconnects {
			c.failRequest(m, c.streamEndError(m, st, readErr,
				fmt.Sprintf("no answer after %d attempts to resume the event stream", failures)))
			return
		}
		c.event(EventReconnecting, map[string]any{"stream": st.name, "lastEventId": st.lastID, "afterMs": st.retry.Milliseconds()})
		if !c.wait(st.retry, answered) {
			return
		}
		st.progress = false
		resp, cancel, err := c.get(st.lastID)
		if err != nil {
			if c.isClosed() {
				return
			}
			var he *HTTPError
			if errors.As(err, &he) && he.Status >= 400 && he.Status < 500 {
				c.failRequest(m, fmt.Errorf("resuming %s: %w", st.name, err))
				return
			}
			readErr = err
			continue
		}
		readErr = c.consume(resp.Body, st)
		resp.Body.Close()
		cancel()
	}
}

func (c *streamableConn) streamEndError(m msgInfo, st *streamState, cause error, what string) error {
	if cause != nil && !c.isClosed() {
		return fmt.Errorf("POST %s: %s: %s (%w)", redactURL(c.url), m, what, cause)
	}
	return fmt.Errorf("POST %s: %s: %s", redactURL(c.url), m, what)
}

func isDone(ch chan struct{}) bool {
	if ch == nil {
		return false
	}
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// wait sleeps d; false if the connection closed or answered was closed
// meanwhile.
func (c *streamableConn) wait(d time.Duration, answered chan struct{}) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-c.done:
		return false
	case <-answered: // nil for the GET stream: never ready
		return false
	}
}

// get opens an event stream with GET; an error status is an *HTTPError.
func (c *streamableConn) get(lastID string) (*http.Response, context.CancelFunc, error) {
	rctx, cancel := context.WithCancel(c.life)
	req, err := c.newRequest(rctx, http.MethodGet, c.url, nil)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	if lastID != "" {
		req.Header.Set(headerLastEventID, lastID)
	}
	sid, ver := c.session()
	if sid != "" {
		req.Header.Set(headerSessionID, sid)
	}
	if ver != "" {
		req.Header.Set(headerProtocolVersion, ver)
	}
	resp, err := c.do(c.life, req, cancel)
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		cancel()
		return nil, nil, c.httpError(req, resp)
	}
	if ct := mediaType(resp.Header.Get("Content-Type")); ct != "text/event-stream" {
		resp.Body.Close()
		cancel()
		return nil, nil, fmt.Errorf("GET %s: Content-Type is %q, not text/event-stream", redactURL(c.url), resp.Header.Get("Content-Type"))
	}
	return resp, cancel, nil
}

// startGET opens the server's own event stream unless it is open. The
// channel is closed when the first GET of the stream got its answer (or
// gave up); for a stream already open it is closed already.
func (c *streamableConn) startGET() <-chan struct{} {
	answered := make(chan struct{})
	c.mu.Lock()
	if c.getRunning || c.closed {
		c.mu.Unlock()
		close(answered)
		return answered
	}
	c.getRunning = true
	c.mu.Unlock()
	if !c.spawn(func() { c.getLoop(answered) }) {
		c.mu.Lock()
		c.getRunning = false
		c.mu.Unlock()
		close(answered)
	}
	return answered
}

// getLoop keeps the GET stream open: reconnecting after retry when it ends,
// giving up after MaxReconnects attempts in a row without progress.
func (c *streamableConn) getLoop(answered chan struct{}) {
	var once sync.Once
	firstAnswer := func() { once.Do(func() { close(answered) }) }
	defer func() {
		c.mu.Lock()
		c.getRunning = false
		c.mu.Unlock()
		firstAnswer()
	}()
	st := &streamState{name: "the GET stream", retry: c.opts.Retry}
	failures := 0
	for first := true; ; first = false {
		if !first {
			c.event(EventReconnecting, map[string]any{"stream": st.name, "lastEventId": st.lastID, "afterMs": st.retry.Milliseconds()})
			if !c.wait(st.retry, nil) {
				return
			}
		}
		resp, cancel, err := c.get(st.lastID)
		firstAnswer()
		if c.isClosed() {
			if err == nil {
				resp.Body.Close()
				cancel()
			}
			return
		}
		if err != nil {
			var he *HTTPError
			if errors.As(err, &he) && he.Status >= 400 && he.Status < 500 {
				if first {
					c.event(EventGetStreamUnsupported, he.Status)
				} else {
					c.event(EventGetStreamEnded, err.Error())
				}
				return
			}
			if failures++; failures >= c.opts.MaxReconnects {
				c.event(EventGetStreamEnded, err.Error())
				return
			}
			continue
		}
		c.event(EventGetStreamOpened, st.lastID)
		st.progress = false
		err = c.consume(resp.Body, st)
		resp.Body.Close()
		cancel()
		if c.isClosed() {
			return
		}
		if st.progress {
			failures = 0
		} else if failures++; failures >= c.opts.MaxReconnects {
			detail := "ended repeatedly without events"
			if err != nil {
				detail = err.Error()
			}
			c.event(EventGetStreamEnded, detail)
			return
		}
	}
}

// reinitialize starts a new session after the server answered 404 to a
// request carrying session ID expired.
func (c *streamableConn) reinitialize(ctx context.Context, expired string) error {
	c.reinitMu.Lock()
	defer c.reinitMu.Unlock()
	c.mu.Lock()
	if c.sessionID != expired {
		// Another Write re-initialized while we waited.
		c.mu.Unlock()
		return nil
	}
	initMsg, initialized := c.initMsg, c.initializedMsg
	c.sessionID = ""
	c.mu.Unlock()

	fail := func(err error) error {
		c.event(EventSessionExpired, err.Error())
		return &SessionExpiredError{URL: redactURL(c.url), Err: err}
	}
	if initMsg == nil {
		return fail(errors.New("no initialize request was sent on this connection to replay"))
	}
	m := peekOutgoing(initMsg)
	req, resp, _, cancel, err := c.post(ctx, initMsg, m)
	if err != nil {
		return fail(err)
	}
	c.captureSession(resp)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		cancel()
		return fail(c.httpError(req, resp))
	}
	answer, err := c.ownAnswer(ctx, resp, cancel, m)
	if err != nil {
		return fail(err)
	}
	var p rpcPeek
	json.Unmarshal(answer, &p)
	if p.Error != nil {
		return fail(fmt.Errorf("initialize answered with an error: %s", excerpt(p.Error, false)))
	}
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	json.Unmarshal(p.Result, &r)
	c.mu.Lock()
	c.version = r.ProtocolVersion
	c.mu.Unlock()

	if initialized != nil {
		req, resp, _, cancel, err := c.post(ctx, initialized, peekOutgoing(initialized))
		if err != nil {
			return fail(err)
		}
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			cancel()
			return fail(c.httpError(req, resp))
		}
		drain(resp)
		cancel()
	}
	c.event(EventSessionExpired, "re-initialized")
	if initialized != nil {
		c.startGET()
	}
	return nil
}

// ownAnswer reads the response to m from resp (JSON or SSE) for the
// transport's own use: other messages in it are dropped.
func (c *streamableConn) ownAnswer(ctx context.Context, resp *http.Response, cancel context.CancelFunc, m msgInfo) ([]byte, error) {
	defer cancel()
	defer resp.Body.Close()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	match := func(data []byte) bool {
		var p rpcPeek
		return json.Unmarshal(data, &p) == nil && p.Method == "" && normID(p.ID) == m.id
	}
	switch ct := mediaType(resp.Header.Get("Content-Type")); ct {
	case "application/json":
		data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
		if err == nil && match(data) {
			return data, nil
		}
		if err == nil {
			err = fmt.Errorf("no response to %s in %q", m, excerpt(c.redact(data), false))
		}
		return nil, fmt.Errorf("POST %s: %w", redactURL(c.url), err)
	case "text/event-stream":
		p := newSSEReader(resp.Body, "")
		for {
			ev, err := p.Next()
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				return nil, fmt.Errorf("POST %s: the event stream ended before the response to %s: %w", redactURL(c.url), m, err)
			}
			if (ev.Type == "" || ev.Type == "message") && match(ev.Data) {
				return ev.Data, nil
			}
		}
	default:
		return nil, fmt.Errorf("POST %s: unexpected Content-Type %q in the answer to %s", redactURL(c.url), resp.Header.Get("Content-Type"), m)
	}
}

// Close cancels every stream and request, ends the session with DELETE and
// waits for the connection's goroutines.
func (c *streamableConn) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closed = true
		sid, ver := c.sessionID, c.version
		c.mu.Unlock()
		close(c.done)
		c.cancel()
		if sid != "" {
			c.deleteSession(sid, ver)
		}
		c.wg.Wait()
		c.closeIdle()
	})
	return nil
}

// deleteSession asks the server to end the session. Failures are reported
// as events only: the server may not support DELETE, and we are leaving.
func (c *streamableConn) deleteSession(sid, ver string) {
	ctx, cancel := context.WithTimeout(context.Background(), c.opts.CloseTimeout)
	defer cancel()
	req, err := c.newRequest(ctx, http.MethodDelete, c.url, nil)
	if err != nil {
		return
	}
	req.Header.Set(headerSessionID, sid)
	if ver != "" {
		req.Header.Set(headerProtocolVersion, ver)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		c.event(EventDeleteFailed, describeNetError(err))
		return
	}
	drain(resp)
	if (resp.StatusCode < 200 || resp.StatusCode > 299) && resp.StatusCode != http.StatusMethodNotAllowed {
		c.event(EventDeleteFailed, resp.StatusCode)
	}
}

// drain reads a little of resp's body, so the connection can be reused,
// and closes it.
func drain(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// WritesConcurrently implements [ConcurrentWriter]: every Write is its own
// POST.
func (c *streamableConn) WritesConcurrently() bool { return true }
