package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/transport"
)

// modernHTTP is a hand-written server of 2026-07-28 over Streamable HTTP:
// server/discover is answered, everything else goes to answer, which
// gets how many requests of that method came before (0 for the first).
type modernHTTP struct {
	mu      sync.Mutex
	counts  map[string]int
	methods []string
}

type rpcIn struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func startModernHTTP(t *testing.T, answer func(w http.ResponseWriter, r *http.Request, m rpcIn, n int)) (*modernHTTP, string) {
	t.Helper()
	s := &modernHTTP{counts: map[string]int{}}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "no GET or DELETE in 2026-07-28", http.StatusMethodNotAllowed)
			return
		}
		var m rpcIn
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			t.Errorf("server: bad body: %v", err)
			return
		}
		s.mu.Lock()
		n := s.counts[m.Method]
		s.counts[m.Method]++
		s.methods = append(s.methods, m.Method)
		s.mu.Unlock()
		if m.Method == "server/discover" {
			writeJSON(w, m, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}`)
			return
		}
		if m.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		answer(w, r, m, n)
	}))
	t.Cleanup(ts.Close)
	return s, ts.URL + "/mcp"
}

func (s *modernHTTP) received() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.methods...)
}

func writeJSON(w http.ResponseWriter, m rpcIn, result string) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)
}

func writeRPCError(w http.ResponseWriter, m rpcIn, code int, msg, data string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	if data != "" {
		data = `,"data":` + data
	}
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q%s}}`, m.ID, code, msg, data)
}

// cutStream starts an SSE answer and ends it before the response.
func cutStream(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "id: e1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"p\",\"progress\":1}}\n\n")
}

// events collects OnEvent calls.
type events struct {
	mu   sync.Mutex
	list []string
}

func (e *events) on(name, detail string) {
	e.mu.Lock()
	e.list = append(e.list, name+": "+detail)
	e.mu.Unlock()
}

func (e *events) String() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return strings.Join(e.list, "\n")
}

