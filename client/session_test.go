package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/transport"
)

// warnings collects protocol warnings for a test.
type warnings struct {
	mu   sync.Mutex
	msgs []string
	ch   chan string // each warning, when not full
}

func newWarnings() *warnings { return &warnings{ch: make(chan string, 64)} }

func (w *warnings) add(msg string) {
	w.mu.Lock()
	w.msgs = append(w.msgs, msg)
	w.mu.Unlock()
	select {
	case w.ch <- msg:
	default:
	}
}

func (w *warnings) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.msgs...)
}

// wait returns the first warning from now on containing substr.
func (w *warnings) wait(t *testing.T, substr string) string {
	t.Helper()
	timeout := time.After(failAfter)
	for {
		select {
		case msg := <-w.ch:
			if strings.Contains(msg, substr) {
				return msg
			}
		case <-timeout:
			t.Fatalf("no warning containing %q within %s; got %q", substr, failAfter, w.all())
		}
	}
}

func TestStrayResponseWarnedAndNamedInTimeout(t *testing.T) {
	_, conn := startFake(t, map[string]handler{
		"tools/call": func(s *fakeServer, m message) {
			// The id turned into a string: it matches nothing.
			s.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":"%s","result":{"content":[]}}`, m.ID))
		},
	})
	w := newWarnings()
	// The stray answer is written at once; the timeout only has to outlast
	// one in-memory round trip.
	c := newClient(t, conn, Options{Timeout: time.Second, OnProtocolWarning: w.add})
	_, err := c.CallTool(t.Context(), "echo", nil, CallOptions{})
	var te *TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("CallTool error = %v, want a *TimeoutError", err)
	}
	want := `the server did send a response with id "1" (a string), which matches no request`
	if !strings.Contains(err.Error(), want) {
		t.Errorf("timeout error\n%v\ndoes not contain\n%s", err, want)
	}
	got := w.wait(t, "matches no request in flight")
	for _, part := range []string{`response with id "1" (a string)`, "request 1 is in flight with a numeric id", "in flight: 1 (tools/call)"} {
		if !strings.Contains(got, part) {
			t.Errorf("warning %q does not contain %q", got, part)
		}
	}
}

func TestUnknownNumericIDWarned(t *testing.T) {
	_, conn := startFake(t, map[string]handler{
		"tools/call": func(s *fakeServer, m message) {
			s.write(`{"jsonrpc":"2.0","id":99,"result":{}}`)
			s.reply(m, `{"content":[]}`)
		},
	})
	w := newWarnings()
	c := newClient(t, conn, Options{OnProtocolWarning: w.add})
	if _, err := c.CallTool(t.Context(), "echo", nil, CallOptions{}); err != nil {
		t.Fatal(err)
	}
	got := w.wait(t, "id 99")
	if want := "a response with id 99 matches no request in flight; in flight: 1 (tools/call)"; got != want {
		t.Errorf("warning = %q, want %q", got, want)
	}
}

func TestDeepResponseFailsAtOnce(t *testing.T) {
	const levels = 100_000
	deep := strings.Repeat("[", levels) + strings.Repeat("]", levels)
	_, conn := startFake(t, map[string]handler{
		"tools/call": func(s *fakeServer, m message) {
			s.reply(m, `{"content":[],"structuredContent":{"x":`+deep+`}}`)
		},
		"ping": func(s *fakeServer, m message) {
			s.write(`{"jsonrpc":"2.0","method":"notifications/message","params":` + deep + `}`)
			s.write(`{"jsonrpc":"2.0","method":"notifications/message","params":` + deep + `}`)
			s.reply(m, `{}`)
		},
	})
	w := newWarnings()
	// A timeout far beyond the test's own bound: only an immediate error
	// passes.
	c := newClient(t, conn, Options{Timeout: time.Hour, OnProtocolWarning: w.add})
	ctx, cancel := context.WithTimeout(t.Context(), failAfter)
	defer cancel()
	_, err := c.CallTool(ctx, "deep", nil, CallOptions{})
	var pe *ProtocolError
	if !errors.As(err, &pe) {
		t.Fatalf("CallTool error = %v, want a *ProtocolError", err)
	}
	for _, part := range []string{"tools/call", fmt.Sprintf("nested %d levels deep", levels+3), "limit of 1000"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q does not contain %q", err, part)
		}
	}
	// Deep messages answering nothing: one warning, not one each.
	if err := c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	var deepWarnings int
	for _, msg := range w.all() {
		if strings.Contains(msg, "levels deep") {
			deepWarnings++
		}
	}
	if deepWarnings != 1 {
		t.Errorf("got %d warnings about deep messages, want 1: %q", deepWarnings, w.all())
	}
}

