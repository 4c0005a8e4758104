package cmd

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/audit"
)

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
			rec, prepare, err := f.auditTrail(&tt.o)
			if (prepare != nil) != tt.lazy {
				t.Fatalf("auditTrail prepare = %v, want a lazy one: %v", prepare != nil, tt.lazy)
			}
			if err == nil && prepare != nil {
				err = prepare()
			}
			switch {
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("auditTrail error = %v, want %q", err, tt.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			case (rec == nil) != tt.wantNil:
				t.Fatalf("auditTrail = %v, want nil: %v", rec != nil, tt.wantNil)
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
