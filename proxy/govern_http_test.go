//go:build unix

package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/approval"
	"github.com/mcpctl/mcpctl/policy"
	"github.com/mcpctl/mcpctl/session"
	"github.com/mcpctl/mcpctl/signing"
)

// bodyLog is an HTTP handler that keeps the bodies of the POSTs it passes
// to next: the server's own record of what reached it.
type bodyLog struct {
	next http.Handler
	mu   sync.Mutex
	got  []string
}

func (l *bodyLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		b, _ := io.ReadAll(r.Body)
		l.mu.Lock()
		l.got = append(l.got, string(b))
		l.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(b))
	}
	l.next.ServeHTTP(w, r)
}

func (l *bodyLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.got, "\n")
}

// bearer adds a bearer token to each request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// governedServer is a go-sdk server with echo and drop_table.
func governedServer() *mcp.Server {
	s := sdkServer()
	mcp.AddTool(s, &mcp.Tool{Name: "drop_table", Description: "Drops."}, func(ctx context.Context, req *mcp.CallToolRequest, a struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "dropped"}}}, nil, nil
	})
	return s
}

// TestHTTPGoverned drives the governed reverse proxy with the go-sdk
// client, over each shape of Streamable HTTP: a denied tool is hidden and
// its call refused without reaching the server; a call needing a scope is
// refused naming it when the bearer token lacks it, and passes, with the
// direct result, when the token grants it.
func TestHTTPGoverned(t *testing.T) {
	key := []byte("governed-http-test-key")
	mint := func(scopes ...string) string {
		tok, err := signing.MintJWT(key, signing.JWTClaims{Subject: "alice", Scopes: scopes, TTL: time.Hour}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	get := func(*http.Request) *mcp.Server { return governedServer() }
	for _, tc := range []struct {
		name string
		opts *mcp.StreamableHTTPOptions
	}{
		{"streamable", nil},
		{"json", &mcp.StreamableHTTPOptions{JSONResponse: true}},
		{"stateless", &mcp.StreamableHTTPOptions{Stateless: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := &bodyLog{next: mcp.NewStreamableHTTPHandler(get, tc.opts)}
			up := httptest.NewServer(log)
			defer up.Close()
			u, _ := url.Parse(up.URL + "/mcp")
			g, trail := governor(t, "echo: {required_scopes: [tool:echo]}\n\"*\": {sensitivity: low}\n", ToolFilter{Deny: []string{"drop_*"}}, nil)
			rec := &recorder{}
			tap := NewTap(rec, 0, 0)
			defer tap.Close()
			g.Tap = tap
			proxy := httptest.NewServer(&HTTP{Upstream: u, Tap: tap, Timeout: 10 * time.Second, Govern: g, JWTKey: key})
			defer proxy.Close()
			var sessions []*mcp.ClientSession
			// Closed before the servers, which wait for their streams.
			defer func() {
				for _, cs := range sessions {
					cs.Close()
				}
			}()

			session := func(token string) *mcp.ClientSession {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				c := mcp.NewClient(&mcp.Implementation{Name: "governed-host", Version: "1"}, nil)
				tr := &mcp.StreamableClientTransport{Endpoint: proxy.URL + "/mcp", MaxRetries: -1, HTTPClient: &http.Client{Transport: bearer{token}}}
				cs, err := c.Connect(ctx, tr, nil)
				if err != nil {
					t.Fatalf("connecting: %v", err)
				}
				sessions = append(sessions, cs)
				return cs
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			text := func(r *mcp.CallToolResult) string {
				b, _ := json.Marshal(r.Content)
				return string(b)
			}

			reader := session(mint("tool:read"))
			tools, err := reader.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, tool := range tools.Tools {
				if tool.Name == "drop_table" {
					t.Errorf("tools/list showed the denied drop_table")
				}
			}
			res, err := reader.CallTool(ctx, &mcp.CallToolParams{Name: "drop_table", Arguments: map[string]any{}})
			if err != nil {
				t.Fatalf("calling drop_table: %v", err)
			}
			if !res.IsError || !strings.Contains(text(res), `refused by policy: drop_table: the proxy hides this tool (--deny \"drop_*\")`) {
				t.Errorf("drop_table: %s", text(res))
			}
			res, err = reader.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hi"}})
			if err != nil {
				t.Fatalf("calling echo: %v", err)
			}
			if !res.IsError || !strings.Contains(text(res), "missing scope tool:echo: the host's bearer token grants tool:read") {
				t.Errorf("echo without the scope: %s", text(res))
			}

			echoer := session(mint("tool:echo"))
			res, err = echoer.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hi"}})
			if err != nil {
				t.Fatalf("calling echo: %v", err)
			}
			if res.IsError || text(res) != `[{"type":"text","text":"hi"}]` {
				t.Errorf("echo with the scope: %s", text(res))
			}

			forged := session(mint("tool:echo") + "x")
			res, err = forged.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hi"}})
			if err != nil {
				t.Fatalf("calling echo: %v", err)
			}
			if !res.IsError || !strings.Contains(text(res), "missing scope tool:echo: the host's bearer token grants none that can be read") {
				t.Errorf("echo with a forged token: %s", text(res))
			}

			got := log.String()
			if strings.Contains(got, "drop_table\",\"arguments") || strings.Count(got, `"method":"tools/call"`) != 1 {
				t.Errorf("the server got:\n%s", got)
			}
			trail.mu.Lock()
			recs := strings.Join(trail.recs, "\n")
			trail.mu.Unlock()
			for _, want := range []string{"drop_table refused: filter host=governed-host 1", "echo refused: required_scopes host=governed-host 1", "echo policy host=governed-host 1"} {
				if tc.name == "stateless" {
					want = strings.Replace(want, "host=governed-host 1", "host=", 1)
				}
				if !strings.Contains(recs, want) {
					t.Errorf("audit records:\n%s\nwant %q", recs, want)
				}
			}
		})
	}
}

// fakeSigner signs with a fixed nonce; fakeVerifier accepts a result
// that says "signed".
type fakeSigner struct{}

func (fakeSigner) Sign(tool string, args json.RawMessage) (any, string, error) {
	return map[string]string{"alg": "HMAC-SHA256", "nonce": "n-1", "value": "v"}, "n-1", nil
}

type fakeVerifier struct{}

func (fakeVerifier) VerifyResult(tool string, result json.RawMessage, nonce string) error {
	if !strings.Contains(string(result), "signed") {
		return &signing.VerifyError{Reason: errors.New("the signature is missing")}
	}
	return nil
}

// streamApprover asks the host through the outbox, on the stream of the
// held request, and waits for the test's answer.
type streamApprover struct {
	out     func() RelatedOutbox
	answers chan Approval
}

func (a *streamApprover) Approve(ctx context.Context, r *ApprovalRequest) (Approval, error) {
	ask := `{"jsonrpc":"2.0","id":"mcpctl-approval-1","method":"elicitation/create","params":{"message":"approve ` + r.Call.Name + `?"}}`
	if err := a.out().ToHostRelated(json.RawMessage(`2`), []byte(ask)); err != nil {
		return Approval{}, err
	}
	select {
	case ans := <-a.answers:
		return ans, nil
	case <-ctx.Done():
		return Approval{}, ctx.Err()
	}
}

// TestHTTPGovernedStreams drives the governed reverse proxy with a raw
// HTTP host against a scripted server: a held call's POST is answered as
// an event stream carrying the proxy's request to the host, then the
// server's progress notification and its answer; the forwarded request is
// signed (the server reads it whole by its Content-Length); a result that
// fails verification is replaced; a refusal is JSON or an event stream as
// the host's Accept asks; the server never sees the refused call.
func TestHTTPGovernedStreams(t *testing.T) {
	var (
		mu  sync.Mutex
		got []string
	)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil || int64(len(body)) != r.ContentLength {
			t.Errorf("the server read %d bytes (%v), Content-Length %d", len(body), err, r.ContentLength)
		}
		mu.Lock()
		got = append(got, string(body))
		mu.Unlock()
		var m struct {
			ID     json.RawMessage
			Method string
			Params struct{ Name string }
		}
		json.Unmarshal(body, &m)
		switch {
		case m.Method == "initialize":
			w.Header().Set("Mcp-Session-Id", "s1")
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"up","version":"1"}}}`)
		case m.Method == "tools/call":
			if r.Header.Get("Mcp-Session-Id") != "s1" {
				t.Errorf("the server got a call without the session id")
			}
			text := "signed"
			if m.Params.Name == "unsigned" {
				text = "plain"
			}
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n")
			io.WriteString(w, "id: e2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":"+string(m.ID)+",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\""+text+"\"}]}}\n\n")
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL + "/mcp")
	a := &streamApprover{answers: make(chan Approval, 1)}
	p, err := policy.Parse([]byte("slow: {requires_approval: true}\n\"*\": {sensitivity: low}\n"))
	if err != nil {
		t.Fatal(err)
	}
	gate := &session.PolicyGate{Load: func() (*policy.Policy, error) { return p, nil }}
	filter := ToolFilter{Deny: []string{"denied"}}
	g := &Governor{
		Pipeline: session.NewPipeline(session.Stages{Policy: filter.Policy(gate), Signer: fakeSigner{}, Verifier: fakeVerifier{}}),
		Server:   "scripted",
		Filter:   filter,
		Approver: a,
	}
	gate.AskContext = g.AskHook()
	rec := &recorder{}
	tap := NewTap(rec, 0, 0)
	defer tap.Close()
	h := &HTTP{Upstream: u, Tap: tap, Govern: g}
	a.out = func() RelatedOutbox { return h.session("s1") }
	proxy := httptest.NewServer(h)
	defer proxy.Close()

	post := func(body, accept string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, proxy.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", accept)
		req.Header.Set("Mcp-Session-Id", "s1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	both := "application/json, text/event-stream"
	resp := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, both)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()

	resp = post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}`, both)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("the held call was answered with %s", ct)
	}
	var events []string
	err = readEvents(resp.Body, func(ev sseEvent) {
		events = append(events, string(ev.data))
		if strings.Contains(string(ev.data), "elicitation/create") {
			a.answers <- Approval{Approved: true, By: "host user"}
		}
	})
	resp.Body.Close()
	if err != nil || len(events) != 3 || !strings.Contains(events[0], `"approve slow?"`) || !strings.Contains(events[1], "notifications/progress") || !strings.Contains(events[2], `"id":2,"result"`) {
		t.Fatalf("the host got %q (%v)", events, err)
	}

	resp = post(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"unsigned","arguments":{}}}`, both)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), "signature check failed: signature verification failed: the signature is missing") || strings.Contains(string(b), "plain") {
		t.Errorf("a result failing verification reached the host as %s", b)
	}

	for _, tc := range []struct{ accept, ct string }{{"application/json", "application/json"}, {"text/event-stream", "text/event-stream"}, {both, "application/json"}} {
		resp = post(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"denied","arguments":{}}}`, tc.accept)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != tc.ct || !strings.Contains(string(b), "refused by policy: denied") {
			t.Errorf("Accept %s: the refusal came as %d %s: %s", tc.accept, resp.StatusCode, resp.Header.Get("Content-Type"), b)
		}
	}

	mu.Lock()
	defer mu.Unlock()
	all := strings.Join(got, "\n")
	if strings.Contains(all, `"denied"`) || strings.Count(all, `"signature":{"alg":"HMAC-SHA256","nonce":"n-1","value":"v"}`) != 2 {
		t.Errorf("the server got:\n%s", all)
	}
	// Relayed, governed and answered by the proxy, every frame is filed
	// under the session.
	proxy.Close()
	tap.Close()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.frames) == 0 {
		t.Error("the tap got no frames")
	}
	for _, f := range rec.frames {
		if f.Session != "s1" {
			t.Errorf("frame %s filed under session %q, want s1", f.Data, f.Session)
		}
	}
}

