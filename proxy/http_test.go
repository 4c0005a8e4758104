//go:build unix

package proxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/transport"
)

// startProxy serves an HTTP proxy in front of upstream on a loopback
// test server and returns its URL and the recorder of its tap. Both stop
// with the test.
func startProxy(t *testing.T, upstream string, timeout time.Duration, red *transport.Redactor) (string, *recorder, *Tap) {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	tap := NewTap(rec, 0, 0)
	srv := httptest.NewServer(&HTTP{Upstream: u, Tap: tap, Timeout: timeout, Redactor: red})
	t.Cleanup(func() {
		srv.Close()
		tap.Close()
	})
	return srv.URL, rec, tap
}

// sdkServer is a go-sdk server with an echo tool.
func sdkServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "proxy-test", Version: "1"}, nil)
	type in struct {
		Message string `json:"message"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes."}, func(ctx context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Message}}}, nil, nil
	})
	return s
}

// sdkSession lists the tools and calls echo with the go-sdk client over
// tr, asking for protocol version (the SDK's latest when ""), and returns
// both results as JSON.
func sdkSession(t *testing.T, tr mcp.Transport, version string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "proxy-test-client", Version: "1"}, nil)
	var opts *mcp.ClientSessionOptions
	if version != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := c.Connect(ctx, tr, opts)
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hi"}})
	if err != nil {
		t.Fatalf("tools/call: %v", err)
	}
	b, _ := json.Marshal([]any{tools, res})
	return string(b)
}

// TestHTTPSDKClientAndServer drives a go-sdk server with the go-sdk
// client through the proxy over each transport: the results are those of
// the direct connection, and every message reached the tap.
func TestHTTPSDKClientAndServer(t *testing.T) {
	get := func(*http.Request) *mcp.Server { return sdkServer() }
	for _, tc := range []struct {
		name    string
		handler http.Handler
		path    string
		client  func(endpoint string) mcp.Transport
		// version the client asks for. Over legacy SSE the go-sdk server
		// (v1.8.0) answers server/discover with or without 2026-07-28 in
		// supportedVersions depending on timing, so the client's era
		// differed between the direct session and the proxied one on a
		// busy machine (the proxy relayed the answer byte for byte): the
		// transport of the 2024-11-05 era gets that era's handshake.
		version string
	}{
		{"streamable", mcp.NewStreamableHTTPHandler(get, nil), "/mcp", func(e string) mcp.Transport { return &mcp.StreamableClientTransport{Endpoint: e, MaxRetries: -1} }, ""},
		{"json", mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{JSONResponse: true}), "/mcp", func(e string) mcp.Transport { return &mcp.StreamableClientTransport{Endpoint: e, MaxRetries: -1} }, ""},
		{"stateless", mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Stateless: true}), "/mcp", func(e string) mcp.Transport { return &mcp.StreamableClientTransport{Endpoint: e, MaxRetries: -1} }, ""},
		{"legacy-sse", mcp.NewSSEHandler(get, nil), "/sse", func(e string) mcp.Transport { return &mcp.SSEClientTransport{Endpoint: e} }, "2025-11-25"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := httptest.NewServer(tc.handler)
			defer up.Close()
			direct := sdkSession(t, tc.client(up.URL+tc.path), tc.version)
			proxyURL, rec, tap := startProxy(t, up.URL+tc.path, 10*time.Second, nil)
			through := sdkSession(t, tc.client(proxyURL+tc.path), tc.version)
			if diff := cmp.Diff(direct, through); diff != "" {
				t.Errorf("through the proxy (-direct +proxy):\n%s", diff)
			}
			tap.Close()
			checks := Checks{KeepCalls: true}
			for _, f := range rec.frames {
				if !json.Valid(f.Data) {
					t.Errorf("a frame that is not JSON: %q", f.Data)
				}
				if f.Dir == ServerToHost && f.Status != http.StatusOK {
					t.Errorf("a server frame with status %d, want 200: %s", f.Status, f.Data)
				}
				checks.Frame(f)
			}
			checks.End(time.Now())
			s := checks.Summary()
			if len(s.Flags) > 0 || s.Version == "" {
				t.Errorf("checks: version %q, flags %+v", s.Version, s.Flags)
			}
			// The go-sdk client's session, each request answered: the
			// era probe, then the calls it made for the test.
			var answered []string
			for _, c := range s.Calls {
				if !c.Pending {
					answered = append(answered, c.Method)
				}
			}
			if !strings.HasSuffix(strings.Join(answered, " "), "tools/list tools/call") {
				t.Errorf("answered calls: %v", answered)
			}
		})
	}
}

// TestHTTPRelaysBytesAndHeaders checks that bodies pass byte for byte both
// ways and that the protocol's headers pass unchanged both ways, the
// hop-by-hop ones excepted.
func TestHTTPRelaysBytesAndHeaders(t *testing.T) {
	reqBody := "{ \"jsonrpc\" : \"2.0\",\n \"id\" : \"a\u00e9\", \"method\":\"tools/call\", \"params\":{\"x\":\"\\u0000 \xff\"} }\r\n"
	respBody := "{\"jsonrpc\":\"2.0\",\"id\":\"a\u00e9\",\"result\":{\"content\":[]} }  \n\n"
	var gotBody []byte
	var gotHeader http.Header
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotBody, _ = io.ReadAll(r.Body)
		gotHeader = r.Header.Clone()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Mcp-Session-Id", "sess-1")
		w.Header().Set("X-Upstream", "yes")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, respBody)
	}))
	defer up.Close()
	proxyURL, rec, tap := startProxy(t, up.URL+"/mcp", 10*time.Second, nil)

	req, _ := http.NewRequest(http.MethodPost, proxyURL+"/mcp?x=1", strings.NewReader(reqBody))
	for name, value := range map[string]string{
		"Content-Type":         "application/json",
		"Accept":               "application/json, text/event-stream",
		"Mcp-Session-Id":       "sess-1",
		"Mcp-Protocol-Version": "2026-07-28",
		"Mcp-Method":           "tools/call",
		"Mcp-Name":             "echo",
		"Last-Event-Id":        "ev-3",
		"Authorization":        "Bearer tok-123456",
		"Connection":           "X-Hop",
		"X-Hop":                "dropped",
	} {
		req.Header.Set(name, value)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(got) != respBody {
		t.Errorf("the host got %q, want %q", got, respBody)
	}
	if string(gotBody) != reqBody {
		t.Errorf("the server got %q, want %q", gotBody, reqBody)
	}
	for _, name := range []string{"Mcp-Session-Id", "Mcp-Protocol-Version", "Mcp-Method", "Mcp-Name", "Last-Event-Id", "Authorization", "Accept"} {
		if gotHeader.Get(name) != req.Header.Get(name) {
			t.Errorf("the server got %s: %q, want %q", name, gotHeader.Get(name), req.Header.Get(name))
		}
	}
	if v := gotHeader.Get("X-Hop"); v != "" {
		t.Errorf("a hop-by-hop header reached the server: X-Hop: %s", v)
	}
	for _, name := range []string{"X-Forwarded-For", "Forwarded"} {
		if v := gotHeader.Get(name); v != "" {
			t.Errorf("the proxy added %s: %s", name, v)
		}
	}
	if resp.Header.Get("Mcp-Session-Id") != "sess-1" || resp.Header.Get("X-Upstream") != "yes" {
		t.Errorf("response headers: %v", resp.Header)
	}
	tap.Close()
	if len(rec.frames) != 2 {
		t.Fatalf("%d frames, want 2", len(rec.frames))
	}
	if f := rec.frames[0]; f.Dir != HostToServer || string(f.Data) != strings.TrimSpace(reqBody) {
		t.Errorf("request frame %v %q", f.Dir, f.Data)
	}
	if f := rec.frames[1]; f.Dir != ServerToHost || string(f.Data) != strings.TrimSpace(respBody) || f.Status != 200 {
		t.Errorf("response frame %v %d %q", f.Dir, f.Status, f.Data)
	}
}

// TestHTTPStreamsEventByEvent has the server send its second event only
// once the host has read the first through the proxy: a proxy that held
// back the stream would never deliver either.
func TestHTTPStreamsEventByEvent(t *testing.T) {
	first := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "id: 1\r\nevent: message\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\r\ndata: \"params\":{\"progressToken\":1,\"progress\":1}}\r\n\r\n")
		w.(http.Flusher).Flush()
		select {
		case <-first:
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, "id: 2\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n")
	}))
	defer up.Close()
	proxyURL, rec, tap := startProxy(t, up.URL+"/mcp", 0, nil)
	resp, err := http.Post(proxyURL+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	read := make(chan string)
	go func() {
		var ev strings.Builder
		for {
			line, err := br.ReadString('\n')
			ev.WriteString(line)
			if line == "\r\n" || err != nil {
				break
			}
		}
		read <- ev.String()
	}()
	select {
	case ev := <-read:
		if !strings.Contains(ev, "notifications/progress") {
			t.Fatalf("first event: %q", ev)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the first event did not reach the host while the server held the second")
	}
	close(first)
	rest, _ := io.ReadAll(br)
	if string(rest) != "id: 2\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n" {
		t.Errorf("rest of the stream: %q", rest)
	}
	tap.Close()
	var datas []string
	for _, f := range rec.frames {
		datas = append(datas, string(f.Data))
	}
	want := []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}}`,
		"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\n\"params\":{\"progressToken\":1,\"progress\":1}}",
		`{"jsonrpc":"2.0","id":7,"result":{}}`,
	}
	if diff := cmp.Diff(want, datas); diff != "" {
		t.Errorf("frames (-want +got):\n%s", diff)
	}
}

