package transport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/transport"
)

// TestSSEConnectBounded: Connect's ctx bounds the whole connect, whether
// the server never answers the GET or answers with a stream that never
// carries the endpoint event; the stream is released when Connect returns.
func TestSSEConnectBounded(t *testing.T) {
	released := make(chan struct{}, 1)
	comments := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sseHeaders(w)
		fmt.Fprint(w, ": waiting\n\n")
		flush(w)
		<-r.Context().Done()
		released <- struct{}{}
	}))
	tests := []struct {
		name string
		url  string
		want string
	}{
		{"silent listener", silentListener(t), "no answer to the GET that opens the event stream within"},
		{"comments only", comments.URL + "/sse", "no endpoint event within 300ms (is this a legacy HTTP+SSE server? try --transport http)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			done := make(chan error, 1)
			go func() {
				conn, err := (&transport.SSE{Options: transport.HTTPOptions{URL: tt.url}}).Connect(ctx)
				if conn != nil {
					conn.Close()
				}
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "connecting to http://127.0.0.1:") {
					t.Fatalf("Connect: %v, want %q", err, tt.want)
				}
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("%v does not wrap context.DeadlineExceeded", err)
				}
			case <-time.After(waitLimit):
				t.Fatal("Connect ignored its ctx")
			}
		})
	}
	select {
	case <-released:
	case <-time.After(waitLimit):
		t.Fatal("the event stream stayed open after Connect gave up")
	}

	// Auto falls back to SSE in Write, bounded by Write's ctx.
	fallback := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "POST" {
			http.NotFound(w, r)
			return
		}
		sseHeaders(w)
		flush(w)
		<-r.Context().Done()
	}))
	conn, err := (&transport.Auto{Options: transport.HTTPOptions{URL: fallback.URL}}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err = conn.Write(ctx, []byte(rawInitialize), transport.WriteOptions{})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no endpoint event within") {
		t.Fatalf("Auto Write: %v", err)
	}
}

// countingClient is an http.Client that counts the response body bytes
// the transport reads.
type countingClient struct {
	read atomic.Int64
}

func (cc *countingClient) client() *http.Client {
	return &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := http.DefaultTransport.RoundTrip(r)
		if err == nil {
			resp.Body = &countingBody{ReadCloser: resp.Body, n: &cc.read}
		}
		return resp, err
	})}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// floodServer answers initialize, then answers tools/call with a message
// of 64 MiB as JSON or as an SSE event (on the call's stream, with the id
// first or last), ping with a small result, and anything else with 202. It
// records how many bytes of the big answer it managed to write.
type floodServer struct {
	t       *testing.T
	mode    string // "json", "sse id first", "sse id last", "sse notification"
	written chan int64
}

const floodSize = 64 << 20

