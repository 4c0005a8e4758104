package export

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/proxy"
	"github.com/mcpctl/mcpctl/transport"
)

// testCollector is an OTLP/HTTP collector: it decodes what it receives
// and hands each request on received. Until release is closed (when hold
// is set) it answers nothing.
type testCollector struct {
	srv      *httptest.Server
	received chan received
	status   int
	hold     chan struct{}
	once     sync.Once
}

// release lets the held requests be answered.
func (c *testCollector) release() {
	if c.hold != nil {
		c.once.Do(func() { close(c.hold) })
	}
}

type received struct {
	path, contentType, auth string
	body                    []byte
	traces                  OTLPTraces
}

func newTestCollector(t *testing.T, status int, hold bool) *testCollector {
	c := &testCollector{received: make(chan received, 100), status: status}
	if hold {
		c.hold = make(chan struct{})
	}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc := received{path: r.URL.Path, contentType: r.Header.Get("Content-Type"), auth: r.Header.Get("Authorization"), body: body}
		if err := json.Unmarshal(body, &rc.traces); err != nil {
			t.Errorf("the collector got %s: %v", body, err)
		}
		c.received <- rc
		if c.hold != nil {
			select {
			case <-c.hold:
			case <-r.Context().Done():
			}
		}
		w.WriteHeader(c.status)
	}))
	t.Cleanup(func() {
		c.release()
		c.srv.Close()
	})
	return c
}

func spansOf(tr OTLPTraces) []OTLPSpan {
	var spans []OTLPSpan
	for _, rs := range tr.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			spans = append(spans, ss.Spans...)
		}
	}
	return spans
}

func testSpan(i int) queued {
	return queued{span: OTLPSpan{TraceID: "t", SpanID: fmt.Sprint(i), Name: "ping"}, session: "s"}
}

