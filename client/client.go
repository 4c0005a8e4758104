// Package client is mcpctl's MCP session: the initialize handshake and
// version negotiation, re-initialization when the server ends the session,
// request/response matching by id, typed notifications, bounded
// server→client requests, timeouts with notifications/cancelled, the one
// paginator, message builders, a signing hook on calls, and typed methods
// such as [Client.ListTools] and [Client.CallTool].
//
// The client speaks over any [transport.Connection]; it never prints
// anything itself: warnings, events and results reach the caller through
// the hooks of [Options]. Protocol types are in protocol.go.
package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpctl/mcpctl/transport"
)

// DefaultTimeout is the per-request timeout when [Options.Timeout] is zero.
const DefaultTimeout = 60 * time.Second

// MaxConcurrentServerRequests is how many server→client requests are
// handled at once. A request beyond that is answered at once with error
// [CodeBusy], so a server flooding mcpctl with requests costs bounded
// memory and goroutines; while the server does not read its input, the
// answer is dropped instead, and Close reports how many were.
const MaxConcurrentServerRequests = 16

// MaxDepth is the deepest nesting of objects and arrays accepted in one
// message, the message's own object counting as 1. A deeper message is not
// decoded: the request it answers fails at once with a [*ProtocolError]
// naming the depth and this limit. It is the depth encoding/json itself
// decodes; output of deep documents is kept small by render.
const MaxDepth = 10000

// EventSessionReinitialized is the event [Options.OnEvent] receives when
// the server ended the session and the client initialized a new one.
const EventSessionReinitialized = "session re-initialized"

// busyQueue bounds the answers to refused server requests waiting to be
// written; beyond it, the read loop waits for room while the writer makes
// progress, and drops the answer when it does not (see [stuckAfter]).
const busyQueue = 256

// stuckAfter is how long one write may wait for the server to read before
// the client takes the server to have stopped reading its input. From then
// on, until a write succeeds, nothing waits on the writer: answers to
// refused server requests are dropped (and counted), and
// notifications/cancelled is skipped. It is short next to any request
// timeout, and long next to a write to a server that reads.
const stuckAfter = 500 * time.Millisecond

// cancelTimeout bounds sending notifications/cancelled over a connection
// that writes concurrently (HTTP, where it is a POST of its own): the
// cancellation is best-effort, and the caller, whose context may be done
// already, should not wait long for it. Over a serialised connection
// (stdio) the bound is stuckAfter, waiting for the writer included: a
// notification that takes longer would be waiting for a server that does
// not read.
const cancelTimeout = 2 * time.Second

// RequestHandler answers a server→client request. Returning an *RPCError
// sends that error; any other error is sent as an internal error.
type RequestHandler func(ctx context.Context, params json.RawMessage) (any, error)

