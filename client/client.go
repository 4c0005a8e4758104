// Package client is mcpctl's MCP session: the initialize handshake and
// version negotiation, request/response matching by id, notifications,
// server→client requests, timeouts with notifications/cancelled, pagination,
// and typed methods such as [Client.ListTools] and [Client.CallTool].
//
// The client speaks over any [transport.Connection]; it never prints
// anything itself. Protocol types are in protocol.go.
package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpctl/mcpctl/transport"
)

// DefaultTimeout is the per-request timeout when [Options.Timeout] is zero.
const DefaultTimeout = 60 * time.Second

// RequestHandler answers a server→client request. Returning an *RPCError
// sends that error; any other error is sent as an internal error.
type RequestHandler func(ctx context.Context, params json.RawMessage) (any, error)

// Options configure a [Client].
type Options struct {
	// ClientInfo is sent in initialize. Name and Version are required.
	ClientInfo Implementation
	// ProtocolVersion is the revision offered in initialize; default
	// [LatestProtocolVersion].
	ProtocolVersion string
	// Capabilities are the client capabilities declared in initialize. The
	// client declares nothing by default, so servers send it no requests
	// beyond ping.
	Capabilities map[string]any
	// Timeout bounds every request; default [DefaultTimeout].
	Timeout time.Duration
	// OnNotification receives every server notification. It runs on the
	// read loop: it must not block.
	OnNotification func(method string, params json.RawMessage)
	// Handlers answer server→client requests by method. ping is always
	// answered; anything else unhandled gets -32601.
	Handlers map[string]RequestHandler
	// OnProtocolWarning receives problems with server messages that do not
	// stop the session (an unknown response id, an unparsable message).
	OnProtocolWarning func(msg string)
}

// Client is one MCP session with one server.
type Client struct {
	conn transport.Connection
	opts Options

	writeMu          sync.Mutex // held across Write unless concurrentWrites
	concurrentWrites bool       // the connection allows concurrent Writes
	nextID           atomic.Int64

	mu      sync.Mutex
	pending map[string]chan response
	readErr error         // set before done is closed
	done    chan struct{} // closed when the read loop ends

	progressID atomic.Int64

	init          InitializeResult
	handshakeTime time.Duration

	closeOnce sync.Once
	closeErr  error
	cancelBg  context.CancelFunc
	bgCtx     context.Context
}

type response struct {
	result json.RawMessage
	err    error
}

// Connect opens a connection with t, performs the initialize handshake and
// sends notifications/initialized. On error the connection is closed.
func Connect(ctx context.Context, t transport.Transport, opts Options) (*Client, error) {
	conn, err := t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	c := New(conn, opts)
	if err := c.initialize(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// New starts a session over an established connection without the
// handshake; Connect is what commands use. It exists for tests that drive the
// handshake themselves.
func New(conn transport.Connection, opts Options) *Client {
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
		concurrentWrites: ok && cw.WritesConcurrently(),
		opts:             opts,
		pending:          make(map[string]chan response),
		done:             make(chan struct{}),
		bgCtx:            bg,
		cancelBg:         cancel,
	}
	go c.readLoop()
	return c
}

// InitializeResult is the server's answer to initialize.
func (c *Client) InitializeResult() *InitializeResult { return &c.init }

// ProtocolVersion is the negotiated protocol revision.
func (c *Client) ProtocolVersion() string { return c.init.ProtocolVersion }

// HandshakeTime is how long initialize took, from sending the request to
// receiving its answer.
func (c *Client) HandshakeTime() time.Duration { return c.handshakeTime }

// HasCapability reports whether the server declared the named capability
// (tools, resources, prompts, logging, completions, …).
func (c *Client) HasCapability(name string) bool {
	_, ok := c.init.Capabilities[name]
	return ok
}

func (c *Client) initialize(ctx context.Context) error {
	caps := c.opts.Capabilities
	if caps == nil {
		caps = map[string]any{}
	}
	params := map[string]any{
		"protocolVersion": c.opts.ProtocolVersion,
		"capabilities":    caps,
		"clientInfo":      c.opts.ClientInfo,
	}
	start := time.Now()
	// initialize must not be cancelled (lifecycle.mdx), so a timeout here
	// sends no notifications/cancelled.
	raw, err := c.call(ctx, "initialize", params, false)
	if err != nil {
		return err
	}
	c.handshakeTime = time.Since(start)
	if err := json.Unmarshal(raw, &c.init); err != nil {
		return &ProtocolError{Method: "initialize", Msg: "result is not an InitializeResult: " + err.Error()}
	}
	if c.init.ProtocolVersion == "" {
		return &ProtocolError{Method: "initialize", Msg: "result has no protocolVersion"}
	}
	if !slices.Contains(SupportedProtocolVersions, c.init.ProtocolVersion) {
		return &VersionError{Offered: c.opts.ProtocolVersion, Answered: c.init.ProtocolVersion}
	}
	return c.Notify(ctx, "notifications/initialized", nil)
}

// Call sends a request and waits for its answer, the per-request timeout or
// ctx. On timeout or cancellation it sends notifications/cancelled. A JSON-RPC
// error answer is returned as *RPCError.
func (c *Client) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return c.call(ctx, method, params, true)
}

