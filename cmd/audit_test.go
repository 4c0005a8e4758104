package cmd

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/audit"
	"github.com/mcpctl/mcpctl/client"
)

func TestAuditEntry(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	tool := &client.Tool{Name: "login", InputSchema: json.RawMessage(`{"type":"object","properties":{"password":{"type":"string","writeOnly":true}}}`)}
	req := &guardRequest{Method: "tools/call", Name: "login", Args: json.RawMessage(`{"user":"ada","password":"pw","query":"q"}`), Tool: tool, Server: "srv", Signed: true}
	tests := []struct {
		name string
		req  *guardRequest
		d    guardDecision
		out  *guardOutcome
		want audit.Entry
	}{
		{
			name: "no policy, sent",
			req:  req,
			d:    guardDecision{Allowed: true},
			out:  &guardOutcome{Result: json.RawMessage(`{}`), Duration: 1500 * time.Microsecond},
			want: audit.Entry{Time: now.Add(-1500 * time.Microsecond), Server: "srv", Method: "tools/call", Name: "login",
				Args: json.RawMessage(`{"password":"****","query":"q","user":"ada"}`), Decision: audit.Decision{Allowed: true},
				Signed: true, Sent: true, Result: audit.Digest([]byte(`{}`)), DurationMS: 1.5},
		},
		{
			name: "refused by policy, not sent, policy masks",
			req:  req,
			d:    guardDecision{By: "refused: rate_limit", Rule: "log*", Sensitivity: "high", Mask: []string{"query"}},
			want: audit.Entry{Time: now, Server: "srv", Method: "tools/call", Name: "login",
				Args:     json.RawMessage(`{"password":"****","query":"****","user":"ada"}`),
				Decision: audit.Decision{By: "refused: rate_limit", Rule: "log*", Sensitivity: "high"}, Signed: true},
		},
		{
			name: "JSON-RPC error",
			req:  &guardRequest{Method: "prompts/get", Name: "p", Server: "srv"},
			d:    guardDecision{Allowed: true, By: "--approve"},
			out:  &guardOutcome{Err: &client.RPCError{Code: -32602, Message: "unknown prompt"}},
			want: audit.Entry{Time: now, Server: "srv", Method: "prompts/get", Name: "p", Decision: audit.Decision{Allowed: true, By: "--approve"},
				Sent: true, Error: &audit.Error{Code: -32602, Message: "unknown prompt"}},
		},
		{
			name: "other error, tool error",
			req:  &guardRequest{Method: "tools/call", Name: "t", Args: json.RawMessage(`{"a":1}`)},
			d:    guardDecision{Allowed: true},
			out:  &guardOutcome{Err: errors.New("connection lost"), IsError: true},
			want: audit.Entry{Time: now, Method: "tools/call", Name: "t", Args: json.RawMessage(`{"a":1}`), Decision: audit.Decision{Allowed: true},
				Sent: true, IsError: true, Error: &audit.Error{Message: "connection lost"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := auditEntry(tt.req, tt.d, tt.out, now)
			if diff := cmp.Diff(tt.want, *got); diff != "" {
				t.Errorf("auditEntry (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAuditColumns(t *testing.T) {
	tests := []struct {
		e                 audit.Entry
		decision, outcome string
		duration          string
	}{
		{audit.Entry{Decision: audit.Decision{Allowed: true}, Sent: true, DurationMS: 12.4}, "allowed", "ok", "12ms"},
		{audit.Entry{Decision: audit.Decision{By: "refused: rate_limit", Rule: "db_*"}}, "refused: rate_limit (db_*)", "not sent", ""},
		{audit.Entry{}, "refused", "not sent", ""},
		{audit.Entry{Decision: audit.Decision{Allowed: true, By: "tty-approved"}, Sent: true, IsError: true, DurationMS: 2345}, "tty-approved", "isError", "2.35s"},
		{audit.Entry{Decision: audit.Decision{Allowed: true}, Sent: true, Error: &audit.Error{Code: -32602, Message: "bad"}}, "allowed", "error -32602: bad", "0ms"},
		{audit.Entry{Decision: audit.Decision{Allowed: true}, Sent: true, Error: &audit.Error{Message: "timeout"}}, "allowed", "error: timeout", "0ms"},
	}
	for _, tt := range tests {
		if got := auditDecision(tt.e); got != tt.decision {
			t.Errorf("auditDecision(%+v) = %q, want %q", tt.e, got, tt.decision)
		}
		if got := auditOutcome(tt.e); got != tt.outcome {
			t.Errorf("auditOutcome(%+v) = %q, want %q", tt.e, got, tt.outcome)
		}
		if got := auditDuration(tt.e); got != tt.duration {
			t.Errorf("auditDuration(%+v) = %q, want %q", tt.e, got, tt.duration)
		}
	}
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in      string
		want    time.Time
		wantErr bool
	}{
		{"1h", now.Add(-time.Hour), false},
		{"90m", now.Add(-90 * time.Minute), false},
		{"2026-11-23T10:00:00Z", time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC), false},
		{"2026-11-23", time.Date(2026, 11, 23, 0, 0, 0, 0, time.Local), false},
		{"yesterday", time.Time{}, true},
	}
	for _, tt := range tests {
		got, err := parseSince(tt.in, now)
		if (err != nil) != tt.wantErr || !got.Equal(tt.want) {
			t.Errorf("parseSince(%q) = %v, %v; want %v (error %v)", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}
