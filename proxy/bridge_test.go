//go:build unix

package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/internal/pipeio"
	"github.com/mcpctl/mcpctl/transport"
)

// bridgeServerEnv makes the test binary, started by a bridge, serve
// bridgeTestServer on stdio (see TestBridgeHelperServer).
const bridgeServerEnv = "MCPCTL_PROXY_BRIDGE_SERVER"

// bridgeTestServer is a go-sdk server with a tool that echoes, and one
// that reports progress before answering: a message the server sends
// besides the answer. A legacy one refuses server/discover, as servers
// before 2026-07-28 do.
func bridgeTestServer(legacy bool) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bridge-test", Version: "1.0.0"}, nil)
	if legacy {
		s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "server/discover" {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: " + method}
				}
				return next(ctx, method, req)
			}
		})
	}
	type echoArgs struct {
		Message string `json:"message"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes the message"},
		func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Message}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "progress", Description: "Reports progress, then answers"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			if tok := req.Params.GetProgressToken(); tok != nil {
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Total: 2, Message: "half way"})
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
		})
	return s
}

// TestBridgeHelperServer is not a test: it is the stdio server the
// bridge tests start, this test binary run again with bridgeServerEnv set.
func TestBridgeHelperServer(t *testing.T) {
	if os.Getenv(bridgeServerEnv) != "1" {
		t.Skip("the stdio server of the bridge tests, run by them")
	}
	// Stdin through the poller, as mcpctl's test servers read it
	// (pipeio.Reopen says why).
	stdin, restore := pipeio.Stdin()
	defer restore()
	// Legacy: the bridge to stdio serves sessions, and a modern host
	// (stateless) finds none to speak to behind it.
	err := bridgeTestServer(true).Run(context.Background(), &mcp.IOTransport{Reader: stdin, Writer: os.Stdout})
	if err != nil && !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	os.Exit(0)
}

// helperServerArgs is the command line of the helper server.
func helperServerArgs() []string {
	return []string{os.Args[0], "-test.run=^TestBridgeHelperServer$"}
}

// sdkCalls runs the same calls with a go-sdk client session and returns
// what they gave.
func sdkCalls(t *testing.T, cs *mcp.ClientSession) (tools *mcp.ListToolsResult, echo *mcp.CallToolResult) {
	t.Helper()
	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	echo, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hé, bridge"}})
	if err != nil {
		t.Fatalf("tools/call: %v", err)
	}
	return tools, echo
}

// sameJSON reports, as a test error, a result through the bridge that
// differs from the direct one.
func sameJSON(t *testing.T, what string, direct, bridged any) {
	t.Helper()
	d, _ := json.Marshal(direct)
	b, _ := json.Marshal(bridged)
	if diff := cmp.Diff(string(d), string(b)); diff != "" {
		t.Errorf("%s through the bridge differs (-direct +bridge):\n%s", what, diff)
	}
}

// methodLog records the HTTP methods a handler got.
type methodLog struct {
	mu      sync.Mutex
	methods []string
}

func (l *methodLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.methods = append(l.methods, r.Method)
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (l *methodLog) has(method string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, m := range l.methods {
		if m == method {
			return true
		}
	}
	return false
}

func TestBridgeToHTTPGivesTheDirectResults(t *testing.T) {
	for _, mode := range []string{"sse-answers", "json-answers"} {
		t.Run(mode, func(t *testing.T) {
			srv := bridgeTestServer(false)
			log := &methodLog{}
			h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
				&mcp.StreamableHTTPOptions{JSONResponse: mode == "json-answers"})
			ts := httptest.NewServer(log.wrap(h))
			defer ts.Close()
			ctx := context.Background()

			direct, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, nil).
				Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil)
			if err != nil {
				t.Fatal(err)
			}
			wantTools, wantEcho := sdkCalls(t, direct)
			direct.Close()

			// The host: a go-sdk client on the bridge's stdin and stdout.
			hostOut, bridgeIn := io.Pipe()
			bridgeOut, hostIn := io.Pipe()
			rec := &recorder{}
			tap := NewTap(rec, 0, 0)
			b := &BridgeToHTTP{Upstream: &transport.StreamableHTTP{Options: transport.HTTPOptions{URL: ts.URL}},
				URL: ts.URL, In: bridgeOut, Out: bridgeIn, Tap: tap}
			done := make(chan error, 1)
			go func() {
				done <- b.Run(ctx)
				bridgeIn.Close()
			}()
			progress := make(chan string, 4)
			host := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, &mcp.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
					progress <- req.Params.Message
				},
			})
			cs, err := host.Connect(ctx, &mcp.IOTransport{Reader: hostOut, Writer: hostIn}, nil)
			if err != nil {
				t.Fatal(err)
			}
			gotTools, gotEcho := sdkCalls(t, cs)
			sameJSON(t, "tools/list", wantTools, gotTools)
			sameJSON(t, "tools/call", wantEcho, gotEcho)
			// A message the server sends besides the answer reaches the
			// host. (With JSON answers the go-sdk sends it on its GET
			// stream when that is open, else nowhere, so only the SSE mode
			// can be asked for it.)
			params := &mcp.CallToolParams{Name: "progress"}
			params.SetProgressToken("p1")
			if _, err := cs.CallTool(ctx, params); err != nil {
				t.Fatal(err)
			}
			if mode == "sse-answers" {
				select {
				case msg := <-progress:
					if msg != "half way" {
						t.Errorf("progress message %q, want %q", msg, "half way")
					}
				case <-time.After(10 * time.Second):
					t.Error("no progress notification reached the host")
				}
			}
			// The host's EOF ends the bridge and the HTTP session.
			cs.Close()
			if err := <-done; err != nil {
				t.Fatalf("Run = %v, want nil", err)
			}
			tap.Close()
			if !log.has(http.MethodDelete) {
				t.Error("the bridge did not end the upstream session with DELETE")
			}
			var up, down int
			for _, f := range rec.frames {
				if f.Dir == HostToServer {
					up++
				} else {
					down++
				}
			}
			if up < 4 || down < 4 {
				t.Errorf("tapped %d frames host→server and %d server→host; want every one", up, down)
			}
			// The go-sdk closes the bridge's stdout with its stdin: the
			// bridge sees the host close or go, whichever comes first.
			if rec.event("start") == nil || rec.event("host-closed") == nil && rec.event("host-gone") == nil {
				t.Errorf("no start, host-closed or host-gone event; events: %v", rec.events)
			}
		})
	}
}

func TestBridgeToHTTPUpstreamFailure(t *testing.T) {
	ts := httptest.NewServer(http.NotFoundHandler())
	url := ts.URL
	ts.Close() // nothing listens there now
	in := strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"h","version":"1"}}}` + "\n")
	var out strings.Builder
	tap := NewTap(Observers{}, 0, 0)
	defer tap.Close()
	b := &BridgeToHTTP{Upstream: &transport.StreamableHTTP{Options: transport.HTTPOptions{URL: url}}, URL: url, In: in, Out: &out, Tap: tap}
	err := b.Run(context.Background())
	var upErr *BridgeUpstreamError
	if !errors.As(err, &upErr) {
		t.Fatalf("Run = %v, want a *BridgeUpstreamError", err)
	}
	line := out.String()
	if !strings.HasPrefix(line, `{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"mcpctl proxy: the upstream server failed: `) || !strings.HasSuffix(line, "}}\n") {
		t.Errorf("the host read %q, want a JSON-RPC error answering id 7", line)
	}
}