// TestHTTPGovernedRefusesLegacySSE: the legacy HTTP+SSE transport, which
// answers POSTs on its event stream, is not governed: under governance its
// event stream ends before the endpoint event, so no host can call through
// it ungoverned.
func TestHTTPGovernedRefusesLegacySSE(t *testing.T) {
	up := httptest.NewServer(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return governedServer() }, nil))
	defer up.Close()
	u, _ := url.Parse(up.URL + "/sse")
	g, _ := governor(t, `"*": {sensitivity: low}`, ToolFilter{}, nil)
	rec := &recorder{}
	tap := NewTap(rec, 0, 0)
	proxy := httptest.NewServer(&HTTP{Upstream: u, Tap: tap, Govern: g})
	defer proxy.Close()
	defer tap.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "legacy-host", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.SSEClientTransport{Endpoint: proxy.URL + "/sse"}, nil)
	if err == nil {
		cs.Close()
		t.Fatal("a legacy HTTP+SSE session went through the governed proxy")
	}
	tap.Close()
	found := false
	for _, e := range rec.events {
		found = found || strings.Contains(fmt.Sprint(e.Detail), "legacy HTTP+SSE transport is not governed")
	}
	if !found {
		t.Errorf("no event says why the stream ended: %+v", rec.events)
	}
}