// Options configure a [Client]. The hooks run on the client's goroutines,
// as each says; none may call back into the client synchronously.
type Options struct {
	// ClientInfo is sent in initialize. Name and Version are required.
	ClientInfo Implementation
	// ProtocolVersion is the revision to speak: a legacy one is offered in
	// initialize, a modern one goes in every request's _meta. Empty means
	// the newest of the era: [LatestProtocolVersion] or
	// [ModernProtocolVersion].
	ProtocolVersion string
	// Era is [EraAuto], [EraLegacy] or [EraModern]. Empty means the era of
	// ProtocolVersion (legacy when that is empty too). With EraAuto, a
	// ProtocolVersion of one era is used when that era is detected.
	Era string
	// KnownEra is the era an earlier detection found for this server, for
	// EraAuto: the probe is skipped, and done after all when the server
	// turns out to speak the other era.
	KnownEra string
	// ProbeTimeout bounds the wait for the answer to the era probe before
	// initialize is sent as well ([DefaultProbeTimeout] suits stdio, where
	// a legacy server may stay silent). Zero waits for the probe's answer
	// as for any request, which suits HTTP, where every POST is answered.
	ProbeTimeout time.Duration
	// Capabilities are the client capabilities declared in initialize. The
	// client declares nothing by default, so servers send it no requests
	// beyond ping.
	Capabilities map[string]any
	// Timeout bounds every request, and every list across all its pages;
	// default [DefaultTimeout].
	Timeout time.Duration
	// OnNotification receives every server notification, typed. It runs on
	// the read loop: it must not block.
	OnNotification func(Notification)
	// Handlers answer server→client requests by method. ping is always
	// answered; anything else unhandled gets -32601. At most
	// [MaxConcurrentServerRequests] run at once.
	Handlers map[string]RequestHandler
	// OnProtocolWarning receives problems with server messages that do not
	// stop the session (an unknown response id, an unparsable message, a
	// batch the revision forbids). It may run on any client goroutine, one
	// call at a time per goroutine: it must not block.
	OnProtocolWarning func(msg string)
	// OnIgnored, when set, also receives the warnings about server
	// messages the client dropped unread: not JSON, not JSON-RPC, or of no
	// known shape (a validator reports them as the server's noise).
	OnIgnored func(msg string)
	// OnEvent receives events of the session worth showing with -v, such as
	// [EventSessionReinitialized] with a detail naming the new session's
	// protocol version and server. It runs on the goroutine of the request
	// that caused it.
	OnEvent func(event, detail string)
	// OnResult receives every successful result — initialize's and every
	// later one, each page of a list — with its method and the protocol
	// version in effect, so the caller can check it against that revision's
	// schema. It runs on the goroutine of the request before the result is
	// returned: it must not block, and must not keep or change result.
	OnResult func(method, protocolVersion string, result json.RawMessage)
}

// Client is one MCP session with one server.
//
// Concurrency: every method may be called from several goroutines at once;
// requests are matched to answers by id, so concurrent calls may be
// answered in any order. Writes are serialised unless the connection
// declares [transport.ConcurrentWriter]; waiting for an earlier write is
// bounded by the waiting request's own timeout or context.
//
// Reading never waits on writing: a server that floods the client with
// requests while it does not read its own input (so that every write
// blocks) still has every message it sends read, the answers to its
// requests beyond [MaxConcurrentServerRequests] dropped and counted (one
// warning, at Close), notifications/cancelled skipped, and each request
// bounded by its timeout. When the session expires, one
// caller re-initializes while the others wait for it, then each retries its
// request once. Close may be called at any time, more than once; it fails
// every request in flight. Hooks in [Options] are called from the read loop
// or from the calling goroutine, as each documents.
type Client struct {
	conn   transport.Connection
	opts   Options
	modern atomic.Bool // the modern era: server/discover and per-request _meta; see isModern

	// writeSem holds one token across Write unless concurrentWrites: a
	// channel, not a mutex, so that waiting for it honours a context.
	writeSem         chan struct{}
	concurrentWrites bool         // the connection allows concurrent Writes
	epoch            time.Time    // the origin of writeStart
	writeStart       atomic.Int64 // since epoch, +1, of the serialised Write in progress; 0 when none
	stalled          atomic.Bool  // a Write gave up after stuckAfter; cleared when one succeeds
	unsent           atomic.Int64 // answers to server requests dropped or abandoned, see reportUnsent
	nextID           atomic.Int64

	mu      sync.Mutex
	pending map[string]*pendingCall // by id key, see idKey
	recent  recentIDs               // answered or abandoned ids, bounded
	strays  strayLog                // responses that matched nothing
	// answering is the time spent answering the server's own requests
	// (an elicitation a person fills in, a sampling answer), which no
	// request's timeout counts (see roundTripAs).
	answering  answerClock
	readErr    error // set before done is closed
	deepWarned bool  // a too-deep message was reported
	busyWarned bool  // a refused server request was reported
	init       InitializeResult
	wire       string // modern era: the revision requests carry in _meta
	eraMode    string // EraAuto, EraLegacy or EraModern, from Options
	detection  Detection
	lazy       bool // modern from the cache: server/discover not sent yet
	confirmed  bool // a request of this session succeeded, or the era was re-probed
	// Modern era: the x-mcp-header annotations of the tools listed, and
	// the tools excluded for invalid ones (name → reason).
	toolHeaders  map[string][]ParamHeader
	toolExcluded map[string]string
	handshake    time.Duration
	generation   uint64        // successful initializes so far
	reinit       chan struct{} // non-nil while a re-initialization runs

	reinitMu sync.Mutex // one re-initialization at a time

	watch watchState // the log level and the subscriptions: logging.go, subscribe.go

	done     chan struct{}        // closed when the read loop ends
	slots    chan struct{}        // one token per running server request
	busy     chan json.RawMessage // answers to refused server requests
	busyWait *time.Timer          // the read loop's wait for room in busy; nil until needed

	closing   atomic.Bool // Close was called: write failures are expected
	closeOnce sync.Once
	closeErr  error
	cancelBg  context.CancelFunc
	bgCtx     context.Context
}