func TestBridgeToStdioGivesTheDirectResults(t *testing.T) {
	env := append(os.Environ(), bridgeServerEnv+"=1")
	ctx := context.Background()
	cmd := exec.Command(helperServerArgs()[0], helperServerArgs()[1:]...)
	cmd.Env = env
	direct, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantTools, wantEcho := sdkCalls(t, direct)
	direct.Close()

	var mu sync.Mutex
	var taps []*recorder
	b := &BridgeToStdio{Args: helperServerArgs(), Env: env, Stderr: io.Discard, Grace: 5 * time.Second,
		NewTap: func() (*Tap, func(), error) {
			rec := &recorder{}
			mu.Lock()
			taps = append(taps, rec)
			mu.Unlock()
			return NewTap(rec, 0, 0), nil, nil
		}}
	ts := httptest.NewServer(b)
	defer func() {
		ts.Close()
		b.Close()
	}()
	progress := make(chan string, 4)
	host := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			progress <- req.Params.Message
		},
	})
	cs, err := host.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	gotTools, gotEcho := sdkCalls(t, cs)
	sameJSON(t, "tools/list", wantTools, gotTools)
	sameJSON(t, "tools/call", wantEcho, gotEcho)
	params := &mcp.CallToolParams{Name: "progress"}
	params.SetProgressToken("p1")
	if _, err := cs.CallTool(ctx, params); err != nil {
		t.Fatal(err)
	}
	select {
	case msg := <-progress:
		if msg != "half way" {
			t.Errorf("progress message %q, want %q", msg, "half way")
		}
	case <-time.After(10 * time.Second):
		t.Error("no progress notification reached the host")
	}
	// A second host gets a server process of its own.
	cs2, err := host.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// (The host's server/discover probe went to a server of the
	// stateless pool, which this legacy server refused.)
	if n := sessionsOf(b, false); n != 2 {
		t.Errorf("%d sessions running, want 2", n)
	}
	if cs.ID() == cs2.ID() || cs.ID() == "" {
		t.Errorf("session ids %q and %q, want two different ones", cs.ID(), cs2.ID())
	}
	// Closing a session (DELETE) stops its server.
	cs.Close()
	cs2.Close()
	for deadline := time.Now().Add(20 * time.Second); sessionsOf(b, false) != 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions still running, want 0", sessionsOf(b, false))
		}
	}
	mu.Lock()
	defer mu.Unlock()
	var sessions []*recorder
	for _, rec := range taps {
		if rec.event("http-stateless") == nil {
			sessions = append(sessions, rec)
		}
	}
	if len(sessions) != 2 {
		t.Fatalf("%d taps opened for sessions, want one per session", len(sessions))
	}
	for i, rec := range sessions {
		for _, ev := range []string{"start", "http-session", "http-delete", "server-exit"} {
			if rec.event(ev) == nil {
				t.Errorf("session %d: no %q event; events: %v", i, ev, rec.events)
			}
		}
		// Each session's frames are filed under its id, as the reverse
		// proxy files them, so that logs of several sessions correlate
		// apart.
		ev := rec.event("http-session")
		if ev == nil {
			continue
		}
		id, _ := ev.Detail.(map[string]any)["id"].(string)
		rec.mu.Lock()
		if len(rec.frames) == 0 {
			t.Errorf("session %d: no frames", i)
		}
		for _, f := range rec.frames {
			if f.Session != id || id == "" {
				t.Errorf("session %d (%q): frame %s filed under session %q", i, id, f.Data, f.Session)
				break
			}
		}
		rec.mu.Unlock()
	}
}

