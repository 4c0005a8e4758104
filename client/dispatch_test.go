package client

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/transport"
)

// deafConn is the client's end of a server that stops reading its input:
// once deaf, every Write blocks until its context ends or the connection
// closes, as a stdio write does on a full pipe. What the server sends is
// what the test puts in in.
type deafConn struct {
	in       chan json.RawMessage
	closed   chan struct{}
	once     sync.Once
	deaf     atomic.Bool
	reads    atomic.Int64 // messages Read
	blocked  atomic.Int64 // Writes blocked now
	blockedc chan struct{}

	mu      sync.Mutex
	written []string // messages written while not deaf
}

func newDeafConn() *deafConn {
	return &deafConn{in: make(chan json.RawMessage), closed: make(chan struct{}), blockedc: make(chan struct{}, 64)}
}

func (d *deafConn) Read(ctx context.Context) (json.RawMessage, error) {
	select {
	case msg := <-d.in:
		d.reads.Add(1)
		return msg, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-d.closed:
		return nil, transport.ErrClosed
	}
}

func (d *deafConn) Write(ctx context.Context, msg json.RawMessage, _ transport.WriteOptions) error {
	if !d.deaf.Load() {
		d.mu.Lock()
		d.written = append(d.written, string(msg))
		d.mu.Unlock()
		return nil
	}
	d.blocked.Add(1)
	defer d.blocked.Add(-1)
	select {
	case d.blockedc <- struct{}{}:
	default:
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-d.closed:
		return transport.ErrClosed
	}
}

func (d *deafConn) Close() error {
	d.once.Do(func() { close(d.closed) })
	return nil
}

// send hands msg to the client's read loop, failing the test if the loop
// does not take it within failAfter.
func (d *deafConn) send(t *testing.T, msg string) {
	t.Helper()
	select {
	case d.in <- json.RawMessage(msg):
	case <-t.Context().Done():
	case <-time.After(failAfter):
		t.Fatalf("the read loop did not take message %.80s within %s (it read %d)", msg, failAfter, d.reads.Load())
	}
}

// waitBlocked waits until a Write is blocked.
func (d *deafConn) waitBlocked(t *testing.T) {
	t.Helper()
	select {
	case <-d.blockedc:
	case <-time.After(failAfter):
		t.Fatalf("no write blocked within %s", failAfter)
	}
}

func (d *deafConn) sent() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.written...)
}

// TestFloodWhileNotReading: a server that stops reading its input and
// floods the client with requests still has every message read, the
// answer to the call among them, while every write is blocked; the
// answers that could not be sent are reported once, at Close.
func TestFloodWhileNotReading(t *testing.T) {
	flood := 5000
	conn := newDeafConn()
	w := newWarnings()
	// A request timeout of failAfter: a read loop that waits for the
	// blocked writes makes the call time out, failing the test.
	c := New(conn, Options{Timeout: failAfter, OnProtocolWarning: w.add})
	defer c.Close()

	type result struct {
		raw json.RawMessage
		err error
	}
	done := make(chan result, 1)
	go func() {
		raw, err := c.Call(t.Context(), "tools/call", map[string]any{"name": "slow"})
		done <- result{raw, err}
	}()
	pollUntil(t, "the call is written", func() bool { return len(conn.sent()) > 0 })
	var call message
	if err := json.Unmarshal([]byte(conn.sent()[0]), &call); err != nil || call.Method != "tools/call" {
		t.Fatalf("first message written: %s, want the tools/call", conn.sent()[0])
	}
	id := string(call.ID)

	conn.deaf.Store(true)
	for i := range flood {
		conn.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":"flood-%d","method":"roots/list"}`, i+1))
	}
	conn.send(t, `{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[]}}`)
	r := <-done
	if r.err != nil {
		t.Fatalf("Call: %v, want the answer the server sent after its flood", r.err)
	}
	if string(r.raw) != `{"content":[]}` {
		t.Errorf("Call = %s, want {\"content\":[]}", r.raw)
	}
	if conn.blocked.Load() == 0 {
		t.Fatalf("no write blocked during the flood: the test did not test a server that does not read")
	}

	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	var reports []string
	for _, msg := range w.all() {
		if strings.Contains(msg, "were not sent: the server stopped reading its input") {
			reports = append(reports, msg)
		}
	}
	if len(reports) != 1 {
		t.Fatalf("%d reports of unsent answers, want 1: %q", len(reports), w.all())
	}
	n, err := strconv.Atoi(regexp.MustCompile(`^\d+`).FindString(reports[0]))
	if err != nil {
		t.Fatalf("the report does not start with a count: %q", reports[0])
	}
	// Everything but the handlers' answers, the queued busy answers and
	// the one the busy loop holds was dropped while the writer was stuck.
	if least := flood - MaxConcurrentServerRequests - busyQueue - 1; n < least || n > flood {
		t.Errorf("the report counts %d unsent answers, want %d to %d: %q", n, least, flood, reports[0])
	}
	for _, msg := range w.all() {
		if strings.Contains(msg, "sending the answer") {
			t.Errorf("unexpected warning for one answer: %q", msg)
		}
	}
}