func (f *floodServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != "POST" {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	m := readRPC(f.t, r)
	switch m.Method {
	case "initialize":
		writeInitResult(w, m.ID, "")
		return
	case "ping":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
		return
	case "tools/call":
	default:
		w.WriteHeader(http.StatusAccepted)
		return
	}
	var head, tail string
	switch f.mode {
	case "json":
		w.Header().Set("Content-Type", "application/json")
		head = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"`, m.ID)
		tail = `"}]}}`
	case "sse id first":
		sseHeaders(w)
		head = fmt.Sprintf(`data: {"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"`, m.ID)
		tail = "\"}]}}\n\n"
	case "sse id last":
		sseHeaders(w)
		head = `data: {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"`
		tail = fmt.Sprintf("\"}]},\"id\":%s}\n\n", m.ID)
	case "sse notification":
		// A huge notification, then the small answer.
		sseHeaders(w)
		head = `data: {"jsonrpc":"2.0","method":"notifications/message","params":{"data":"`
		tail = fmt.Sprintf("\"}}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[]}}\n\n", m.ID)
	}
	n, _ := io.WriteString(w, head)
	written := int64(n)
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	for written < floodSize {
		k, err := w.Write(chunk)
		written += int64(k)
		if err != nil {
			break
		}
	}
	io.WriteString(w, tail)
	flush(w)
	f.written <- written
}

// TestMessageTooLarge: a JSON body or SSE event over MaxMessageSize fails
// the request it answers with a *MessageTooLargeError inside a
// *RequestError, without reading the rest (the server's write stops
// early, the transport reads little more than the limit), and the
// connection goes on. An oversized notification is a warning.
func TestMessageTooLarge(t *testing.T) {
	const limit = 1 << 20
	for _, mode := range []string{"json", "sse id first", "sse id last", "sse notification"} {
		t.Run(mode, func(t *testing.T) {
			srv := &floodServer{t: t, mode: mode, written: make(chan int64, 1)}
			ts := serve(t, srv)
			var cc countingClient
			var warn syncBuffer
			conn, err := (&transport.StreamableHTTP{Options: transport.HTTPOptions{URL: ts.URL, MaxMessageSize: limit,
				Client: cc.client(), OnViolation: warn.report}}).Connect(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			mustWrite(t, conn, rawInitialize)
			mustRead(t, conn, `"protocolVersion"`)
			before := cc.read.Load()
			mustWrite(t, conn, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"big"}}`)

			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			msg, err := conn.Read(ctx)
			if mode == "sse notification" {
				if err != nil || !strings.Contains(string(msg), `"id":2`) {
					t.Fatalf("Read: %s, %v; want the answer after the skipped notification", msg, err)
				}
				if !strings.Contains(warn.String(), "skipped an event on the stream of tools/call (id 2): SSE event larger than the 1 MiB message size limit") {
					t.Errorf("warnings:\n%s", warn.String())
				}
			} else {
				var re *transport.RequestError
				var tl *transport.MessageTooLargeError
				if !errors.As(err, &re) || string(re.ID) != "2" || !errors.As(err, &tl) || tl.Limit != limit {
					t.Fatalf("Read: %s, %v; want a *RequestError for id 2 with a *MessageTooLargeError", msg, err)
				}
			}
			// A notification is skipped by reading through it; an answer
			// ends the transfer.
			select {
			case written := <-srv.written:
				if written >= floodSize && mode != "sse notification" {
					t.Errorf("the server wrote all %d bytes: the transport read everything", written)
				}
			case <-time.After(waitLimit):
				t.Fatal("the server is still writing")
			}
			if got := cc.read.Load() - before; got > limit+256<<10 && mode != "sse notification" {
				t.Errorf("the transport read %d bytes of the answer, limit %d", got, limit)
			}

			// The connection is still usable.
			mustWrite(t, conn, `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
			mustRead(t, conn, `"id":3`)
		})
	}
}

// TestStreamBrokenFailsOneRequest: a request whose stream ends without its
// answer (and cannot be resumed) fails alone: Read returns a
// *RequestError with its id, and the next request works.
func TestStreamBrokenFailsOneRequest(t *testing.T) {
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
			fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n")
		case "ping":
			sseHeaders(w)
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{}}\n\n", m.ID)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	conn, err := (&transport.StreamableHTTP{Options: transport.HTTPOptions{URL: ts.URL}}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mustWrite(t, conn, rawInitialize)
	mustRead(t, conn, `"protocolVersion"`)
	mustWrite(t, conn, `{"jsonrpc":"2.0","id":"call-1","method":"tools/call","params":{"name":"t"}}`)
	mustRead(t, conn, `notifications/progress`)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	_, err = conn.Read(ctx)
	var re *transport.RequestError
	if !errors.As(err, &re) || string(re.ID) != `"call-1"` ||
		!strings.Contains(err.Error(), "tools/call (id \"call-1\"): the server ended the event stream before answering") {
		t.Fatalf("Read: %v, want a *RequestError for call-1", err)
	}
	mustWrite(t, conn, `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	mustRead(t, conn, `"id":3`)
}

// TestBatchDelivered: a JSON array in a body or an event reaches Read as
// one message, as the server sent it, and answers the request inside it.
func TestBatchDelivered(t *testing.T) {
	const batch = `[{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":%s,"result":{}}]`
	for _, ct := range []string{"application/json", "text/event-stream"} {
		t.Run(ct, func(t *testing.T) {
			ts := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != "POST" {
					w.WriteHeader(http.StatusMethodNotAllowed)
					return
				}
				m := readRPC(t, r)
				if ct == "application/json" {
					w.Header().Set("Content-Type", ct)
					fmt.Fprintf(w, batch, m.ID)
					return
				}
				sseHeaders(w)
				fmt.Fprintf(w, "data: "+batch+"\n\n", m.ID)
			}))
			conn, err := (&transport.StreamableHTTP{Options: transport.HTTPOptions{URL: ts.URL}}).Connect(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			mustWrite(t, conn, `{"jsonrpc":"2.0","id":7,"method":"ping"}`)
			got := mustRead(t, conn, `[`)
			if want := fmt.Sprintf(batch, "7"); string(got) != want {
				t.Errorf("Read %s, want %s", got, want)
			}
			// Nothing else follows: no "not its response" error.
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			if msg, err := conn.Read(ctx); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("then Read %s, %v", msg, err)
			}
		})
	}
}

