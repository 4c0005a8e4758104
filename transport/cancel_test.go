package transport_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpctl/mcpctl/transport"
)

const (
	modernCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t"}}`
	modernPing = `{"jsonrpc":"2.0","id":8,"method":"ping"}`
)

// TestStreamableStatelessLost: with protocol 2026-07-28 a stream or body
// that ends before the response is not resumed (that revision has no
// Last-Event-ID): Read fails the request at once with ErrResponseLost and
// no GET is sent. With 2025-11-25 the same stream is resumed.
func TestStreamableStatelessLost(t *testing.T) {
	tests := []struct {
		name    string
		version string
		answer  func(w http.ResponseWriter)
		resumed bool
	}{
		{"SSE with an event id", "2026-07-28", func(w http.ResponseWriter) {
			sseHeaders(w)
			fmt.Fprint(w, "id: e1\nretry: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"p\",\"progress\":1}}\n\n")
		}, false},
		{"SSE without events", "2026-07-28", sseHeaders, false},
		{"JSON body cut short", "2026-07-28", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "100")
			w.WriteHeader(http.StatusOK)
			fmt.Fprint(w, `{"jsonrpc":"2.0",`)
		}, false},
		{"legacy resumes", "2025-11-25", func(w http.ResponseWriter) {
			sseHeaders(w)
			fmt.Fprint(w, "id: e1\nretry: 1\ndata:\n\n")
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var gets atomic.Int32
			ts := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.Method {
				case "GET":
					gets.Add(1)
					sseHeaders(w)
					fmt.Fprint(w, "id: e2\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[]}}\n\n")
					return
				case "DELETE":
					return
				}
				if readRPC(t, r).Method == "tools/call" {
					tt.answer(w)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, `{"jsonrpc":"2.0","id":8,"result":{}}`)
			}))
			events := newEventLog()
			conn, err := (&transport.StreamableHTTP{Options: transport.HTTPOptions{URL: ts.URL, OnEvent: events.on}}).Connect(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.(transport.ProtocolVersionSetter).SetProtocolVersion(tt.version)
			mustWrite(t, conn, modernCall)
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			for {
				msg, err := conn.Read(ctx)
				if tt.resumed {
					if err != nil || !strings.Contains(string(msg), `"id":7`) {
						if err == nil {
							continue // the progress notification
						}
						t.Fatalf("Read = %s, %v; want the resumed answer", msg, err)
					}
					if gets.Load() != 1 {
						t.Errorf("%d GETs, want 1", gets.Load())
					}
					return
				}
				if err == nil {
					if strings.Contains(string(msg), `"method"`) {
						continue // the progress notification
					}
					t.Fatalf("Read = %s, want a lost request", msg)
				}
				var re *transport.RequestError
				if !errors.As(err, &re) || string(re.ID) != "7" || !errors.Is(err, transport.ErrResponseLost) {
					t.Fatalf("Read error = %v, want a RequestError for id 7 wrapping ErrResponseLost", err)
				}
				if !strings.Contains(err.Error(), "tools/call (id 7): the response stream ended before the response arrived") {
					t.Errorf("error reads %q", err)
				}
				break
			}
			events.waitFor(t, transport.EventResponseLost)
			// The connection goes on.
			mustWrite(t, conn, modernPing)
			mustRead(t, conn, `"id":8`)
			if n := gets.Load(); n != 0 {
				t.Errorf("%d GETs, want none: 2026-07-28 streams are not resumed", n)
			}
		})
	}
}

// TestStreamableCancelRequest: CancelRequest closes the request's stream
// (the server's handler sees its context end), whether the POST is still
// waiting for its headers or its body is being read, and no error for the
// request reaches Read afterwards.
func TestStreamableCancelRequest(t *testing.T) {
	for _, early := range []bool{true, false} {
		t.Run(fmt.Sprintf("headers sent %v", early), func(t *testing.T) {
			arrived := make(chan struct{}, 1)
			ended := make(chan struct{}, 1)
			ts := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != "POST" {
					return
				}
				if readRPC(t, r).Method != "tools/call" {
					w.Header().Set("Content-Type", "application/json")
					fmt.Fprint(w, `{"jsonrpc":"2.0","id":8,"result":{}}`)
					return
				}
				if early {
					sseHeaders(w)
					fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"p\",\"progress\":1}}\n\n")
					flush(w)
				}
				arrived <- struct{}{}
				<-r.Context().Done()
				ended <- struct{}{}
			}))
			events := newEventLog()
			conn, err := (&transport.Auto{Options: transport.HTTPOptions{URL: ts.URL, OnEvent: events.on}}).Connect(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.(transport.ProtocolVersionSetter).SetProtocolVersion("2026-07-28")
			wrote := make(chan error, 1)
			go func() {
				wrote <- conn.Write(context.Background(), json.RawMessage(modernCall), transport.WriteOptions{})
			}()
			waitChan(t, arrived, "the call to arrive")
			if early {
				if err := <-wrote; err != nil {
					t.Fatal(err)
				}
				mustRead(t, conn, "notifications/progress")
			}
			if !conn.(transport.RequestCanceller).CancelRequest(json.RawMessage("7")) {
				t.Fatal("CancelRequest = false, want true over Streamable HTTP")
			}
			waitChan(t, ended, "the server to see the cancellation")
			if !early {
				if err := <-wrote; err == nil {
					t.Error("Write of a cancelled POST succeeded")
				}
			}
			events.waitFor(t, transport.EventRequestCancelled+"=tools/call (id 7)")
			// Nothing about id 7 comes before the next answer.
			mustWrite(t, conn, modernPing)
			mustRead(t, conn, `"id":8`)
		})
	}
}

// TestRequestCancellerDelegation: wrappers cancel through the connection
// they wrap, and say false when it has no exchange per request.
func TestRequestCancellerDelegation(t *testing.T) {
	a, _ := transport.NewPipe()
	tr := &transport.Trace{Transport: pipeTransport{a}}
	conn, err := tr.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if conn.(transport.RequestCanceller).CancelRequest(json.RawMessage("1")) {
		t.Error("a trace of a pipe cancels by exchange; want false")
	}
	tr = &transport.Trace{Transport: &transport.StreamableHTTP{Options: transport.HTTPOptions{URL: "http://127.0.0.1:1/mcp"}}}
	conn, err = tr.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if !conn.(transport.RequestCanceller).CancelRequest(json.RawMessage("1")) {
		t.Error("a trace of Streamable HTTP does not cancel by exchange; want true")
	}
}

type pipeTransport struct{ conn transport.Connection }

func (p pipeTransport) Connect(context.Context) (transport.Connection, error) { return p.conn, nil }

func waitChan(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	select {
	case <-ch:
	case <-ctx.Done():
		t.Fatalf("timed out waiting for %s", what)
	}
}