// pendingCall is a request waiting for its answer.
type pendingCall struct {
	ch     chan response
	method string
}

type response struct {
	result json.RawMessage
	err    error
}

// Connect opens a connection with t, performs the initialize handshake and
// sends notifications/initialized. On error the connection is closed.
//
// The request timeout bounds connecting too: a listener that never answers,
// or a legacy SSE server that never sends its endpoint event, ends in a
// [*ConnectTimeoutError].
func Connect(ctx context.Context, t transport.Transport, opts Options) (*Client, error) {
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	conn, err := t.Connect(cctx)
	cancel()
	if err != nil {
		if ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded) {
			return nil, &ConnectTimeoutError{After: timeout, Err: err}
		}
		return nil, err
	}
	c := New(conn, opts)
	if err := c.start(ctx); err != nil {
		c.shortenGrace()
		c.Close()
		return nil, err
	}
	return c, nil
}

// New starts a session over an established connection without the
// handshake; Connect is what commands use. It exists for tests that drive the
// handshake themselves.
func New(conn transport.Connection, opts Options) *Client {
	eraMode := opts.Era
	if eraMode == "" {
		eraMode = EraLegacy
		if IsModern(opts.ProtocolVersion) {
			eraMode = EraModern
		}
	}
	// The revision each era speaks: opts.ProtocolVersion is what
	// initialize offers, wire what modern requests carry.
	wire := ModernProtocolVersion
	if IsModern(opts.ProtocolVersion) {
		wire = opts.ProtocolVersion
		opts.ProtocolVersion = LatestProtocolVersion
	}
	if opts.ProtocolVersion == "" {
		opts.ProtocolVersion = LatestProtocolVersion
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.ClientInfo.Name == "" {
		opts.ClientInfo = Implementation{Name: "mcpctl", Version: "dev"}
	}
	bg, cancel := context.WithCancel(context.Background())
	cw, ok := conn.(transport.ConcurrentWriter)
	c := &Client{
		conn:             conn,
		wire:             wire,
		eraMode:          eraMode,
		concurrentWrites: ok && cw.WritesConcurrently(),
		writeSem:         make(chan struct{}, 1),
		epoch:            time.Now(),
		opts:             opts,
		pending:          make(map[string]*pendingCall),
		done:             make(chan struct{}),
		slots:            make(chan struct{}, MaxConcurrentServerRequests),
		busy:             make(chan json.RawMessage, busyQueue),
		bgCtx:            bg,
		cancelBg:         cancel,
	}
	c.modern.Store(eraMode == EraModern)
	if eraMode == EraModern {
		c.setWire(wire)
	}
	go c.readLoop()
	go c.busyLoop()
	return c
}

// InitializeResult is the server's answer to the latest initialize: after a
// re-initialization, the new session's. The value is a copy.
func (c *Client) InitializeResult() *InitializeResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.init
	return &r
}