func TestBatchAnswers(t *testing.T) {
	tests := []struct {
		version     string
		wantErr     string // "" means the batch is accepted
		wantWarning string
	}{
		{version: "2025-03-26"},
		{version: "2025-11-25", wantErr: "protocol revision 2025-11-25 does not allow", wantWarning: "batch of 2 messages"},
		{version: "2024-11-05", wantErr: "protocol revision 2024-11-05 does not allow", wantWarning: "batch of 2 messages"},
	}
	for _, tc := range tests {
		t.Run(tc.version, func(t *testing.T) {
			_, conn := startFake(t, map[string]handler{
				"initialize": answerInitialize(tc.version),
				"tools/call": func(s *fakeServer, m message) {
					s.write(fmt.Sprintf(`[{"jsonrpc":"2.0","method":"notifications/batched"}, {"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"batched"}]}}]`, m.ID))
				},
			})
			w := newWarnings()
			notes := make(chan string, 4)
			c, err := Connect(t.Context(), fixed(conn), Options{
				ProtocolVersion:   tc.version,
				Timeout:           time.Hour,
				OnProtocolWarning: w.add,
				OnNotification:    func(n Notification) { notes <- n.Method },
			})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			ctx, cancel := context.WithTimeout(t.Context(), failAfter)
			defer cancel()
			res, err := c.CallTool(ctx, "echo", nil, CallOptions{})
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("CallTool: %v", err)
				}
				if got := res.Content[0].Text; got != "batched" {
					t.Errorf("text = %q, want batched", got)
				}
				select {
				case got := <-notes:
					if got != "notifications/batched" {
						t.Errorf("notification %q, want notifications/batched", got)
					}
				default:
					t.Errorf("the notification in the batch was not delivered before the response that follows it")
				}
				return
			}
			var pe *ProtocolError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("CallTool error = %v, want a *ProtocolError containing %q", err, tc.wantErr)
			}
			w.wait(t, tc.wantWarning)
		})
	}
}