// sessionsOf counts b's servers of sessions (stateless false) or of the
// stateless pool.
func sessionsOf(b *BridgeToStdio, stateless bool) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, s := range b.sessions {
		if s.stateless == stateless {
			n++
		}
	}
	return n
}

// waitSessions waits until b runs n sessions, as its servers exit.
func waitSessions(t *testing.T, b *BridgeToStdio, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for b.sessionCount() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions still running, want %d", b.sessionCount(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestBridgeToStdioRefuses(t *testing.T) {
	// A server that answers the first request, whatever it is, with
	// bytes no encoder would write, and then reads to the end.
	answer := `{ "id":1 ,"jsonrpc":"2.0","result":{"protocolVersion":"2025-06-18"} }`
	b := &BridgeToStdio{Args: []string{"sh", "-c", "read l; echo '" + answer + "'; exec cat >/dev/null"}, Stderr: io.Discard,
		NewTap: func() (*Tap, func(), error) { return NewTap(Observers{}, 0, 0), nil, nil }}
	ts := httptest.NewServer(b)
	defer func() {
		ts.Close()
		b.Close()
	}()
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`
	cases := []struct {
		name, method, body string
		header             map[string]string
		want               int
	}{
		{"a foreign Origin", "POST", init, map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
		{"a request outside a session", "POST", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, nil, http.StatusBadRequest},
		{"an unknown session", "POST", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, map[string]string{"Mcp-Session-Id": "nope"}, http.StatusNotFound},
		{"a body that is not JSON", "POST", `hello`, nil, http.StatusBadRequest},
		{"a GET outside a session", "GET", "", map[string]string{"Accept": "text/event-stream"}, http.StatusBadRequest},
		{"PUT", "PUT", "", nil, http.StatusMethodNotAllowed},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(c.method, ts.URL, strings.NewReader(c.body))
		req.Header.Set("Content-Type", "application/json")
		for k, v := range c.header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s: status %d, want %d", c.name, resp.StatusCode, c.want)
		}
	}
	// A loopback Origin is welcome, and the answer is the server's line,
	// byte for byte.
	req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(init))
	req.Header.Set("Origin", "http://localhost:6274")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" {
		t.Errorf("initialize from a loopback Origin: status %d, session %q", resp.StatusCode, resp.Header.Get("Mcp-Session-Id"))
	}
	if string(body) != answer {
		t.Errorf("the host read %q, want the server's line %q", body, answer)
	}
}

// postJSON POSTs body to url in session sid ("" for none).
func postJSON(t *testing.T, url, sid, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestBridgeToStdioServerDiesMidCall(t *testing.T) {
	// Answers initialize, then dies on the next request without answering.
	script := `read l; echo '{"jsonrpc":"2.0","id":1,"result":{}}'; read l; exit 3`
	b := &BridgeToStdio{Args: []string{"sh", "-c", script}, Stderr: io.Discard,
		NewTap: func() (*Tap, func(), error) { return NewTap(Observers{}, 0, 0), nil, nil }}
	ts := httptest.NewServer(b)
	defer func() {
		ts.Close()
		b.Close()
	}()
	resp, _ := postJSON(t, ts.URL, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: status %d, session %q", resp.StatusCode, sid)
	}
	resp, body := postJSON(t, ts.URL, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	want := `{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"mcpctl proxy: the server exited (status 3) before answering"}}`
	if resp.StatusCode != http.StatusBadGateway || body != want {
		t.Errorf("a call the server died in: status %d, body %s; want 502, %s", resp.StatusCode, body, want)
	}
	waitSessions(t, b, 0)
	if resp, _ := postJSON(t, ts.URL, sid, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a request in the ended session: status %d, want 404", resp.StatusCode)
	}
}

func TestBridgeToStdioIdleTimeout(t *testing.T) {
	rec := &recorder{}
	b := &BridgeToStdio{Args: []string{"sh", "-c", `read l; echo '{"jsonrpc":"2.0","id":1,"result":{}}'; exec cat >/dev/null`},
		Stderr: io.Discard, IdleTimeout: 50 * time.Millisecond,
		NewTap: func() (*Tap, func(), error) { return NewTap(rec, 0, 0), nil, nil }}
	ts := httptest.NewServer(b)
	defer func() {
		ts.Close()
		b.Close()
	}()
	if resp, _ := postJSON(t, ts.URL, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`); resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: status %d", resp.StatusCode)
	}
	// Unused, the session's server is stopped (by closing its stdin).
	waitSessions(t, b, 0)
	if rec.event("idle") == nil || rec.event("server-exit") == nil {
		t.Errorf("no idle and server-exit events; events: %v", rec.events)
	}
}

