package session

import (
	"context"
	"testing"

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