func TestServerRequestFloodBounded(t *testing.T) {
	// A flood of server requests must not get a goroutine each: the
	// handlers' concurrency stays bounded however many arrive.
	flood := 200_000
	if raceEnabled {
		flood = 20_000
	}
	clientEnd, serverEnd := transport.NewPipe()
	release := make(chan struct{})
	var running, peak atomic.Int64
	w := newWarnings()
	c := New(clientEnd, Options{
		OnProtocolWarning: w.add,
		Handlers: map[string]RequestHandler{
			"roots/list": func(ctx context.Context, _ json.RawMessage) (any, error) {
				n := running.Add(1)
				defer running.Add(-1)
				for {
					p := peak.Load()
					if n <= p || peak.CompareAndSwap(p, n) {
						break
					}
				}
				select {
				case <-release:
				case <-ctx.Done():
				}
				return map[string]any{"roots": []any{}}, nil
			},
		},
	})
	closed := false
	defer func() {
		if !closed {
			c.Close()
		}
		serverEnd.Close()
	}()
	baseline := runtime.NumGoroutine()

	// Count the answers while the flood is written.
	var busy atomic.Int64
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		for {
			data, err := serverEnd.Read(context.Background())
			if err != nil {
				return
			}
			var m message
			if json.Unmarshal(data, &m) == nil && m.Error != nil && m.Error.Code == CodeBusy {
				if busy.Add(1) == int64(flood-MaxConcurrentServerRequests) {
					return
				}
			}
		}
	}()
	maxGoroutines := 0
	for i := range flood {
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"roots/list"}`, i+1000)
		if err := serverEnd.Write(context.Background(), json.RawMessage(msg), transport.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		if i%1000 == 0 {
			maxGoroutines = max(maxGoroutines, runtime.NumGoroutine())
		}
	}
	select {
	case <-answered:
	case <-time.After(6 * failAfter):
		t.Fatalf("only %d of %d busy answers arrived within %s", busy.Load(), flood-MaxConcurrentServerRequests, 6*failAfter)
	}
	maxGoroutines = max(maxGoroutines, runtime.NumGoroutine())
	if limit := baseline + MaxConcurrentServerRequests + 20; maxGoroutines > limit {
		t.Errorf("up to %d goroutines during a flood of %d requests, want at most %d", maxGoroutines, flood, limit)
	}
	if got := peak.Load(); got > MaxConcurrentServerRequests {
		t.Errorf("%d handlers ran at once, want at most %d", got, MaxConcurrentServerRequests)
	}
	// mcpctl closes the connection while handlers still run: their answers
	// cannot be written, and that is no news to anyone.
	c.Close()
	closed = true
	close(release)
	// Wait for every handler to give its slot back, having tried to write.
	deadline := time.Now().Add(failAfter)
	for len(c.slots) > 0 && time.Now().Before(deadline) {
		runtime.Gosched()
	}
	for _, msg := range w.all() {
		if strings.Contains(msg, "sending the answer") {
			t.Errorf("warning after mcpctl closed the connection itself: %q", msg)
		}
	}
	if n := len(w.all()); n != 1 {
		t.Errorf("got %d warnings, want one about the refused requests: %q", n, w.all())
	}
}

// pagedServer answers tools/list with one tool per page and a fresh cursor
// forever, after delay.
func pagedServer(delay time.Duration) handler {
	return func(s *fakeServer, m message) {
		var p struct{ Cursor string }
		_ = json.Unmarshal(m.Params, &p)
		n := 0
		fmt.Sscanf(p.Cursor, "c%d", &n)
		result := fmt.Sprintf(`{"tools":[{"name":"t%d","inputSchema":{"type":"object"}}],"nextCursor":"c%d"}`, n, n+1)
		if delay == 0 {
			s.reply(m, result)
			return
		}
		// The answer may come after the test ended: write it without
		// reporting a closed pipe.
		time.AfterFunc(delay, func() {
			s.writeMu.Lock()
			defer s.writeMu.Unlock()
			_ = s.conn.Write(context.Background(), json.RawMessage(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)), transport.WriteOptions{})
		})
	}
}

func TestListTimeoutBoundsAllPages(t *testing.T) {
	// Each page takes a tenth of the timeout: a timeout per page would let
	// the list run until the page cap (100 timeouts long).
	const timeout = time.Second
	_, conn := startFake(t, map[string]handler{"tools/list": pagedServer(timeout / 10)})
	c := newClient(t, conn, Options{Timeout: timeout})
	start := time.Now()
	tools, err := c.ListTools(t.Context())
	elapsed := time.Since(start)
	var te *TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("ListTools error = %v, want a *TimeoutError", err)
	}
	if te.After != timeout || !strings.Contains(err.Error(), "the timeout bounds the whole list") {
		t.Errorf("error = %v, want one naming the timeout %s of the whole list", err, timeout)
	}
	if len(tools) == 0 || len(tools) >= MaxPages/10 {
		t.Errorf("got %d tools before the timeout, want some, and far fewer than %d", len(tools), MaxPages/10)
	}
	if elapsed > 20*timeout {
		t.Errorf("listing took %s with a timeout of %s", elapsed, timeout)
	}
}

func TestListPageCap(t *testing.T) {
	s, conn := startFake(t, map[string]handler{"tools/list": pagedServer(0)})
	// Two lists of MaxPages requests overflow what the fake server keeps.
	go func() {
		for {
			select {
			case <-s.got:
			case <-s.done:
				return
			}
		}
	}()
	var pages atomic.Int64
	c := newClient(t, conn, Options{OnResult: func(method, _ string, _ json.RawMessage) {
		if method == "tools/list" {
			pages.Add(1)
		}
	}})
	tools, err := c.ListTools(t.Context())
	var pe *ProtocolError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), fmt.Sprintf("stopped after %d pages", MaxPages)) || !strings.Contains(err.Error(), "client.MaxPages") {
		t.Fatalf("ListTools error = %v, want a *ProtocolError naming the cap of %d pages", err, MaxPages)
	}
	if len(tools) != MaxPages {
		t.Errorf("got %d tools, want the %d received", len(tools), MaxPages)
	}
	if got := pages.Load(); got != MaxPages {
		t.Errorf("OnResult saw %d pages, want %d", got, MaxPages)
	}
	raws, err := c.ListAll(t.Context(), "tools/list", "tools")
	if len(raws) != MaxPages || err == nil {
		t.Errorf("ListAll = %d items, %v; want %d and an error", len(raws), err, MaxPages)
	}
	if string(raws[0]) != `{"name":"t0","inputSchema":{"type":"object"}}` {
		t.Errorf("ListAll item 0 = %s", raws[0])
	}
}

// expiringConn fails writes of tools/call with *transport.SessionExpiredError
// while expired is set, as the HTTP transport does after a 404; writing
// initialize clears it. It records the protocol version it is given.
type expiringConn struct {
	transport.Connection
	expired atomic.Bool
	mu      sync.Mutex
	inits   int
	version []string
}

func (e *expiringConn) Write(ctx context.Context, msg json.RawMessage, opts transport.WriteOptions) error {
	s := string(msg)
	switch {
	case strings.Contains(s, `"method":"initialize"`):
		e.mu.Lock()
		e.inits++
		e.mu.Unlock()
		e.expired.Store(false)
	case strings.Contains(s, `"method":"tools/call"`) && e.expired.Load():
		return &transport.SessionExpiredError{URL: "http://127.0.0.1/mcp"}
	}
	return e.Connection.Write(ctx, msg, opts)
}

func (e *expiringConn) SetProtocolVersion(v string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.version = append(e.version, v)
}

func TestSessionExpiredReinitializes(t *testing.T) {
	var inits atomic.Int64
	_, pipe := startFake(t, map[string]handler{
		"initialize": func(s *fakeServer, m message) {
			// The second session is another revision with other capabilities.
			if inits.Add(1) == 1 {
				answerInitialize(LatestProtocolVersion)(s, m)
				return
			}
			s.reply(m, `{"protocolVersion":"2025-06-18","capabilities":{"prompts":{}},"serverInfo":{"name":"fake","version":"0.2"}}`)
		},
		"tools/call": func(s *fakeServer, m message) { s.reply(m, `{"content":[{"type":"text","text":"ok"}]}`) },
	})
	conn := &expiringConn{Connection: pipe}
	type event struct{ Event, Detail string }
	events := make(chan event, 4)
	c, err := Connect(t.Context(), fixed(conn), Options{OnEvent: func(ev, detail string) { events <- event{ev, detail} }})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	conn.expired.Store(true)
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := c.CallTool(t.Context(), "echo", nil, CallOptions{})
			if err == nil && res.Content[0].Text != "ok" {
				err = fmt.Errorf("text %q", res.Content[0].Text)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("CallTool after the session expired: %v", err)
		}
	}
	conn.mu.Lock()
	defer conn.mu.Unlock()
	if conn.inits != 2 {
		t.Errorf("initialize written %d times, want 2 (one re-initialization for concurrent failures)", conn.inits)
	}
	if diff := cmp.Diff([]string{LatestProtocolVersion, "2025-06-18"}, conn.version); diff != "" {
		t.Errorf("SetProtocolVersion calls (-want +got):\n%s", diff)
	}
	if got := c.ProtocolVersion(); got != "2025-06-18" {
		t.Errorf("ProtocolVersion = %q after re-initializing, want 2025-06-18", got)
	}
	if !c.HasCapability("prompts") || c.HasCapability("tools") {
		t.Errorf("capabilities not refreshed: %v", c.InitializeResult().Capabilities)
	}
	select {
	case ev := <-events:
		if ev.Event != EventSessionReinitialized || !strings.Contains(ev.Detail, "protocol 2025-06-18") {
			t.Errorf("event %+v", ev)
		}
	default:
		t.Errorf("no event for the re-initialization")
	}
	if len(events) != 0 {
		t.Errorf("%d more events, want one re-initialization", len(events))
	}
}

// requestErrorConn turns a message {"fail":ID} from the fake server into a
// *transport.RequestError for ID, as an HTTP stream broken for one request.
type requestErrorConn struct{ transport.Connection }

func (r *requestErrorConn) Read(ctx context.Context) (json.RawMessage, error) {
	msg, err := r.Connection.Read(ctx)
	if err != nil {
		return nil, err
	}
	var f struct{ Fail json.RawMessage }
	if json.Unmarshal(msg, &f) == nil && f.Fail != nil {
		return nil, &transport.RequestError{ID: f.Fail, Err: errors.New("stream broken")}
	}
	return msg, nil
}

func TestRequestErrorFailsOneRequest(t *testing.T) {
	_, pipe := startFake(t, map[string]handler{
		"tools/call": func(s *fakeServer, m message) {
			var p struct{ Name string }
			_ = json.Unmarshal(m.Params, &p)
			if p.Name == "broken" {
				s.write(fmt.Sprintf(`{"fail":%s}`, m.ID))
				return
			}
			s.reply(m, `{"content":[]}`)
		},
		"ping": func(s *fakeServer, m message) { s.reply(m, `{}`) },
	})
	c := newClient(t, &requestErrorConn{pipe}, Options{Timeout: time.Hour})
	ctx, cancel := context.WithTimeout(t.Context(), failAfter)
	defer cancel()
	_, err := c.CallTool(ctx, "broken", nil, CallOptions{})
	var reqErr *transport.RequestError
	if !errors.As(err, &reqErr) || !strings.Contains(err.Error(), "stream broken") {
		t.Fatalf("CallTool broken = %v, want a *transport.RequestError", err)
	}
	if _, err := c.CallTool(ctx, "fine", nil, CallOptions{}); err != nil {
		t.Errorf("CallTool after one request failed: %v", err)
	}
	if err := c.Ping(ctx); err != nil {
		t.Errorf("Ping after one request failed: %v", err)
	}
}

func TestSigningHookSeesSentBytes(t *testing.T) {
	s, conn := startFake(t, map[string]handler{
		"tools/call": func(s *fakeServer, m message) { s.reply(m, `{"content":[]}`) },
	})
	c := newClient(t, conn, Options{})
	var signed json.RawMessage
	opts := CallOptions{
		ProgressToken: "p1",
		Meta:          map[string]any{"k": "v"},
		Sign: func(tool string, args json.RawMessage) (any, error) {
			if tool != "echo" {
				t.Errorf("Sign got tool %q", tool)
			}
			signed = append(json.RawMessage(nil), args...)
			return map[string]string{"value": "sig"}, nil
		},
	}
	args := json.RawMessage("{ \"b\" : 1.50, \"a\": \"<&> \u2028\" }")
	if _, err := c.CallToolWith(t.Context(), "echo", args, opts); err != nil {
		t.Fatal(err)
	}
	m := s.waitFor(t, "tools/call", isMethod("tools/call"))
	var p struct {
		Arguments json.RawMessage `json:"arguments"`
		Meta      map[string]any  `json:"_meta"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil {
		t.Fatal(err)
	}
	if string(p.Arguments) != string(signed) {
		t.Errorf("sent arguments\n%s\ndiffer from the signed ones\n%s", p.Arguments, signed)
	}
	want := map[string]any{"k": "v", "progressToken": "p1", "signature": map[string]any{"value": "sig"}}
	if diff := cmp.Diff(want, p.Meta); diff != "" {
		t.Errorf("_meta mismatch (-want +got):\n%s", diff)
	}
	// The builder for printed requests makes the same params.
	req, err := NewCallToolRequest(7, "echo", args, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(req), `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":`+string(m.Params)+`}`; got != want {
		t.Errorf("NewCallToolRequest =\n%s\nwant\n%s", got, want)
	}
	// A failing hook stops the call before anything is sent.
	opts.Sign = func(string, json.RawMessage) (any, error) { return nil, errors.New("no key") }
	if _, err := c.CallToolWith(t.Context(), "echo", args, opts); err == nil || !strings.Contains(err.Error(), "no key") {
		t.Errorf("CallToolWith with a failing hook = %v", err)
	}
}