// TestHTTPRefusesForeignOrigins checks the DNS-rebinding protection.
func TestHTTPRefusesForeignOrigins(t *testing.T) {
	hits := 0
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		w.WriteHeader(http.StatusAccepted)
	}))
	defer up.Close()
	proxyURL, _, _ := startProxy(t, up.URL+"/mcp", 10*time.Second, nil)
	for _, tc := range []struct {
		origin string
		want   int
	}{
		{"http://evil.example", http.StatusForbidden},
		{"http://127.0.0.1.evil.example:8080", http.StatusForbidden},
		{"null", http.StatusForbidden},
		{"http://localhost:6274", http.StatusAccepted},
		{"http://127.0.0.1:6274", http.StatusAccepted},
		{"http://[::1]:6274", http.StatusAccepted},
		{"", http.StatusAccepted},
	} {
		req, _ := http.NewRequest(http.MethodPost, proxyURL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
		req.Header.Set("Content-Type", "application/json")
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("Origin %q: status %d, want %d", tc.origin, resp.StatusCode, tc.want)
		}
	}
	if hits != 4 {
		t.Errorf("the server got %d requests, want the 4 allowed ones", hits)
	}
}

// TestHTTPUpstreamFailures checks the answers the proxy makes for a server
// it cannot reach (502) and one that stalls (504, and an error event
// ending a stalled event stream), each naming the request's id.
func TestHTTPUpstreamFailures(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/mcp"
	ln.Close()
	stall := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.URL.Query().Get("stream") != "" {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"working\"}}\n\n")
			w.(http.Flusher).Flush()
		}
		<-r.Context().Done()
	}))
	defer stall.Close()

	post := func(proxyURL string) (*http.Response, string) {
		resp, err := http.Post(proxyURL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"x"}}`))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}
	wantError := func(body string, code int) {
		t.Helper()
		var m struct {
			ID    int `json:"id"`
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(body), &m); err != nil || m.ID != 42 || m.Error.Code != code || !strings.HasPrefix(m.Error.Message, "mcpctl proxy: ") {
			t.Errorf("body %q: want a JSON-RPC error %d for id 42", body, code)
		}
	}

	p1, rec1, tap1 := startProxy(t, closed, 10*time.Second, nil)
	resp, body := post(p1 + "/mcp")
	if resp.StatusCode != http.StatusBadGateway {
		t.Errorf("unreachable server: status %d, want 502", resp.StatusCode)
	}
	wantError(body, codeUpstreamUnreachable)
	tap1.Close()
	if len(rec1.frames) != 2 || rec1.frames[1].Status != http.StatusBadGateway {
		t.Errorf("frames of the 502: %+v", rec1.frames)
	}

	p2, _, _ := startProxy(t, stall.URL+"/mcp", 200*time.Millisecond, nil)
	resp, body = post(p2 + "/mcp")
	if resp.StatusCode != http.StatusGatewayTimeout {
		t.Errorf("stalled server: status %d, want 504", resp.StatusCode)
	}
	wantError(body, codeUpstreamTimeout)

	resp, body = post(p2 + "/mcp?stream=1")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Errorf("stalled stream: status %d, %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events := strings.Split(strings.TrimSpace(body), "\n\n")
	if len(events) != 2 || !strings.Contains(events[0], "working") {
		t.Fatalf("stalled stream: %q", body)
	}
	data, ok := strings.CutPrefix(events[1], "event: message\ndata: ")
	if !ok {
		t.Fatalf("last event %q", events[1])
	}
	wantError(data, codeUpstreamTimeout)
}

// TestHTTPGetStreamMayBeQuiet checks that a GET's event stream, once
// started, is not bounded by the timeout: the server sends its second
// event after several timeouts' worth of quiet.
func TestHTTPGetStreamMayBeQuiet(t *testing.T) {
	const timeout = 50 * time.Millisecond
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n")
		w.(http.Flusher).Flush()
		time.Sleep(6 * timeout) // the quiet being tested, not a synchronisation
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n\n")
	}))
	defer up.Close()
	proxyURL, rec, tap := startProxy(t, up.URL+"/mcp", timeout, nil)
	resp, err := http.Get(proxyURL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || !strings.Contains(string(body), `"method":"ping"`) {
		t.Errorf("the stream: %q, %v", body, err)
	}
	tap.Close()
	if len(rec.frames) != 2 {
		t.Errorf("%d frames, want 2", len(rec.frames))
	}
}

// TestHTTPLegacyEndpointRewritten checks that an absolute endpoint URL on
// the server's origin is rewritten to the proxy's, and that the message
// posted there reaches the server.
func TestHTTPLegacyEndpointRewritten(t *testing.T) {
	var upURL string
	posted := make(chan string, 1)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			fmt.Fprintf(w, "event: endpoint\r\ndata: %s/message?sessionId=abc\r\n\r\n", upURL)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		case http.MethodPost:
			b, _ := io.ReadAll(r.Body)
			posted <- r.URL.RequestURI() + " " + string(b)
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	defer up.Close()
	upURL = up.URL
	proxyURL, rec, tap := startProxy(t, up.URL+"/sse", 0, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, proxyURL+"/sse", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	br.ReadString('\n')
	line, _ := br.ReadString('\n')
	want := "data: " + proxyURL + "/message?sessionId=abc\r\n"
	if line != want {
		t.Fatalf("endpoint data line %q, want %q", line, want)
	}
	endpoint := strings.TrimSpace(strings.TrimPrefix(line, "data: "))
	r2, err := http.Post(endpoint, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	r2.Body.Close()
	if got := <-posted; got != `/message?sessionId=abc {"jsonrpc":"2.0","id":1,"method":"ping"}` {
		t.Errorf("the server got %q", got)
	}
	cancel()
	tap.Close()
	if e := rec.event("endpoint"); e == nil || !strings.Contains(fmt.Sprint(e.Detail), "/message?sessionId="+transport.URLMask) {
		t.Errorf("endpoint event: %+v", e)
	}
}

// TestHTTPAuthorizationObserved checks the transparent observer: a 401 and
// its WWW-Authenticate reach the host unchanged, the host's token reaches
// the server, and the session log holds neither the header nor the token,
// even where the server echoes it.
func TestHTTPAuthorizationObserved(t *testing.T) {
	const token = "tok-9f8e7d6c5b4a"
	const challenge = `Bearer resource_metadata="http://example.test/.well-known/oauth-protected-resource/mcp", scope="mcp"`
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.URL.Path == "/.well-known/oauth-protected-resource/mcp" {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"resource":"http://example.test/mcp","authorization_servers":["http://example.test"]}`)
			return
		}
		if r.Header.Get("Authorization") != "Bearer "+token {
			w.Header().Set("WWW-Authenticate", challenge)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"your token is `+token+`"}]}}`)
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL + "/mcp")
	var logBuf bytes.Buffer
	red := transport.NewRedactor()
	checks := &Checks{KeepCalls: true}
	tap := NewTap(Observers{NewLog(&logBuf, red, nil), checks}, 0, 0)
	srv := httptest.NewServer(&HTTP{Upstream: u, Tap: tap, Timeout: 10 * time.Second, Redactor: red})
	defer srv.Close()

	call := func(auth string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami"}}`))
		req.Header.Set("Content-Type", "application/json")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp
	}
	if resp := call(""); resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != challenge {
		t.Errorf("401: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	resp, err := http.Get(srv.URL + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	meta, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(meta), `"resource":"http://example.test/mcp"`) {
		t.Errorf("metadata document: %s", meta)
	}
	if resp := call("Bearer " + token); resp.StatusCode != http.StatusOK {
		t.Errorf("with the token: %d", resp.StatusCode)
	}
	srv.Close()
	tap.Close()
	log := logBuf.String()
	if strings.Contains(log, token) || strings.Contains(log, "Authorization") {
		t.Errorf("the log shows the token or the header:\n%s", log)
	}
	if !strings.Contains(log, `your token is [redacted]`) || !strings.Contains(log, `"status":401`) {
		t.Errorf("the log misses the redacted answer or the 401:\n%s", log)
	}
	// The request refused for want of a token, sent again with one, is
	// no pending call and no duplicate id.
	checks.End(time.Now())
	if s := checks.Summary(); len(s.Flags) > 0 || len(s.Calls) != 2 || s.Calls[0].Error != "HTTP 401" || s.Calls[1].Pending {
		t.Errorf("checks: %+v", s)
	}
}