// TestEventSplitter: the events of a stream, cut at any read size and
// with any line ending, put back together are the stream's bytes, and
// each message event's data is read whole.
func TestEventSplitter(t *testing.T) {
	stream := ": hi\r\n\r\nid: 1\nevent: message\ndata: {\"a\":\ndata: 1}\n\nevent: endpoint\rdata: /x\r\rdata: {\"b\":2}\r\n\r\ntail"
	for _, size := range []int{1, 2, 3, 7, len(stream)} {
		sp := eventSplitter{r: &chunkReader{data: []byte(stream), size: size}}
		var (
			whole []byte
			datas []string
		)
		for {
			raw, err := sp.next()
			whole = append(whole, raw...)
			if ev := parseEvent(raw); ev.message() {
				datas = append(datas, ev.id+" "+string(ev.data))
			}
			if err != nil {
				break
			}
		}
		if string(whole) != stream {
			t.Errorf("read %d at a time: the events make %q", size, whole)
		}
		if want := []string{"1 {\"a\":\n1}", " {\"b\":2}"}; strings.Join(datas, "|") != strings.Join(want, "|") {
			t.Errorf("read %d at a time: messages %q, want %q", size, datas, want)
		}
	}
}

// chunkReader reads data size bytes at a time.
type chunkReader struct {
	data []byte
	size int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.size)], c.data)
	c.data = c.data[n:]
	return n, nil
}