// TestBridgeToHTTPTimeout: a request the upstream leaves unanswered for
// the bridge's Timeout is answered with the reverse proxy's timeout error
// and cancelled upstream, and the session goes on.
func TestBridgeToHTTPTimeout(t *testing.T) {
	srv := bridgeTestServer(false)
	cancelled := make(chan struct{})
	mcp.AddTool(srv, &mcp.Tool{Name: "hang", Description: "Never answers"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			<-ctx.Done()
			close(cancelled)
			return nil, nil, ctx.Err()
		})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer ts.Close()
	ctx := context.Background()

	hostOut, bridgeIn := io.Pipe()
	bridgeOut, hostIn := io.Pipe()
	rec := &recorder{}
	tap := NewTap(rec, 0, 0)
	b := &BridgeToHTTP{Upstream: &transport.StreamableHTTP{Options: transport.HTTPOptions{URL: ts.URL}},
		URL: ts.URL, In: bridgeOut, Out: bridgeIn, Tap: tap, Timeout: 200 * time.Millisecond}
	done := make(chan error, 1)
	go func() {
		done <- b.Run(ctx)
		bridgeIn.Close()
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: hostOut, Writer: hostIn}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "hang"})
	var rpcErr *jsonrpc.Error
	want := "mcpctl proxy: the server at " + ts.URL + " did not answer within 200ms"
	if !errors.As(err, &rpcErr) || rpcErr.Code != codeUpstreamTimeout || rpcErr.Message != want {
		t.Fatalf("CallTool(hang) = %v; want error %d %q", err, codeUpstreamTimeout, want)
	}
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Error("the server's call was not cancelled")
	}
	// The session goes on.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "still here"}})
	if err != nil {
		t.Fatalf("CallTool(echo) after the timeout: %v", err)
	}
	if txt, ok := res.Content[0].(*mcp.TextContent); !ok || txt.Text != "still here" {
		t.Errorf("echo answered %+v", res.Content)
	}
	cs.Close()
	if err := <-done; err != nil {
		t.Fatalf("Run = %v, want nil", err)
	}
	tap.Close()
	if rec.event("timeout") == nil {
		t.Errorf("no timeout event; events: %v", rec.events)
	}
}

