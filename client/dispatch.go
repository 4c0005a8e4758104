package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpctl/mcpctl/internal/jsonscan"
	"github.com/mcpctl/mcpctl/transport"
)

// readLoop reads messages until the connection ends. A *transport.RequestError
// fails that one request; any other Read error ends the session.
func (c *Client) readLoop() {
	var err error
	for {
		var msg json.RawMessage
		msg, err = c.conn.Read(c.bgCtx)
		if err != nil {
			var reqErr *transport.RequestError
			if errors.As(err, &reqErr) {
				c.failRequest(reqErr.ID, reqErr)
				continue
			}
			break
		}
		c.dispatch(msg)
	}
	c.mu.Lock()
	c.readErr = err
	c.mu.Unlock()
	close(c.done)
}

// take removes the request with id key from those in flight, so that it
// gets at most one answer, and remembers it as answered.
func (c *Client) take(key string) (*pendingCall, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.pending[key]
	if ok {
		delete(c.pending, key)
		c.recent.add(key, idAnswered)
	}
	return p, ok
}

// failRequest delivers err to the request with id, if it is in flight.
func (c *Client) failRequest(id json.RawMessage, err error) {
	key := idKey(id)
	p, ok := c.take(key)
	if ok {
		p.ch <- response{err: fmt.Errorf("%s: %w", p.method, err)}
	}
}

// dispatch handles one message as read: a batch is split first.
func (c *Client) dispatch(msg json.RawMessage) {
	i := jsonscan.Space(msg, 0)
	if i < len(msg) && msg[i] == '[' {
		c.dispatchBatch(msg)
		return
	}
	c.dispatchOne(msg)
}

// dispatchBatch handles a JSON array of messages as the protocol revision
// in effect allows: each element dispatched (2025-03-26), or the whole
// refused, failing the requests it answers. Transports pass batches through
// unchanged, so this is the same on stdio and HTTP.
func (c *Client) dispatchBatch(msg json.RawMessage) {
	elems, err := splitArray(msg)
	if err != nil {
		c.ignored(fmt.Sprintf("ignoring a message from the server that is not valid JSON (%v): %s", err, truncate(msg, 200)))
		return
	}
	version := c.ProtocolVersion()
	if version == "" {
		version = c.opts.ProtocolVersion
	}
	if len(elems) == 0 {
		c.warn("ignoring an empty JSON-RPC batch from the server (JSON-RPC 2.0 forbids empty batches)")
		return
	}
	if batchesAllowed(version) {
		for _, e := range elems {
			if j := jsonscan.Space(e, 0); j < len(e) && e[j] == '[' {
				c.warn("ignoring a JSON-RPC batch nested in a batch: " + truncate(e, 200))
				continue
			}
			c.dispatchOne(e)
		}
		return
	}
	reason := fmt.Sprintf("the server answered in a JSON-RPC batch, which protocol revision %s does not allow (only 2025-03-26 does)", version)
	c.warn(fmt.Sprintf("ignoring a JSON-RPC batch of %d messages: protocol revision %s does not allow batches (only 2025-03-26 does)", len(elems), version))
	for _, e := range elems {
		env, err := parseEnvelope(e)
		if err != nil || !env.isResponse() {
			continue
		}
		key := idKey(env.ID)
		p, ok := c.take(key)
		if ok {
			p.ch <- response{err: &ProtocolError{Method: p.method, Msg: reason}}
		}
	}
}

// dispatchOne handles one JSON-RPC message.
func (c *Client) dispatchOne(msg json.RawMessage) {
	if depth := nestingDepth(msg); depth > MaxDepth {
		c.tooDeep(msg, depth)
		return
	}
	env, err := parseEnvelope(msg)
	if err != nil {
		c.ignored(fmt.Sprintf("ignoring a message from the server that is not valid JSON-RPC (%v): %s", err, truncate(msg, 200)))
		return
	}
	switch {
	case env.isResponse():
		c.dispatchResponse(env)
	case env.isRequest():
		c.startRequest(env)
	case env.isNotification():
		c.notification(env.Method, env.Params) // subscribe.go
	default:
		c.ignored("ignoring a message from the server that is neither a request, a response nor a notification: " + truncate(msg, 200))
	}
}

