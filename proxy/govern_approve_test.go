package proxy

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/approval"
)

// queueGovernor is a governor whose approver is the approval queue in a
// folder of the test's.
func queueGovernor(t *testing.T, timeout time.Duration) (*Governor, *recordTrail, approval.Store) {
	t.Helper()
	store := approval.Store{Dir: t.TempDir(), Poll: time.Millisecond}
	a := &QueueApprover{Store: store, Timeout: timeout, Every: time.Millisecond}
	g, trail := governor(t, "drop: {requires_approval: true, sensitive_arguments: [token]}\n\"*\": {sensitivity: low}\n", ToolFilter{}, a)
	return g, trail, store
}

const legacyInit = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"host","version":"1"}}}`

// elicitation reads the elicitation/create the host is sent.
func elicitation(t *testing.T, w *wire) (id, message string) {
	t.Helper()
	for l := range w.host {
		var m struct {
			ID     string
			Method string
			Params struct{ Message string }
		}
		if json.Unmarshal([]byte(l), &m) != nil || m.Method != "elicitation/create" {
			t.Fatalf("the host got %s; want an elicitation/create", l)
		}
		return m.ID, m.Params.Message
	}
	return "", ""
}

// TestApproveElicitation: a host that declared elicitation is asked about
// a held call; its accept lets the call through, its decline refuses it,
// and the arguments it is shown are masked.
func TestApproveElicitation(t *testing.T) {
	for _, tc := range []struct {
		answer string
		sent   bool
		want   string
	}{
		{`{"action":"accept","content":{"approve":true}}`, true, "drop approved by host user via elicitation host=host 1"},
		{`{"action":"decline"}`, false, "drop refused: requires_approval host=host 1"},
	} {
		t.Run(tc.answer, func(t *testing.T) {
			g, trail, store := queueGovernor(t, time.Minute)
			w := newWire()
			c := g.Conn(w)
			ctx := context.Background()
			start(ctx, c, legacyInit)
			start(ctx, c, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"drop","arguments":{"table":"users","token":"s3cret"}}}`)
			id, msg := elicitation(t, w)
			if !strings.HasPrefix(id, approvalIDPrefix) || strings.Contains(msg, "s3cret") || !strings.Contains(msg, `"table":"users"`) {
				t.Fatalf("asked with id %q: %s", id, msg)
			}
			if held, _ := store.List(); len(held) != 1 || held[0].Tool != "drop" {
				t.Fatalf("the queue holds %+v; want the call", held)
			}
			// The host's answer is the governor's, never the server's.
			if !start(ctx, c, `{"jsonrpc":"2.0","id":"`+id+`","result":`+tc.answer+`}`) {
				t.Fatal("the host's answer was left for the server")
			}
			if tc.sent {
				if got := <-w.server; !strings.Contains(got, `"id":5`) {
					t.Fatalf("the server got %s", got)
				}
				c.FromServer([]byte(`{"jsonrpc":"2.0","id":5,"result":{"content":[]}}`))
			}
			got := <-w.host
			if tc.sent == strings.Contains(got, "refused by policy") {
				t.Fatalf("the host got %s", got)
			}
			if !tc.sent && !strings.Contains(got, "declined by host user via elicitation (the host's user declined it)") {
				t.Errorf("the host got %s; want who declined and why", got)
			}
			trail.mu.Lock()
			defer trail.mu.Unlock()
			if len(trail.recs) != 1 || trail.recs[0] != tc.want {
				t.Errorf("audit records %q; want %q", trail.recs, tc.want)
			}
		})
	}
}

// TestApproveQueueAndProgress: a host that cannot be asked is told the
// call waits (it asked for progress) until a person approves it in the
// queue, as `mcpctl proxy approve` does from another terminal.
func TestApproveQueueAndProgress(t *testing.T) {
	g, trail, store := queueGovernor(t, time.Minute)
	w := newWire()
	c := g.Conn(w)
	ctx := context.Background()
	start(ctx, c, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"host","version":"1"}}}`)
	start(ctx, c, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"drop","arguments":{},"_meta":{"progressToken":"p1"}}}`)
	got := <-w.host
	if !strings.Contains(got, `"notifications/progress"`) || !strings.Contains(got, `"progressToken":"p1"`) || !strings.Contains(got, "waiting for approval of call") {
		t.Fatalf("the host got %s; want a progress notification", got)
	}
	held, err := store.List()
	if err != nil || len(held) != 1 {
		t.Fatalf("the queue holds %+v (%v)", held, err)
	}
	if _, err := store.Approve(held[0].ID, "alice"); err != nil {
		t.Fatal(err)
	}
	if got := <-w.server; !strings.Contains(got, `"id":5`) {
		t.Fatalf("the server got %s", got)
	}
	c.FromServer([]byte(`{"jsonrpc":"2.0","id":5,"result":{"content":[]}}`))
	for got := range w.host {
		if strings.Contains(got, `"id":5`) {
			break
		}
	}
	trail.mu.Lock()
	defer trail.mu.Unlock()
	if len(trail.recs) != 1 || trail.recs[0] != "drop approved by alice host=host 1" {
		t.Errorf("audit records %q", trail.recs)
	}
}