// postAccept POSTs body to url in session sid ("" for none) with the
// Accept header and the other headers given.
func postAccept(t *testing.T, url, sid, accept, body string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestBridgeToStdioSSEAnswers: a POST is answered with an event stream
// when the server sends a message of the request's before its answer, or
// when the host accepts nothing else; with JSON otherwise.
func TestBridgeToStdioSSEAnswers(t *testing.T) {
	progress := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`
	answer2 := `{"jsonrpc":"2.0","id":2,"result":{"ok":1}}`
	answer3 := `{"jsonrpc":"2.0","id":3,"result":{"plain":true}}`
	script := `read l; echo '{"jsonrpc":"2.0","id":1,"result":{}}'; ` +
		`read l; echo '` + progress + `'; echo '` + answer2 + `'; ` +
		`read l; echo '` + answer3 + `'; exec cat >/dev/null`
	b := &BridgeToStdio{Args: []string{"sh", "-c", script}, Stderr: io.Discard,
		NewTap: func() (*Tap, func(), error) { return NewTap(Observers{}, 0, 0), nil, nil }}
	ts := httptest.NewServer(b)
	defer func() {
		ts.Close()
		b.Close()
	}()
	both := "application/json, text/event-stream"
	resp, body := postAccept(t, ts.URL, "", both, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, nil)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.Header.Get("Content-Type") != "application/json" || sid == "" {
		t.Fatalf("initialize: %s %q, session %q; want a JSON answer", resp.Header.Get("Content-Type"), body, sid)
	}
	resp, body = postAccept(t, ts.URL, sid, both, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":"t"}}}`, nil)
	want := "event: message\ndata: " + progress + "\n\nevent: message\ndata: " + answer2 + "\n\n"
	if resp.Header.Get("Content-Type") != "text/event-stream" || body != want {
		t.Errorf("a call with progress: %s\n%s\nwant text/event-stream\n%s", resp.Header.Get("Content-Type"), body, want)
	}
	resp, body = postAccept(t, ts.URL, sid, "text/event-stream", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, nil)
	want = "event: message\ndata: " + answer3 + "\n\n"
	if resp.Header.Get("Content-Type") != "text/event-stream" || body != want {
		t.Errorf("a host accepting only events: %s\n%s\nwant text/event-stream\n%s", resp.Header.Get("Content-Type"), body, want)
	}
}

