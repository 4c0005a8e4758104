package transport_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/transport"
)

// TestSSELegacy runs a session, server requests included, against the
// SDK's legacy HTTP+SSE handler.
func TestSSELegacy(t *testing.T) {
	_, rec, url := serveSSE(t, nil)
	c := connect(t, &transport.SSE{Options: transport.HTTPOptions{URL: url, Header: http.Header{"X-Test": {"yes"}}}}, elicitationOptions())
	if got := c.ProtocolVersion(); got != "2025-11-25" {
		t.Errorf("negotiated %q", got)
	}
	callAdd(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	res, err := c.CallTool(ctx, "greet", nil, client.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(res); got != "hello Ada (accept)" {
		t.Fatalf("greet = %q", got)
	}
	// The answer's 202 may be written after the tool's result went out.
	rec.waitFor(t, "answered elicitation", func(r recorded) bool {
		return r.Method == "POST" && strings.Contains(r.Body, `"action":"accept"`) && r.Status != 0
	})
	c.Close()

	reqs := rec.all()
	if reqs[0].Method != "GET" || reqs[0].Header.Get("Accept") != "text/event-stream" {
		t.Errorf("first request %s with Accept %q", reqs[0].Method, reqs[0].Header.Get("Accept"))
	}
	for _, r := range reqs {
		if r.Header.Get("X-Test") != "yes" {
			t.Errorf("%s %s lacks the extra header", r.Method, r.URL)
		}
		if r.Method == "POST" {
			if !strings.HasPrefix(r.URL, "/sse?sessionid=") {
				t.Errorf("POST to %s, not the endpoint", r.URL)
			}
			if r.Status != http.StatusAccepted {
				t.Errorf("POST %s answered %d", rpcMethod(r.Body), r.Status)
			}
		}
	}
}

// TestSSEEndpointEvents covers the endpoint event's failure modes and the
// end of the stream.
func TestSSEEndpointEvents(t *testing.T) {
	tests := []struct {
		name    string
		stream  string // after the headers
		wantErr string // from Connect; "" means Connect succeeds
	}{
		{"other origin", "event: endpoint\ndata: http://evil.example/messages\n\n", "on another origin"},
		{"scheme-relative other origin", "event: endpoint\ndata: //evil.example/m\n\n", "on another origin"},
		{"no endpoint before the end", "event: message\ndata: {}\n\n", "ended before the endpoint event"},
		{"relative endpoint, then the end", ": hi\nevent: endpoint\ndata: /messages?s=1\n\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == "POST" {
					if r.URL.String() != "/messages?s=1" {
						t.Errorf("POST to %s", r.URL)
					}
					w.WriteHeader(http.StatusAccepted)
					return
				}
				sseHeaders(w)
				fmt.Fprint(w, tt.stream)
			}))
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			conn, err := (&transport.SSE{Options: transport.HTTPOptions{URL: ts.URL + "/sse"}}).Connect(ctx)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Connect: %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			mustWrite(t, conn, rawInitialized)
			// The server ended the stream after the endpoint event.
			if _, err := conn.Read(ctx); !errors.Is(err, io.EOF) || !strings.Contains(err.Error(), "closed the event stream") {
				t.Fatalf("Read: %v, want the end of the stream", err)
			}
		})
	}
}

func TestSSEErrors(t *testing.T) {
	ts := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "nope", http.StatusForbidden)
	}))
	_, err := (&transport.SSE{Options: transport.HTTPOptions{URL: ts.URL}}).Connect(context.Background())
	var he *transport.HTTPError
	if !errors.As(err, &he) || he.Status != 403 || he.Method != "GET" || err.Error() != fmt.Sprintf(`GET %s: 403 Forbidden: "nope"`, ts.URL) {
		t.Fatalf("Connect: %v", err)
	}

	ts = serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html>hello</html>")
	}))
	_, err = (&transport.SSE{Options: transport.HTTPOptions{URL: ts.URL}}).Connect(context.Background())
	if err == nil || !strings.Contains(err.Error(), "not text/event-stream") {
		t.Fatalf("Connect to an HTML page: %v", err)
	}
}

// TestSSEClose: Close while the stream is open unblocks Read.
func TestSSEClose(t *testing.T) {
	_, _, url := serveSSE(t, nil)
	conn, err := (&transport.SSE{Options: transport.HTTPOptions{URL: url}}).Connect(context.Background())
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
		t.Fatalf("Read after Close: %v", err)
	}
	if err := conn.Write(context.Background(), []byte(rawInitialized), transport.WriteOptions{}); !errors.Is(err, transport.ErrClosed) {
		t.Fatalf("Write after Close: %v", err)
	}
}