// frames is a session with a traceparent, an error answer, a tool error,
// a secret in an argument and a request never answered.
func streamFrames(t0 time.Time) []proxy.Frame {
	msgs := []struct {
		dir  proxy.Direction
		data string
	}{
		{proxy.HostToServer, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"host","version":"1"}}}`},
		{proxy.ServerToHost, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"srv","version":"2"}}}`},
		{proxy.HostToServer, `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{proxy.HostToServer, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"login","arguments":{"password":"hunter2","token":"s3cret-token"},"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}}}`},
		{proxy.HostToServer, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"boom","arguments":{}}}`},
		{proxy.ServerToHost, `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"no tool boom for s3cret-token"}}`},
		{proxy.ServerToHost, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}],"isError":true}}`},
		{proxy.HostToServer, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`},
	}
	frames := make([]proxy.Frame, len(msgs))
	for i, m := range msgs {
		frames[i] = proxy.Frame{Time: t0.Add(time.Duration(i)*time.Millisecond + time.Duration(i)), Dir: m.dir, Data: []byte(m.data), Size: int64(len(m.data))}
	}
	return frames
}

// TestStreamSpanEqualsExport streams a session through a tap beside its
// session log and checks that the spans the collector got are those
// `mcpctl export -f otlp` makes of the log, ids and times included, and
// that neither carries what the log hides.
func TestStreamSpanEqualsExport(t *testing.T) {
	col := newTestCollector(t, http.StatusOK, false)
	info := Info{Name: "mcpctl", Version: "test"}
	var warn bytes.Buffer
	s, err := NewSender(SenderOptions{Endpoint: col.srv.URL, Info: info, Warn: &warn, Headers: []string{"Authorization: Bearer hdr-secret"}})
	if err != nil {
		t.Fatal(err)
	}
	red := transport.NewRedactor("s3cret-token")
	path, _ := proxy.ParseRedactPath("$.params.arguments.password")
	paths := []proxy.RedactPath{path}
	var logBuf bytes.Buffer
	log := proxy.NewLog(&logBuf, red, paths)
	checks := &proxy.Checks{}
	const name = "session 20260101T000000000Z-1"
	st := s.Stream(checks, name, red, paths)
	tap := proxy.NewTap(proxy.Observers{log, st}, 0, 0)
	for _, f := range streamFrames(time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)) {
		tap.Send(f)
	}
	tap.Close()
	checks.End(time.Now())
	st.End()
	s.Close(context.Background())

	var got []OTLPSpan
	var bodies [][]byte
	for len(col.received) > 0 {
		rc := <-col.received
		if rc.path != "/v1/traces" || rc.contentType != "application/json" || rc.auth != "Bearer hdr-secret" {
			t.Errorf("the collector got a POST to %s, Content-Type %q, Authorization %q", rc.path, rc.contentType, rc.auth)
		}
		got = append(got, spansOf(rc.traces)...)
		bodies = append(bodies, rc.body)
		if rs := rc.traces.ResourceSpans; len(rs) != 1 || !slices.Contains(resourceNames(rs[0]), "srv") {
			t.Errorf("resource: %+v", rs)
		}
	}
	sess, err := Read(&logBuf, name, false)
	if err != nil {
		t.Fatal(err)
	}
	want := spansOf(OTLP(sess, info))
	byID := func(a, b OTLPSpan) int { return strings.Compare(a.SpanID, b.SpanID) }
	slices.SortFunc(got, byID)
	slices.SortFunc(want, byID)
	if len(want) != 4 {
		t.Fatalf("the export has %d spans, want 4: %+v", len(want), want)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("streamed spans differ from the exported ones (-export +stream):\n%s", d)
	}
	for _, b := range bodies {
		for _, secret := range []string{"hunter2", "s3cret-token", "hdr-secret"} {
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("the collector got %q: %s", secret, b)
			}
		}
	}
	if warn.String() != "otlp: 4 spans sent, 0 dropped\n" {
		t.Errorf("stderr: %q", warn.String())
	}
}

func resourceNames(rs OTLPResourceSpans) []string {
	var v []string
	for _, a := range rs.Resource.Attributes {
		if a.Value.StringValue != nil {
			v = append(v, *a.Value.StringValue)
		}
	}
	return v
}

// TestSenderBatches checks that a batch is sent when full, and what is
// left at Close.
func TestSenderBatches(t *testing.T) {
	col := newTestCollector(t, http.StatusOK, false)
	var warn bytes.Buffer
	s, err := NewSender(SenderOptions{Endpoint: col.srv.URL + "/custom/traces", Warn: &warn, BatchSpans: 3, BatchDelay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 7 {
		s.add(testSpan(i))
	}
	// Two full batches go without waiting for the delay.
	for range 2 {
		rc := <-col.received
		if n := len(spansOf(rc.traces)); n != 3 || rc.path != "/custom/traces" {
			t.Errorf("a batch of %d spans to %s, want 3 to /custom/traces", n, rc.path)
		}
	}
	s.Close(context.Background())
	if rc := <-col.received; len(spansOf(rc.traces)) != 1 {
		t.Errorf("the last batch: %d spans, want 1", len(spansOf(rc.traces)))
	}
	if warn.String() != "otlp: 7 spans sent, 0 dropped\n" {
		t.Errorf("stderr: %q", warn.String())
	}
}

// TestSenderBatchDelay checks that a batch that never fills is sent after
// the delay, with no Close.
func TestSenderBatchDelay(t *testing.T) {
	col := newTestCollector(t, http.StatusOK, false)
	s, err := NewSender(SenderOptions{Endpoint: col.srv.URL, BatchDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	s.add(testSpan(1))
	if rc := <-col.received; len(spansOf(rc.traces)) != 1 {
		t.Errorf("got %s", rc.body)
	}
}

// TestSenderQueueFull holds the collector's answer: spans beyond the
// queue are dropped and counted, and adding never waits.
func TestSenderQueueFull(t *testing.T) {
	col := newTestCollector(t, http.StatusOK, true)
	var warn bytes.Buffer
	s, err := NewSender(SenderOptions{Endpoint: col.srv.URL, Warn: &warn, BatchSpans: 1, QueueSpans: 2})
	if err != nil {
		t.Fatal(err)
	}
	s.add(testSpan(0))
	<-col.received // the sender waits on the collector now
	for i := 1; i <= 5; i++ {
		s.add(testSpan(i))
	}
	if _, dropped := s.Counts(); dropped != 3 {
		t.Errorf("%d spans dropped, want 3", dropped)
	}
	col.release()
	s.Close(context.Background())
	if warn.String() != "otlp: 3 spans sent, 3 dropped\n" {
		t.Errorf("stderr: %q", warn.String())
	}
}

// TestSenderCollectorFails checks a collector that is down or answers
// 500: one warning naming the endpoint and the failure, spans counted
// dropped, header values never shown.
func TestSenderCollectorFails(t *testing.T) {
	down := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		return "http://" + addr
	}()
	failing := newTestCollector(t, http.StatusInternalServerError, false)
	for _, tc := range []struct {
		endpoint, want string
	}{
		{down, "otlp: POST " + down + "/v1/traces: connection refused; spans are dropped until it answers\n"},
		{failing.srv.URL, "otlp: POST " + failing.srv.URL + "/v1/traces: HTTP 500 Internal Server Error; spans are dropped until it answers\n"},
	} {
		var warn bytes.Buffer
		s, err := NewSender(SenderOptions{Endpoint: tc.endpoint, Warn: &warn, BatchSpans: 1, Headers: []string{"X-Key: hdr-secret"}})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			s.add(testSpan(i))
		}
		s.Close(context.Background())
		if want := tc.want + "otlp: 0 spans sent, 3 dropped\n"; warn.String() != want {
			t.Errorf("stderr:\n%s\nwant:\n%s", warn.String(), want)
		}
		if strings.Contains(warn.String(), "hdr-secret") {
			t.Errorf("a header value in %q", warn.String())
		}
	}
}

// TestStreamNeverHoldsTraffic streams a session to a collector that never
// answers: every frame still reaches the observer after the stream on the
// tap, and Close returns when its context ends, the spans dropped.
func TestStreamNeverHoldsTraffic(t *testing.T) {
	col := newTestCollector(t, http.StatusOK, true)
	var warn bytes.Buffer
	s, err := NewSender(SenderOptions{Endpoint: col.srv.URL, Warn: &warn, BatchSpans: 1, QueueSpans: 1})
	if err != nil {
		t.Fatal(err)
	}
	checks := &proxy.Checks{}
	st := s.Stream(checks, "x", nil, nil)
	after := &frameCounter{seen: make(chan struct{})}
	tap := proxy.NewTap(proxy.Observers{st, after}, 0, 0)
	const calls = 50
	for i := range calls {
		req := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i)
		resp := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, i)
		tap.Send(proxy.Frame{Time: time.Now(), Dir: proxy.HostToServer, Data: []byte(req), Size: int64(len(req))})
		tap.Send(proxy.Frame{Time: time.Now(), Dir: proxy.ServerToHost, Data: []byte(resp), Size: int64(len(resp))})
		if i == 0 {
			<-col.received // the collector holds the first batch from here on
		}
	}
	tap.Close()
	if after.n != 2*calls {
		t.Errorf("the observer after the stream saw %d frames, want %d", after.n, 2*calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // out of time at once: Close must not wait on the collector
	s.Close(ctx)
	if sent, dropped := s.Counts(); sent != 0 || dropped != calls {
		t.Errorf("%d sent, %d dropped; want 0, %d", sent, dropped, calls)
	}
}

type frameCounter struct {
	mu   sync.Mutex
	n    int
	seen chan struct{}
}

func (c *frameCounter) Frame(proxy.Frame) { c.mu.Lock(); c.n++; c.mu.Unlock() }
func (c *frameCounter) Event(proxy.Event) {}
