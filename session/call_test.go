package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/audit"
	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/internal/demo"
	"github.com/mcpctl/mcpctl/policy"
	"github.com/mcpctl/mcpctl/transport"
)

// demoSession opens a session to the in-process demo server with stages.
func demoSession(t *testing.T, st Stages) *Session {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	tr := transport.Func(func(context.Context) (transport.Connection, error) {
		c, s := transport.NewPipe()
		go func() { _ = demo.Serve(ctx, s) }()
		return c, nil
	})
	s, err := Connect(ctx, Config{Name: "demo", Transport: tr, Stages: st,
		Client: client.Options{ClientInfo: client.Implementation{Name: "session-test", Version: "0"}, ProtocolVersion: "2025-11-25"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// A host's raw tools/call, which the session did not build, passes
// through the same stages as a command's: the policy refuses it unsent,
// or lets it through, and the audit trail records both.
func TestCallFromAHostIsGoverned(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	w, err := audit.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	refuse := policyFunc(func(_ context.Context, c *Call) (Decision, error) {
		if c.Name == "add" {
			return Decision{By: "refused: requires_approval", Rule: "add"}, &policy.Refusal{Tool: c.Name, Rule: "requires_approval", Entry: "add", Reason: "not approved"}
		}
		return Decision{Allowed: true, By: "policy"}, nil
	})
	s := demoSession(t, Stages{Policy: refuse, Recorder: &Trail{W: w}})
	ctx := context.Background()

	_, err = s.Call(ctx, "tools/call", json.RawMessage(`{"name":"add","arguments":{"a":2,"b":3}}`))
	if !policy.IsRefusal(err) {
		t.Fatalf("refused call: err = %v, want a policy refusal", err)
	}
	raw, err := s.Call(ctx, "tools/call", json.RawMessage(`{"name":"echo","arguments":{"message":"hi"},"_meta":{"progressToken":"p1"}}`))
	if err != nil {
		t.Fatalf("allowed call: %v", err)
	}
	if !strings.Contains(string(raw), `"hi"`) {
		t.Errorf("allowed call's result %s lacks the echo", raw)
	}
	// Methods no policy governs go out as they are.
	if _, err := s.Call(ctx, "tools/list", nil); err != nil {
		t.Fatalf("tools/list: %v", err)
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := audit.Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Fatalf("audit holds %d records, want 2 (the refused call and the sent one)", len(entries))
	}
	if e := entries[0]; e.Name != "add" || e.Sent || e.Decision.Allowed {
		t.Errorf("first record %+v, want add refused and not sent", e)
	}
	if e := entries[1]; e.Name != "echo" || !e.Sent || e.Result == "" {
		t.Errorf("second record %+v, want echo sent with its result's digest", e)
	}
}

// A host's call with params that name no tool is refused before any stage.
func TestCallFromAHostNeedsATool(t *testing.T) {
	t.Parallel()
	s := demoSession(t, Stages{})
	_, err := s.Call(context.Background(), "tools/call", json.RawMessage(`{"arguments":{}}`))
	if err == nil || errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want one naming the missing tool name", err)
	}
}