func TestTypedNotifications(t *testing.T) {
	tests := []struct {
		msg  string
		want Notification
	}{
		{
			msg: `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"db","data":{"x":1}}}`,
			want: Notification{Method: "notifications/message", Params: raw(`{"level":"info","logger":"db","data":{"x":1}}`),
				Log: &LoggingMessage{Level: "info", Logger: "db", Data: raw(`{"x":1}`)}},
		},
		{
			msg: `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":0.5,"total":2,"message":"half"}}`,
			want: Notification{Method: "notifications/progress", Params: raw(`{"progressToken":7,"progress":0.5,"total":2,"message":"half"}`),
				Progress: &Progress{Token: raw(`7`), Progress: 0.5, Total: ptr(2.0), Message: "half"}},
		},
		{
			msg:  `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
			want: Notification{Method: "notifications/tools/list_changed", ListChanged: "tools"},
		},
		{
			msg: `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///a"}}`,
			want: Notification{Method: "notifications/resources/updated", Params: raw(`{"uri":"file:///a"}`),
				ResourceUpdated: &ResourceUpdated{URI: "file:///a"}},
		},
	}
	s, conn := startFake(t, nil)
	got := make(chan Notification, len(tests))
	newClient(t, conn, Options{OnNotification: func(n Notification) { got <- n }})
	for _, tc := range tests {
		s.write(tc.msg)
		select {
		case n := <-got:
			if diff := cmp.Diff(tc.want, n); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.want.Method, diff)
			}
		case <-time.After(failAfter):
			t.Fatalf("no notification for %s", tc.msg)
		}
	}
	if text := (&LoggingMessage{Data: raw(`"plain"`)}).Text(); text != "plain" {
		t.Errorf("Text of a string = %q", text)
	}
}