// TestApproveTimeout: a call no one decides is denied when the timeout
// ends, and the host reads so.
func TestApproveTimeout(t *testing.T) {
	g, _, _ := queueGovernor(t, 5*time.Millisecond)
	w := newWire()
	c := g.Conn(w)
	start(context.Background(), c, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"drop","arguments":{}}}`)
	got := <-w.host
	if !strings.Contains(got, "declined by timeout (no one approved it within 0.005 s)") {
		t.Fatalf("the host got %s; want the timeout's denial", got)
	}
}

// TestApproveInputRequired: in the 2026-07-28 era the host is answered
// with an input-required result; its retry with its user's yes goes to
// the server as first sent, and a retry with other arguments is refused.
func TestApproveInputRequired(t *testing.T) {
	g, trail, _ := queueGovernor(t, time.Minute)
	w := newWire()
	c := g.Conn(w)
	ctx := context.Background()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	start(ctx, c, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"drop","arguments":{"table":"users"},`+meta+`}}`)
	var first struct {
		ID     int
		Result struct {
			ResultType    string
			InputRequests map[string]json.RawMessage
			RequestState  string
		}
	}
	got := <-w.host
	if err := json.Unmarshal([]byte(got), &first); err != nil || first.ID != 1 || first.Result.ResultType != "input_required" || first.Result.InputRequests[approval.InputKey] == nil {
		t.Fatalf("the host got %s; want an input-required result", got)
	}
	state, _ := json.Marshal(first.Result.RequestState)
	answer := `"inputResponses":{"` + approval.InputKey + `":{"action":"accept","content":{"approve":true}}}`

	// Other arguments than those asked about get no approval.
	start(ctx, c, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"drop","arguments":{"table":"orders"},"requestState":`+string(state)+`,`+answer+`,`+meta+`}}`)
	if got := <-w.host; !strings.Contains(got, "changed the tool or its arguments") {
		t.Fatalf("the host got %s; want the changed retry refused", got)
	}

	start(ctx, c, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"drop","arguments":{"table":"users"},"requestState":`+string(state)+`,`+answer+`,`+meta+`}}`)
	sent := <-w.server
	if !strings.Contains(sent, `"id":3`) || strings.Contains(sent, "requestState") || strings.Contains(sent, "inputResponses") {
		t.Fatalf("the server got %s; want the call as first sent", sent)
	}
	c.FromServer([]byte(`{"jsonrpc":"2.0","id":3,"result":{"content":[],"resultType":"complete"}}`))
	<-w.host

	// The same answer cannot be used twice.
	start(ctx, c, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"drop","arguments":{"table":"users"},"requestState":`+string(state)+`,`+answer+`,`+meta+`}}`)
	if got := <-w.host; !strings.Contains(got, "did not ask about") {
		t.Fatalf("the host got %s; want a replayed answer refused", got)
	}
	trail.mu.Lock()
	defer trail.mu.Unlock()
	if n := len(trail.recs); n != 2 || trail.recs[1] != "drop approved by host user via elicitation host=" {
		t.Errorf("audit records %q", trail.recs)
	}
}

// TestApproveRefusesTwiceGivenMembers: a held call whose arguments give a
// member twice is refused, not held: the person asked would be shown one
// copy and a server may read the other.
func TestApproveRefusesTwiceGivenMembers(t *testing.T) {
	g, _, store := queueGovernor(t, time.Minute)
	w := newWire()
	c := g.Conn(w)
	start(context.Background(), c, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"drop","arguments":{"table":"users","table":"tmp"}}}`)
	got := <-w.host
	if !strings.Contains(got, `"id":5`) || !strings.Contains(got, `twice, and a server may read either copy`) {
		t.Fatalf("the host got %s; want a refusal saying a member is given twice", got)
	}
	if held, err := store.List(); err != nil || len(held) != 0 {
		t.Errorf("the queue holds %+v (%v); want nothing", held, err)
	}
}