// TestHTTPGovernedOwnCredentials: with the proxy signing in itself (--auth
// mcpctl), the host's bearer token never reaches the server but still
// names who calls.
func TestHTTPGovernedOwnCredentials(t *testing.T) {
	key := []byte("own-credentials-key")
	tok, err := signing.MintJWT(key, signing.JWTClaims{Subject: "carol", Scopes: []string{"tool:db"}, TTL: time.Hour}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := r.Header.Get("Authorization"); v != "" {
			t.Errorf("the host's token reached the server: %s", v)
		}
		body, _ := io.ReadAll(r.Body)
		var m struct{ ID json.RawMessage }
		json.Unmarshal(body, &m)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"content":[{"type":"text","text":"ran"}]}}`)
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL + "/mcp")
	g, trail := governor(t, "query: {required_scopes: [tool:db]}\n", ToolFilter{}, nil)
	tap := NewTap(&recorder{}, 0, 0)
	defer tap.Close()
	proxy := httptest.NewServer(&HTTP{Upstream: u, Tap: tap, Govern: g, JWTKey: key, OwnCredentials: true})
	defer proxy.Close()
	req, _ := http.NewRequest(http.MethodPost, proxy.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"query","arguments":{}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"text":"ran"`) {
		t.Errorf("the host got %s", b)
	}
	trail.mu.Lock()
	defer trail.mu.Unlock()
	if len(trail.recs) != 1 || !strings.HasPrefix(trail.recs[0], "query policy") {
		t.Errorf("audit records %q", trail.recs)
	}
}

// TestGovSessionsBounded: sessions left behind by hosts that never sent
// a DELETE are forgotten, oldest first, past the bound.
func TestGovSessionsBounded(t *testing.T) {
	var g govSessions
	for i := 0; i <= maxGovSessions; i++ {
		g.putLocked(fmt.Sprint(i), &govSession{})
	}
	if len(g.byID) != maxGovSessions || g.byID["0"] != nil || g.byID["1"] == nil {
		t.Errorf("%d sessions kept; session 0 kept: %v", len(g.byID), g.byID["0"] != nil)
	}
	g.drop("1")
	if len(g.byID) != maxGovSessions-1 || len(g.order) != maxGovSessions-1 {
		t.Errorf("after a DELETE: %d sessions, %d in order", len(g.byID), len(g.order))
	}
}