func (c *Client) call(ctx context.Context, method string, params any, cancellable bool) (json.RawMessage, error) {
	id := c.nextID.Add(1)
	key := strconv.FormatInt(id, 10)
	msg := struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int64  `json:"id"`
		Method  string `json:"method"`
		Params  any    `json:"params,omitempty"`
	}{"2.0", id, method, params}
	data, err := json.Marshal(msg)
	if err != nil {
		return nil, fmt.Errorf("encoding %s request: %w", method, err)
	}
	ch := make(chan response, 1)
	c.mu.Lock()
	if c.readErr != nil {
		err := c.readErr
		c.mu.Unlock()
		return nil, c.connErr(method, err)
	}
	c.pending[key] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, key)
		c.mu.Unlock()
	}()

	// The timeout covers the write too: over HTTP a POST may last as long
	// as the request, when the server sends its headers with the result.
	deadline := time.Now().Add(c.opts.Timeout)
	wctx, cancelWrite := context.WithDeadline(ctx, deadline)
	err = c.write(wctx, data)
	cancelWrite()
	if err != nil {
		switch {
		case ctx.Err() != nil:
			if cancellable {
				c.cancel(id, "cancelled by the user")
			}
			return nil, fmt.Errorf("%s: %w", method, ctx.Err())
		case errors.Is(wctx.Err(), context.DeadlineExceeded):
			if cancellable {
				c.cancel(id, fmt.Sprintf("timed out after %s", c.opts.Timeout))
			}
			return nil, &TimeoutError{Method: method, After: c.opts.Timeout, Cancelled: cancellable}
		}
		return nil, c.connErr(method, err)
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case r := <-ch:
		return r.result, r.err
	case <-c.done:
		// A response may have raced with the end of the stream.
		select {
		case r := <-ch:
			return r.result, r.err
		default:
		}
		return nil, c.connErr(method, c.readErr)
	case <-timer.C:
		if cancellable {
			c.cancel(id, fmt.Sprintf("timed out after %s", c.opts.Timeout))
		}
		return nil, &TimeoutError{Method: method, After: c.opts.Timeout, Cancelled: cancellable}
	case <-ctx.Done():
		if cancellable {
			c.cancel(id, "cancelled by the user")
		}
		return nil, fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// cancel tells the server to stop working on request id. It uses its own
// short deadline because the caller's context may already be done.
func (c *Client) cancel(id int64, reason string) {
	ctx, done := context.WithTimeout(c.bgCtx, 2*time.Second)
	defer done()
	_ = c.Notify(ctx, "notifications/cancelled", map[string]any{"requestId": id, "reason": reason})
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
	msg := struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Params  any    `json:"params,omitempty"`
	}{"2.0", method, params}
	data, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", method, err)
	}
	return c.write(ctx, data)
}

func (c *Client) write(ctx context.Context, data []byte) error {
	if !c.concurrentWrites {
		c.writeMu.Lock()
		defer c.writeMu.Unlock()
	}
	return c.conn.Write(ctx, data)
}

func (c *Client) readLoop() {
	var err error
	for {
		var msg json.RawMessage
		msg, err = c.conn.Read(c.bgCtx)
		if err != nil {
			break
		}
		c.dispatch(msg)
	}
	c.mu.Lock()
	c.readErr = err
	c.mu.Unlock()
	close(c.done)
}

func (c *Client) dispatch(msg json.RawMessage) {
	env, err := parseEnvelope(msg)
	if err != nil {
		c.warn(fmt.Sprintf("ignoring a message from the server that is not valid JSON-RPC (%v): %s", err, truncate(msg, 200)))
		return
	}
	switch {
	case env.isResponse():
		key := string(env.ID)
		// Taking the entry out delivers at most one answer per request: a
		// server that answers twice cannot block the read loop.
		c.mu.Lock()
		ch, ok := c.pending[key]
		delete(c.pending, key)
		c.mu.Unlock()
		if !ok {
			// Late answers to cancelled or timed-out requests are expected
			// (cancellation.mdx: the client SHOULD ignore them).
			return
		}
		if env.Error != nil {
			rpcErr := &RPCError{}
			if err := json.Unmarshal(env.Error, rpcErr); err != nil {
				ch <- response{err: &ProtocolError{Msg: "error member is not a JSON-RPC error object: " + truncate(env.Error, 200)}}
				return
			}
			ch <- response{err: rpcErr}
			return
		}
		ch <- response{result: env.Result}
	case env.isRequest():
		go c.handleRequest(env)
	case env.isNotification():
		if c.opts.OnNotification != nil {
			c.opts.OnNotification(env.Method, env.Params)
		}
	default:
		c.warn("ignoring a message from the server that is neither a request, a response nor a notification: " + truncate(msg, 200))
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
		result, err = h(c.bgCtx, env.Params)
	} else {
		err = &RPCError{Code: CodeMethodNotFound, Message: "mcpctl does not handle " + env.Method}
	}
	reply := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result,omitempty"`
		Error   *RPCError       `json:"error,omitempty"`
	}{JSONRPC: "2.0", ID: env.ID}
	if err != nil {
		var rpcErr *RPCError
		if !errors.As(err, &rpcErr) {
			rpcErr = &RPCError{Code: CodeInternalError, Message: err.Error()}
		}
		reply.Error = rpcErr
	} else {
		if result == nil {
			result = struct{}{}
		}
		reply.Result = result
	}
	data, merr := json.Marshal(reply)
	if merr != nil {
		c.warn("encoding the answer to " + env.Method + ": " + merr.Error())
		return
	}
	ctx, cancel := context.WithTimeout(c.bgCtx, c.opts.Timeout)
	defer cancel()
	if err := c.write(ctx, data); err != nil {
		c.warn("sending the answer to " + env.Method + ": " + err.Error())
	}
}

func (c *Client) warn(msg string) {
	if c.opts.OnProtocolWarning != nil {
		c.opts.OnProtocolWarning(msg)
	}
}

// Done is closed when the connection has ended.
func (c *Client) Done() <-chan struct{} { return c.done }

// Close ends the session and the connection (for stdio: closes the server's
// stdin, waits, then SIGTERM and SIGKILL).
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		c.closeErr = c.conn.Close()
		c.cancelBg()
		<-c.done
	})
	return c.closeErr
}
