package transport_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/transport"
)

// TestStreamableSDKModes runs a session against the SDK's handler in each
// of its modes and checks the headers the server saw.
func TestStreamableSDKModes(t *testing.T) {
	tests := []struct {
		name        string
		opts        mcp.StreamableHTTPOptions
		stateful    bool
		contentType string // of the answers to requests
	}{
		{"stateful SSE", mcp.StreamableHTTPOptions{}, true, "text/event-stream"},
		{"stateful JSON", mcp.StreamableHTTPOptions{JSONResponse: true}, true, "application/json"},
		{"stateless SSE", mcp.StreamableHTTPOptions{Stateless: true}, false, "text/event-stream"},
		{"stateless JSON", mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}, false, "application/json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, rec, url := serveStreamable(t, &tt.opts)
			events := newEventLog()
			c := connect(t, &transport.StreamableHTTP{Options: transport.HTTPOptions{URL: url, OnEvent: events.on}}, client.Options{})
			if got := c.ProtocolVersion(); got != "2025-11-25" {
				t.Errorf("negotiated %q", got)
			}
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			tools, err := c.ListTools(ctx)
			if err != nil || len(tools) != 3 {
				t.Fatalf("ListTools = %d tools, %v", len(tools), err)
			}
			callAdd(t, c)

			if tt.stateful {
				events.waitFor(t, transport.EventGetStreamOpened)
			} else {
				events.waitFor(t, transport.EventGetStreamUnsupported+"=405")
			}
			c.Close()

			reqs := rec.all()
			init := reqs[0]
			if init.Method != "POST" || rpcMethod(init.Body) != "initialize" {
				t.Fatalf("first request is %s %s", init.Method, init.Body)
			}
			if init.Header.Get("Mcp-Session-Id") != "" || init.Header.Get("Mcp-Protocol-Version") != "" {
				t.Errorf("initialize carried session %q / version %q", init.Header.Get("Mcp-Session-Id"), init.Header.Get("Mcp-Protocol-Version"))
			}
			if got := init.Header.Get("Accept"); got != "application/json, text/event-stream" {
				t.Errorf("Accept = %q", got)
			}
			if got := init.Header.Get("Content-Type"); got != "application/json" {
				t.Errorf("Content-Type = %q", got)
			}
			var sid string
			if tt.stateful {
				for _, r := range reqs[1:] {
					if s := r.Header.Get("Mcp-Session-Id"); s != "" {
						sid = s
						break
					}
				}
				if sid == "" {
					t.Fatal("no request carried the session ID")
				}
			}
			var sawDelete bool
			for _, r := range reqs[1:] {
				if got := r.Header.Get("Mcp-Session-Id"); got != sid {
					t.Errorf("%s %s: Mcp-Session-Id %q, want %q", r.Method, rpcMethod(r.Body), got, sid)
				}
				if got := r.Header.Get("Mcp-Protocol-Version"); got != "2025-11-25" {
					t.Errorf("%s %s: MCP-Protocol-Version %q", r.Method, rpcMethod(r.Body), got)
				}
				switch {
				case r.Method == "POST" && strings.HasPrefix(rpcMethod(r.Body), "notifications/"):
					if r.Status != http.StatusAccepted {
						t.Errorf("%s answered %d", rpcMethod(r.Body), r.Status)
					}
				case r.Method == "POST":
					if r.ContentType != tt.contentType {
						t.Errorf("%s answered with %q, want %q", rpcMethod(r.Body), r.ContentType, tt.contentType)
					}
				case r.Method == "GET":
					if got := r.Header.Get("Accept"); got != "text/event-stream" {
						t.Errorf("GET Accept = %q", got)
					}
				case r.Method == "DELETE":
					sawDelete = true
				}
			}
			if sawDelete != tt.stateful {
				t.Errorf("DELETE sent: %v, want %v", sawDelete, tt.stateful)
			}
		})
	}
}

