package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/policy"
	"github.com/mcpctl/mcpctl/session"
)

// wire is an Outbox whose lines a scripted test reads.
type wire struct{ server, host chan string }

func newWire() *wire { return &wire{server: make(chan string, 16), host: make(chan string, 16)} }

func (w *wire) ToServer(msg []byte) error { w.server <- string(msg); return nil }
func (w *wire) ToHost(msg []byte) error   { w.host <- string(msg); return nil }

// heldApprover holds each call until its answer arrives on answers.
type heldApprover struct {
	asked   chan string
	answers chan Approval
}

func (a *heldApprover) Approve(ctx context.Context, r *ApprovalRequest) (Approval, error) {
	a.asked <- r.Call.Name
	select {
	case ans := <-a.answers:
		return ans, nil
	case <-ctx.Done():
		return Approval{}, ctx.Err()
	}
}

// recordTrail keeps the pipeline's audit records.
type recordTrail struct {
	mu   sync.Mutex
	recs []string
}

func (r *recordTrail) Record(c *session.Call, d session.Decision, o *session.Outcome) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recs = append(r.recs, c.Name+" "+d.By+" host="+c.Host)
	return nil
}

func governor(t *testing.T, policyYAML string, filter ToolFilter, approver Approver) (*Governor, *recordTrail) {
	t.Helper()
	p, err := policy.Parse([]byte(policyYAML))
	if err != nil {
		t.Fatal(err)
	}
	gate := &session.PolicyGate{Load: func() (*policy.Policy, error) { return p, nil }, NoAsk: "no one can be asked here"}
	trail := &recordTrail{}
	g := &Governor{
		Pipeline: session.NewPipeline(session.Stages{Policy: filter.Policy(gate), Recorder: trail}),
		Server:   "testserver",
		Filter:   filter,
		Approver: approver,
	}
	if approver != nil {
		gate.AskContext = g.AskHook()
	}
	return g, trail
}

func start(ctx context.Context, c *Conn, line string) bool {
	run := c.FromHost(ctx, []byte(line), nil)
	if run == nil {
		return false
	}
	go run()
	return true
}

// TestGovernRefusesUnsent: a hidden tool's call never reaches the server,
// and the host reads why, as a tool result or as a JSON-RPC error.
func TestGovernRefusesUnsent(t *testing.T) {
	for _, style := range []RefuseStyle{RefuseToolResult, RefuseJSONRPC} {
		t.Run(string(style), func(t *testing.T) {
			g, trail := governor(t, `"*": {sensitivity: low}`, ToolFilter{Deny: []string{"drop_*"}}, nil)
			g.RefuseAs = style
			w := newWire()
			c := g.Conn(w)
			ctx := context.Background()
			if start(ctx, c, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"host","version":"1"}}}`) {
				t.Fatal("initialize was taken for governing")
			}
			if !start(ctx, c, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"drop_table","arguments":{}}}`) {
				t.Fatal("a tools/call was not governed")
			}
			got := <-w.host
			want := `refused by policy: drop_table: the proxy hides this tool (--deny \"drop_*\")`
			if !strings.Contains(got, want) || !strings.Contains(got, `"id":2`) {
				t.Fatalf("the host got %s; want the refusal %s", got, want)
			}
			if style == RefuseJSONRPC && !strings.Contains(got, `"code":-32003`) {
				t.Errorf("the host got %s; want a JSON-RPC error", got)
			}
			if style == RefuseToolResult && (!strings.Contains(got, `"isError":true`) || strings.Contains(got, "resultType")) {
				t.Errorf("the host got %s; want a legacy tool result with isError", got)
			}
			select {
			case l := <-w.server:
				t.Fatalf("the server got %s", l)
			default:
			}
			if len(trail.recs) != 1 || trail.recs[0] != "drop_table refused: filter host=host 1" {
				t.Errorf("audit records %q", trail.recs)
			}
		})
	}
}