// ProtocolVersion is the protocol revision in effect: the one the server
// answered the latest initialize with, or in the modern era the one
// requests carry; "" before either.
func (c *Client) ProtocolVersion() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.init.ProtocolVersion == "" && c.modern.Load() {
		return c.wire
	}
	return c.init.ProtocolVersion
}

// HandshakeTime is how long the latest initialize took, from sending the
// request to receiving its answer.
func (c *Client) HandshakeTime() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.handshake
}

// HasCapability reports whether the server declared the named capability
// (tools, resources, prompts, logging, completions, …).
func (c *Client) HasCapability(name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.init.Capabilities[name]
	return ok
}

// initialize performs the handshake: initialize, version check, the
// version given to the connection, notifications/initialized.
func (c *Client) initialize(ctx context.Context) error {
	caps := c.opts.Capabilities
	if caps == nil {
		caps = map[string]any{}
	}
	params, err := encodeParams("initialize", map[string]any{
		"protocolVersion": c.opts.ProtocolVersion,
		"capabilities":    caps,
		"clientInfo":      c.opts.ClientInfo,
	})
	if err != nil {
		return err
	}
	start := time.Now()
	// initialize must not be cancelled (lifecycle.mdx), so a timeout here
	// sends no notifications/cancelled.
	raw, _, err := c.roundTrip(ctx, "initialize", oneParams(params), false, requestOptions{})
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	var res InitializeResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return &ProtocolError{Method: "initialize", Msg: "result is not an InitializeResult: " + err.Error()}
	}
	if res.ProtocolVersion == "" {
		return &ProtocolError{Method: "initialize", Msg: "result has no protocolVersion"}
	}
	if !slices.Contains(SupportedProtocolVersions(), res.ProtocolVersion) {
		return &VersionError{Offered: c.opts.ProtocolVersion, Answered: res.ProtocolVersion}
	}
	c.mu.Lock()
	c.init = res
	c.handshake = elapsed
	c.generation++
	c.mu.Unlock()
	if s, ok := c.conn.(transport.ProtocolVersionSetter); ok {
		s.SetProtocolVersion(res.ProtocolVersion)
	}
	if c.opts.OnResult != nil {
		c.opts.OnResult("initialize", res.ProtocolVersion, raw)
	}
	return c.Notify(ctx, "notifications/initialized", nil)
}

// reinitialize starts a new session after a request written in session
// generation gen met *transport.SessionExpiredError. Only one runs at a
// time; a caller that finds a newer generation than the one it wrote in
// knows another caller has re-initialized already, and just retries.
func (c *Client) reinitialize(ctx context.Context, gen uint64, cause error) error {
	c.reinitMu.Lock()
	defer c.reinitMu.Unlock()
	c.mu.Lock()
	if c.generation != gen {
		c.mu.Unlock()
		return nil
	}
	wait := make(chan struct{})
	c.reinit = wait
	c.mu.Unlock()
	restored := false
	defer func() {
		// Runs once the new session is open to requests (the deferred
		// close below runs first): a log level set in the old session is
		// set again in the new one.
		if restored {
			c.restoreLogLevel(ctx)
		}
	}()
	defer func() {
		c.mu.Lock()
		c.reinit = nil
		c.mu.Unlock()
		close(wait)
	}()
	if err := c.initialize(ctx); err != nil {
		return fmt.Errorf("the server ended the session (%v), and initializing a new one failed: %w", cause, err)
	}
	if c.opts.OnEvent != nil {
		info := c.InitializeResult()
		c.opts.OnEvent(EventSessionReinitialized, fmt.Sprintf("the server ended the session; initialized a new one: %s %s, protocol %s",
			info.ServerInfo.Name, info.ServerInfo.Version, info.ProtocolVersion))
	}
	restored = true
	return nil
}

