package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/audit"
	"github.com/mcpctl/mcpctl/client"
)

func TestAuditEntry(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	tool := &client.Tool{Name: "login", InputSchema: json.RawMessage(`{"type":"object","properties":{"password":{"type":"string","writeOnly":true}}}`)}
	req := &Call{Method: "tools/call", Name: "login", Args: json.RawMessage(`{"user":"ada","password":"pw","query":"q"}`), Tool: tool, Server: "srv", Signed: true}
	tests := []struct {
		name string
		req  *Call
		d    Decision
		out  *Outcome
		want audit.Entry
	}{
		{
			name: "no policy, sent",
			req:  req,
			d:    Decision{Allowed: true},
			out:  &Outcome{Result: json.RawMessage(`{}`), Duration: 1500 * time.Microsecond},
			want: audit.Entry{Time: now.Add(-1500 * time.Microsecond), Server: "srv", Method: "tools/call", Name: "login",
				Args: json.RawMessage(`{"password":"****","query":"q","user":"ada"}`), Decision: audit.Decision{Allowed: true},
				Signed: true, Sent: true, Result: audit.Digest([]byte(`{}`)), DurationMS: 1.5},
		},
		{
			name: "refused by policy, not sent, policy masks",
			req:  req,
			d:    Decision{By: "refused: rate_limit", Rule: "log*", Sensitivity: "high", Mask: []string{"query"}},
			want: audit.Entry{Time: now, Server: "srv", Method: "tools/call", Name: "login",
				Args:     json.RawMessage(`{"password":"****","query":"****","user":"ada"}`),
				Decision: audit.Decision{By: "refused: rate_limit", Rule: "log*", Sensitivity: "high"}, Signed: true},
		},
		{
			name: "JSON-RPC error",
			req:  &Call{Method: "prompts/get", Name: "p", Server: "srv"},
			d:    Decision{Allowed: true, By: "--approve"},
			out:  &Outcome{Err: &client.RPCError{Code: -32602, Message: "unknown prompt"}},
			want: audit.Entry{Time: now, Server: "srv", Method: "prompts/get", Name: "p", Decision: audit.Decision{Allowed: true, By: "--approve"},
				Sent: true, Error: &audit.Error{Code: -32602, Message: "unknown prompt"}},
		},
		{
			name: "other error, tool error",
			req:  &Call{Method: "tools/call", Name: "t", Args: json.RawMessage(`{"a":1}`)},
			d:    Decision{Allowed: true},
			out:  &Outcome{Err: errors.New("connection lost"), IsError: true},
			want: audit.Entry{Time: now, Method: "tools/call", Name: "t", Args: json.RawMessage(`{"a":1}`), Decision: audit.Decision{Allowed: true},
				Sent: true, IsError: true, Error: &audit.Error{Message: "connection lost"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := AuditEntry(tt.req, tt.d, tt.out, now)
			if diff := cmp.Diff(tt.want, *got); diff != "" {
				t.Errorf("AuditEntry (-want +got):\n%s", diff)
			}
		})
	}
}

// policyFunc adapts a function to [Policy].
type policyFunc func(ctx context.Context, c *Call) (Decision, error)

func (f policyFunc) Decide(ctx context.Context, c *Call) (Decision, error) { return f(ctx, c) }

// The audit stage records every attempt through the pipeline: with no
// policy, with a policy that refuses (nothing sent, no outcome) and one
// that allows; the chain verifies.
func TestPipelineAudit(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	w, err := audit.Open(path, []byte("k"))
	if err != nil {
		t.Fatal(err)
	}
	trail := &Trail{W: w}
	refused := errors.New("refused by policy: rate_limit")
	policies := []Policy{
		nil,
		policyFunc(func(context.Context, *Call) (Decision, error) {
			return Decision{By: "refused: rate_limit", Rule: "*"}, refused
		}),
		policyFunc(func(context.Context, *Call) (Decision, error) {
			return Decision{Allowed: true, By: "--approve", Rule: "add"}, nil
		}),
	}
	sentCount := 0
	for _, pol := range policies {
		p := &pipeline{st: Stages{Policy: pol, Recorder: trail}}
		err := p.run(context.Background(), &Call{Method: "tools/call", Name: "add", Args: json.RawMessage(`{"a":1}`), Server: "srv"},
			func(context.Context, signFunc) (sent, error) {
				sentCount++
				return sent{raw: json.RawMessage(`{"content":[]}`)}, nil
			})
		if pol != nil && err != nil && !errors.Is(err, refused) {
			t.Fatalf("run: %v", err)
		}
	}
	if sentCount != 2 {
		t.Errorf("sent %d requests, want 2 (the refused one not)", sentCount)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := audit.Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Decision.By+"/"+map[bool]string{true: "sent", false: "not sent"}[e.Sent])
	}
	want := []string{"/sent", "refused: rate_limit/not sent", "--approve/sent"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	if n, err := audit.Verify(bytes.NewReader(data), []byte("k")); err != nil || n != 3 {
		t.Errorf("Verify = %d, %v", n, err)
	}
}

// failingRecorder loses every record.
type failingRecorder struct{}

func (failingRecorder) Record(*Call, Decision, *Outcome) error {
	return errors.New("no space left on device")
}

// A record that cannot be written fails the request after it was sent,
// with its result kept.
func TestPipelineAuditFailure(t *testing.T) {
	t.Parallel()
	p := &pipeline{st: Stages{Recorder: failingRecorder{}}}
	res := &client.CallToolResult{Raw: json.RawMessage(`{"content":[]}`)}
	err := p.run(context.Background(), &Call{Method: "tools/call", Name: "add"}, func(context.Context, signFunc) (sent, error) {
		return sent{raw: res.Raw, tool: res}, nil
	})
	var ae *AuditError
	if !errors.As(err, &ae) || ae.Name != "add" {
		t.Fatalf("run = %v, want an *AuditError naming add", err)
	}
}