// TestGovernHeldCallBlocksNothing: a call held for approval leaves the
// other calls free; once approved it goes to the server, and its answer
// to the host.
func TestGovernHeldCallBlocksNothing(t *testing.T) {
	a := &heldApprover{asked: make(chan string, 1), answers: make(chan Approval, 1)}
	g, trail := governor(t, "slow: {requires_approval: true}\n\"*\": {sensitivity: low}\n", ToolFilter{}, a)
	w := newWire()
	c := g.Conn(w)
	ctx := context.Background()
	start(ctx, c, `{"jsonrpc":"2.0","id":"h","method":"tools/call","params":{"name":"slow"}}`)
	if name := <-a.asked; name != "slow" {
		t.Fatalf("asked about %q", name)
	}
	start(ctx, c, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fast","arguments":{"x":1}}}`)
	if got := <-w.server; !strings.Contains(got, `"id":3`) {
		t.Fatalf("the server got %s first; want the free call", got)
	}
	answer := `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"ok"}]}}`
	if !c.FromServer([]byte(answer)) {
		t.Fatal("the answer of a governed call was not taken")
	}
	if got := <-w.host; got != answer {
		t.Fatalf("the host got %s; want the server's answer as it came", got)
	}
	a.answers <- Approval{Approved: true, By: "tester"}
	if got := <-w.server; !strings.Contains(got, `"id":"h"`) {
		t.Fatalf("the server got %s; want the approved call", got)
	}
	c.FromServer([]byte(`{"jsonrpc":"2.0","id":"h","result":{"content":[]}}`))
	<-w.host
	trail.mu.Lock()
	defer trail.mu.Unlock()
	if len(trail.recs) != 2 || trail.recs[1] != "slow approved by tester host=" {
		t.Errorf("audit records %q", trail.recs)
	}
}

// TestGovernDeclined: a call a person declines is answered with the
// reason, in the 2026-07-28 era's result shape when the host sent no
// initialize.
func TestGovernDeclined(t *testing.T) {
	a := &heldApprover{asked: make(chan string, 1), answers: make(chan Approval, 1)}
	g, _ := governor(t, "database_query: {requires_approval: true}\n", ToolFilter{}, a)
	w := newWire()
	c := g.Conn(w)
	a.answers <- Approval{Approved: false}
	start(context.Background(), c, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"database_query"}}`)
	got := <-w.host
	var m struct {
		Result struct {
			Content    []struct{ Text string }
			IsError    bool
			ResultType string
		}
	}
	if err := json.Unmarshal([]byte(got), &m); err != nil {
		t.Fatal(err)
	}
	want := "refused by policy: database_query: it needs approval, and it was declined"
	if len(m.Result.Content) != 1 || m.Result.Content[0].Text != want || !m.Result.IsError || m.Result.ResultType != "complete" {
		t.Errorf("the host got %s; want %q as a complete tool error", got, want)
	}
}

// TestGovernToolsList: the server's tools/list answer loses the hidden
// tools on its way to the host, and the governor keeps the listing.
func TestGovernToolsList(t *testing.T) {
	g, _ := governor(t, `"*": {sensitivity: low}`, ToolFilter{Allow: []string{"read_*"}}, nil)
	w := newWire()
	c := g.Conn(w)
	if start(context.Background(), c, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`) {
		t.Fatal("tools/list was taken for governing")
	}
	if c.FromServer([]byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`)) {
		t.Fatal("a notification was taken")
	}
	list := `{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"read_file","inputSchema":{"type":"object"}},{"name":"delete_file","annotations":{"destructiveHint":true},"inputSchema":{"type":"object"}}]}}`
	if !c.FromServer([]byte(list)) {
		t.Fatal("the tools/list answer was relayed unfiltered")
	}
	got := <-w.host
	if !strings.Contains(got, "read_file") || strings.Contains(got, "delete_file") || !strings.Contains(got, `"id":7`) {
		t.Errorf("the host got %s; want read_file alone", got)
	}
	if tool := c.Tool("delete_file"); tool == nil || tool.Annotations == nil || tool.Annotations.DestructiveHint == nil {
		t.Errorf("the tool book lost delete_file's annotations: %+v", tool)
	}
}

// lateOutbox is an outbox whose ToHost returns only once the next
// request has reached the server (or after a second): the call that wrote
// the answer finishes after the host has sent its next call.
type lateOutbox struct{ server, host chan string }

func (o *lateOutbox) ToServer(msg []byte) error { o.server <- string(msg); return nil }
func (o *lateOutbox) ToHost(msg []byte) error {
	o.host <- string(msg)
	select {
	case m := <-o.server:
		o.server <- m
	case <-time.After(time.Second):
	}
	return nil
}

// TestGovernReusedID: a host may use an id again as soon as it has the
// answer of the call that had it; each call with the reused id is still
// governed and answered, even when the first call finishes after the
// second began (its clean-up once removed the second's entry, whose answer
// then went to the host unverified while the call waited for ever).
func TestGovernReusedID(t *testing.T) {
	for _, inline := range []bool{false, true} {
		t.Run(fmt.Sprintf("inline=%v", inline), func(t *testing.T) {
			g, _ := governor(t, `"*": {sensitivity: low}`, ToolFilter{}, nil)
			w := &lateOutbox{server: make(chan string, 1), host: make(chan string, 1)}
			c := g.Conn(w)
			c.inline = inline
			ctx := context.Background()
			const call = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`
			const answer = `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hi"}]}}`
			for i := range 3 {
				if !start(ctx, c, call) {
					t.Fatal("the call was not taken for governing")
				}
				select {
				case <-w.server:
				case <-time.After(10 * time.Second):
					t.Fatalf("call %d never reached the server", i)
				}
				if !c.FromServer([]byte(answer)) {
					t.Fatalf("call %d: its answer was relayed past the governor", i)
				}
				select {
				case <-w.host:
				case <-time.After(10 * time.Second):
					t.Fatalf("call %d was never answered", i)
				}
			}
		})
	}
}

