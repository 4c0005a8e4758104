package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// msgInfo is what the transport reads of a message the client writes:
// enough to tell a request (which gets an answer), a notification and a
// response apart. Incoming messages are not decoded beyond their ids.
type msgInfo struct {
	method string
	id     string          // normalised id; "" for notifications
	rawID  json.RawMessage // the id as written, for RequestError
	batch  bool            // a JSON array holding at least one request
}

func (m msgInfo) isRequest() bool { return m.method != "" && m.id != "" }

// expectsAnswer reports whether the server answers m with a body.
func (m msgInfo) expectsAnswer() bool { return m.isRequest() || m.batch }

// String names the message in errors: "tools/call (id 3)".
func (m msgInfo) String() string {
	switch {
	case m.isRequest():
		return fmt.Sprintf("%s (id %s)", m.method, m.id)
	case m.batch:
		return "a batch"
	case m.method != "":
		return m.method
	case m.id != "":
		return "the response to id " + m.id
	}
	return "a message"
}

// rpcPeek is what is read of a message: its method and id, nothing of its
// params or result.
type rpcPeek struct {
	Method string          `json:"method"`
	ID     json.RawMessage `json:"id"`
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
	msg = bytes.TrimSpace(msg)
	if len(msg) > 0 && msg[0] == '[' {
		var batch []rpcPeek
		json.Unmarshal(msg, &batch)
		for _, p := range batch {
			if p.Method != "" && normID(p.ID) != "" {
				return msgInfo{batch: true}
			}
		}
		return msgInfo{}
	}
	var p rpcPeek
	if json.Unmarshal(msg, &p) != nil {
		// Not an object: nothing to learn, send it as is.
		return msgInfo{}
	}
	return msgInfo{method: p.Method, id: normID(p.ID), rawID: bytes.Clone(p.ID)}
}

// peekParts is peekOutgoing of the message parts make when joined,
// without joining them when there are several: the members before the
// first one that is neither "jsonrpc", "id" nor "method" are read as a
// stream, and the rest (params, the bulk of a large message) is not read
// once the id and method are known. A message that is not an object with
// those first is joined and peeked whole.
func peekParts(parts [][]byte) msgInfo {
	if len(parts) == 1 {
		return peekOutgoing(parts[0])
	}
	rs := make([]io.Reader, len(parts))
	for i, p := range parts {
		rs[i] = bytes.NewReader(p)
	}
	dec := json.NewDecoder(io.MultiReader(rs...))
	var p rpcPeek
	if t, err := dec.Token(); err == nil && t == json.Delim('{') {
		for dec.More() {
			t, err := dec.Token()
			key, ok := t.(string)
			if err != nil || !ok {
				break
			}
			switch key {
			case "jsonrpc":
				var v json.RawMessage
				err = dec.Decode(&v)
			case "method":
				err = dec.Decode(&p.Method)
			case "id":
				err = dec.Decode(&p.ID)
			default:
				if p.Method != "" {
					return msgInfo{method: p.Method, id: normID(p.ID), rawID: bytes.Clone(p.ID)}
				}
				err = errors.New("another member first")
			}
			if err != nil {
				break
			}
		}
	}
	return peekOutgoing(bytes.Join(parts, nil))
}

// peekIncoming returns the ids of the responses in data (one message or a
// batch); ok is false when data is not JSON-RPC at all.
func peekIncoming(data []byte) (responseIDs []string, err error) {
	if len(data) > 0 && data[0] == '[' {
		var batch []rpcPeek
		if err := json.Unmarshal(data, &batch); err != nil {
			return nil, err
		}
		for _, p := range batch {
			if id := normID(p.ID); id != "" && p.Method == "" {
				responseIDs = append(responseIDs, id)
			}
		}
		return responseIDs, nil
	}
	var p rpcPeek
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, err
	}
	if id := normID(p.ID); id != "" && p.Method == "" {
		return []string{id}, nil
	}
	return nil, nil
}