// TestBridgeToStdioStateless: a 2026-07-28 request, which names no
// session, is served by a server of the stateless pool, its mirrored
// headers checked against its body; closing its stream cancels it.
func TestBridgeToStdioStateless(t *testing.T) {
	logMsg := `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`
	answer := `{"jsonrpc":"2.0","id":5,"result":{"tools":[]}}`
	dir := t.TempDir()
	// Answers the first request with a log message and the answer, then
	// keeps each later line in a file.
	script := `read l; echo '` + logMsg + `'; echo '` + answer + `'; while read l; do echo "$l" >>` + dir + `/lines; done`
	b := &BridgeToStdio{Args: []string{"sh", "-c", script}, Stderr: io.Discard,
		NewTap: func() (*Tap, func(), error) { return NewTap(Observers{}, 0, 0), nil, nil }}
	ts := httptest.NewServer(b)
	defer func() {
		ts.Close()
		b.Close()
	}()
	list := `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
	both := "application/json, text/event-stream"
	headers := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}

	for _, c := range []struct {
		name   string
		header map[string]string
	}{
		{"no mirrored headers", nil},
		{"another method", map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call"}},
	} {
		resp, body := postAccept(t, ts.URL, "", both, list, c.header)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `"code":-32020`) {
			t.Errorf("%s: status %d, %s; want 400 and HeaderMismatch", c.name, resp.StatusCode, body)
		}
	}
	if n := sessionsOf(b, true); n != 0 {
		t.Errorf("%d stateless servers started for refused requests", n)
	}

	resp, body := postAccept(t, ts.URL, "", both, list, headers)
	want := "event: message\ndata: " + logMsg + "\n\nevent: message\ndata: " + answer + "\n\n"
	if resp.StatusCode != http.StatusOK || body != want || resp.Header.Get("Mcp-Session-Id") != "" {
		t.Errorf("a stateless request: status %d, session %q\n%s\nwant 200, no session\n%s", resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), body, want)
	}
	if n := sessionsOf(b, true); n != 1 {
		t.Errorf("%d stateless servers, want 1", n)
	}

	// The same server (it is free again) gets the next request; the host
	// closing the stream cancels it there.
	ctx, cancel := context.WithCancel(context.Background())
	call := `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"slow","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL, strings.NewReader(call))
	req.Header.Set("Accept", both)
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "slow")
	sent := make(chan error, 1)
	go func() {
		_, err := http.DefaultClient.Do(req)
		sent <- err
	}()
	lines := dir + "/lines"
	waitFor(t, func() bool { d, _ := os.ReadFile(lines); return strings.Contains(string(d), `"id":6`) })
	cancel()
	<-sent
	waitFor(t, func() bool {
		d, _ := os.ReadFile(lines)
		return strings.Contains(string(d), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":6,`)
	})
	if n := sessionsOf(b, true); n != 1 {
		t.Errorf("%d stateless servers, want the one reused", n)
	}
}

// waitFor waits (up to 20 s) until cond holds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
	}
}