// TestSignedLine checks that a signature spliced into a request's bytes
// reads back as the one a decoded and re-encoded message carries, and that
// the rest of the line is kept as the host wrote it.
func TestSignedLine(t *testing.T) {
	sig := map[string]string{"nonce": "n1", "value": "v"}
	for _, tc := range []struct {
		name, line string
		spliced    bool
	}{
		{"plain", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`, true},
		{"spaced", `{ "jsonrpc": "2.0", "params": { "name": "echo" }, "id": 1, "method": "tools/call" }`, true},
		{"empty params", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`, true},
		{"meta", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"progressToken":3}}}`, false},
		{"escaped", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ech\u006f"}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m message
			if err := json.Unmarshal([]byte(tc.line), &m); err != nil {
				t.Fatal(err)
			}
			got, err := signedLine([]byte(tc.line), m.Params, true, sig)
			if err != nil {
				t.Fatal(err)
			}
			want, err := withSignature([]byte(tc.line), sig)
			if err != nil {
				t.Fatal(err)
			}
			var g, w any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatalf("%s: %v", got, err)
			}
			_ = json.Unmarshal(want, &w)
			if !reflect.DeepEqual(g, w) {
				t.Errorf("signedLine = %s, want the same as %s", got, want)
			}
			if spliced := !bytes.Equal(got, want); spliced != tc.spliced {
				t.Errorf("spliced = %v, want %v: %s", spliced, tc.spliced, got)
			}
		})
	}
}

// TestGovernInitializeRefused: a host that sent initialize beside a
// 2026-07-28 request, to a server that refused the initialize, is in the
// 2026-07-28 era: the proxy's refusals take that era's shape.
func TestGovernInitializeRefused(t *testing.T) {
	for _, tc := range []struct {
		answer string
		modern bool
	}{
		{`{"jsonrpc":"2.0","id":2,"error":{"code":-32022,"message":"this server speaks only protocol 2026-07-28"}}`, true},
		{`{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`, false},
	} {
		g, _ := governor(t, `"*": {sensitivity: low}`, ToolFilter{Deny: []string{"drop_*"}}, nil)
		w := newWire()
		c := g.Conn(w)
		ctx := context.Background()
		start(ctx, c, `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"host","version":"1"}}}`)
		if c.FromServer([]byte(tc.answer)) {
			t.Fatal("the initialize answer was taken, not relayed")
		}
		if !start(ctx, c, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"drop_table","arguments":{}}}`) {
			t.Fatal("the call was not taken for governing")
		}
		var out string
		select {
		case out = <-w.host:
		case <-time.After(10 * time.Second):
			t.Fatal("the refused call was never answered")
		}
		if got := strings.Contains(out, `"resultType"`); got != tc.modern {
			t.Errorf("after %s\nthe refusal %s: resultType present %v, want %v", tc.answer, out, got, tc.modern)
		}
	}
}

