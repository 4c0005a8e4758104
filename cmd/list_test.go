package cmd

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNewCmdListFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    ListOptions
		wantErr string
	}{
		{name: "default kind", args: []string{"--demo"}, want: ListOptions{Kind: "tools", Server: ServerOptions{Demo: true}, Output: OutputOptions{Format: "text"}}},
		{name: "all as json", args: []string{"all", "--demo", "--json"}, want: ListOptions{Kind: "all", Server: ServerOptions{Demo: true}, Output: OutputOptions{Format: "json", JSON: true}}},
		{name: "stdio command", args: []string{"prompts", "-e", "A=1", "--", "srv", "--port", "1"}, want: ListOptions{Kind: "prompts", Server: ServerOptions{Command: []string{"srv", "--port", "1"}, Env: []string{"A=1"}}, Output: OutputOptions{Format: "text"}}},
		{name: "long", args: []string{"-l", "--demo"}, want: ListOptions{Kind: "tools", Long: true, Server: ServerOptions{Demo: true}, Output: OutputOptions{Format: "text"}}},
		{name: "bad kind", args: []string{"widgets", "--demo"}, wantErr: `unknown kind "widgets"`},
		{name: "two kinds", args: []string{"tools", "prompts", "--demo"}, wantErr: "at most one kind"},
		{name: "bad output", args: []string{"-o", "xml", "--demo"}, wantErr: `invalid --output "xml"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, _ := Test()
			var got *ListOptions
			cmd := NewCmdList(NewFactory(ios), func(o *ListOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SetOut(ios.Out)
			cmd.SetErr(ios.ErrOut)
			err := cmd.ExecuteContext(context.Background())
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// Server defaults come from flags; compare what the test sets.
			got.Factory = nil
			got.Server.Timeout, got.Server.ProtocolVersion, got.Server.Transport, got.Server.Era = 0, "", "", ""
			if diff := cmp.Diff(tt.want, *got); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunDemo(t *testing.T) {
	tests := []struct {
		args     []string
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{[]string{"call", "--demo", "add", "a=2", "b=3"}, ExitOK, "5\n", ""},
		{[]string{"call", "--demo", "fail", "reason=no"}, ExitToolError, "no\n", `tool "fail" reported an error`},
		{[]string{"call", "--demo"}, ExitUsage, "", "call needs the name of a tool"},
		{[]string{"read", "--demo", "demo://greeting/Ada"}, ExitOK, "Ada", ""},
		{[]string{"list", "--bogus"}, ExitUsage, "", "unknown flag: --bogus"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			ios, _, out, errOut := Test()
			code := run(context.Background(), ios, tt.args)
			if code != tt.wantCode {
				t.Errorf("exit code %d, want %d (stderr: %s)", code, tt.wantCode, errOut)
			}
			if !strings.Contains(out.String(), tt.wantOut) {
				t.Errorf("stdout %q does not contain %q", out, tt.wantOut)
			}
			if !strings.Contains(errOut.String(), tt.wantErr) {
				t.Errorf("stderr %q does not contain %q", errOut, tt.wantErr)
			}
		})
	}
}