// Call sends a request and waits for its answer, the per-request timeout or
// ctx. On timeout or cancellation it sends notifications/cancelled. A JSON-RPC
// error answer is returned as *RPCError. params are encoded with
// encoding/json (a json.RawMessage is sent compacted).
func (c *Client) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	p, err := encodeParams(method, params)
	if err != nil {
		return nil, err
	}
	return c.call(ctx, method, oneParams(p), requestOptions{})
}

// requestOptions is what one request carries besides its method and
// params: what the method making it decided about it, passed down to the
// write as a value. (A context value would also reach every request made
// with that context, such as the tools/list a tools/call makes on its
// behalf.)
type requestOptions struct {
	// header is added to the HTTP headers of a modern request (see
	// [transport.WriteOptions.Header]): the Mcp-Param-* of a tool call,
	// the Mcp-Name of a request about a task.
	header http.Header
	// declare holds capabilities the modern request declares beyond
	// [Options.Capabilities], after a -32021: capabilities are per request
	// in that era.
	declare map[string]any
	// task marks a request that belongs to a task: in the modern era it
	// declares the tasks extension, and a tools/call may be answered with
	// a CreateTaskResult.
	task bool
	// probe marks the era probe (see [transport.WriteOptions.Probe]).
	probe bool
}

// call sends a request with encoded params: the request is retried once,
// in a new session, if the server ended the session.
func (c *Client) call(ctx context.Context, method string, params wireParams, ro requestOptions) (json.RawMessage, error) {
	raw, gen, err := c.roundTrip(ctx, method, params, true, ro)
	if c.isModern() && err != nil {
		raw, err = c.modernRetry(ctx, method, params, ro, err)
	}
	if c.isModern() && err != nil {
		var retry bool
		if retry, err = c.staleCache(ctx, err); retry {
			raw, gen, err = c.roundTrip(ctx, method, params, true, ro)
		}
	}
	if err == nil {
		c.mu.Lock()
		c.confirmed = true
		c.mu.Unlock()
	}
	var expired *transport.SessionExpiredError
	if err != nil && errors.As(err, &expired) {
		if rerr := c.reinitialize(ctx, gen, expired); rerr != nil {
			return nil, fmt.Errorf("%s: %w", method, rerr)
		}
		raw, _, err = c.roundTrip(ctx, method, params, true, ro)
	}
	if err != nil {
		return nil, err
	}
	if c.isModern() {
		if raw, err = c.inputRounds(ctx, method, params, raw, ro); err != nil {
			return nil, err
		}
	}
	if c.taskCreated(method, raw, ro) {
		return raw, nil // a CreateTaskResult: the task's code checks it (tasks.go)
	}
	if c.isModern() {
		if err := checkResultType(method, raw); err != nil {
			return nil, err
		}
	}
	if c.opts.OnResult != nil {
		c.opts.OnResult(method, c.ProtocolVersion(), raw)
	}
	return raw, nil
}

// roundTrip writes one request, in the era the session speaks, and waits
// for its answer. It returns the session generation the request was
// written in.
func (c *Client) roundTrip(ctx context.Context, method string, params wireParams, cancellable bool, ro requestOptions) (json.RawMessage, uint64, error) {
	return c.roundTripAs(ctx, method, params, cancellable, c.isModern(), ro)
}

