package transport_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/transport"
)

// TestAutoDetect: Auto picks Streamable HTTP when the POST works and falls
// back to legacy SSE when it is refused with 400, 404 or 405.
func TestAutoDetect(t *testing.T) {
	// refuse makes the legacy handler answer the probing POST (one without
	// a sessionid) with status, as other legacy servers do.
	refuse := func(status int) func(http.Handler) http.Handler {
		return func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == "POST" && r.URL.Query().Get("sessionid") == "" {
					http.Error(w, "not here", status)
					return
				}
				next.ServeHTTP(w, r)
			})
		}
	}
	tests := []struct {
		name  string
		start func(t *testing.T) (*recorder, string)
		want  string
	}{
		{"streamable", func(t *testing.T) (*recorder, string) { _, rec, url := serveStreamable(t, nil); return rec, url }, "streamable-http"},
		{"legacy 400", func(t *testing.T) (*recorder, string) { _, rec, url := serveSSE(t, nil); return rec, url }, "sse"},
		{"legacy 404", func(t *testing.T) (*recorder, string) {
			_, rec, url := serveSSE(t, refuse(http.StatusNotFound))
			return rec, url
		}, "sse"},
		{"legacy 405", func(t *testing.T) (*recorder, string) {
			_, rec, url := serveSSE(t, refuse(http.StatusMethodNotAllowed))
			return rec, url
		}, "sse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, url := tt.start(t)
			events := newEventLog()
			c := connect(t, &transport.Auto{Options: transport.HTTPOptions{URL: url, OnEvent: events.on}}, elicitationOptions())
			events.waitFor(t, transport.EventTransportChosen+"="+tt.want)
			callAdd(t, c)
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			res, err := c.CallTool(ctx, "greet", nil, client.CallOptions{})
			if err != nil || resultText(res) != "hello Ada (accept)" {
				t.Fatalf("greet: %v", err)
			}
			if tt.want == "sse" {
				reqs := rec.all()
				if reqs[0].Method != "POST" || rpcMethod(reqs[0].Body) != "initialize" || reqs[1].Method != "GET" {
					t.Errorf("probe sequence:%s", rec.summary())
				}
			}
		})
	}
}

// TestAutoNoFallback: statuses that say nothing about the transport are
// errors, with no GET attempted; and a failed fallback reports both tries.
func TestAutoNoFallback(t *testing.T) {
	for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden, http.StatusInternalServerError} {
		rec := newRecorder(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="x"`)
			http.Error(w, "no", status)
		}))
		ts := serve(t, rec)
		_, err := client.Connect(context.Background(), &transport.Auto{Options: transport.HTTPOptions{URL: ts.URL}}, client.Options{})
		var he *transport.HTTPError
		if !errors.As(err, &he) || he.Status != status {
			t.Errorf("%d: Connect error %v", status, err)
		}
		for _, r := range rec.all() {
			if r.Method == "GET" {
				t.Errorf("%d: fell back to GET", status)
			}
		}
	}

	ts := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.NotFound(w, r)
	}))
	_, err := client.Connect(context.Background(), &transport.Auto{Options: transport.HTTPOptions{URL: ts.URL + "/mcp"}}, client.Options{})
	want := "initialize: POST " + ts.URL + `/mcp: 404 Not Found: "404 page not found"; the legacy HTTP+SSE transport failed too: GET ` + ts.URL + `/mcp: 404 Not Found: "404 page not found"`
	if err == nil || err.Error() != want {
		t.Errorf("Connect to nothing:\n%v\nwant\n%s", err, want)
	}
	var he *transport.HTTPError
	if !errors.As(err, &he) || he.Method != "POST" {
		t.Errorf("errors.As finds %+v, want the POST's error", he)
	}
}

// TestAutoClose: Read waits for the choice, and Close releases it.
func TestAutoClose(t *testing.T) {
	conn, err := (&transport.Auto{Options: transport.HTTPOptions{URL: "http://127.0.0.1:9/mcp"}}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := conn.Read(context.Background())
		done <- err
	}()
	conn.Close()
	if err := <-done; !errors.Is(err, transport.ErrClosed) {
		t.Fatalf("Read: %v", err)
	}
	if err := conn.Write(context.Background(), []byte(rawInitialize), transport.WriteOptions{}); !errors.Is(err, transport.ErrClosed) {
		t.Fatalf("Write after Close: %v", err)
	}
}
