package transport_test

// Test servers for the HTTP transport tests: the official Go SDK's server
// behind its StreamableHTTPHandler or SSEHandler on httptest servers (which
// listen on 127.0.0.1), a recorder that keeps every request, and helpers
// for the few hand-written handlers that play faults no real server makes
// on demand.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/transport"
)

// waitLimit bounds every wait for something that should happen promptly,
// so that a bug fails the test instead of hanging it.
const waitLimit = 10 * time.Second

type addIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

// sdkServer is a go-sdk server with a few tools:
//   - add{a,b}: the sum as text;
//   - greet: asks the client for a name (elicitation/create) and greets it;
//   - slow: reports progress if asked to, then waits until cancelled
//     (each cancellation is sent on cancelled) or released (release is
//     closed when the test ends: the SDK waits for running tools before it
//     ends a session).
type sdkServer struct {
	*mcp.Server
	cancelled chan struct{}
	release   chan struct{}
}

func newSDKServer() *sdkServer {
	s := &sdkServer{
		Server:    mcp.NewServer(&mcp.Implementation{Name: "test-server", Version: "1.0.0"}, nil),
		cancelled: make(chan struct{}, 10),
		release:   make(chan struct{}),
	}
	mcp.AddTool(s.Server, &mcp.Tool{Name: "add", Description: "Adds two integers."},
		func(ctx context.Context, req *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, any, error) {
			return textResult(strconv.Itoa(in.A + in.B)), nil, nil
		})
	mcp.AddTool(s.Server, &mcp.Tool{Name: "greet", Description: "Asks for a name."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
				Message: "Your name?",
				RequestedSchema: map[string]any{
					"type":       "object",
					"properties": map[string]any{"name": map[string]any{"type": "string"}},
				},
			})
			if err != nil {
				return nil, nil, err
			}
			return textResult(fmt.Sprintf("hello %v (%s)", res.Content["name"], res.Action)), nil, nil
		})
	mcp.AddTool(s.Server, &mcp.Tool{Name: "slow", Description: "Never finishes."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			if tok := req.Params.GetProgressToken(); tok != nil {
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 0, Message: "started"})
			}
			select {
			case <-ctx.Done():
				s.cancelled <- struct{}{}
				return nil, nil, ctx.Err()
			case <-s.release:
				return textResult("released"), nil, nil
			}
		})
	return s
}

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// recorded is one request a test server received.
type recorded struct {
	Method string
	URL    string
	Header http.Header
	Body   string // the start of it
	// Status and ContentType of the response; zero until written.
	Status      int
	ContentType string
	At          time.Time
}

// recorder is an http.Handler that records every request and passes it on.
type recorder struct {
	next http.Handler

	mu      sync.Mutex
	reqs    []*recorded
	changed chan struct{} // closed and replaced on every change
}

func newRecorder(next http.Handler) *recorder {
	return &recorder{next: next, changed: make(chan struct{})}
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	req.Body = io.NopCloser(bytes.NewReader(body))
	rec := &recorded{Method: req.Method, URL: req.URL.String(), Header: req.Header.Clone(), Body: string(body), At: time.Now()}
	r.update(func() { r.reqs = append(r.reqs, rec) })
	r.next.ServeHTTP(&statusWriter{ResponseWriter: w, r: r, rec: rec}, req)
}

func (r *recorder) update(f func()) {
	r.mu.Lock()
	f()
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
}

// all returns copies of the requests so far.
func (r *recorder) all() []recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]recorded, len(r.reqs))
	for i, p := range r.reqs {
		out[i] = *p
	}
	return out
}

// waitFor waits until some request satisfies ok and returns it.
func (r *recorder) waitFor(t *testing.T, what string, ok func(recorded) bool) recorded {
	t.Helper()
	deadline := time.After(waitLimit)
	for {
		r.mu.Lock()
		ch := r.changed
		for _, p := range r.reqs {
			if ok(*p) {
				got := *p
				r.mu.Unlock()
				return got
			}
		}
		r.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("no %s among the requests: %s", what, r.summary())
		}
	}
}

func (r *recorder) summary() string {
	var b strings.Builder
	for _, p := range r.all() {
		fmt.Fprintf(&b, "\n  %s %s %d %.80s", p.Method, p.URL, p.Status, p.Body)
	}
	return b.String()
}

// rpcMethod is the JSON-RPC method of a recorded POST body.
func rpcMethod(body string) string {
	var m struct {
		Method string `json:"method"`
	}
	json.Unmarshal([]byte(body), &m)
	return m.Method
}

// statusWriter records the status of a response. Unwrap lets the SDK's
// http.ResponseController reach Flush.
type statusWriter struct {
	http.ResponseWriter
	r    *recorder
	rec  *recorded
	once sync.Once
}

func (w *statusWriter) WriteHeader(code int) {
	w.once.Do(func() {
		ct := w.Header().Get("Content-Type")
		w.r.update(func() { w.rec.Status, w.rec.ContentType = code, ct })
		w.ResponseWriter.WriteHeader(code)
	})
}

func (w *statusWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.ResponseWriter.Write(p)
}

func (w *statusWriter) Flush() {
	w.WriteHeader(http.StatusOK)
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// serve starts h on 127.0.0.1 and stops it when the test ends.
func serve(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}

// serveStreamable serves a new sdkServer with the Streamable HTTP handler.
func serveStreamable(t *testing.T, opts *mcp.StreamableHTTPOptions) (*sdkServer, *recorder, string) {
	t.Helper()
	srv := newSDKServer()
	rec := newRecorder(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv.Server }, opts))
	ts := serve(t, rec)
	t.Cleanup(func() { close(srv.release) }) // before ts.Close
	return srv, rec, ts.URL + "/mcp"
}

