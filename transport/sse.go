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
	"strings"
	"sync"
	"time"
)

// SSE is a [Transport] for the legacy HTTP+SSE transport of MCP 2024-11-05.
//
// Connect opens the event stream with GET and waits for the `endpoint`
// event, whose data is the URI to POST messages to, resolved against the
// URL the stream came from (after same-origin redirects); an endpoint on
// another origin than the SSE URL is refused, so that messages (and the
// headers of HTTPOptions) never go elsewhere. Connect's ctx bounds all of
// it: the dial, the response headers and the endpoint event. Server
// messages arrive as `message` events on the stream, each as it is (a JSON
// array, a batch, as one message); an event over MaxMessageSize is skipped
// and reported (see [HTTPOptions]).
//
// Write POSTs one message to the endpoint and returns when the server
// accepted it (any 2xx; 202 is usual), bounded by its ctx: errors are
// [*HTTPError], [*ConnectError] or [*RedirectError]. When the stream ends,
// Read returns an error wrapping [io.EOF]: a legacy session lives and dies
// with its stream, so there is no resuming. Close cancels the stream.
//
// Concurrency: as [StreamableHTTP], Write may be called concurrently.
type SSE struct {
	// Options configure the connection; URL is the SSE endpoint.
	Options HTTPOptions
}

// String describes the transport for traces: "sse URL".
func (t *SSE) String() string { return "sse " + displayURL(t.Options.URL) }

// Connect opens the event stream and waits for the endpoint event. ctx
// bounds the whole connect; the stream lives until Close.
func (t *SSE) Connect(ctx context.Context) (Connection, error) {
	b, err := newHTTPBase(t.Options)
	if err != nil {
		return nil, err
	}
	c, err := connectSSE(ctx, b)
	if err != nil {
		b.closeIdle()
		return nil, err
	}
	return c, nil
}

// sseConn is the Connection of SSE.
type sseConn struct {
	*httpBase
	inbox
	life     context.Context
	cancel   context.CancelFunc
	endpoint *url.URL
	wg       sync.WaitGroup

	// pending holds the ids of requests written and not yet answered, so
	// that an event skipped for its size fails the request it answered.
	mu      sync.Mutex
	pending map[string]bool

	closeOnce sync.Once
}

// waitError is a wait that ctx ended: its message says what was awaited,
// and it unwraps to ctx.Err() so callers can tell a timeout.
type waitError struct {
	msg string
	err error
}

func (e *waitError) Error() string { return e.msg }
func (e *waitError) Unwrap() error { return e.err }

// waited turns ctx's end into an error saying what did not arrive
// ("an answer", "the endpoint event") within how long.
func waited(ctx context.Context, start time.Time, prefix, what, hint string) error {
	err := ctx.Err()
	if !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	d := time.Since(start).Round(100 * time.Millisecond)
	if deadline, ok := ctx.Deadline(); ok {
		d = deadline.Sub(start).Round(100 * time.Millisecond)
	}
	msg := fmt.Sprintf("%s: no %s within %s", prefix, what, d)
	if hint != "" {
		msg += " (" + hint + ")"
	}
	return &waitError{msg: msg, err: err}
}

func connectSSE(ctx context.Context, b *httpBase) (*sseConn, error) {
	start := time.Now()
	prefix := "connecting to " + b.urlString(b.url)
	const hint = "is this a legacy HTTP+SSE server? try --transport http"
	life, cancel := context.WithCancel(context.Background())
	c := &sseConn{httpBase: b, inbox: newInbox(), life: life, cancel: cancel, pending: map[string]bool{}}
	req, err := c.newRequest(life, http.MethodGet, c.url, nil)
	if err != nil {
		cancel()
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Cache-Control", "no-cache")
	resp, err := c.do(ctx, req, cancel)
	if err != nil {
		if ctx.Err() != nil {
			return nil, waited(ctx, start, prefix, "answer to the GET that opens the event stream", "")
		}
		return nil, err
	}
	// From here on, ctx ending cancels the stream (and unblocks any read).
	stop := context.AfterFunc(ctx, cancel)
	fail := func(err error) (*sseConn, error) {
		stop()
		resp.Body.Close()
		cancel()
		return nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		err := c.httpError(req, resp)
		if ctx.Err() != nil {
			return fail(waited(ctx, start, prefix, "complete answer to the GET that opens the event stream", ""))
		}
		return fail(err)
	}
	if ct := mediaType(resp.Header.Get("Content-Type")); ct != "text/event-stream" {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<10))
		return fail(fmt.Errorf("GET %s: Content-Type is %q, not text/event-stream: %q (is this an MCP HTTP+SSE endpoint?)",
			c.urlString(c.url), resp.Header.Get("Content-Type"), excerpt(c.redact(data), isHTML(resp.Header.Get("Content-Type"), data))))
	}

	// Wait for the endpoint event; ctx ending cancels the stream, which
	// ends the read.
	base := finalURL(resp, c.url) // relative endpoints resolve against where the stream came from
	p := newSSEReader(resp.Body, "")
	p.max = c.maxMsg
	var endpoint *url.URL
	for endpoint == nil {
		ev, err := p.Next()
		if err != nil {
			var big *eventTooLargeError
			if errors.As(err, &big) {
				c.warnLine(fmt.Sprintf("skipped an event on %s before the endpoint event: %v", c.urlString(c.url),
					&MessageTooLargeError{What: "SSE event", Limit: c.maxMsg}))
				continue
			}
			switch {
			case ctx.Err() != nil:
				return fail(waited(ctx, start, prefix, "endpoint event", hint))
			case errors.Is(err, io.EOF):
				return fail(fmt.Errorf("GET %s: the event stream ended before the endpoint event (%s): %w", c.urlString(c.url), hint, io.EOF))
			}
			return fail(fmt.Errorf("GET %s: reading the event stream before the endpoint event: %w", c.urlString(c.url), err))
		}
		switch ev.Type {
		case "endpoint":
			u, err := base.Parse(strings.TrimSpace(string(ev.Data)))
			// The endpoint must be on the origin the stream came from, and
			// on the origin of the URL the credentials were given for.
			if err == nil && (!sameOrigin(u, base) || !sameOrigin(u, c.url)) {
				err = fmt.Errorf("it is on another origin than %s; refusing to send messages there", c.urlString(c.url))
			}
			if err != nil {
				return fail(fmt.Errorf("GET %s: bad endpoint event %q: %w", c.urlString(c.url), excerpt(c.redact(ev.Data), false), err))
			}
			endpoint = u
		default:
			c.warnf("ignoring an event of type %q that came before the endpoint event on %s", ev.Type, c.urlString(c.url))
		}
	}
	if !stop() {
		resp.Body.Close()
		return nil, waited(ctx, start, prefix, "endpoint event", hint)
	}
	c.endpoint = endpoint
	c.wg.Add(1)
	go c.readLoop(resp.Body, p)
	return c, nil
}