// TestGovernImmediate: on an inline Conn (the shim's) a call the policy
// allows at once is forwarded before take returns, on the caller's
// goroutine; one that may wait — for approval, a rate-limit slot — or is
// refused, or comes before the policy is read, is left to a goroutine of
// its own. A Conn that is not inline decides nothing on the caller's
// goroutine.
func TestGovernImmediate(t *testing.T) {
	g, _ := governor(t, "echo: {sensitivity: low}\ndb: {requires_approval: true}\nlimited: {rate_limit: 5}\n", ToolFilter{Deny: []string{"hidden"}}, nil)
	w := newWire()
	c := g.Conn(w)
	c.inline = true
	ctx := context.Background()
	call := func(id int, tool string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{}}}`, id, tool)
	}
	answer := func(id int) {
		t.Helper()
		if !c.FromServer(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"result":{"content":[]}}`, id)) {
			t.Fatalf("the answer to %d was not the governor's", id)
		}
		if got := <-w.host; !strings.Contains(got, fmt.Sprintf(`"id":%d`, id)) {
			t.Fatalf("the host got %s", got)
		}
	}
	// The policy is read on the first call: that one may wait.
	run, done := c.take(ctx, []byte(call(1, "echo")), nil)
	if done || run == nil {
		t.Fatalf("the first call: done %v, run %v; want it on a goroutine of its own", done, run != nil)
	}
	go run()
	<-w.server
	answer(1)

	run, done = c.take(ctx, []byte(call(2, "echo")), nil)
	if !done || run != nil {
		t.Fatalf("an allowed call: done %v, run %v; want it forwarded at once", done, run != nil)
	}
	select {
	case got := <-w.server:
		if got != call(2, "echo") {
			t.Fatalf("the server got %s", got)
		}
	default:
		t.Fatal("take returned before forwarding the call")
	}
	answer(2)

	for i, tool := range []string{"db", "limited", "hidden"} {
		if run, done := c.take(ctx, []byte(call(10+i, tool)), nil); done || run == nil {
			t.Errorf("%s: done %v, run %v; want it on a goroutine of its own", tool, done, run != nil)
		}
	}

	other := g.Conn(newWire())
	if run, done := other.take(ctx, []byte(call(3, "echo")), nil); done || run == nil {
		t.Errorf("a Conn that is not inline: done %v, run %v", done, run != nil)
	}
}

// TestGovernImmediateCancelled: a call forwarded at once on an inline
// Conn stops being waited for when the host cancels it: its answer is
// then relayed as it came, the audit records it as sent and unanswered,
// and the next call with the same id is governed as any other.
func TestGovernImmediateCancelled(t *testing.T) {
	g, trail := governor(t, "echo: {sensitivity: low}\n", ToolFilter{}, nil)
	w := newWire()
	c := g.Conn(w)
	c.inline = true
	ctx := context.Background()
	const echo = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{}}}`
	const answer = `{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`
	// The first call reads the policy, on a goroutine of its own.
	if !start(ctx, c, strings.Replace(echo, `"id":7`, `"id":1`, 1)) {
		t.Fatal("the first call was not governed")
	}
	<-w.server
	if !c.FromServer([]byte(strings.Replace(answer, `"id":7`, `"id":1`, 1))) {
		t.Fatal("the first answer was not the governor's")
	}
	<-w.host

	if run, done := c.take(ctx, []byte(echo), nil); !done || run != nil {
		t.Fatalf("done %v, run %v; want the call forwarded at once", done, run != nil)
	}
	<-w.server
	if run, done := c.take(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`), nil); done || run != nil {
		t.Fatalf("the cancellation: done %v, run %v; want it relayed", done, run != nil)
	}
	if c.FromServer([]byte(answer)) {
		t.Fatal("the answer to a cancelled call was taken; want it relayed as it came")
	}
	select {
	case got := <-w.host:
		t.Fatalf("the host got %s from the governor for a cancelled call", got)
	default:
	}
	// Only the cancelled call's own entries: the first call's goroutine
	// removes its entries after the host has read its answer, so it may
	// not have yet.
	key := idKey(json.RawMessage(`7`))
	c.mu.Lock()
	_, waiting := c.waiting[key]
	_, held := c.hold[key]
	c.mu.Unlock()
	if waiting || held {
		t.Errorf("entries left for the cancelled call: waited for %v, held %v", waiting, held)
	}

	if run, done := c.take(ctx, []byte(echo), nil); !done || run != nil {
		t.Fatalf("the id reused: done %v, run %v; want the call forwarded at once", done, run != nil)
	}
	<-w.server
	if !c.FromServer([]byte(answer)) {
		t.Fatal("the answer to the id reused was not the governor's")
	}
	if got := <-w.host; got != answer {
		t.Errorf("the host got %s, want %s", got, answer)
	}
	trail.mu.Lock()
	defer trail.mu.Unlock()
	if len(trail.recs) != 3 {
		t.Errorf("audit records %q, want 3", trail.recs)
	}
}
