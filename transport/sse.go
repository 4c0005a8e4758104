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
)

// SSE is a [Transport] for the legacy HTTP+SSE transport of MCP 2024-11-05.
//
// Connect opens the event stream with GET and waits (bounded by its
// context) for the `endpoint` event, whose data is the URI to POST messages
// to, resolved against the SSE URL; an endpoint on another origin is
// refused, so that messages (and the headers of HTTPOptions) never go
// elsewhere. Server messages arrive as `message` events on the stream.
//
// Write POSTs one message to the endpoint and returns when the server
// accepted it (any 2xx; 202 is usual): errors are [*HTTPError] or
// [*ConnectError]. When the stream ends, Read returns an error wrapping
// [io.EOF]: a legacy session lives and dies with its stream, so there is no
// resuming. Close cancels the stream.
type SSE struct {
	// Options configure the connection; URL is the SSE endpoint.
	Options HTTPOptions
}

// String describes the transport for traces: "sse URL".
func (t *SSE) String() string { return "sse " + displayURL(t.Options.URL) }

// Connect opens the event stream and waits for the endpoint event. ctx
// bounds only that wait; the stream lives until Close.
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

	closeOnce sync.Once
}

func connectSSE(ctx context.Context, b *httpBase) (*sseConn, error) {
	life, cancel := context.WithCancel(context.Background())
	c := &sseConn{httpBase: b, inbox: newInbox(), life: life, cancel: cancel}
	req, err := c.newRequest(life, http.MethodGet, c.url, nil)
	if err != nil {
		cancel()
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Cache-Control", "no-cache")
	resp, err := c.do(ctx, req, cancel)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		cancel()
		return nil, c.httpError(req, resp)
	}
	if ct := mediaType(resp.Header.Get("Content-Type")); ct != "text/event-stream" {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<10))
		resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("GET %s: Content-Type is %q, not text/event-stream: %q (is this an MCP HTTP+SSE endpoint?)",
			redactURL(c.url), resp.Header.Get("Content-Type"), excerpt(c.redact(data), isHTML(resp.Header.Get("Content-Type"), data)))
	}

	// Wait for the endpoint event, giving up when ctx ends.
	stop := context.AfterFunc(ctx, cancel)
	p := newSSEReader(resp.Body, "")
	var endpoint *url.URL
	for endpoint == nil {
		ev, err := p.Next()
		if err != nil {
			resp.Body.Close()
			cancel()
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("GET %s: the event stream ended before the endpoint event: %w", redactURL(c.url), io.EOF)
			}
			return nil, fmt.Errorf("GET %s: reading the event stream before the endpoint event: %w", redactURL(c.url), err)
		}
		switch ev.Type {
		case "endpoint":
			u, err := c.url.Parse(strings.TrimSpace(string(ev.Data)))
			if err == nil && !sameOrigin(u, c.url) {
				err = fmt.Errorf("it is on another origin than %s; refusing to send messages there", redactURL(c.url))
			}
			if err != nil {
				resp.Body.Close()
				cancel()
				return nil, fmt.Errorf("GET %s: bad endpoint event %q: %w", redactURL(c.url), excerpt(ev.Data, false), err)
			}
			endpoint = u
		default:
			c.warnf("ignoring an event of type %q that came before the endpoint event on %s", ev.Type, redactURL(c.url))
		}
	}
	if !stop() {
		resp.Body.Close()
		return nil, ctx.Err()
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
			if errors.Is(err, io.EOF) {
				err = fmt.Errorf("GET %s: the server closed the event stream: %w", redactURL(c.url), io.EOF)
			} else {
				err = fmt.Errorf("GET %s: reading the event stream: %w", redactURL(c.url), err)
			}
			c.push(inbound{err: err})
			return
		}
		switch ev.Type {
		case "", "message":
			data := bytes.TrimSpace(ev.Data)
			if !json.Valid(data) {
				c.warnf("ignoring a message event on %s that is not JSON: %s", redactURL(c.url), excerpt(c.redact(data), false))
				continue
			}
			if !c.push(inbound{msg: data}) {
				return
			}
		case "endpoint":
			// A repeated endpoint event: keep the first, which the
			// session was set up with.
		default:
			c.warnf("ignoring an event of type %q on %s", ev.Type, redactURL(c.url))
		}
	}
}

// Read returns the next message event.
func (c *sseConn) Read(ctx context.Context) (json.RawMessage, error) {
	return c.read(ctx)
}

// Write POSTs msg to the endpoint.
func (c *sseConn) Write(ctx context.Context, msg json.RawMessage) error {
	if c.isClosed() {
		return ErrClosed
	}
	rctx, cancel := context.WithCancel(c.life)
	defer cancel()
	req, err := c.newRequest(rctx, http.MethodPost, c.endpoint, bytes.Clone(msg))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := c.do(ctx, req, cancel)
	if err != nil {
		if c.isClosed() {
			return ErrClosed
		}
		return err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return c.httpError(req, resp)
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