// readLoop delivers message events until the stream ends.
func (c *sseConn) readLoop(body io.ReadCloser, p *sseReader) {
	defer c.wg.Done()
	defer body.Close()
	for {
		ev, err := p.Next()
		if err != nil {
			if c.isClosed() {
				return
			}
			var big *eventTooLargeError
			if errors.As(err, &big) {
				c.skippedEvent(big.Head)
				continue
			}
			if errors.Is(err, io.EOF) {
				err = fmt.Errorf("GET %s: the server closed the event stream: %w", c.urlString(c.url), io.EOF)
			} else {
				err = fmt.Errorf("GET %s: reading the event stream: %w", c.urlString(c.url), err)
			}
			c.push(inbound{err: err})
			return
		}
		switch ev.Type {
		case "", "message":
			data := bytes.TrimSpace(ev.Data)
			ids, err := peekIncoming(data)
			if err != nil {
				c.warnf("ignoring a message event on %s that is not a JSON-RPC message (%v): %s", c.urlString(c.url), err, excerpt(c.redact(data), false))
				continue
			}
			c.mu.Lock()
			for _, id := range ids {
				delete(c.pending, id)
			}
			c.mu.Unlock()
			if !c.push(inbound{msg: data}) {
				return
			}
		case "endpoint":
			// A repeated endpoint event: keep the first, which the
			// session was set up with.
		default:
			c.warnf("ignoring an event of type %q on %s", ev.Type, c.urlString(c.url))
		}
	}
}

// skippedEvent reports an event dropped for its size: as the failure of
// the pending request whose id starts it, otherwise as a warning.
func (c *sseConn) skippedEvent(head []byte) {
	tooBig := &MessageTooLargeError{What: "SSE event", Limit: c.maxMsg}
	rawID, method := sniffID(head)
	id := normID(rawID)
	c.mu.Lock()
	known := method == "" && id != "" && c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if known {
		c.push(inbound{err: &RequestError{ID: rawID, Err: tooBig}})
		return
	}
	c.warnLine(fmt.Sprintf("skipped an event on %s: %v", c.urlString(c.url), tooBig))
}

// Read returns the next message event.
func (c *sseConn) Read(ctx context.Context) (json.RawMessage, error) {
	return c.read(ctx)
}

// Write POSTs msg to the endpoint.
func (c *sseConn) Write(ctx context.Context, msg json.RawMessage, _ WriteOptions) error {
	if c.isClosed() {
		return ErrClosed
	}
	m := peekOutgoing(msg)
	rctx, cancel := context.WithCancel(c.life)
	defer cancel()
	req, err := c.newRequest(rctx, http.MethodPost, c.endpoint, [][]byte{msg})
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if m.isRequest() {
		// Before the POST: the answer may be on the stream before it returns.
		c.mu.Lock()
		c.pending[m.id] = true
		c.mu.Unlock()
	}
	forget := func() {
		c.mu.Lock()
		delete(c.pending, m.id)
		c.mu.Unlock()
	}
	if m.method == "notifications/cancelled" {
		// The client gave up on that request: its answer no longer matters.
		var p struct {
			Params struct {
				RequestID json.RawMessage `json:"requestId"`
			} `json:"params"`
		}
		json.Unmarshal(msg, &p)
		c.mu.Lock()
		delete(c.pending, normID(p.Params.RequestID))
		c.mu.Unlock()
	}
	resp, err := c.do(ctx, req, cancel)
	if err != nil {
		forget()
		if c.isClosed() {
			return ErrClosed
		}
		return err
	}
	// ctx bounds reading the (short) body too.
	defer context.AfterFunc(ctx, cancel)()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		forget()
		err := c.httpError(req, resp)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	drain(resp)
	return nil
}

// Close cancels the stream and waits for its reader.
func (c *sseConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.done)
		c.cancel()
		c.wg.Wait()
		c.closeIdle()
	})
	return nil
}

// WritesConcurrently implements [ConcurrentWriter]: every Write is its own
// POST.
func (c *sseConn) WritesConcurrently() bool { return true }
