package transport

import (
	"context"
	"encoding/json"
	"sync"
	"time"
)

// StreamableHTTP is a [Transport] for the Streamable HTTP transport (MCP
// 2025-03-26 and later): every message is POSTed to one endpoint and the
// server answers a request with one JSON message or an SSE stream.
//
// The connection moves bytes and handles what HTTP requires; the MCP
// session (initialize, version negotiation, re-initialization) is the
// client's:
//
//   - Write POSTs the message with Accept: application/json,
//     text/event-stream, and returns once the response status is known
//     (bounded by its ctx): an error status becomes an [*HTTPError] (or,
//     for a request answered with a JSON-RPC response carrying its id,
//     that response is delivered to Read instead), no response at all a
//     [*ConnectError], a refused redirect a [*RedirectError].
//     Notifications and responses expect 202 (200 and 204 are accepted
//     too). The body of a request's answer is read in the background:
//     every message in it (server requests, notifications, then the
//     response) reaches Read in order, a JSON array (a batch) as one
//     message. Servers writing application/json, or SSE servers that send
//     nothing before the result, send the headers only when the result is
//     ready: Write then lasts as long as the request.
//   - Mcp-Session-Id is taken from the answer to initialize (or, from a
//     lenient server, the first response that has one) and sent on every
//     later request. An initialize request is sent without it: it starts a
//     new session. MCP-Protocol-Version is sent on every request but
//     initialize once the client has called SetProtocolVersion
//     ([ProtocolVersionSetter]); the transport never reads it from the
//     messages.
//   - After notifications/initialized is accepted, a GET opens the server's
//     own event stream, and that Write waits (up to a second) for the GET's
//     answer so that the stream is in place before the next request. A 4xx
//     means the server has none ([EventGetStreamUnsupported]) and is no
//     error. The stream is reopened after retry when the server ends it.
//   - Resumption (SEP-1699): the last event id and the retry field of every
//     stream are remembered. When a request's stream ends before its
//     response arrived, the connection waits exactly retry (default
//     [DefaultRetry]) and resumes with a GET carrying Last-Event-ID. After
//     [DefaultMaxReconnects] attempts in a row without progress, or when
//     the stream gave no event id, Read returns a [*RequestError] with the
//     request's id: that request failed, the connection goes on. Responses
//     are matched by id whatever stream they arrive on.
//   - Protocol 2026-07-28 and later ([StatelessRevision]): the transport of
//     that revision has no resumption, no GET stream and no session. The
//     connection knows the revision only from SetProtocolVersion, which
//     the client calls before its first modern request; from then on a
//     request's stream or JSON body that ends or breaks before the
//     response is not resumed: Read returns a [*RequestError] wrapping
//     [ErrResponseLost] at once (and [EventResponseLost] is reported), and
//     the client may send the request again with a new id. The GET stream
//     is opened only after notifications/initialized, which that revision
//     never sends.
//   - Cancellation: [RequestCanceller].CancelRequest closes a request's
//     POST or response stream, which is how 2026-07-28 cancels a request.
//   - Size: a JSON body or SSE event over [HTTPOptions].MaxMessageSize is
//     discarded unread; see there.
//   - Session expiry: a 404 to a request carrying the session ID means the
//     server ended the session. The connection forgets the session ID and
//     closes the GET stream, and Write returns a [*SessionExpiredError].
//     The client then writes initialize (and notifications/initialized)
//     again on the same connection, which starts a new session.
//   - Close cancels every stream and sends DELETE with the session ID
//     (bounded by [DefaultCloseTimeout]; a 405 or any failure is ignored).
//
// Concurrency: the connection relaxes the rules of [Connection]: Write may
// be called from several goroutines at once ([ConcurrentWriter]), so an
// answer to a server request can be sent while a call is pending. Read
// must still be called from one goroutine at a time. SetProtocolVersion
// may be called at any time. Internally, one goroutine per open body (a
// request's JSON answer or event stream, the GET stream) feeds a bounded
// queue that Read drains; a client that stops reading holds the streams
// back instead of filling memory. Close waits for all of them.
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

// displayURL is raw as [RedactURL] shows it, for descriptions.
func displayURL(raw string) string { return RedactURL(raw) }

// streamableConn is the Connection of StreamableHTTP. Its methods are
// spread over post.go (POST dispatch), stream.go (event streams and
// resumption) and session.go (session headers, expiry and DELETE).
type streamableConn struct {
	*httpBase
	inbox
	life   context.Context // ends at Close; parent of every request
	cancel context.CancelFunc
	wg     sync.WaitGroup // body readers and stream loops

	mu        sync.Mutex
	closed    bool
	sessionID string
	version   string // MCP-Protocol-Version to send, from SetProtocolVersion
	// pending holds a channel per request whose answer a goroutine of
	// this connection is waiting for (its POST body or stream); the
	// channel is closed when the response arrives on any stream. The
	// goroutine removes the entry when it ends, whatever the outcome.
	pending      map[string]chan struct{}
	exchanges    map[string]*exchange // by request id: what CancelRequest ends
	getCancel    context.CancelFunc   // ends the GET stream; nil when none runs
	getGen       int                  // which GET loop getCancel belongs to
	warnedBadSID bool

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
	if err != nil && c.isClosed() {
		return ErrClosed
	}
	return err
}

// Read returns the next message from any of the connection's streams, or a
// [*RequestError] when one request's answer cannot arrive.
func (c *streamableConn) Read(ctx context.Context) (json.RawMessage, error) {
	return c.read(ctx)
}

// Write POSTs msg; see [StreamableHTTP].
func (c *streamableConn) Write(ctx context.Context, msg json.RawMessage, opts WriteOptions) error {
	return c.WriteParts(ctx, [][]byte{msg}, opts)
}

// WriteParts implements [PartsWriter]: the POST's body is read from the
// parts.
func (c *streamableConn) WriteParts(ctx context.Context, body [][]byte, opts WriteOptions) error {
	if c.isClosed() {
		return ErrClosed
	}
	m := peekParts(body)
	if m.method == "initialize" && m.isRequest() {
		// A new session: the previous one's ID and GET stream no longer
		// hold.
		c.forgetSession("")
	}
	if err := c.send(ctx, body, m, opts.Header); err != nil {
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
// much once per session.
const getOpenWait = time.Second

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

// WritesConcurrently implements [ConcurrentWriter]: every Write is its own
// POST.
func (c *streamableConn) WritesConcurrently() bool { return true }
