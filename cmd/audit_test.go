package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
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

// The recorder works through the guard with no policy (check nil) and
// with a policy that refuses (no outcome): a line for each attempt, and
// the chain verifies.
func TestAuditRecorderThroughGuard(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	ios, _, _, _ := Test()
	f := NewFactory(ios)
	f.Environ = func() []string { return []string{"AUDIT_KEY=k"} }
	rec, _, err := f.auditRecorder(&ServerOptions{Audit: path, AuditKey: "env:AUDIT_KEY"})
	if err != nil || rec == nil {
		t.Fatalf("auditRecorder: nil %v, %v", rec == nil, err)
	}
	refused := errors.New("refused by policy: rate_limit")
	guards := []*guard{
		{record: rec},
		{record: rec, check: func(context.Context, *guardRequest) (guardDecision, error) {
			return guardDecision{By: "refused: rate_limit", Rule: "*"}, refused
		}},
		{record: rec, check: func(context.Context, *guardRequest) (guardDecision, error) {
			return guardDecision{Allowed: true, By: "--approve", Rule: "add"}, nil
		}},
	}
	sent := 0
	for _, g := range guards {
		s := &session{guard: g, name: "srv"}
		err := s.guarded(context.Background(), &guardRequest{Method: "tools/call", Name: "add", Args: json.RawMessage(`{"a":1}`), Server: "srv"},
			func(context.Context) (json.RawMessage, bool, error) {
				sent++
				return json.RawMessage(`{"content":[]}`), false, nil
			})
		if g.check != nil && !errors.Is(err, refused) && err != nil {
			t.Fatalf("guarded: %v", err)
		}
	}
	if sent != 2 {
		t.Errorf("sent %d requests, want 2 (the refused one not)", sent)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := audit.Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, len(entries))
	for i, e := range entries {
		got[i] = auditDecision(e) + " / " + auditOutcome(e)
	}
	want := []string{"allowed / ok", "refused: rate_limit (*) / not sent", "--approve (add) / ok"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if n, err := audit.Verify(bytes.NewReader(data), []byte("k")); err != nil || n != 3 {
		t.Errorf("Verify = %d, %v", n, err)
	}
}

func TestAuditRecorderOptions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name    string
		o       ServerOptions
		wantNil bool // no hooks at all
		lazy    bool // the setting is read on the first request
		wantErr string
	}{
		{name: "none", lazy: true},
		{name: "off", o: ServerOptions{Audit: "off"}, wantNil: true},
		{name: "key without a trail", o: ServerOptions{AuditKey: "env:K"}, lazy: true, wantErr: "--audit-key needs an audit trail"},
		{name: "unset key", o: ServerOptions{Audit: filepath.Join(dir, "a.jsonl"), AuditKey: "env:NOPE"}, wantErr: "--audit-key: key environment variable NOPE is not set"},
		{name: "no such directory", o: ServerOptions{Audit: filepath.Join(dir, "no", "a.jsonl")}, wantErr: "opening the audit file"},
		{name: "a trail", o: ServerOptions{Audit: filepath.Join(dir, "a.jsonl")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, _ := Test()
			f := NewFactory(ios)
			f.Environ = func() []string { return nil }
			rec, prepare, err := f.auditRecorder(&tt.o)
			if (prepare != nil) != tt.lazy {
				t.Fatalf("auditRecorder prepare = %v, want a lazy one: %v", prepare != nil, tt.lazy)
			}
			if err == nil && prepare != nil {
				err = prepare()
			}
			switch {
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("auditRecorder error = %v, want %q", err, tt.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			case (rec == nil) != tt.wantNil:
				t.Fatalf("auditRecorder = %v, want nil: %v", rec != nil, tt.wantNil)
			}
		})
	}
}

func TestSettingPath(t *testing.T) {
	t.Parallel()
	home := "/home/u"
	tests := []struct{ file, source, want string }{
		{"trail.jsonl", "/etc/mcpctl/config.yaml", "/etc/mcpctl/trail.jsonl"},
		{"logs/trail.jsonl", "/home/u/.config/mcpctl/config.yaml", "/home/u/.config/mcpctl/logs/trail.jsonl"},
		{"/var/log/trail.jsonl", "/etc/mcpctl/config.yaml", "/var/log/trail.jsonl"},
		{"trail.jsonl", "MCPCTL_AUDIT", "trail.jsonl"},
		{"~/trail.jsonl", "MCPCTL_AUDIT", filepath.Join(home, "trail.jsonl")},
		{"~/trail.jsonl", "/etc/mcpctl/config.yaml", filepath.Join(home, "trail.jsonl")},
	}
	for _, tt := range tests {
		got, err := settingPath(tt.file, tt.source, "MCPCTL_AUDIT", home)
		if err != nil || got != tt.want {
			t.Errorf("settingPath(%q, %q) = %q, %v; want %q", tt.file, tt.source, got, err, tt.want)
		}
	}
	if _, err := settingPath("~/trail.jsonl", "MCPCTL_AUDIT", "MCPCTL_AUDIT", ""); err == nil || !strings.Contains(err.Error(), "HOME is not set") {
		t.Errorf("settingPath with no home: %v; want an error saying HOME is not set", err)
	}
}