// TestSSETapLineEndings feeds a stream byte by byte in each line ending.
func TestSSETapLineEndings(t *testing.T) {
	for _, nl := range []string{"\n", "\r\n", "\r"} {
		stream := strings.Join([]string{": comment", "id: 1", "data: {\"a\":", "data: 1}", "", "event: other", "data: x", "", "data:{\"b\":2}", "", "data", "", ""}, nl)
		rec := &recorder{}
		tap := NewTap(rec, 0, 0)
		s := &sseTap{r: io.NopCloser(&oneByteReader{strings.NewReader(stream)}), tap: tap, limit: 1 << 20}
		got, _ := io.ReadAll(s)
		tap.Close()
		if string(got) != stream {
			t.Errorf("%q: the stream changed", nl)
		}
		var datas []string
		for _, f := range rec.frames {
			datas = append(datas, string(f.Data))
		}
		if diff := cmp.Diff([]string{"{\"a\":\n1}", `{"b":2}`}, datas); diff != "" {
			t.Errorf("%q: frames (-want +got):\n%s", nl, diff)
		}
	}
}

type oneByteReader struct{ r io.Reader }

func (o *oneByteReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}

func TestCheckListen(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:8080": true, "localhost:0": true, "[::1]:9": true, "127.1.2.3:80": true,
		":8080": false, "0.0.0.0:8080": false, "192.168.1.2:80": false, "example.com:80": false, "nope": false,
		"127.0.0.1:abc": false, "127.0.0.1:65536": false, "127.0.0.1:-1": false, "127.0.0.1:": false, "127.0.0.1:65535": true,
	} {
		if err := CheckListen(addr, false); (err == nil) != ok {
			t.Errorf("CheckListen(%q) = %v", addr, err)
		}
	}
	if err := CheckListen("0.0.0.0:8080", true); err != nil {
		t.Errorf("with anyHost: %v", err)
	}
	if err := CheckListen("0.0.0.0:http", true); err == nil {
		t.Errorf("with anyHost, a port name: no error")
	}
}