// tooDeep handles a message nested deeper than MaxDepth without decoding
// it: the envelope scan is iterative, so the request it answers, if any,
// fails at once instead of waiting out its timeout.
func (c *Client) tooDeep(msg json.RawMessage, depth int) {
	what := fmt.Sprintf("nested %d levels deep, more than mcpctl's limit of %d", depth, MaxDepth)
	if env, err := parseEnvelope(msg); err == nil && env.isResponse() {
		key := idKey(env.ID)
		p, ok := c.take(key)
		if ok {
			p.ch <- response{err: &ProtocolError{Method: p.method, Msg: "the response is " + what + "; it was not decoded"}}
			return
		}
	}
	c.mu.Lock()
	warned := c.deepWarned
	c.deepWarned = true
	c.mu.Unlock()
	if !warned {
		c.warn("ignoring a message from the server " + what + " (further ones are ignored silently): " + truncate(msg, 80))
	}
}

// dispatchResponse delivers a response to its request, or reports it.
func (c *Client) dispatchResponse(env envelope) {
	key := idKey(env.ID)
	// Taking the entry out delivers at most one answer per request: a
	// server that answers twice cannot block the read loop.
	c.mu.Lock()
	p, ok := c.pending[key]
	var state idState
	if ok {
		delete(c.pending, key)
		c.recent.add(key, idAnswered)
	} else {
		state = c.recent.lookup(key)
	}
	c.mu.Unlock()
	if !ok {
		c.stray(env, state)
		return
	}
	if env.Error != nil {
		rpcErr := &RPCError{}
		if err := json.Unmarshal(env.Error, rpcErr); err != nil {
			p.ch <- response{err: &ProtocolError{Method: p.method, Msg: "error member is not a JSON-RPC error object: " + truncate(env.Error, 200)}}
			return
		}
		p.ch <- response{err: rpcErr}
		return
	}
	p.ch <- response{result: env.Result}
}

// stray reports a response that matches no request in flight. Late answers
// to abandoned requests are expected and stay silent.
func (c *Client) stray(env envelope, state idState) {
	idText := truncate(env.ID, 80)
	switch state {
	case idAbandoned:
		return
	case idAnswered:
		c.warn(fmt.Sprintf("ignoring a second response with id %s: that request was already answered", idText))
		return
	}
	desc := "a response with id " + idText
	if len(env.ID) > 0 && env.ID[0] == '"' {
		desc += " (a string)"
	}
	if env.Error != nil {
		var e RPCError
		if json.Unmarshal(env.Error, &e) == nil {
			desc += fmt.Sprintf(" carrying error %d %q", e.Code, truncate([]byte(e.Message), 80))
		}
	}
	c.mu.Lock()
	inFlight := c.inFlightLocked()
	note := ""
	if len(env.ID) > 0 && env.ID[0] == '"' {
		var s string
		if json.Unmarshal(env.ID, &s) == nil {
			if _, ok := c.pending[s]; ok {
				note = fmt.Sprintf(" (request %s is in flight with a numeric id: the server turned the number into a string)", s)
			}
		}
	}
	c.strays.add(desc + ", which matches no request" + note)
	c.mu.Unlock()
	c.warn(fmt.Sprintf("%s matches no request in flight%s; in flight: %s", desc, note, inFlight))
}

