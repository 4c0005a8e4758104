package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// streamState is what a stream reader remembers across reconnections.
type streamState struct {
	name     string // for messages: "the GET stream", "the stream of tools/call (id 3)"
	lastID   string
	retry    time.Duration
	progress bool // an event or a new event id since the last reset
}

// consume delivers the events of one SSE body, updating st. owner is the
// request whose answer the stream carries (zero for the GET stream). It
// returns nil at the end of the body, or the read error.
func (c *streamableConn) consume(body io.Reader, st *streamState, owner msgInfo) error {
	p := newSSEReader(body, st.lastID)
	p.max = c.maxMsg
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
			var big *eventTooLargeError
			if errors.As(err, &big) {
				st.progress = true
				if c.skippedEvent(big.Head, st.name, owner) {
					// It was the answer this stream exists for: the rest
					// of the stream is not worth reading.
					return nil
				}
				continue
			}
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

// skippedEvent reports an event dropped for its size: as the failure of
// the request it answered when that is pending (by the id at its start, or
// else the request whose stream it came on), otherwise as a warning. It
// reports whether the event was owner's answer.
func (c *streamableConn) skippedEvent(head []byte, from string, owner msgInfo) (ownerAnswer bool) {
	tooBig := &MessageTooLargeError{What: "SSE event", Limit: c.maxMsg}
	rawID, method := sniffID(head)
	id := normID(rawID)
	switch {
	case method == "" && id != "" && id == owner.id && c.isPending(id),
		method == "" && id == "" && owner.isRequest() && c.isPending(owner.id):
		c.failRequest(owner, tooBig)
		return true
	case method == "" && id != "" && c.isPending(id):
		c.failRequest(msgInfo{method: "request", id: id, rawID: rawID}, tooBig)
	default:
		c.warnLine(fmt.Sprintf("skipped an event on %s: %v", from, tooBig))
	}
	return false
}

// postStream reads the SSE answer to request m, resuming it with GET and
// Last-Event-ID when it ends before the response arrived. It owns the
// pending entry of m and removes it when it returns.
func (c *streamableConn) postStream(resp *http.Response, cancel context.CancelFunc, m msgInfo, st *streamState, answered chan struct{}) {
	defer c.dropPending(m.id, answered)
	readErr := c.consume(resp.Body, st, m)
	resp.Body.Close()
	cancel()
	if !m.isRequest() {
		return // a batch: its answers are matched by the client
	}
	if c.stateless() {
		// 2026-07-28: no Last-Event-ID, no redelivery; the server took
		// the broken stream for a cancellation.
		if !isDone(answered) {
			c.lost(m, readErr)
		}
		return
	}
	failures := 0
	for {
		if c.isClosed() || isDone(answered) {
			return
		}
		if st.lastID == "" {
			c.failRequest(m, c.streamEndError(m, readErr,
				"the server ended the event stream before answering, with no event id to resume from"))
			return
		}
		if st.progress {
			failures = 0
		} else {
			failures++
		}
		if failures >= c.opts.MaxReconnects {
			c.failRequest(m, c.streamEndError(m, readErr,
				fmt.Sprintf("no answer after %d attempts to resume the event stream", failures)))
			return
		}
		c.event(EventReconnecting, map[string]any{"stream": st.name, "lastEventId": st.lastID, "afterMs": st.retry.Milliseconds()})
		if !c.wait(st.retry, answered) {
			return
		}
		st.progress = false
		resp, cancel, err := c.get(c.life, st.lastID)
		if err != nil {
			if c.isClosed() {
				return
			}
			var he *HTTPError
			var re *RedirectError
			if errors.As(err, &he) && he.Status >= 400 && he.Status < 500 || errors.As(err, &re) {
				c.failRequest(m, fmt.Errorf("resuming %s: %w", st.name, err))
				return
			}
			readErr = err
			continue
		}
		readErr = c.consume(resp.Body, st, m)
		resp.Body.Close()
		cancel()
	}
}

func (c *streamableConn) streamEndError(m msgInfo, cause error, what string) error {
	if cause != nil && !c.isClosed() {
		return fmt.Errorf("POST %s: %s: %s (%w)", c.urlString(c.url), m, what, cause)
	}
	return fmt.Errorf("POST %s: %s: %s", c.urlString(c.url), m, what)
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
func (c *streamableConn) wait(d time.Duration, answered <-chan struct{}) bool {
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

// get opens an event stream with GET, for as long as ctx lives; an error
// status is an *HTTPError.
func (c *streamableConn) get(ctx context.Context, lastID string) (*http.Response, context.CancelFunc, error) {
	rctx, cancel := context.WithCancel(ctx)
	req, err := c.newRequest(rctx, http.MethodGet, c.url, nil)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	if lastID != "" {
		req.Header.Set(headerLastEventID, lastID)
	}
	c.setSessionHeaders(req, msgInfo{})
	resp, err := c.do(ctx, req, cancel)
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
		return nil, nil, fmt.Errorf("GET %s: Content-Type is %q, not text/event-stream", c.urlString(c.url), resp.Header.Get("Content-Type"))
	}
	return resp, cancel, nil
}

// startGET opens the server's own event stream unless it is open. The
// channel is closed when the first GET of the stream got its answer (or
// gave up); for a stream already open it is closed already.
func (c *streamableConn) startGET() <-chan struct{} {
	answered := make(chan struct{})
	c.mu.Lock()
	if c.getCancel != nil || c.closed {
		c.mu.Unlock()
		close(answered)
		return answered
	}
	ctx, cancel := context.WithCancel(c.life)
	c.getCancel = cancel
	c.getGen++
	gen := c.getGen
	c.mu.Unlock()
	if !c.spawn(func() { c.getLoop(ctx, gen, answered) }) {
		c.endGET(gen)
		close(answered)
	}
	return answered
}

// endGET forgets GET loop gen, unless a newer one replaced it.
func (c *streamableConn) endGET(gen int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.getGen == gen && c.getCancel != nil {
		c.getCancel()
		c.getCancel = nil
	}
}

// getLoop keeps the GET stream open until ctx ends (Close, or the session
// expired): reconnecting after retry when it ends, giving up after
// MaxReconnects attempts in a row without progress.
func (c *streamableConn) getLoop(ctx context.Context, gen int, answered chan struct{}) {
	var once sync.Once
	firstAnswer := func() { once.Do(func() { close(answered) }) }
	defer func() {
		c.endGET(gen)
		firstAnswer()
	}()
	st := &streamState{name: "the GET stream", retry: c.opts.Retry}
	failures := 0
	for first := true; ; first = false {
		if !first {
			c.event(EventReconnecting, map[string]any{"stream": st.name, "lastEventId": st.lastID, "afterMs": st.retry.Milliseconds()})
			if !c.waitCtx(ctx, st.retry) {
				return
			}
		}
		resp, cancel, err := c.get(ctx, st.lastID)
		firstAnswer()
		if ctx.Err() != nil {
			if err == nil {
				resp.Body.Close()
				cancel()
			}
			return
		}
		if err != nil {
			var he *HTTPError
			var re *RedirectError
			switch {
			case errors.As(err, &he) && he.Status >= 400 && he.Status < 500:
				if first {
					c.event(EventGetStreamUnsupported, he.Status)
				} else {
					c.event(EventGetStreamEnded, err.Error())
				}
				return
			case errors.As(err, &re):
				c.event(EventGetStreamEnded, err.Error())
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
		err = c.consume(resp.Body, st, msgInfo{})
		resp.Body.Close()
		cancel()
		if ctx.Err() != nil {
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

// waitCtx sleeps d; false if ctx ended meanwhile.
func (c *streamableConn) waitCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// sniffID reads the id and method at the start of a JSON-RPC message cut
// short (the head of one over the size limit). Members after a value that
// does not fit in head are not seen; either may be empty.
func sniffID(head []byte) (id json.RawMessage, method string) {
	dec := json.NewDecoder(bytes.NewReader(head))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, ""
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return id, method
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return id, method
		}
		switch key {
		case "id":
			id = v
		case "method":
			json.Unmarshal(v, &method)
		}
		if id != nil && method != "" {
			break
		}
	}
	return id, method
}