// send POSTs one message and deals with the answer: for a request, its body
// is handed to a goroutine of the connection; everything else is done
// before send returns. ctx bounds the POST and every body read done here;
// header is the message's own (see [WriteOptions.Header]).
func (c *streamableConn) send(ctx context.Context, body [][]byte, m msgInfo, header http.Header) error {
	var answered chan struct{}
	if m.isRequest() {
		// Registered before sending: the answer may come on another stream
		// before the POST returns.
		answered = c.addPending(m.id)
	}
	req, resp, sid, cancel, err := c.post(ctx, body, m, header)
	if err != nil {
		c.dropPending(m.id, answered)
		return c.closedOr(err)
	}
	// Until the body is handed to a goroutine, ctx bounds reading it.
	unbind := context.AfterFunc(ctx, cancel)
	owned := true
	defer func() {
		if owned {
			unbind()
			resp.Body.Close()
			cancel()
			c.dropPending(m.id, answered)
		}
	}()
	// handOff runs f (which then owns the body, cancel and the pending
	// entry) in a goroutine of the connection.
	handOff := func(f func()) error {
		if !unbind() {
			return ctx.Err() // ctx ended: the request was cancelled
		}
		owned = false
		if !c.spawn(f) {
			resp.Body.Close()
			cancel()
			c.dropPending(m.id, answered)
			return ErrClosed
		}
		return nil
	}
	fail := func(err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return c.closedOr(err)
	}

	if resp.StatusCode == http.StatusNotFound && sid != "" {
		return c.expired(sid, m)
	}
	c.captureSession(resp, m)

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		err := c.statusError(req, resp, m)
		var answer *answerInError
		if errors.As(err, &answer) {
			// The server's answer, with an error status: Read gets it.
			return handOff(func() {
				defer cancel()
				defer c.dropPending(m.id, answered)
				c.deliver(answer.msg, "the answer to "+m.String())
			})
		}
		return fail(err)
	}

	ct := mediaType(resp.Header.Get("Content-Type"))
	if !m.expectsAnswer() {
		if ct == "text/event-stream" {
			// Not what the spec says for a notification or response, but
			// the messages are the server's: deliver them.
			st := &streamState{name: "the stream answering " + m.String(), retry: c.opts.Retry}
			return handOff(func() {
				defer cancel()
				defer resp.Body.Close()
				c.consume(resp.Body, st, msgInfo{})
			})
		}
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if len(bytes.TrimSpace(data)) > 0 {
			c.warnf("%s answered %s with HTTP %d and a body (%s); expected 202 Accepted and no body; ignored",
				c.urlString(c.url), m, resp.StatusCode, excerpt(c.redact(data), false))
		}
		return nil
	}

	switch ct {
	case "text/event-stream":
		st := &streamState{name: "the stream of " + m.String(), retry: c.opts.Retry}
		return handOff(func() { c.postStream(resp, cancel, m, st, answered) })
	case "application/json":
		return handOff(func() { c.jsonBody(resp, cancel, m, answered) })
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<10))
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if len(bytes.TrimSpace(data)) == 0 && (resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent) {
		// The spec wants JSON or SSE here; perhaps the answer comes on the
		// GET stream. The client's timeout covers the case where it never
		// does. Nothing here waits for it: the pending entry goes.
		c.warnf("%s answered %s with HTTP %d and no body; expected application/json or text/event-stream; waiting for the answer on the GET stream",
			c.urlString(c.url), m, resp.StatusCode)
		return nil
	}
	return fmt.Errorf("POST %s: unexpected Content-Type %q in the answer to %s (want application/json or text/event-stream): %q",
		c.urlString(c.url), resp.Header.Get("Content-Type"), m, excerpt(c.redact(data), isHTML(resp.Header.Get("Content-Type"), data)))
}

