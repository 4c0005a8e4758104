package cmd

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestParseSeconds(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		wantErr bool
	}{
		{"5", 5 * time.Second, false},
		{"0.5", 500 * time.Millisecond, false},
		{"30s", 30 * time.Second, false},
		{"2m", 2 * time.Minute, false},
		{"1m30s", 90 * time.Second, false},
		{"500ms", 500 * time.Millisecond, false},
		{" 7 ", 7 * time.Second, false},
		{"5x", 0, true},
		{"", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseSeconds(tt.in)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("parseSeconds(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestServerCommandHint(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"list", "npx", "-y", "pkg"}, "put -- before the server command: mcpctl list -- npx -y pkg"},
		{[]string{"call", "echo", "message=hi", "uvx", "srv"}, "put -- before the server command: mcpctl call echo message=hi -- uvx srv"},
		{[]string{"list", "--", "npx", "-y", "pkg"}, ""},
		{[]string{"list", "-e", "node", "--demo"}, ""}, // -e's value
		{[]string{"list", "tools"}, ""},
		{[]string{"npx"}, ""}, // the command itself
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			if got := serverCommandHint(tt.args); got != tt.want {
				t.Errorf("serverCommandHint = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestUsageSuggestions runs whole command lines: the error each prints and
// the exit code.
func TestUsageSuggestions(t *testing.T) {
	tests := []struct {
		args []string
		want string
		code int
	}{
		{[]string{"lsit"}, `unknown command "lsit" for "mcpctl"; did you mean "list"?`, ExitUsage},
		{[]string{"lsit", "--demo"}, `unknown command "lsit" for "mcpctl"; did you mean "list"?`, ExitUsage},
		{[]string{"auth", "logn"}, `unknown command "logn" for "mcpctl auth"; did you mean "login"?`, ExitUsage},
		{[]string{"auth", "zzz"}, `unknown command "zzz" for "mcpctl auth"; its commands are: login, logout, status, token`, ExitUsage},
		{[]string{"list", "--demo", "--timout", "5"}, "unknown flag: --timout; did you mean --timeout?", ExitUsage},
		{[]string{"servers", "list", "--confg", "x"}, "did you mean --config?", ExitUsage},
		{[]string{"completion"}, "completion needs a shell: bash, zsh, fish, powershell", ExitUsage},
		{[]string{"completion", "zhs"}, `did you mean "zsh"?`, ExitUsage},
		{[]string{"version", "--color", "maybe"}, `invalid --color "maybe"`, ExitUsage},
		{[]string{"list", "--demo", "--json", "-o", "yaml"}, "--json and -o yaml ask for different output", ExitUsage},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			ios, _, _, errOut := Test()
			code := run(context.Background(), ios, tt.args)
			if code != tt.code || !strings.Contains(errOut.String(), tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errOut.String(), tt.code, tt.want)
			}
		})
	}
}

// TestHelpTopics runs `mcpctl help TOPIC`: a topic that names no command is
// one error line and exit 2, with nothing on stdout; a known one is its help.
func TestHelpTopics(t *testing.T) {
	tests := []struct {
		args []string
		code int
		err  string // the whole of stderr, for an unknown topic
		out  string // a line of stdout, for a known one
	}{
		{args: []string{"help", "lsit"}, code: ExitUsage, err: `error: unknown help topic "lsit"; did you mean "list"?` + "\n"},
		{args: []string{"help", "servers", "ad"}, code: ExitUsage, err: `error: unknown help topic "servers ad"; did you mean "servers add"?` + "\n"},
		{args: []string{"help", "auth", "logn"}, code: ExitUsage, err: `error: unknown help topic "auth logn"; did you mean "auth login"?` + "\n"},
		{args: []string{"help", "zzzzzz"}, code: ExitUsage, err: `error: unknown help topic "zzzzzz"; the commands of "mcpctl" are: audit, auth, bench, call,`},
		{args: []string{"help", "auth", "zzzzzz"}, code: ExitUsage, err: `error: unknown help topic "auth zzzzzz"; the commands of "mcpctl auth" are: login, logout, status, token` + "\n"},
		{args: []string{"help"}, code: ExitOK, out: "Commands:"},
		{args: []string{"help", "list"}, code: ExitOK, out: "mcpctl list"},
		{args: []string{"help", "servers", "add"}, code: ExitOK, out: "mcpctl servers add"},
		{args: []string{"help", "help"}, code: ExitOK, out: "mcpctl help"},
		// Words after a command without subcommands are that command's business.
		{args: []string{"help", "call", "add"}, code: ExitOK, out: "mcpctl call"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			ios, _, out, errOut := Test()
			code := run(context.Background(), ios, tt.args)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, tt.code, errOut)
			}
			if tt.code != ExitOK {
				if out.Len() != 0 || !strings.HasPrefix(errOut.String(), tt.err) || strings.Count(errOut.String(), "\n") != 1 {
					t.Errorf("stdout %q, stderr %q; want no stdout and the one line %q", out, errOut, tt.err)
				}
				return
			}
			if !strings.Contains(out.String(), tt.out) || errOut.Len() != 0 {
				t.Errorf("stdout %q, stderr %q; want %q on stdout", out, errOut, tt.out)
			}
		})
	}
}

func TestVerboseEverywhere(t *testing.T) {
	for _, args := range [][]string{{"version", "-v"}, {"servers", "list", "-v"}, {"completion", "bash", "-v"}} {
		ios, _, out, errOut := Test()
		if code := run(context.Background(), ios, args); code != ExitOK {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
		if strings.HasPrefix(out.String(), "mcpctl version") {
			t.Errorf("%v: -v printed the version", args)
		}
	}
}

func TestVersionInfoText(t *testing.T) {
	v := VersionInfo{Version: "v1.2.3", Commit: "0123456789abcdef", Date: "2026-11-23T10:00:00Z", Modified: true, GoVersion: "go1.25.0", Platform: "linux/amd64"}
	want := "mcpctl v1.2.3 (commit 0123456789ab, 2026-11-23T10:00:00Z, modified), go1.25.0 linux/amd64"
	if got := v.text(); got != want {
		t.Errorf("text() = %q, want %q", got, want)
	}
	if got := (VersionInfo{Version: "dev", GoVersion: "go1.25.0", Platform: "linux/amd64"}).text(); got != "mcpctl dev, go1.25.0 linux/amd64" {
		t.Errorf("text() without vcs = %q", got)
	}
	if bv := buildVersion(); bv.GoVersion == "" || bv.Platform == "" || bv.Version == "" {
		t.Errorf("buildVersion() = %+v: missing fields", bv)
	}
}
