package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	if err := conn.Write(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"q":"<&>"}}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := server.Read(ctx); err != nil {
		t.Fatal(err)
	}
	server.Write(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{}}`))
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
	redact := func(msg json.RawMessage) json.RawMessage {
		return bytes.ReplaceAll(msg, []byte("hunter2"), []byte("[REDACTED]"))
	}
	tr := &Trace{Transport: &pipeTransport{conn: client}, W: &out, Redact: redact}
	conn, err := tr.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const secret = `{"params":{"token":"hunter2"}}`
	if err := conn.Write(ctx, json.RawMessage(secret)); err != nil {
		t.Fatal(err)
	}
	got, err := server.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != secret {
		t.Errorf("server received %s, want the unredacted %s", got, secret)
	}
	server.Write(ctx, got)
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
		`send {"params":{"token":"[REDACTED]"}}`,
		`recv {"params":{"token":"[REDACTED]"}}`,
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
			server.Write(ctx, msg)
		}
	})
	wg.Go(func() {
		for i := range n {
			conn.Write(ctx, json.RawMessage(fmt.Sprintf(`{"id":%d}`, i)))
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