// TestHTTPLearnsEveryHostCredential: the credentials a host sends the
// server through the proxy (every Authorization header, a key header, a
// key in the query) stay out of the session log when the server echoes
// them.
func TestHTTPLearnsEveryHostCredential(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		echo := strings.Join(append(r.Header.Values("Authorization"), r.Header.Get("X-Api-Key"), r.URL.Query().Get("api_key")), " ")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"you sent `+echo+`"}]}}`)
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL + "/mcp")
	var logBuf bytes.Buffer
	red := transport.NewRedactor()
	tap := NewTap(Observers{NewLog(&logBuf, red, nil)}, 0, 0)
	srv := httptest.NewServer(&HTTP{Upstream: u, Tap: tap, Timeout: 10 * time.Second, Redactor: red})
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp?api_key=query-s3cret", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami"}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Add("Authorization", "Bearer first-s3cret")
	req.Header.Add("Authorization", "Bearer second-s3cret")
	req.Header.Set("X-Api-Key", "header-s3cret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "second-s3cret") {
		t.Fatalf("the server did not echo the credentials: %s", body)
	}
	srv.Close()
	tap.Close()
	if log := logBuf.String(); strings.Contains(log, "s3cret") {
		t.Errorf("the log shows a credential of the host's:\n%s", log)
	}
}

// TestHTTPOwnCredentialsEveryWay: with --auth mcpctl no credential of the
// host's reaches the server, however the host writes it: Authorization and
// DPoP on a POST, a header name in lower case, the header twice, Proxy-Authorization, on a GET or a DELETE,
// or as a trailer of a chunked POST.
func TestHTTPOwnCredentialsEveryWay(t *testing.T) {
	got := make(chan string, 1)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		got <- fmt.Sprintf("%s %v %v", r.Method, r.Header, r.Trailer)
		w.WriteHeader(http.StatusAccepted)
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL + "/mcp")
	tap := NewTap(&recorder{}, 0, 0)
	defer tap.Close()
	srv := httptest.NewServer(&HTTP{Upstream: u, Tap: tap, OwnCredentials: true})
	defer srv.Close()
	const body = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	for _, raw := range []string{
		"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer host-s3cret\r\nDPoP: host-s3cret2\r\n" +
			fmt.Sprintf("Content-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body),
		"GET /mcp HTTP/1.1\r\nHost: x\r\nauthorization: Bearer host-s3cret\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n",
		"DELETE /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer host-s3cret\r\nAuthorization: Bearer host-s3cret2\r\nProxy-Authorization: Bearer host-s3cret3\r\nDpop: host-s3cret4\r\nConnection: close\r\n\r\n",
		"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nTrailer: Authorization\r\nConnection: close\r\n\r\n" +
			fmt.Sprintf("%x\r\n%s\r\n0\r\nAuthorization: Bearer host-s3cret\r\n\r\n", len(body), body),
	} {
		c, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Write([]byte(raw)); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		c.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("%q: status %d", raw, resp.StatusCode)
		}
		if seen := <-got; strings.Contains(seen, "s3cret") {
			t.Errorf("the host's credential reached the server: %s", seen)
		}
	}
}