func ptr[T any](v T) *T { return &v }

func TestOnResultSeesEveryResult(t *testing.T) {
	_, conn := startFake(t, map[string]handler{
		"tools/call": func(s *fakeServer, m message) { s.reply(m, `{"content":[]}`) },
	})
	type seen struct{ Method, Version, Result string }
	var (
		mu  sync.Mutex
		got []seen
	)
	c, err := Connect(t.Context(), fixed(conn), Options{OnResult: func(method, version string, result json.RawMessage) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, seen{method, version, string(result)})
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.CallTool(t.Context(), "x", nil, CallOptions{}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || got[0].Method != "initialize" || got[1] != (seen{"tools/call", LatestProtocolVersion, `{"content":[]}`}) {
		t.Errorf("OnResult saw %+v", got)
	}
}

func TestMessageBuilders(t *testing.T) {
	tests := []struct {
		name string
		got  func() (json.RawMessage, error)
		want string
	}{
		{"request", func() (json.RawMessage, error) { return NewRequest(3, "tools/list", map[string]string{"cursor": "c"}) }, `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"c"}}`},
		{"string id, no params", func() (json.RawMessage, error) { return NewRequest("a", "ping", nil) }, `{"jsonrpc":"2.0","id":"a","method":"ping"}`},
		{"raw params compacted", func() (json.RawMessage, error) { return NewRequest(1, "x", json.RawMessage(`{ "a" : 1 }`)) }, `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":1}}`},
		{"notification", func() (json.RawMessage, error) { return NewNotification("notifications/initialized", nil) }, `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{"response", func() (json.RawMessage, error) { return NewResponse(raw(`5`), nil, nil) }, `{"jsonrpc":"2.0","id":5,"result":{}}`},
		{"error response", func() (json.RawMessage, error) {
			return NewResponse(raw(`"x"`), nil, &RPCError{Code: CodeBusy, Message: "busy"})
		}, `{"jsonrpc":"2.0","id":"x","error":{"code":-32000,"message":"busy"}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.got()
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	if _, err := NewRequest(1.5, "x", nil); err == nil {
		t.Errorf("NewRequest with a float id: no error")
	}
}

func TestSupportedProtocolVersionsIsACopy(t *testing.T) {
	v := SupportedProtocolVersions()
	v[0] = "changed"
	if SupportedProtocolVersions()[0] != LatestProtocolVersion {
		t.Errorf("changing the returned slice changed the supported versions")
	}
}

func TestCallToolResultKeepsBytes(t *testing.T) {
	data := []byte(`{"content":[{"type":"text","text":"hi"}],"structuredContent":{"big":"` + strings.Repeat("x", 1<<16) + `"},"_meta":{"k":1}}`)
	var res CallToolResult
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	within := func(name string, b []byte) {
		t.Helper()
		if len(b) == 0 {
			t.Fatalf("%s is empty", name)
		}
		start := uintptr(unsafe.Pointer(&data[0]))
		p := uintptr(unsafe.Pointer(&b[0]))
		if p < start || p >= start+uintptr(len(data)) {
			t.Errorf("%s is a copy, not a sub-slice of the bytes read", name)
		}
	}
	within("Raw", res.Raw)
	within("StructuredContent", res.StructuredContent)
	within("Meta", res.Meta)
	if string(res.Meta) != `{"k":1}` || res.Content[0].Text != "hi" {
		t.Errorf("decoded %+v", res)
	}
}

// TestReinitializeRestoresLogLevel: a log level set in a legacy session
// is set again in the session that replaces it.
func TestReinitializeRestoresLogLevel(t *testing.T) {
	srv, pipe := startFake(t, map[string]handler{
		"logging/setLevel": func(s *fakeServer, m message) { s.reply(m, `{}`) },
		"tools/call":       func(s *fakeServer, m message) { s.reply(m, `{"content":[{"type":"text","text":"ok"}]}`) },
	})
	conn := &expiringConn{Connection: pipe}
	c, err := Connect(t.Context(), fixed(conn), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SetLogLevel(t.Context(), "debug"); err != nil {
		t.Fatal(err)
	}
	conn.expired.Store(true)
	if _, err := c.CallTool(t.Context(), "echo", nil, CallOptions{}); err != nil {
		t.Fatalf("CallTool after the session expired: %v", err)
	}
	c.Close()
	want := []string{"initialize", "notifications/initialized", "logging/setLevel", "initialize", "notifications/initialized", "logging/setLevel", "tools/call"}
	if got := methods(srv.received(t)); !slices.Equal(got, want) {
		t.Errorf("the client sent %q, want %q", got, want)
	}
}