// TestStreamableServerRequest has the server ask the client something in
// the middle of a tool call: the question arrives in the call's SSE stream
// and the answer goes back in its own POST.
func TestStreamableServerRequest(t *testing.T) {
	_, rec, url := serveStreamable(t, nil)
	c := connect(t, &transport.StreamableHTTP{Options: transport.HTTPOptions{URL: url}}, elicitationOptions())
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	res, err := c.CallTool(ctx, "greet", nil, client.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(res); got != "hello Ada (accept)" {
		t.Fatalf("greet = %q", got)
	}
	answer := rec.waitFor(t, "POSTed answer", func(r recorded) bool {
		return r.Method == "POST" && strings.Contains(r.Body, `"action":"accept"`) && r.Status != 0
	})
	if answer.Status != http.StatusAccepted {
		t.Errorf("the answer got %d, want 202", answer.Status)
	}
}

// TestStreamableConcurrentWrite drives a JSON-response server by hand. Such
// a server sends the answer's headers only with the answer, so the Write
// of tools/call lasts until the tool ends, and the tool's question arrives
// on the GET stream meanwhile: the answer must be writable concurrently.
func TestStreamableConcurrentWrite(t *testing.T) {
	_, _, url := serveStreamable(t, &mcp.StreamableHTTPOptions{JSONResponse: true})
	events := newEventLog()
	conn, err := (&transport.StreamableHTTP{Options: transport.HTTPOptions{URL: url, OnEvent: events.on}}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	mustWrite(t, conn, rawInitialize)
	mustRead(t, conn, `"protocolVersion"`)
	mustWrite(t, conn, rawInitialized)
	events.waitFor(t, transport.EventGetStreamOpened)

	callDone := make(chan error, 1)
	go func() {
		callDone <- conn.Write(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{}}}`), transport.WriteOptions{})
	}()
	q := mustRead(t, conn, `"elicitation/create"`)
	var req struct {
		ID json.RawMessage `json:"id"`
	}
	json.Unmarshal(q, &req)
	mustWrite(t, conn, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"name":"Bo"}}}`, req.ID))
	if err := <-callDone; err != nil {
		t.Fatalf("Write tools/call: %v", err)
	}
	mustRead(t, conn, `hello Bo (accept)`)
}

func mustWrite(t *testing.T, conn transport.Connection, msg string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := conn.Write(ctx, json.RawMessage(msg), transport.WriteOptions{}); err != nil {
		t.Fatalf("Write %.60s: %v", msg, err)
	}
}

// mustRead reads one message and checks it contains want.
func mustRead(t *testing.T, conn transport.Connection, want string) json.RawMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	msg, err := conn.Read(ctx)
	if err != nil {
		t.Fatalf("Read (want %s): %v", want, err)
	}
	if !strings.Contains(string(msg), want) {
		t.Fatalf("Read %s, want it to contain %s", msg, want)
	}
	return msg
}