// inFlightLocked lists the requests in flight, for messages: `3 (tools/call),
// 4 (ping)`. c.mu must be held.
func (c *Client) inFlightLocked() string {
	if len(c.pending) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(c.pending))
	for k := range c.pending {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if len(a) != len(b) {
			return len(a) - len(b) // numeric order for the client's ids
		}
		return strings.Compare(a, b)
	})
	const show = 5
	parts := make([]string, 0, show+1)
	for i, k := range keys {
		if i == show {
			parts = append(parts, fmt.Sprintf("and %d more", len(keys)-show))
			break
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", k, c.pending[k].method))
	}
	return strings.Join(parts, ", ")
}

// idKey is the key of a request id in the pending map: the client writes
// integers, so an integer is written back in its plain form whatever its
// spelling; anything else (a string, a fraction) is kept as the JSON text,
// which can then match no request.
func idKey(id json.RawMessage) string {
	if n, err := strconv.ParseInt(string(id), 10, 64); err == nil {
		return strconv.FormatInt(n, 10)
	}
	return string(id)
}

// startRequest runs a server→client request in one of the bounded handler
// slots, or answers it at once with CodeBusy when all are taken.
func (c *Client) startRequest(env envelope) {
	select {
	case c.slots <- struct{}{}:
		go func() {
			defer func() { <-c.slots }()
			c.handleRequest(env)
		}()
	default:
		c.refuseBusy(env)
	}
}

// refuseBusy queues the busy answer to a request for the one goroutine
// that writes them, without starting a goroutine per request. When the
// queue is full the read loop waits for room only while the writer makes
// progress: a flood then slows down to the pace at which its answers can
// be written, and memory stays bounded. A server that stopped reading its
// input must not stop the read loop as well (the answers it does send
// would go unread), so once the writer is stuck the answer is dropped and
// counted instead; Close reports the count.
func (c *Client) refuseBusy(env envelope) {
	c.mu.Lock()
	warned := c.busyWarned
	c.busyWarned = true
	c.mu.Unlock()
	if !warned {
		c.warn(fmt.Sprintf("the server sent more than %d requests at once; answering the extra ones with error %d (mcpctl is busy)", MaxConcurrentServerRequests, CodeBusy))
	}
	if c.writerStuck() {
		c.unsent.Add(1)
		return
	}
	data, err := NewResponse(env.ID, nil, &RPCError{Code: CodeBusy, Message: fmt.Sprintf("mcpctl is busy: too many concurrent server requests (at most %d at once)", MaxConcurrentServerRequests)})
	if err != nil {
		return
	}
	select {
	case c.busy <- data:
		return
	default:
	}
	if c.busyWait == nil {
		c.busyWait = time.NewTimer(stuckAfter)
	} else {
		c.busyWait.Reset(stuckAfter)
	}
	select {
	case c.busy <- data:
	case <-c.busyWait.C:
		// No room for stuckAfter: the writer is stuck.
		c.unsent.Add(1)
		return
	case <-c.bgCtx.Done():
	}
	c.busyWait.Stop()
}

// busyLoop writes the busy answers, one at a time; while the server is not
// reading, it drops them (counted) rather than wait a timeout for each.
func (c *Client) busyLoop() {
	for {
		select {
		case data := <-c.busy:
			if c.writerStuck() {
				c.unsent.Add(1)
				continue
			}
			c.writeAnswer("a refused request", data)
		case <-c.bgCtx.Done():
			return
		}
	}
}

func (c *Client) handleRequest(env envelope) {
	var (
		result any
		err    error
	)
	if env.Method == "ping" {
		result = struct{}{}
	} else if h, ok := c.opts.Handlers[env.Method]; ok {
		c.answering.begin()
		result, err = h(c.bgCtx, env.Params)
		c.answering.end()
	} else {
		err = &RPCError{Code: CodeMethodNotFound, Message: "mcpctl does not handle " + env.Method}
	}
	var rpcErr *RPCError
	if err != nil && !errors.As(err, &rpcErr) {
		rpcErr = &RPCError{Code: CodeInternalError, Message: err.Error()}
	}
	data, merr := NewResponse(env.ID, result, rpcErr)
	if merr != nil {
		c.warn("encoding the answer to " + env.Method + ": " + merr.Error())
		return
	}
	c.writeAnswer(env.Method, data)
}