// TestHTTPGovernedApprovalByElicitation: over the reverse proxy, a call
// that needs approval is asked about on its own POST's event stream; the
// go-sdk client's user approving it lets it reach the server, declining
// it refuses it unsent.
func TestHTTPGovernedApprovalByElicitation(t *testing.T) {
	log := &bodyLog{next: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return governedServer() }, nil)}
	up := httptest.NewServer(log)
	defer up.Close()
	u, _ := url.Parse(up.URL + "/mcp")
	approver := &QueueApprover{Store: approval.Store{Dir: t.TempDir()}, Timeout: 30 * time.Second, Every: time.Hour}
	g, _ := governor(t, "drop_table: {requires_approval: true}\n\"*\": {sensitivity: low}\n", ToolFilter{}, approver)
	tap := NewTap(&recorder{}, 0, 0)
	defer tap.Close()
	g.Tap = tap
	proxy := httptest.NewServer(&HTTP{Upstream: u, Tap: tap, Timeout: 30 * time.Second, Govern: g})
	defer proxy.Close()

	for _, tc := range []struct {
		answer   string
		approved bool
	}{{"accept", true}, {"decline", false}} {
		t.Run(tc.answer, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var asked string
			c := mcp.NewClient(&mcp.Implementation{Name: "approving-host", Version: "1"}, &mcp.ClientOptions{
				ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked = req.Params.Message
					if tc.approved {
						return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
					}
					return &mcp.ElicitResult{Action: "decline"}, nil
				},
			})
			cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: proxy.URL + "/mcp", MaxRetries: -1}, nil)
			if err != nil {
				t.Fatalf("connecting: %v", err)
			}
			defer cs.Close()
			before := strings.Count(log.String(), `"drop_table"`)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "drop_table", Arguments: map[string]any{}})
			if err != nil {
				t.Fatalf("calling: %v", err)
			}
			if !strings.Contains(asked, "drop_table") {
				t.Errorf("the host's user was asked %q, which does not name the tool", asked)
			}
			b, _ := json.Marshal(res.Content)
			reached := strings.Count(log.String(), `"drop_table"`) > before
			if tc.approved {
				if res.IsError || !strings.Contains(string(b), "dropped") || !reached {
					t.Errorf("approved call: isError %v, content %s, reached the server %v", res.IsError, b, reached)
				}
				return
			}
			if !res.IsError || !strings.Contains(string(b), "refused by policy") || reached {
				t.Errorf("declined call: isError %v, content %s, reached the server %v", res.IsError, b, reached)
			}
		})
	}
}

// TestHTTPGovernedScreensBodies: the governed reverse proxy relays no POST
// a server could read as a call the governor did not: an escaped method is
// governed as the call it is, an ambiguous body is answered 400 with a
// JSON-RPC error, and a body not declared JSON 415; the server gets none.
func TestHTTPGovernedScreensBodies(t *testing.T) {
	log := &bodyLog{next: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return governedServer() }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})}
	up := httptest.NewServer(log)
	defer up.Close()
	u, _ := url.Parse(up.URL + "/mcp")
	g, _ := governor(t, `"*": {sensitivity: low}`, ToolFilter{Deny: []string{"drop_*"}}, nil)
	tap := NewTap(&recorder{}, 0, 0)
	defer tap.Close()
	proxy := httptest.NewServer(&HTTP{Upstream: u, Tap: tap, Timeout: 10 * time.Second, Govern: g})
	defer proxy.Close()
	// post sends body with the Content-Type, and the headers given as
	// name, value pairs; "; gzip" after the type declares it compressed.
	post := func(contentType, body string, header ...string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, proxy.URL+"/mcp", strings.NewReader(body))
		if ct, ok := strings.CutSuffix(contentType, "; gzip"); ok {
			req.Header.Set("Content-Encoding", "gzip")
			contentType = ct
		}
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	const call = `{"jsonrpc":"2.0","id":1,`
	code, got := post("application/json", call+`"method":"tools\/call","params":{"name":"drop_table","arguments":{}}}`)
	if !strings.Contains(got, "refused by policy: drop_table") {
		t.Errorf("the escaped call: %d %s", code, got)
	}
	code, got = post("application/json", call+`"method":"tools/call","Method":"ping","params":{"name":"drop_table","arguments":{}}}`)
	if code != http.StatusBadRequest || !strings.Contains(got, `"code":-32600`) || !strings.Contains(got, `"id":1`) {
		t.Errorf("a method given twice: %d %s", code, got)
	}
	code, got = post("application/json", call+`"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`, "Mcp-Method", "tools/call", "Mcp-Name", "drop_table")
	if code != http.StatusBadRequest || !strings.Contains(got, `"code":-32020`) {
		t.Errorf("an Mcp-Name header naming another tool: %d %s", code, got)
	}
	for _, ct := range []string{"text/plain", "application/json; charset=utf-16le", "application/json; gzip"} {
		code, got = post(ct, call+`"method":"tools/call","params":{"name":"drop_table","arguments":{}}}`)
		if code != http.StatusUnsupportedMediaType {
			t.Errorf("a body of %s: %d %s", ct, code, got)
		}
	}
	if s := log.String(); strings.Contains(s, "drop_table") {
		t.Errorf("the server got:\n%s", s)
	}
}
