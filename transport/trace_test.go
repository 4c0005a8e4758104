package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// pipeTransport hands out one end of a pipe, as the demo server will.
type pipeTransport struct {
	conn Connection
	err  error
}

func (p *pipeTransport) Connect(context.Context) (Connection, error) { return p.conn, p.err }
func (p *pipeTransport) String() string                              { return "in-memory pipe" }

// fixedClock returns times one nanosecond apart, starting in a fixed zone so
// the test also checks conversion to UTC.
func fixedClock() func() time.Time {
	var mu sync.Mutex
	tm := time.Date(2025, 6, 18, 12, 0, 0, 0, time.FixedZone("CEST", 2*3600))
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		tm = tm.Add(time.Nanosecond)
		return tm
	}
}

func decodeTrace(t *testing.T, data []byte) []TraceEntry {
	t.Helper()
	var entries []TraceEntry
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		var e TraceEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("trace line %q is not JSON: %v", sc.Text(), err)
		}
		entries = append(entries, e)
	}
	return entries
}

func TestTrace(t *testing.T) {
	ctx := context.Background()
	client, server := NewPipe()
	var out bytes.Buffer
	tr := &Trace{Transport: &pipeTransport{conn: client}, W: &out, Now: fixedClock()}
	conn, err := tr.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tr.Note("transport", "streamable-http")
	if err := conn.Write(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"q":"<&>"}}`), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := server.Read(ctx); err != nil {
		t.Fatal(err)
	}
	server.Write(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{}}`), WriteOptions{})
	if _, err := conn.Read(ctx); err != nil {
		t.Fatal(err)
	}
	server.Close()
	if _, err := conn.Read(ctx); !errors.Is(err, io.EOF) {
		t.Fatalf("Read after server close = %v", err)
	}
	conn.Close()
	conn.Close()

	want := strings.Join([]string{
		`{"time":"2025-06-18T10:00:00.000000001Z","direction":"event","event":"connect","detail":"in-memory pipe"}`,
		`{"time":"2025-06-18T10:00:00.000000002Z","direction":"event","event":"transport","detail":"streamable-http"}`,
		`{"time":"2025-06-18T10:00:00.000000003Z","direction":"send","message":{"jsonrpc":"2.0","id":1,"method":"ping","params":{"q":"<&>"}}}`,
		`{"time":"2025-06-18T10:00:00.000000004Z","direction":"recv","message":{"jsonrpc":"2.0","id":1,"result":{}}}`,
		`{"time":"2025-06-18T10:00:00.000000005Z","direction":"event","event":"error","detail":{"error":"pipe: peer closed the connection: EOF","op":"read"}}`,
		`{"time":"2025-06-18T10:00:00.000000006Z","direction":"event","event":"close"}`,
	}, "\n") + "\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
}

func TestTraceConnectError(t *testing.T) {
	var out bytes.Buffer
	tr := &Trace{Transport: &pipeTransport{err: errors.New("no route")}, W: &out, Now: fixedClock()}
	if _, err := tr.Connect(context.Background()); err == nil {
		t.Fatal("Connect succeeded")
	}
	want := `{"time":"2025-06-18T10:00:00.000000001Z","direction":"event","event":"error","detail":{"error":"no route","op":"connect"}}` + "\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
}

func TestTraceRedact(t *testing.T) {
	ctx := context.Background()
	client, server := NewPipe()
	var out bytes.Buffer
	tr := &Trace{Transport: &pipeTransport{conn: client}, W: &out, Redactor: NewRedactor("hunter2")}
	conn, err := tr.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const secret = `{"params":{"token":"hunter2"}}`
	if err := conn.Write(ctx, json.RawMessage(secret), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := server.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != secret {
		t.Errorf("server received %s, want the unredacted %s", got, secret)
	}
	server.Write(ctx, got, WriteOptions{})
	if got, _ := conn.Read(ctx); string(got) != secret {
		t.Errorf("client received %s, want the unredacted %s", got, secret)
	}

	var msgs []string
	for _, e := range decodeTrace(t, out.Bytes()) {
		if e.Direction != DirectionEvent {
			msgs = append(msgs, e.Direction+" "+string(e.Message))
		}
		if _, err := time.Parse(time.RFC3339Nano, e.Time); err != nil || !strings.HasSuffix(e.Time, "Z") {
			t.Errorf("time %q is not RFC 3339 UTC", e.Time)
		}
	}
	want := []string{
		`send {"params":{"token":"[redacted]"}}`,
		`recv {"params":{"token":"[redacted]"}}`,
	}
	if diff := cmp.Diff(want, msgs); diff != "" {
		t.Errorf("traced messages (-want +got):\n%s", diff)
	}
}

// TestTraceConcurrent reads and writes at once; each trace line must stay
// whole and every message must be recorded once. Run with -race.
func TestTraceConcurrent(t *testing.T) {
	const n = 200
	ctx := context.Background()
	client, server := NewPipe()
	var out bytes.Buffer
	tr := &Trace{Transport: &pipeTransport{conn: client}, W: &out}
	conn, err := tr.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { // echo server
		for {
			msg, err := server.Read(ctx)
			if err != nil {
				return
			}
			server.Write(ctx, msg, WriteOptions{})
		}
	})
	wg.Go(func() {
		for i := range n {
			conn.Write(ctx, json.RawMessage(fmt.Sprintf(`{"id":%d}`, i)), WriteOptions{})
		}
	})
	for range n {
		if _, err := conn.Read(ctx); err != nil {
			t.Fatal(err)
		}
	}
	conn.Close()
	wg.Wait()

	count := map[string]int{}
	for _, e := range decodeTrace(t, out.Bytes()) {
		count[e.Direction]++
	}
	if diff := cmp.Diff(map[string]int{DirectionSend: n, DirectionRecv: n, DirectionEvent: 2}, count); diff != "" {
		t.Errorf("entries by direction (-want +got):\n%s", diff)
	}
}