// writeAnswer sends the answer to a server request, giving up after the
// request timeout. When the connection is closing or gone, the failure is
// expected and not reported: after mcpctl closed the connection itself, a
// flood of such warnings would only hide what matters. An answer the
// server did not read in time is counted, not reported one by one: Close
// reports the count.
func (c *Client) writeAnswer(what string, data json.RawMessage) {
	ctx, cancel := context.WithTimeout(c.bgCtx, c.opts.Timeout)
	defer cancel()
	err := c.write(ctx, [][]byte{data}, transport.WriteOptions{})
	if err == nil || c.closing.Load() || c.bgCtx.Err() != nil ||
		errors.Is(err, transport.ErrClosed) || errors.Is(err, io.EOF) {
		return
	}
	if ctx.Err() != nil {
		c.unsent.Add(1)
		return
	}
	select {
	case <-c.done:
		return
	default:
	}
	c.warn("sending the answer to " + what + ": " + err.Error())
}

// idState is what the client remembers of a request id no longer in flight.
type idState int

const (
	idUnknown   idState = iota
	idAnswered          // an answer was delivered
	idAbandoned         // the caller gave up (timeout, cancellation)
)

// recentLimit bounds the ids remembered after their request ended.
const recentLimit = 256

// recentIDs remembers the last recentLimit ids that left the pending map,
// to tell a late answer (silent) and a duplicate (warned) from an answer to
// no request at all.
type recentIDs struct {
	ring  [recentLimit]string
	next  int
	state map[string]idState
}

func (r *recentIDs) add(key string, s idState) {
	if r.state == nil {
		r.state = make(map[string]idState, recentLimit)
	}
	if old := r.ring[r.next]; old != "" {
		delete(r.state, old)
	}
	r.ring[r.next] = key
	r.next = (r.next + 1) % recentLimit
	r.state[key] = s
}

func (r *recentIDs) lookup(key string) idState { return r.state[key] }

// strayLimit bounds the stray responses remembered for timeout messages.
const strayLimit = 8

// strayLog remembers the last responses that matched no request, each with
// a sequence number, so a timeout can say what arrived while it waited.
type strayLog struct {
	seq   uint64 // number of strays so far
	descs [strayLimit]string
}

func (l *strayLog) add(desc string) {
	l.descs[l.seq%strayLimit] = desc
	l.seq++
}

// since describes the strays after sequence number from, at most three.
func (l *strayLog) since(from uint64) string {
	if l.seq <= from {
		return ""
	}
	if l.seq-from > strayLimit {
		from = l.seq - strayLimit
	}
	var parts []string
	for s := from; s < l.seq && len(parts) < 3; s++ {
		parts = append(parts, l.descs[s%strayLimit])
	}
	out := strings.Join(parts, "; and ")
	if more := l.seq - from - uint64(len(parts)); more > 0 {
		out += fmt.Sprintf(" (and %d more like it)", more)
	}
	return out
}

// answerClock adds up the time during which at least one server request
// was being answered, counting overlapping answers once.
type answerClock struct {
	mu     sync.Mutex
	total  time.Duration
	active int
	since  time.Time
}

func (a *answerClock) begin() {
	a.mu.Lock()
	if a.active == 0 {
		a.since = time.Now()
	}
	a.active++
	a.mu.Unlock()
}

func (a *answerClock) end() {
	a.mu.Lock()
	a.active--
	if a.active == 0 {
		a.total += time.Since(a.since)
	}
	a.mu.Unlock()
}

// read is the time spent answering so far, an answer in progress included.
func (a *answerClock) read() time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	t := a.total
	if a.active > 0 {
		t += time.Since(a.since)
	}
	return t
}