// TestStreamableTimeout: the server sends progress and then works forever.
// The client's timeout fires and its notifications/cancelled reaches the
// tool; a Write stuck waiting for headers is released by Close.
func TestStreamableTimeout(t *testing.T) {
	srv, rec, url := serveStreamable(t, nil)
	opts := client.Options{Timeout: 200 * time.Millisecond}
	c := connect(t, &transport.StreamableHTTP{Options: transport.HTTPOptions{URL: url}}, opts)
	_, err := c.CallTool(context.Background(), "slow", nil, client.CallOptions{ProgressToken: "p1"})
	var te *client.TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("CallTool slow: %v, want a *client.TimeoutError", err)
	}
	select {
	case <-srv.cancelled:
	case <-time.After(waitLimit):
		t.Fatal("the tool was not cancelled")
	}

	// Without progress the SDK sends no headers until the tool ends: the
	// Write blocks, and the caller's context or Close must release it.
	// (The SDK's DELETE waits for the running tools, so Close's DELETE
	// times out: keep that short.)
	conn, err := (&transport.StreamableHTTP{Options: transport.HTTPOptions{URL: url, CloseTimeout: 100 * time.Millisecond}}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, conn, rawInitialize)
	mustRead(t, conn, `"protocolVersion"`)
	mustWrite(t, conn, rawInitialized)
	short, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err = conn.Write(short, json.RawMessage(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}`), transport.WriteOptions{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Write with a short deadline: %v", err)
	}

	done := make(chan error, 1)
	go func() {
		done <- conn.Write(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow","arguments":{}}}`), transport.WriteOptions{})
	}()
	// Once the POST is in, Close releases the Write with ErrClosed.
	rec.waitFor(t, "second slow call", func(r recorded) bool { return strings.Contains(r.Body, `"id":3`) })
	conn.Close()
	select {
	case err := <-done:
		if !errors.Is(err, transport.ErrClosed) {
			t.Fatalf("blocked Write returned %v, want ErrClosed", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("Close did not release the blocked Write")
	}
	if _, err := conn.Read(context.Background()); !errors.Is(err, transport.ErrClosed) {
		t.Fatalf("Read after Close: %v", err)
	}
}

// TestStreamableSessionExpired: the server forgets the session; the next
// request gets 404, Write returns *SessionExpiredError and the connection
// forgets the session. Re-initializing is the client's job: an initialize
// written on the same connection starts a new session (no session ID sent,
// the new one captured, the GET stream reopened), and requests work again.
func TestStreamableSessionExpired(t *testing.T) {
	srv, rec, url := serveStreamable(t, nil)
	events := newEventLog()
	conn, err := (&transport.StreamableHTTP{Options: transport.HTTPOptions{URL: url, OnEvent: events.on}}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	handshake := func() {
		t.Helper()
		mustWrite(t, conn, rawInitialize)
		mustRead(t, conn, `"protocolVersion"`)
		conn.(transport.ProtocolVersionSetter).SetProtocolVersion("2025-11-25")
		mustWrite(t, conn, rawInitialized)
	}
	handshake()
	events.waitFor(t, transport.EventGetStreamOpened)
	const call = `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}`
	mustWrite(t, conn, fmt.Sprintf(call, 2))
	mustRead(t, conn, `"text":"5"`)

	var old string
	for s := range srv.Sessions() {
		old = s.ID()
		s.Close()
	}
	if old == "" {
		t.Fatal("the server has no session")
	}
	err = conn.Write(context.Background(), json.RawMessage(fmt.Sprintf(call, 3)), transport.WriteOptions{})
	var se *transport.SessionExpiredError
	if !errors.As(err, &se) || err.Error() != url+": the server ended the session (404 Not Found)" {
		t.Fatalf("Write after the server ended the session: %v, want a *SessionExpiredError", err)
	}
	events.waitFor(t, transport.EventSessionExpired+"=tools/call (id 3)")

	handshake()
	mustWrite(t, conn, fmt.Sprintf(call, 4))
	mustRead(t, conn, `"text":"5"`)

	var inits int
	var newSID string
	for _, r := range rec.all() {
		switch {
		case r.Method == "POST" && rpcMethod(r.Body) == "initialize":
			inits++
			if r.Header.Get("Mcp-Session-Id") != "" || r.Header.Get("Mcp-Protocol-Version") != "" {
				t.Errorf("initialize %d carried session %q, version %q", inits, r.Header.Get("Mcp-Session-Id"), r.Header.Get("Mcp-Protocol-Version"))
			}
		case r.Method == "POST" && strings.Contains(r.Body, `"id":4`):
			newSID = r.Header.Get("Mcp-Session-Id")
		}
	}
	if inits != 2 {
		t.Errorf("%d initialize requests, want 2:%s", inits, rec.summary())
	}
	if newSID == "" || newSID == old {
		t.Errorf("the call after re-initializing used session %q (old %q)", newSID, old)
	}
	rec.waitFor(t, "GET stream of the new session", func(r recorded) bool {
		return r.Method == "GET" && r.Header.Get("Mcp-Session-Id") == newSID
	})
}

// TestStreamableSessionExpiredWithoutInitialize: nothing to replay, so the
// 404 becomes a *SessionExpiredError.
func TestStreamableSessionExpiredWithoutInitialize(t *testing.T) {
	var mu sync.Mutex
	calls := 0
	ts := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n == 1 {
			w.Header().Set("Mcp-Session-Id", "s1")
			w.WriteHeader(http.StatusAccepted)
			return
		}
		http.Error(w, "session not found", http.StatusNotFound)
	}))
	conn, err := (&transport.StreamableHTTP{Options: transport.HTTPOptions{URL: ts.URL}}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mustWrite(t, conn, `{"jsonrpc":"2.0","method":"notifications/x"}`)
	err = conn.Write(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":5,"method":"ping"}`), transport.WriteOptions{})
	var se *transport.SessionExpiredError
	if !errors.As(err, &se) {
		t.Fatalf("Write after expiry: %v, want *SessionExpiredError", err)
	}
}

// TestStreamableResume: the tool call's stream ends before the answer; the
// transport waits retry and resumes with GET and Last-Event-ID, where the
// answer comes (the conformance scenario sse-retry).
func TestStreamableResume(t *testing.T) {
	const retry = 150 * time.Millisecond
	var (
		mu        sync.Mutex
		closedAt  time.Time
		resumeReq *http.Request
		resumedAt time.Time
	)
	ts := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case "DELETE":
			return
		case "GET":
			if r.Header.Get("Last-Event-ID") == "" {
				http.Error(w, "no standalone stream", http.StatusMethodNotAllowed)
				return
			}
			mu.Lock()
			resumeReq, resumedAt = r, time.Now()
			mu.Unlock()
			sseHeaders(w)
			fmt.Fprint(w, "id: e3\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"resumed\"}]}}\n\n")
			return
		}
		m := readRPC(t, r)
		switch m.Method {
		case "initialize":
			writeInitResult(w, m.ID, "sess-1")
		case "tools/call":
			sseHeaders(w)
			fmt.Fprintf(w, "id: e1\nretry: %d\ndata:\n\n", retry.Milliseconds())
			fmt.Fprint(w, "id: e2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"p\",\"progress\":1}}\n\n")
			flush(w)
			mu.Lock()
			closedAt = time.Now()
			mu.Unlock()
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	events := newEventLog()
	var notes []string
	var notesMu sync.Mutex
	c := connect(t, &transport.StreamableHTTP{Options: transport.HTTPOptions{URL: ts.URL + "/mcp", OnEvent: events.on}}, client.Options{
		OnNotification: func(n client.Notification) {
			notesMu.Lock()
			notes = append(notes, n.Method)
			notesMu.Unlock()
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	res, err := c.CallTool(ctx, "t", nil, client.CallOptions{ProgressToken: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(res); got != "resumed" {
		t.Fatalf("result %q", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if got := resumeReq.Header.Get("Last-Event-ID"); got != "e2" {
		t.Errorf("Last-Event-ID = %q, want e2", got)
	}
	if got := resumeReq.Header.Get("Mcp-Session-Id"); got != "sess-1" {
		t.Errorf("Mcp-Session-Id = %q", got)
	}
	if got := resumeReq.Header.Get("Mcp-Protocol-Version"); got != "2025-11-25" {
		t.Errorf("MCP-Protocol-Version = %q", got)
	}
	if d := resumedAt.Sub(closedAt); d < retry || d > retry+2*time.Second {
		t.Errorf("resumed %v after the stream closed, want retry = %v", d, retry)
	}
	notesMu.Lock()
	if len(notes) != 1 || notes[0] != "notifications/progress" {
		t.Errorf("notifications %q", notes)
	}
	notesMu.Unlock()
	events.waitFor(t, transport.EventReconnecting)
}

// TestStreamableResumeGivesUp: streams that end without progress are
// resumed a bounded number of times, then the call fails clearly.
func TestStreamableResumeGivesUp(t *testing.T) {
	var mu sync.Mutex
	resumes := 0
	ts := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "GET" {
			if r.Header.Get("Last-Event-ID") == "" {
				w.WriteHeader(http.StatusMethodNotAllowed)
				return
			}
			mu.Lock()
			resumes++
			mu.Unlock()
			sseHeaders(w) // and nothing else
			return
		}
		if r.Method != "POST" {
			return
		}
		m := readRPC(t, r)
		switch m.Method {
		case "initialize":
			writeInitResult(w, m.ID, "")
		case "tools/call":
			sseHeaders(w)
			fmt.Fprint(w, "id: only\nretry: 1\ndata:\n\n")
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	c := connect(t, &transport.StreamableHTTP{Options: transport.HTTPOptions{URL: ts.URL, MaxReconnects: 3}}, client.Options{})
	_, err := c.CallTool(context.Background(), "t", nil, client.CallOptions{})
	if err == nil || !strings.Contains(err.Error(), "tools/call (id 2): no answer after 3 attempts to resume the event stream") {
		t.Fatalf("CallTool: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if resumes != 3 {
		t.Errorf("%d resume attempts, want 3", resumes)
	}
}

// TestStreamableMalformedSSE: garbage in the event stream is skipped with
// warnings; a stream that then ends with neither an answer nor an event id
// fails the call with a clear error, and one that then answers works.
func TestStreamableMalformedSSE(t *testing.T) {
	const garbage = "this line has no colon\n:comment\ndata: {not json\n\nevent: weird\ndata: {}\n\nretry: soon\nid\n\ndata: \"a string\"\n\n\x00\xff\xfe\n\n"
	for _, answer := range []bool{false, true} {
		t.Run(fmt.Sprintf("answer=%v", answer), func(t *testing.T) {
			ts := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != "POST" {
					w.WriteHeader(http.StatusMethodNotAllowed)
					return
				}
				m := readRPC(t, r)
				switch m.Method {
				case "initialize":
					writeInitResult(w, m.ID, "")
				case "tools/call":
					sseHeaders(w)
					fmt.Fprint(w, garbage)
					if answer {
						fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\r\ndata: \"result\":{\"content\":[]}}\r\n\r\n", m.ID)
					}
				default:
					w.WriteHeader(http.StatusAccepted)
				}
			}))
			var warn syncBuffer
			c := connect(t, &transport.StreamableHTTP{Options: transport.HTTPOptions{URL: ts.URL, OnViolation: warn.report}}, client.Options{})
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			_, err := c.CallTool(ctx, "t", nil, client.CallOptions{})
			if answer {
				if err != nil {
					t.Fatalf("CallTool: %v", err)
				}
			} else if err == nil || !strings.Contains(err.Error(), "the server ended the event stream before answering, with no event id to resume from") {
				t.Fatalf("CallTool: %v", err)
			}
			for _, want := range []string{"not a JSON-RPC message", `event of type "weird"`} {
				if !strings.Contains(warn.String(), want) {
					t.Errorf("warnings lack %q:\n%s", want, warn.String())
				}
			}
		})
	}
}

// TestStreamableHTTPErrors: failures are one clear line, and the secrets
// in HTTPOptions.Header appear nowhere even when the server echoes them.
func TestStreamableHTTPErrors(t *testing.T) {
	const secret = "tok-9f8e7d6c5b4a"
	tests := []struct {
		name    string
		handler http.HandlerFunc
		check   func(t *testing.T, url string, err error)
	}{
		{
			name: "500 with HTML",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(http.StatusInternalServerError)
				fmt.Fprintf(w, "<html><head><title>Error</title></head>\n<body>\n<h1>oops</h1>\n<p>token %s was\n   fine</p></body></html>", r.Header.Get("Authorization"))
			},
			check: func(t *testing.T, url string, err error) {
				want := fmt.Sprintf(`POST %s: 500 Internal Server Error: "oops token [redacted] was fine"`, url)
				if err.Error() != want {
					t.Errorf("error\n%s\nwant\n%s", err, want)
				}
			},
		},
		{
			name: "401 with a challenge",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("WWW-Authenticate", `Bearer realm="mcp", error="invalid_token", error_description="`+r.Header.Get("Authorization")+` expired", resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"`)
				http.Error(w, "unauthorized: "+r.Header.Get("Authorization"), http.StatusUnauthorized)
			},
			check: func(t *testing.T, url string, err error) {
				var he *transport.HTTPError
				if !errors.As(err, &he) {
					t.Fatalf("%v is not an *HTTPError", err)
				}
				if he.Status != 401 || he.AuthScheme != "Bearer" || he.WWWAuthenticate["error"] != "invalid_token" || he.WWWAuthenticate["realm"] != "mcp" ||
					he.WWWAuthenticate["resource_metadata"] != "http://127.0.0.1/.well-known/oauth-protected-resource" {
					t.Errorf("HTTPError %+v", he)
				}
				if !strings.Contains(err.Error(), `401 Unauthorized: "unauthorized: [redacted]" (WWW-Authenticate: Bearer realm="mcp", error="invalid_token"`) {
					t.Errorf("error %q", err)
				}
			},
		},
		{
			name: "JSON-RPC error without an id",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprint(w, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Bad Request: no session"}}`)
			},
			check: func(t *testing.T, url string, err error) {
				var he *transport.HTTPError
				if !errors.As(err, &he) || he.Status != 400 || !strings.Contains(he.BodyExcerpt, "no session") {
					t.Errorf("error %v", err)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := serve(t, tt.handler)
			url := ts.URL + "/mcp"
			conn, err := (&transport.StreamableHTTP{Options: transport.HTTPOptions{URL: url,
				Header: http.Header{"Authorization": {"Bearer " + secret}}}}).Connect(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			err = conn.Write(context.Background(), json.RawMessage(rawInitialize), transport.WriteOptions{})
			if err == nil {
				t.Fatal("Write succeeded")
			}
			if strings.Contains(err.Error(), secret) || strings.ContainsAny(err.Error(), "\n\r") {
				t.Errorf("error leaks the secret or spans lines: %q", err)
			}
			tt.check(t, url, err)
		})
	}
}

// TestStreamableJSONRPCErrorStatus: a 4xx whose body is a JSON-RPC answer
// to the request (as 2026-07-28 servers send) is delivered as the answer.
func TestStreamableJSONRPCErrorStatus(t *testing.T) {
	ts := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m := readRPC(t, r)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no such method"}}`, m.ID)
	}))
	conn, err := (&transport.StreamableHTTP{Options: transport.HTTPOptions{URL: ts.URL}}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mustWrite(t, conn, `{"jsonrpc":"2.0","id":"x","method":"nope"}`)
	mustRead(t, conn, `"no such method"`)
}

func TestStreamableConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String() + "/mcp"
	l.Close()
	for _, tr := range []transport.Transport{
		&transport.StreamableHTTP{Options: transport.HTTPOptions{URL: url, Header: http.Header{"X-Api-Key": {"k-123456"}}}},
		&transport.Auto{Options: transport.HTTPOptions{URL: url}},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		_, err := client.Connect(ctx, tr, client.Options{})
		cancel()
		want := "connecting to " + url + ": connection refused"
		var ce *transport.ConnectError
		if err == nil || !strings.HasSuffix(err.Error(), want) || !errors.As(err, &ce) || !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("%v: Connect error %v, want one ending %q", tr, err, want)
		}
	}
}

// TestStreamableLenientServer plays the conformance "initialize" mock:
// JSON 200 for everything, a body even for notifications, 400 for GET and
// DELETE.
func TestStreamableLenientServer(t *testing.T) {
	ts := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != "POST" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		m := readRPC(t, r)
		if m.Method == "initialize" {
			writeInitResult(w, m.ID, "s-1")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if m.ID == nil {
			fmt.Fprint(w, `{"jsonrpc":"2.0","result":{}}`)
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}`, m.ID)
	}))
	var warn syncBuffer
	events := newEventLog()
	c := connect(t, &transport.StreamableHTTP{Options: transport.HTTPOptions{URL: ts.URL, OnViolation: warn.report, OnEvent: events.on}}, client.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if _, err := c.ListTools(ctx); err != nil {
		t.Fatal(err)
	}
	events.waitFor(t, transport.EventGetStreamUnsupported+"=400")
	c.Close()
	events.waitFor(t, transport.EventDeleteFailed+"=400")
	if !strings.Contains(warn.String(), "expected 202 Accepted and no body") {
		t.Errorf("no warning about the notification's body:\n%s", warn.String())
	}
}

// TestStreamableTrace: events reach a Trace through OnEvent.
func TestStreamableTrace(t *testing.T) {
	_, _, url := serveStreamable(t, nil)
	var out syncBuffer
	tr := &transport.Trace{W: &out}
	tr.Transport = &transport.Auto{Options: transport.HTTPOptions{URL: url, OnEvent: tr.Note}}
	c := connect(t, tr, client.Options{})
	callAdd(t, c)
	c.Close()
	for _, want := range []string{`"event":"transport chosen","detail":"streamable-http"`, `"event":"session id received"`, `"event":"connect","detail":"auto http://`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("trace lacks %s:\n%s", want, out.String())
		}
	}
}

// TestStreamableSSERetryScenario plays the conformance scenario sse-retry:
// every GET gets a priming event and stays open, and the answer to a
// pending tools/call goes to whichever GET comes next. The server's own
// GET stream must be open before tools/call is sent, so that the answer
// comes on the resumption GET: retry after the call's stream closed, with
// that stream's Last-Event-ID.
func TestStreamableSSERetryScenario(t *testing.T) {
	const retry = 200 * time.Millisecond
	var (
		mu       sync.Mutex
		pending  string
		closedAt time.Time
		gets     []string // Last-Event-ID of each GET
		lastGet  time.Time
	)
	ts := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case "GET":
			mu.Lock()
			gets = append(gets, r.Header.Get("Last-Event-ID"))
			lastGet = time.Now()
			p := pending
			pending = ""
			n := len(gets)
			mu.Unlock()
			w.Header().Set("Mcp-Session-Id", "s")
			sseHeaders(w)
			fmt.Fprintf(w, "id: get-%d\nretry: %d\ndata: \n\n", n, retry.Milliseconds())
			if p != "" {
				fmt.Fprintf(w, "event: message\nid: answer\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}}\n\n", p)
			}
			flush(w)
			<-r.Context().Done()
			return
		case "DELETE":
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		m := readRPC(t, r)
		switch m.Method {
		case "initialize":
			writeInitResult(w, m.ID, "s")
		case "tools/call":
			mu.Lock()
			pending = string(m.ID)
			mu.Unlock()
			w.Header().Set("Mcp-Session-Id", "s")
			sseHeaders(w)
			fmt.Fprintf(w, "id: call-prime\nretry: %d\ndata: \n\n", retry.Milliseconds())
			flush(w)
			mu.Lock()
			closedAt = time.Now()
			mu.Unlock()
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	c := connect(t, &transport.StreamableHTTP{Options: transport.HTTPOptions{URL: ts.URL}}, client.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	res, err := c.CallTool(ctx, "test_reconnection", nil, client.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(res); got != "ok" {
		t.Fatalf("result %q", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(gets) != 2 || gets[0] != "" || gets[1] != "call-prime" {
		t.Errorf("GETs with Last-Event-ID %q, want the server stream's, then one resuming call-prime", gets)
	}
	if d := lastGet.Sub(closedAt); d < retry || d > retry+2*time.Second {
		t.Errorf("resumed %v after the close, want %v", d, retry)
	}
}
