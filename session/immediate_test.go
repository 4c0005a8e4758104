package session

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/mcpctl/mcpctl/audit"
	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/policy"
)

// TestPolicyGateImmediate: once the policy is read, a call is immediate
// when its rule needs no approval (or is approved in advance), sets no
// rate limit and requires no scope the credential lacks; and Decide then
// allows it.
func TestPolicyGateImmediate(t *testing.T) {
	p, err := policy.Parse([]byte("echo: {sensitivity: low}\ndb: {requires_approval: true}\nok_db: {requires_approval: true}\nlimited: {rate_limit: 5}\nscoped: {required_scopes: [db:read]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	g := &PolicyGate{Load: func() (*policy.Policy, error) { return p, nil }, Approve: []string{"ok_*"}}
	call := func(tool string, id *Identity) *Call { return &Call{Method: "tools/call", Name: tool, Identity: id} }
	if g.Immediate(call("echo", nil)) {
		t.Fatal("immediate before the policy is read")
	}
	if _, err := g.Policy(); err != nil {
		t.Fatal(err)
	}
	reader := &Identity{Scopes: []string{"db:read"}, From: "token"}
	for _, tc := range []struct {
		c    *Call
		want bool
	}{
		{call("echo", nil), true},
		{call("other", nil), true},
		{call("ok_db", nil), true},
		{call("db", nil), false},
		{call("limited", nil), false},
		{call("scoped", reader), true},
		{call("scoped", &Identity{From: "token"}), false},
		{call("scoped", nil), false}, // the connection's scopes are not read yet
		{&Call{Method: "resources/read", Name: "file:///x"}, true},
	} {
		if got := g.Immediate(tc.c); got != tc.want {
			t.Errorf("Immediate(%s) = %v, want %v", tc.c.Name, got, tc.want)
		}
		if !tc.want {
			continue
		}
		if d, err := g.Decide(context.Background(), tc.c); err != nil || !d.Allowed {
			t.Errorf("Decide(%s) = %+v, %v after Immediate said yes", tc.c.Name, d, err)
		}
	}
}

// readsVerifier is a verifier that accepts every result.
type readsVerifier struct{}

func (readsVerifier) VerifyResult(string, json.RawMessage, string) error { return nil }

// TestPipelineReadsResult: the stages after the send read a tools/call
// result only to verify it, to record it, or to check it against the
// tool's outputSchema; a trail whose setting named no file records
// nothing once prepared, and counts as recording before.
func TestPipelineReadsResult(t *testing.T) {
	w, err := audit.Open(filepath.Join(t.TempDir(), "audit.jsonl"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	plain := &Call{Method: "tools/call", Name: "echo", Tool: &client.Tool{Name: "echo"}}
	typed := &Call{Method: "tools/call", Name: "sum", Tool: &client.Tool{Name: "sum", OutputSchema: json.RawMessage(`{"type":"object"}`)}}
	unlisted := &Call{Method: "tools/call", Name: "echo"}
	for _, tc := range []struct {
		name string
		st   Stages
		c    *Call
		want bool
	}{
		{"no stages", Stages{}, plain, false},
		{"outputs, no outputSchema", Stages{Outputs: &OutputChecks{}}, plain, false},
		{"outputs, tool not listed", Stages{Outputs: &OutputChecks{}}, unlisted, false},
		{"outputs, outputSchema", Stages{Outputs: &OutputChecks{}}, typed, true},
		{"verifier", Stages{Verifier: readsVerifier{}}, plain, true},
		{"trail with a file", Stages{Recorder: &Trail{W: w}}, plain, true},
		{"trail without a file", Stages{Recorder: &Trail{}}, plain, false},
		{"trail not prepared", Stages{Recorder: &Trail{}, Prepare: func() error { return nil }}, plain, true},
	} {
		if got := NewPipeline(tc.st).ReadsResult(tc.c); got != tc.want {
			t.Errorf("%s: ReadsResult = %v, want %v", tc.name, got, tc.want)
		}
	}
	p := NewPipeline(Stages{Recorder: &Trail{}, Prepare: func() error { return nil }})
	if err := p.p.ready(); err != nil {
		t.Fatal(err)
	}
	if p.ReadsResult(plain) {
		t.Error("a prepared trail without a file reads the result")
	}
}