// roundTripAs is roundTrip in the era modern says: while the era is being
// detected, the probe goes out modern and initialize legacy.
func (c *Client) roundTripAs(ctx context.Context, method string, params wireParams, cancellable, modern bool, ro requestOptions) (json.RawMessage, uint64, error) {
	if method != "initialize" {
		// A request written while a re-initialization runs would go out
		// without a session; wait for the new one.
		c.mu.Lock()
		wait := c.reinit
		c.mu.Unlock()
		if wait != nil {
			select {
			case <-wait:
			case <-ctx.Done():
				return nil, 0, fmt.Errorf("%s: %w", method, ctx.Err())
			}
		}
	}
	wo := transport.WriteOptions{Probe: ro.probe}
	if modern {
		p, err := c.withRequestMeta(params.joined(), ro.declare)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", method, err)
		}
		if ro.task {
			if p, err = declareTasks(p); err != nil {
				return nil, 0, fmt.Errorf("%s: %w", method, err)
			}
		}
		params = oneParams(p)
		wo.Header = modernHeaders(method, p)
		for k, v := range ro.header {
			wo.Header[k] = v
		}
	}
	id := c.nextID.Add(1)
	key := strconv.FormatInt(id, 10)
	data := assembleParts(json.RawMessage(key), method, params)

	p := &pendingCall{ch: make(chan response, 1), method: method}
	c.mu.Lock()
	if c.readErr != nil {
		err := c.readErr
		c.mu.Unlock()
		return nil, 0, c.connErr(method, err)
	}
	gen := c.generation
	straySeq := c.strays.seq
	c.pending[key] = p
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		if _, still := c.pending[key]; still {
			// No answer was delivered: a late one is expected, not a fault
			// (cancellation.mdx: the client SHOULD ignore it).
			delete(c.pending, key)
			c.recent.add(key, idAbandoned)
		}
		c.mu.Unlock()
	}()

	// The timeout covers the write too: over HTTP a POST may last as long
	// as the request, when the server sends its headers with the result.
	start := time.Now()
	deadline := start.Add(c.opts.Timeout)
	after := c.opts.Timeout
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		// The caller's deadline comes first (a list bounded as a whole).
		deadline, after = d, d.Sub(start).Round(time.Millisecond)
	}
	timedOut := func() error {
		te := &TimeoutError{Method: method, After: after}
		if cancellable {
			switch c.cancelRequest(id, fmt.Sprintf("timed out after %s", after)) {
			case cancelByStream:
				te.Cancelled, te.ByStream = true, true
			case cancelNotified:
				te.Cancelled = true
			case cancelSkipped:
				te.Detail = "the server stopped reading its input, so notifications/cancelled could not be sent"
			}
		}
		c.mu.Lock()
		te.Arrived = c.strays.since(straySeq)
		c.mu.Unlock()
		return te
	}
	wctx, cancelWrite := context.WithDeadline(ctx, deadline)
	err := c.write(wctx, data, wo)
	cancelWrite()
	if err != nil {
		switch {
		case ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded):
			if cancellable {
				c.cancelRequest(id, "cancelled by the user")
			}
			return nil, gen, fmt.Errorf("%s: %w", method, ctx.Err())
		case errors.Is(wctx.Err(), context.DeadlineExceeded):
			te := timedOut()
			var w interface{ TimeoutDetail() string }
			if t, ok := te.(*TimeoutError); ok && errors.As(err, &w) {
				t.Waiting = w.TimeoutDetail()
			}
			return nil, gen, te
		}
		return nil, gen, c.connErr(method, err)
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	answeredAtStart := c.answering.read()
wait:
	select {
	case r := <-p.ch:
		return r.result, gen, r.err
	case <-c.done:
		// A response may have raced with the end of the stream.
		select {
		case r := <-p.ch:
			return r.result, gen, r.err
		default:
		}
		return nil, gen, c.connErr(method, c.readErr)
	case <-timer.C:
		// The time the client spent answering the server's requests
		// meanwhile (a person filling in an elicitation) is the client's,
		// not the server's: the deadline moves by it. The caller's own
		// deadline (ctx) does not.
		if spent := c.answering.read() - answeredAtStart; spent > 0 {
			if until := time.Until(deadline.Add(spent)); until > 0 {
				timer.Reset(until)
				goto wait
			}
		}
		return nil, gen, timedOut()
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, gen, timedOut()
		}
		if cancellable {
			c.cancelRequest(id, "cancelled by the user")
		}
		return nil, gen, fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// cancel tells the server to stop working on request id, best-effort. It