// post sends one POST. sid is the session ID it carried. The response body
// lives until cancel is called.
func (c *streamableConn) post(ctx context.Context, body [][]byte, m msgInfo, header http.Header) (req *http.Request, resp *http.Response, sid string, cancel context.CancelFunc, err error) {
	rctx, cancel := context.WithCancel(c.life)
	if m.isRequest() {
		cancel = c.track(m, cancel)
	}
	req, err = c.newRequest(rctx, http.MethodPost, c.url, body)
	if err != nil {
		cancel()
		return nil, nil, "", nil, err
	}
	for name, values := range header {
		for _, v := range values {
			req.Header.Add(name, v)
		}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	sid = c.setSessionHeaders(req, m)
	resp, err = c.do(ctx, req, cancel)
	if err != nil {
		return nil, nil, "", nil, err
	}
	return req, resp, sid, cancel, nil
}

// answerInError carries a JSON-RPC response that came with an error
// status; statusError returns it so that send delivers it.
type answerInError struct{ msg []byte }

func (e *answerInError) Error() string { return "a JSON-RPC answer with an error status" }

// statusError turns an error status into the error Write returns, except
// that a JSON-RPC response to the very request (a 400 or 404 carrying a
// JSON-RPC error, as servers of 2026-07-28 send) is the server's answer:
// it comes back as an *answerInError to be delivered to Read. 401 and 403
// are always errors, so that their WWW-Authenticate challenge reaches the
// user. The caller closes the body.
func (c *streamableConn) statusError(req *http.Request, resp *http.Response, m msgInfo) error {
	if !m.isRequest() || resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden ||
		mediaType(resp.Header.Get("Content-Type")) != "application/json" {
		return c.httpError(req, resp)
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	var p struct {
		rpcPeek
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &p) == nil && p.Method == "" && normID(p.ID) == m.id && (p.Error != nil || p.Result != nil) {
		return &answerInError{msg: bytes.TrimSpace(data)}
	}
	return c.httpErrorBody(req, resp, data)
}

func (c *streamableConn) addPending(id string) chan struct{} {
	ch := make(chan struct{})
	c.mu.Lock()
	c.pending[id] = ch
	c.mu.Unlock()
	return ch
}

// dropPending removes the entry of id if it is still ch.
func (c *streamableConn) dropPending(id string, ch chan struct{}) {
	if id == "" || ch == nil {
		return
	}
	c.mu.Lock()
	if c.pending[id] == ch {
		delete(c.pending, id)
	}
	c.mu.Unlock()
}

func (c *streamableConn) isPending(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.pending[id]
	return ok
}

// answered notes the response to request id: whoever waits for it stops.
func (c *streamableConn) answered(id string) {
	c.mu.Lock()
	if ch, ok := c.pending[id]; ok {
		close(ch)
		delete(c.pending, id)
	}
	c.mu.Unlock()
}

// failRequest makes Read return a *RequestError for m: its answer cannot
// arrive, but the connection goes on.
// A request no longer pending (answered on another stream, or cancelled
// with CancelRequest) is not failed: nobody waits for it.
func (c *streamableConn) failRequest(m msgInfo, err error) {
	if !m.isRequest() {
		c.warnLine(err.Error())
		return
	}
	c.mu.Lock()
	ch, ok := c.pending[m.id]
	if ok {
		close(ch)
		delete(c.pending, m.id)
	}
	c.mu.Unlock()
	if ok {
		c.push(inbound{err: &RequestError{ID: m.rawID, Err: err}})
	}
}

// deliver hands one message, or a JSON array of them, to Read as it is,
// after noting which pending requests it answers. It returns false once the
// connection is closed.
func (c *streamableConn) deliver(data []byte, from string) bool {
	data = bytes.TrimSpace(data)
	ids, err := peekIncoming(data)
	if err != nil {
		c.warnf("ignoring data on %s that is not a JSON-RPC message (%v): %s", from, err, excerpt(c.redact(data), false))
		return true
	}
	for _, id := range ids {
		c.answered(id)
	}
	return c.push(inbound{msg: data})
}

// jsonBody delivers an application/json answer to m, at most MaxMessageSize
// of it.
func (c *streamableConn) jsonBody(resp *http.Response, cancel context.CancelFunc, m msgInfo, answered chan struct{}) {
	defer cancel()
	defer resp.Body.Close()
	defer c.dropPending(m.id, answered)
	data, tooLarge, err := readLimited(resp.Body, resp.ContentLength, c.maxMsg)
	if c.isClosed() {
		return
	}
	switch {
	case tooLarge:
		// Closing the body (deferred) stops the transfer: the rest is
		// never read.
		c.failRequest(m, &MessageTooLargeError{What: "HTTP response body", Limit: c.maxMsg})
		return
	case err != nil && m.isRequest() && c.stateless():
		c.lost(m, err)
		return
	case err != nil:
		c.failRequest(m, fmt.Errorf("POST %s: reading the answer to %s: %w", c.urlString(c.url), m, err))
		return
	case len(bytes.TrimSpace(data)) == 0:
		c.failRequest(m, fmt.Errorf("POST %s: the answer to %s is an empty application/json body", c.urlString(c.url), m))
		return
	}
	if !c.deliver(data, "the answer to "+m.String()) {
		return
	}
	if m.isRequest() && !isDone(answered) {
		c.failRequest(m, fmt.Errorf("POST %s: the application/json answer to %s is not its response: %q",
			c.urlString(c.url), m, excerpt(c.redact(data), false)))
	}
}