// serveSSE serves a new sdkServer with the legacy HTTP+SSE handler; wrap,
// if set, sits in front of it.
func serveSSE(t *testing.T, wrap func(http.Handler) http.Handler) (*sdkServer, *recorder, string) {
	t.Helper()
	srv := newSDKServer()
	var h http.Handler = mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv.Server }, nil)
	if wrap != nil {
		h = wrap(h)
	}
	rec := newRecorder(h)
	ts := serve(t, rec)
	t.Cleanup(func() { close(srv.release) }) // before ts.Close
	return srv, rec, ts.URL + "/sse"
}

// eventLog collects OnEvent calls.
type eventLog struct {
	mu      sync.Mutex
	events  []string // "name=detail"
	changed chan struct{}
}

func newEventLog() *eventLog { return &eventLog{changed: make(chan struct{})} }

func (l *eventLog) on(name string, detail any) {
	l.mu.Lock()
	l.events = append(l.events, fmt.Sprintf("%s=%v", name, detail))
	close(l.changed)
	l.changed = make(chan struct{})
	l.mu.Unlock()
}

func (l *eventLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.events...)
}

// waitFor waits for an event whose "name=detail" starts with prefix.
func (l *eventLog) waitFor(t *testing.T, prefix string) {
	t.Helper()
	deadline := time.After(waitLimit)
	for {
		l.mu.Lock()
		ch := l.changed
		for _, e := range l.events {
			if strings.HasPrefix(e, prefix) {
				l.mu.Unlock()
				return
			}
		}
		l.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("no event %q; got %q", prefix, l.list())
		}
	}
}

// syncBuffer is a goroutine-safe writer; its report method makes it a
// transport's OnViolation, writing each detail on a line.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// connect runs the handshake over tr and closes the client when the test
// ends.
func connect(t *testing.T, tr transport.Transport, opts client.Options) *client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	c, err := client.Connect(ctx, &versionSetting{tr}, opts)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// callAdd calls add{a:2,b:3} and checks the answer is 5.
func callAdd(t *testing.T, c *client.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	res, err := c.CallTool(ctx, "add", map[string]any{"a": 2, "b": 3}, client.CallOptions{})
	if err != nil {
		t.Fatalf("CallTool add: %v", err)
	}
	if got := resultText(res); got != "5" {
		t.Fatalf("add(2,3) = %q, want 5", got)
	}
}

func resultText(res *client.CallToolResult) string {
	raw, _ := json.Marshal(res.Content)
	var blocks []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &blocks)
	var parts []string
	for _, b := range blocks {
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "")
}

// elicitationOptions declares elicitation and answers it with name Ada.
func elicitationOptions() client.Options {
	return client.Options{
		Capabilities: map[string]any{"elicitation": map[string]any{}},
		Handlers: map[string]client.RequestHandler{
			"elicitation/create": func(ctx context.Context, params json.RawMessage) (any, error) {
				return map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}, nil
			},
		},
	}
}

// Raw JSON-RPC for the tests that drive a Connection by hand.
const (
	rawInitialize  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"0"}}}`
	rawInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// rpcRequest is what the hand-written handlers read of a POST body.
type rpcRequest struct {
	Method string          `json:"method"`
	ID     json.RawMessage `json:"id"`
}

func readRPC(t *testing.T, r *http.Request) rpcRequest {
	var m rpcRequest
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
		t.Errorf("server: bad body: %v", err)
	}
	return m
}

// writeInitResult answers initialize with JSON and session sid.
func writeInitResult(w http.ResponseWriter, id json.RawMessage, sid string) {
	if sid != "" {
		w.Header().Set("Mcp-Session-Id", sid)
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"raw","version":"0"}}}`, id)
}

// sseHeaders starts an event stream response.
func sseHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
}

func flush(w http.ResponseWriter) {
	http.NewResponseController(w).Flush()
}

// versionSetting plays the client's side of [transport.ProtocolVersionSetter]
// for the tests that run the real client: once the answer to initialize
// is read, the connection is told its protocolVersion (the client does the
// same; telling twice is harmless).
type versionSetting struct{ transport.Transport }

func (v *versionSetting) Connect(ctx context.Context) (transport.Connection, error) {
	conn, err := v.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &versionConn{Connection: conn}, nil
}

type versionConn struct {
	transport.Connection
	mu     sync.Mutex
	initID string
}

func (c *versionConn) Write(ctx context.Context, msg json.RawMessage, opts transport.WriteOptions) error {
	var m rpcRequest
	if json.Unmarshal(msg, &m) == nil && m.Method == "initialize" {
		c.mu.Lock()
		c.initID = string(m.ID)
		c.mu.Unlock()
	}
	return c.Connection.Write(ctx, msg, opts)
}

func (c *versionConn) Read(ctx context.Context) (json.RawMessage, error) {
	msg, err := c.Connection.Read(ctx)
	var r struct {
		ID     json.RawMessage `json:"id"`
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if err == nil && json.Unmarshal(msg, &r) == nil && r.Result.ProtocolVersion != "" {
		c.mu.Lock()
		match := string(r.ID) == c.initID
		c.mu.Unlock()
		if s, ok := c.Connection.(transport.ProtocolVersionSetter); ok && match {
			s.SetProtocolVersion(r.Result.ProtocolVersion)
		}
	}
	return msg, err
}

func (c *versionConn) SetProtocolVersion(v string) {
	if s, ok := c.Connection.(transport.ProtocolVersionSetter); ok {
		s.SetProtocolVersion(v)
	}
}

func (c *versionConn) WritesConcurrently() bool {
	cw, ok := c.Connection.(transport.ConcurrentWriter)
	return ok && cw.WritesConcurrently()
}

func (s *syncBuffer) report(v transport.Violation) { fmt.Fprintln(s, v.Detail) }
