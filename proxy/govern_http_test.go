//go:build unix

package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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