// reports false, having sent nothing, when the server has stopped reading
// (a notification queued behind a stuck write would only hold up the
// caller, and the server would not read it anyway), or when it could not
// be written within its bound (see cancelTimeout).
func (c *Client) cancel(id int64, reason string) bool {
	if c.writerStuck() {
		return false
	}
	bound := cancelTimeout
	if !c.concurrentWrites {
		bound = stuckAfter
	}
	ctx, done := context.WithTimeout(c.bgCtx, bound)
	defer done()
	err := c.Notify(ctx, "notifications/cancelled", map[string]any{"requestId": id, "reason": reason})
	return err == nil || ctx.Err() == nil
}

func (c *Client) connErr(method string, err error) error {
	if err == nil {
		err = transport.ErrClosed
	}
	if errors.Is(err, io.EOF) || errors.Is(err, transport.ErrClosed) {
		return fmt.Errorf("connection lost while waiting for the answer to %s: %w", method, err)
	}
	return fmt.Errorf("%s: %w", method, err)
}

// Notify sends a notification.
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	data, err := NewNotification(method, params)
	if err != nil {
		return err
	}
	return c.write(ctx, [][]byte{data}, transport.WriteOptions{})
}

// write sends one message. Waiting for an earlier write to finish ends
// with ctx, as the write itself does (the transport abandons a write
// blocked on a full pipe when ctx ends), so no caller waits longer than
// its own bound behind a server that stopped reading.
func (c *Client) write(ctx context.Context, data [][]byte, opts transport.WriteOptions) error {
	if c.concurrentWrites {
		// Each write is an exchange of its own (an HTTP POST, which may
		// last as long as its request): a slow one holds up no other,
		// and says nothing about the server reading.
		return transport.WriteParts(ctx, c.conn, data, opts)
	}
	select {
	case c.writeSem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-c.writeSem }()
	start := time.Since(c.epoch)
	c.writeStart.Store(int64(start) + 1)
	defer c.writeStart.Store(0)
	err := transport.WriteParts(ctx, c.conn, data, opts)
	switch {
	case err == nil:
		c.stalled.Store(false)
	case ctx.Err() != nil && time.Since(c.epoch)-start >= stuckAfter:
		c.stalled.Store(true)
	}
	return err
}

// writerStuck reports whether the server seems to have stopped reading:
// the write in progress has waited stuckAfter, or the last write that
// gave up had, and none has succeeded since. It is never true for a
// connection that writes concurrently.
func (c *Client) writerStuck() bool {
	if c.stalled.Load() {
		return true
	}
	start := c.writeStart.Load()
	return start != 0 && time.Since(c.epoch)-time.Duration(start-1) >= stuckAfter
}

// reportUnsent warns, once, of the answers to server requests that were
// never sent because the server was not reading its input.
func (c *Client) reportUnsent() {
	if n := c.unsent.Swap(0); n > 0 {
		noun := "answers"
		if n == 1 {
			noun = "answer"
		}
		c.warn(fmt.Sprintf("%d %s to requests from the server were not sent: the server stopped reading its input (mcpctl kept reading, and dropped what it could not write)", n, noun))
	}
}

func (c *Client) warn(msg string) {
	if c.opts.OnProtocolWarning != nil {
		c.opts.OnProtocolWarning(msg)
	}
}

// ignored warns of a server message dropped unread.
func (c *Client) ignored(msg string) {
	c.warn(msg)
	if c.opts.OnIgnored != nil {
		c.opts.OnIgnored(msg)
	}
}

// Done is closed when the connection has ended.
func (c *Client) Done() <-chan struct{} { return c.done }

// Close ends the session and the connection (for stdio: closes the server's
// stdin, waits, then SIGTERM and SIGKILL). It never waits for a write: the
// connection's Close unblocks any in progress. Answers to server requests
// that could not be sent are reported to OnProtocolWarning first, in one
// message.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		c.closing.Store(true)
		c.reportUnsent()
		c.closeErr = c.conn.Close()
		c.cancelBg()
		<-c.done
	})
	return c.closeErr
}
