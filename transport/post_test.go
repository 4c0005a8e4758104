package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func (c *streamableConn) pendingCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending)
}

// TestPendingRemovedOnEveryPath: whatever the answer to a request (202
// without a body, JSON, SSE, an error status, a broken stream, a body over
// the limit, an answer with an error status), its pending entry is gone
// once Write has returned and the outcome was read.
func TestPendingRemovedOnEveryPath(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != "POST" {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.NewDecoder(r.Body).Decode(&m)
		switch m.Method {
		case "accepted":
			w.WriteHeader(http.StatusAccepted)
		case "json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
		case "sse":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{}}\n\n", m.ID)
		case "broken":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, ": nothing\n\n")
		case "big":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"x":"%s"}}`, m.ID, strings.Repeat("x", 2048))
		case "rpc-error":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-1,"message":"no"}}`, m.ID)
		case "wrong":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":"other","result":{}}`)
		default:
			http.Error(w, "boom", http.StatusInternalServerError)
		}
	}))
	defer ts.Close()
	conn, err := (&StreamableHTTP{Options: HTTPOptions{URL: ts.URL, MaxMessageSize: 1024}}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c := conn.(*streamableConn)
	tests := []struct {
		method  string
		outcome string // "" none, "msg" a message, "reqerr" a *RequestError, "writeerr" a Write error
	}{
		{"accepted", ""},
		{"accepted", ""},
		{"json", "msg"},
		{"sse", "msg"},
		{"broken", "reqerr"},
		{"big", "reqerr"},
		{"rpc-error", "msg"},
		{"wrong", "msg"}, // the other id's message, then a *RequestError
		{"fail", "writeerr"},
	}
	for i, tt := range tests {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := c.Write(ctx, json.RawMessage(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q}`, i, tt.method)), WriteOptions{})
		if (err != nil) != (tt.outcome == "writeerr") {
			t.Fatalf("%s: Write: %v", tt.method, err)
		}
		switch tt.outcome {
		case "msg":
			if _, err := c.Read(ctx); err != nil {
				t.Fatalf("%s: Read: %v", tt.method, err)
			}
		case "reqerr":
			var re *RequestError
			if _, err := c.Read(ctx); !errors.As(err, &re) || string(re.ID) != fmt.Sprint(i) {
				t.Fatalf("%s: Read: %v, want a *RequestError for %d", tt.method, err, i)
			}
		}
		if tt.method == "wrong" {
			var re *RequestError
			if _, err := c.Read(ctx); !errors.As(err, &re) || !strings.Contains(err.Error(), "is not its response") {
				t.Fatalf("wrong: second Read: %v", err)
			}
		}
		cancel()
		if n := c.pendingCount(); n != 0 {
			t.Errorf("after %s: %d pending entries", tt.method, n)
		}
	}
}

// TestSniffID reads ids and methods from the start of cut messages.
func TestSniffID(t *testing.T) {
	tests := []struct {
		head, id, method string
	}{
		{`{"jsonrpc":"2.0","id":7,"result":{"content":[{"text":"xxx`, "7", ""},
		{`{"jsonrpc":"2.0","result":{"content":[{"text":"xxx`, "", ""},
		{`{"id":"a","method":"tools/call","params":{"x":"`, `"a"`, "tools/call"},
		{`{"method":"notifications/message","params":{"data":"xx`, "", "notifications/message"},
		{`[{"id":1`, "", ""},
		{`not json`, "", ""},
	}
	for _, tt := range tests {
		id, method := sniffID([]byte(tt.head))
		if string(id) != tt.id || method != tt.method {
			t.Errorf("sniffID(%s) = %s, %q; want %s, %q", tt.head, id, method, tt.id, tt.method)
		}
	}
}