func connectModernHTTP(t *testing.T, url string, opts Options) *Client {
	t.Helper()
	opts.ProtocolVersion = ModernProtocolVersion
	if opts.Timeout == 0 {
		opts.Timeout = failAfter
	}
	c, err := Connect(context.Background(), &transport.StreamableHTTP{Options: transport.HTTPOptions{URL: url}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestModernCancelHTTP: over Streamable HTTP a modern request that times
// out or whose caller gives up is cancelled by closing its stream (the
// server's handler sees its request end), and no notifications/cancelled
// is sent.
func TestModernCancelHTTP(t *testing.T) {
	for _, how := range []string{"timeout", "caller"} {
		t.Run(how, func(t *testing.T) {
			arrived, ended := make(chan struct{}, 1), make(chan struct{}, 1)
			s, url := startModernHTTP(t, func(w http.ResponseWriter, r *http.Request, m rpcIn, _ int) {
				if m.Method == "ping" {
					writeJSON(w, m, `{}`)
					return
				}
				cutStreamOpen(w)
				arrived <- struct{}{}
				<-r.Context().Done()
				ended <- struct{}{}
			})
			c := connectModernHTTP(t, url, Options{})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if how == "timeout" {
				ctx, cancel = context.WithTimeout(ctx, 300*time.Millisecond)
				defer cancel()
			} else {
				go func() {
					<-arrived
					cancel()
				}()
			}
			_, err := c.Call(ctx, "tools/call", map[string]any{"name": "slow"})
			var te *TimeoutError
			switch {
			case how == "timeout" && (!errors.As(err, &te) || !te.Cancelled || !te.ByStream):
				t.Fatalf("Call = %v, want a TimeoutError cancelled by stream", err)
			case how == "timeout" && !strings.Contains(err.Error(), "closed its HTTP request, which cancels it"):
				t.Errorf("error reads %q", err)
			case how == "caller" && !errors.Is(err, context.Canceled):
				t.Fatalf("Call = %v, want context.Canceled", err)
			}
			waitChan(t, ended, "the server to see its request end")
			if err := c.Ping(context.Background()); err != nil {
				t.Fatal(err)
			}
			for _, m := range s.received() {
				if m == "notifications/cancelled" {
					t.Errorf("notifications/cancelled sent over Streamable HTTP in the modern era: %q", s.received())
				}
			}
		})
	}
}

// cutStreamOpen starts an SSE answer with one notification and flushes it,
// so the POST returns and the body is read in the background.
func cutStreamOpen(w http.ResponseWriter) {
	cutStream(w)
	http.NewResponseController(w).Flush()
}

func waitChan(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(failAfter):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// TestModernCancelStdio: over a connection with no exchange per request
// (stdio, here a pipe) a modern request is still cancelled with
// notifications/cancelled.
func TestModernCancelStdio(t *testing.T) {
	s, conn := startFake(t, map[string]handler{
		"server/discover": func(s *fakeServer, m message) {
			s.reply(m, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{}}`)
		},
		"tools/call": func(*fakeServer, message) {},
	})
	c, err := Connect(context.Background(), fixed(conn), Options{Timeout: failAfter, ProtocolVersion: ModernProtocolVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err = c.Call(ctx, "tools/call", map[string]any{"name": "slow"})
	var te *TimeoutError
	if !errors.As(err, &te) || !te.Cancelled || te.ByStream || !strings.Contains(err.Error(), "sent notifications/cancelled") {
		t.Fatalf("Call = %v, want a TimeoutError that sent notifications/cancelled", err)
	}
	call := s.waitFor(t, "tools/call", isMethod("tools/call"))
	n := s.waitFor(t, "notifications/cancelled", isMethod("notifications/cancelled"))
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	_ = json.Unmarshal(n.Params, &p)
	if string(p.RequestID) != string(call.ID) {
		t.Errorf("notifications/cancelled for %s, want %s", p.RequestID, call.ID)
	}
}

// TestModernReissue: a request whose response stream breaks before the
// answer is sent again with a new id, at most MaxReissues times, unless it
// must not be repeated blindly.
func TestModernReissue(t *testing.T) {
	const (
		plainTool    = `{"resultType":"complete","tools":[{"name":"t","inputSchema":{"type":"object"}}]}`
		readOnlyTool = `{"resultType":"complete","tools":[{"name":"t","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}]}`
	)
	tests := []struct {
		name     string
		method   string
		tools    string
		cuts     int // how many answers of method are cut short
		wantSent int
		wantErr  string
	}{
		{"list cut once", "resources/list", plainTool, 1, 2, ""},
		{"list cut twice", "resources/list", plainTool, 2, 2, "resources/list: the response stream broke before the answer 2 times in a row"},
		{"read-only tool", "tools/call", readOnlyTool, 1, 2, ""},
		{"tool with effects", "tools/call", plainTool, 1, 1, `not sent again: the tool "t" is not annotated read-only or idempotent`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, url := startModernHTTP(t, func(w http.ResponseWriter, r *http.Request, m rpcIn, n int) {
				switch {
				case m.Method == "tools/list":
					writeJSON(w, m, tt.tools)
				case n < tt.cuts:
					cutStream(w)
				case m.Method == "tools/call":
					writeJSON(w, m, `{"resultType":"complete","content":[{"type":"text","text":"ok"}]}`)
				default:
					writeJSON(w, m, `{"resultType":"complete","resources":[]}`)
				}
			})
			ev := &events{}
			c := connectModernHTTP(t, url, Options{OnEvent: ev.on})
			var err error
			if tt.method == "tools/call" {
				_, err = c.CallToolWith(context.Background(), "t", nil, CallOptions{})
			} else {
				_, err = c.Call(context.Background(), tt.method, nil)
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("%s: %v", tt.method, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("%s = %v, want an error with %q", tt.method, err, tt.wantErr)
			case tt.wantErr != "" && !errors.Is(err, transport.ErrResponseLost):
				t.Errorf("error %v does not wrap ErrResponseLost", err)
			}
			sent := 0
			for _, m := range s.received() {
				if m == tt.method {
					sent++
				}
			}
			if sent != tt.wantSent {
				t.Errorf("%s sent %d times, want %d (%q)", tt.method, sent, tt.wantSent, s.received())
			}
			if reissued := strings.Count(ev.String(), EventRequestReissued); reissued != tt.wantSent-1 {
				t.Errorf("%d reissue events, want %d:\n%s", reissued, tt.wantSent-1, ev)
			}
		})
	}
}

// TestModernHeaderMismatch: a tools/call refused with -32020 is sent again
// with Mcp-Param-* headers from the tools as listed now; other methods,
// and a second refusal, end in one clear error that is still the server's
// JSON-RPC error.
func TestModernHeaderMismatch(t *testing.T) {
	const (
		before = `{"resultType":"complete","tools":[{"name":"t","inputSchema":{"type":"object","properties":{"region":{"type":"string"}}}}]}`
		after  = `{"resultType":"complete","tools":[{"name":"t","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}}]}`
	)
	for _, tt := range []struct {
		name, method, wantErr string
		fixed                 bool // the relisted tool's header satisfies the server
	}{
		{"tool relisted", "tools/call", "", true},
		{"tool still refused", "tools/call", "even after listing the tools again", false},
		{"other method", "prompts/list", "prompts/list: the server says the request's HTTP headers do not match its body (server error -32020", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, url := startModernHTTP(t, func(w http.ResponseWriter, r *http.Request, m rpcIn, n int) {
				switch {
				case m.Method == "tools/list" && n == 0:
					writeJSON(w, m, before)
				case m.Method == "tools/list":
					writeJSON(w, m, after)
				case tt.fixed && r.Header.Get("Mcp-Param-Region") == "eu":
					writeJSON(w, m, `{"resultType":"complete","content":[]}`)
				default:
					writeRPCError(w, m, CodeHeaderMismatch, "Header mismatch: Mcp-Param-Region missing", "")
				}
			})
			ev := &events{}
			c := connectModernHTTP(t, url, Options{OnEvent: ev.on})
			var err error
			if tt.method == "tools/call" {
				_, err = c.CallToolWith(context.Background(), "t", json.RawMessage(`{"region":"eu"}`), CallOptions{})
			} else {
				_, err = c.Call(context.Background(), tt.method, nil)
			}
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(ev.String(), EventToolsRelisted) {
					t.Errorf("no %q event:\n%s", EventToolsRelisted, ev)
				}
				got := s.received()
				if strings.Join(got, " ") != "server/discover tools/list tools/call tools/list tools/call" {
					t.Errorf("requests %q", got)
				}
				return
			}
			var rpc *RPCError
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &rpc) || rpc.Code != CodeHeaderMismatch {
				t.Fatalf("%s = %v, want a -32020 error with %q", tt.method, err, tt.wantErr)
			}
		})
	}
}

// TestModernMissingCapability: -32021 is answered by declaring the
// capability for the request when a handler can answer it; otherwise one
// error names the capability and the flag that provides it.
func TestModernMissingCapability(t *testing.T) {
	elicit := map[string]RequestHandler{"elicitation/create": func(context.Context, json.RawMessage) (any, error) {
		return map[string]any{"action": "decline"}, nil
	}}
	for _, tt := range []struct {
		name     string
		required string
		handlers map[string]RequestHandler
		wantErr  string
	}{
		{"declared on retry", `{"elicitation":{}}`, elicit, ""},
		{"no answer source", `{"elicitation":{}}`, nil, `tools/call: the server needs the client capability "elicitation", which mcpctl declares only when it can answer it: give --elicit accept-defaults, decline, cancel or @answers.json to answer it (server error -32021`},
		{"url mode", `{"elicitation":{"url":{}}}`, elicit, `the client capability "elicitation.url", which mcpctl declares only when it can answer it: mcpctl declares URL-mode elicitation only at a terminal outside CI, where it can ask before opening a browser`},
		{"sampling", `{"sampling":{}}`, nil, `the client capability "sampling", which mcpctl declares only when it can answer it: give --sample @FILE, exec:CMD or decline (or run at a terminal) to answer it`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, url := startModernHTTP(t, func(w http.ResponseWriter, r *http.Request, m rpcIn, n int) {
				var p struct {
					Meta map[string]json.RawMessage `json:"_meta"`
				}
				_ = json.Unmarshal(m.Params, &p)
				var caps map[string]json.RawMessage
				_ = json.Unmarshal(p.Meta[metaClientCapabilities], &caps)
				var req map[string]json.RawMessage
				_ = json.Unmarshal([]byte(tt.required), &req)
				for k := range req {
					if _, ok := caps[k]; !ok {
						writeRPCError(w, m, CodeMissingClientCapability, "missing capability", `{"requiredCapabilities":`+tt.required+`}`)
						return
					}
				}
				writeJSON(w, m, `{"resultType":"complete","content":[]}`)
			})
			ev := &events{}
			c := connectModernHTTP(t, url, Options{OnEvent: ev.on, Handlers: tt.handlers})
			_, err := c.Call(context.Background(), "tools/call", map[string]any{"name": "t"})
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(ev.String(), EventCapabilityDeclared+": tools/call needs the client capability elicitation") {
					t.Errorf("events:\n%s", ev)
				}
				if n := strings.Count(strings.Join(s.received(), " "), "tools/call"); n != 2 {
					t.Errorf("tools/call sent %d times, want 2", n)
				}
				return
			}
			var rpc *RPCError
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &rpc) || rpc.Code != CodeMissingClientCapability {
				t.Fatalf("Call = %v, want a -32021 error with %q", err, tt.wantErr)
			}
		})
	}
}