func TestTraceRecordedForms(t *testing.T) {
	tests := []struct {
		name string
		msg  string
		want string // the recorded message
	}{
		{"as sent", `{"a": "<&>", "b":[1, 2]}`, `{"a": "<&>", "b":[1, 2]}`},
		{"several lines compacted", "{\n  \"a\": 1,\r\n  \"b\": \"x y\"\n}", `{"a":1,"b":"x y"}`},
		{"not JSON", `{"a":`, `"{\"a\":"`},
		{"secret", `{"token":"s3cret-value"}`, `{"token":"[redacted]"}`},
		{"secret escaped in JSON", `{"text":"pass \"quoted\" word"}`, `{"text":"[redacted]"}`},
		{"redaction breaking JSON recorded as a string", `{"a":1,"b":2}`, `"{\"a\":[redacted]\":2}"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			tr := &Trace{W: &out, Redactor: NewRedactor("s3cret-value", `pass "quoted" word`, `1,"b`)}
			tr.message(DirectionRecv, json.RawMessage(tt.msg))
			entries := decodeTrace(t, out.Bytes())
			if len(entries) != 1 {
				t.Fatalf("%d entries, want 1: %s", len(entries), out.Bytes())
			}
			if got := string(entries[0].Message); got != tt.want {
				t.Errorf("recorded %s, want %s", got, tt.want)
			}
		})
	}
}

func TestTraceRedactsEvents(t *testing.T) {
	var out bytes.Buffer
	tr := &Trace{Transport: &pipeTransport{err: errors.New(`401: bearer tok-12345 refused`)}, W: &out, Now: fixedClock(), Redactor: NewRedactor("tok-12345", `"quoted\secret"`)}
	tr.Connect(context.Background())
	tr.Note("http", map[string]any{"header": `X-Key: "quoted\secret"`})
	tr.Note("odd", func() {}) // not JSON: recorded with fmt.Sprint, still redacted
	got := out.String()
	for _, secret := range []string{"tok-12345", `quoted\\secret`, `quoted\secret`} {
		if strings.Contains(got, secret) {
			t.Errorf("trace shows %s:\n%s", secret, got)
		}
	}
	entries := decodeTrace(t, out.Bytes())
	if len(entries) != 3 {
		t.Fatalf("%d entries, want 3:\n%s", len(entries), got)
	}
	if want := map[string]any{"op": "connect", "error": "401: bearer [redacted] refused"}; !cmp.Equal(want, entries[0].Detail) {
		t.Errorf("connect error detail = %v, want %v", entries[0].Detail, want)
	}
	if want := map[string]any{"header": "X-Key: [redacted]"}; !cmp.Equal(want, entries[1].Detail) {
		t.Errorf("http detail = %v, want %v", entries[1].Detail, want)
	}
}

// edgeWriter keeps the start and end of what is written and counts the rest,
// so a trace of a huge message can be checked without holding it.
type edgeWriter struct {
	head, tail []byte
	n          int
	writes     int
}

func (w *edgeWriter) Write(p []byte) (int, error) {
	w.writes++
	w.n += len(p)
	if len(w.head) < 100 {
		w.head = append(w.head, p[:min(len(p), 100-len(w.head))]...)
	}
	w.tail = append(w.tail, p[max(0, len(p)-16):]...)
	w.tail = w.tail[max(0, len(w.tail)-16):]
	return len(p), nil
}

// TestTraceLargeMessage checks that recording a large message does not copy
// it when there is nothing to redact.
func TestTraceLargeMessage(t *testing.T) {
	size := 100 << 20
	if raceEnabled {
		size = 20 << 20
	}
	msg := json.RawMessage(`{"data":"` + strings.Repeat("x", size-len(`{"data":""}`)) + `"}`)
	var w edgeWriter
	tr := &Trace{W: &w, Redactor: NewRedactor("not-in-the-message"), Now: fixedClock()}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	tr.message(DirectionRecv, msg)
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<10 {
		t.Errorf("recording a %d-byte message allocated %d bytes, want no copy", size, alloc)
	}
	if want := `{"time":"2025-06-18T10:00:00.000000001Z","direction":"recv","message":{"data":"xxx`; !strings.HasPrefix(string(w.head), want) {
		t.Errorf("entry starts %s, want %s", w.head, want)
	}
	if want := `xxx"}}` + "\n"; !strings.HasSuffix(string(w.tail), want) {
		t.Errorf("entry ends %q, want %q", w.tail, want)
	}
	if w.writes != 3 || w.n != len(msg)+len(`{"time":"2025-06-18T10:00:00.000000001Z","direction":"recv","message":}`+"\n") {
		t.Errorf("entry written in %d calls, %d bytes", w.writes, w.n)
	}
}