// TestProtocolVersionHeader: no MCP-Protocol-Version header until the
// client sets it, then on every request but initialize; Auto passes it on.
func TestProtocolVersionHeader(t *testing.T) {
	for _, kind := range []string{"streamable", "auto"} {
		t.Run(kind, func(t *testing.T) {
			var mu sync.Mutex
			seen := map[string]string{} // method → header
			ts := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != "POST" {
					w.WriteHeader(http.StatusMethodNotAllowed)
					return
				}
				m := readRPC(t, r)
				mu.Lock()
				seen[m.Method] = r.Header.Get("Mcp-Protocol-Version")
				mu.Unlock()
				if m.Method == "initialize" || m.Method == "ping" {
					writeInitResult(w, m.ID, "s-1")
					return
				}
				w.WriteHeader(http.StatusAccepted)
			}))
			var tr transport.Transport = &transport.StreamableHTTP{Options: transport.HTTPOptions{URL: ts.URL}}
			if kind == "auto" {
				tr = &transport.Auto{Options: transport.HTTPOptions{URL: ts.URL}}
			}
			conn, err := tr.Connect(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			mustWrite(t, conn, rawInitialize)
			mustRead(t, conn, `"protocolVersion"`)
			conn.(transport.ProtocolVersionSetter).SetProtocolVersion("2025-06-18")
			mustWrite(t, conn, rawInitialized)
			mustWrite(t, conn, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
			mustRead(t, conn, `"id":2`)
			mustWrite(t, conn, `{"jsonrpc":"2.0","id":3,"method":"initialize","params":{}}`)
			mustRead(t, conn, `"id":3`)
			mu.Lock()
			defer mu.Unlock()
			want := map[string]string{"initialize": "", "notifications/initialized": "2025-06-18", "ping": "2025-06-18"}
			for m, v := range want {
				if seen[m] != v {
					t.Errorf("%s carried MCP-Protocol-Version %q, want %q", m, seen[m], v)
				}
			}
		})
	}
}

// TestRedactorShared: the caller's Redactor hides its own secrets in what
// the transport reports, and learns the header values.
func TestRedactorShared(t *testing.T) {
	ts := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, "signing key sign-key-0123 and header %s", r.Header.Get("X-Api-Key"))
	}))
	red := transport.NewRedactor("sign-key-0123")
	conn, err := (&transport.StreamableHTTP{Options: transport.HTTPOptions{URL: ts.URL,
		Header: http.Header{"X-Api-Key": {"api-key-4567"}}, Redactor: red}}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = conn.Write(context.Background(), json.RawMessage(rawInitialize), transport.WriteOptions{})
	if err == nil || !strings.Contains(err.Error(), `"signing key [redacted] and header [redacted]"`) {
		t.Fatalf("Write: %v", err)
	}
	if got := red.String("api-key-4567"); got != transport.Redacted {
		t.Errorf("the Redactor did not learn the header value: %q", got)
	}
}

// TestSSELegacyMessageTooLarge: on the legacy transport's one stream, an
// oversized event answering a pending request fails that request; one
// answering nothing pending is a warning; the stream goes on.
func TestSSELegacyMessageTooLarge(t *testing.T) {
	const limit = 64 << 10
	big := strings.Repeat("x", 2*limit)
	posted := make(chan rpcRequest, 10)
	ts := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "POST" {
			posted <- readRPC(t, r)
			w.WriteHeader(http.StatusAccepted)
			return
		}
		sseHeaders(w)
		fmt.Fprint(w, "event: endpoint\ndata: /messages\n\n")
		flush(w)
		for {
			select {
			case m := <-posted:
				switch m.Method {
				case "tools/call":
					fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":99,\"result\":{\"x\":\"%s\"}}\n\n", big)
					fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"x\":\"%s\"}}\n\n", m.ID, big)
				case "ping":
					fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{}}\n\n", m.ID)
				}
				flush(w)
			case <-r.Context().Done():
				return
			}
		}
	}))
	var warn syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	conn, err := (&transport.SSE{Options: transport.HTTPOptions{URL: ts.URL + "/sse", MaxMessageSize: limit, OnViolation: warn.report}}).Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mustWrite(t, conn, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{}}`)
	_, err = conn.Read(ctx)
	var re *transport.RequestError
	var tl *transport.MessageTooLargeError
	if !errors.As(err, &re) || string(re.ID) != "2" || !errors.As(err, &tl) {
		t.Fatalf("Read: %v, want a *RequestError for id 2", err)
	}
	if !strings.Contains(warn.String(), "skipped an event on "+ts.URL+"/sse: SSE event larger than the 64 KiB message size limit") {
		t.Errorf("warnings:\n%s", warn.String())
	}
	mustWrite(t, conn, `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	mustRead(t, conn, `"id":3`)
}
