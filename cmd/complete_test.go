package cmd

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNewCmdCompleteFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    CompleteOptions
		wantErr string
	}{
		{name: "the last is completed", args: []string{"prompt", "summarize", "text=hi", "style=b", "--demo"},
			want: CompleteOptions{Kind: "prompt", Target: "summarize", Arg: "style", Value: "b", Context: map[string]string{"text": "hi"}}},
		{name: "an empty value wins", args: []string{"prompt", "p", "department=", "name=Al", "--demo"},
			want: CompleteOptions{Kind: "prompt", Target: "p", Arg: "department", Context: map[string]string{"name": "Al"}}},
		{name: "the last empty value", args: []string{"prompt", "p", "department=Engineering", "a=", "name=", "--demo"},
			want: CompleteOptions{Kind: "prompt", Target: "p", Arg: "name", Context: map[string]string{"department": "Engineering", "a": ""}}},
		{name: "--arg names it", args: []string{"prompt", "p", "department=Eng", "name=", "--arg", "department", "--demo"},
			want: CompleteOptions{Kind: "prompt", Target: "p", Arg: "department", Value: "Eng", Context: map[string]string{"name": ""}}},
		{name: "--arg not given", args: []string{"prompt", "p", "--arg", "name", "department=Eng", "--demo"},
			want: CompleteOptions{Kind: "prompt", Target: "p", Arg: "name", Context: map[string]string{"department": "Eng"}}},
		{name: "--arg alone", args: []string{"prompt", "p", "--arg", "name", "--demo"},
			want: CompleteOptions{Kind: "prompt", Target: "p", Arg: "name", Context: map[string]string{}}},
		{name: "given twice", args: []string{"prompt", "p", "a=1", "a=2", "--demo"}, wantErr: `argument "a" is given more than once`},
		{name: "empty partial", args: []string{"template", "demo://greeting/{name}", "name=", "--demo"},
			want: CompleteOptions{Kind: "template", Target: "demo://greeting/{name}", Arg: "name", Context: map[string]string{}}},
		{name: "value with =", args: []string{"prompt", "p", "q=a=b", "--demo"},
			want: CompleteOptions{Kind: "prompt", Target: "p", Arg: "q", Value: "a=b", Context: map[string]string{}}},
		{name: "too few", args: []string{"prompt", "summarize", "--demo"}, wantErr: "needs a kind, a name and arg=partial"},
		{name: "bad kind", args: []string{"tool", "echo", "message=", "--demo"}, wantErr: `unknown kind "tool"`},
		{name: "not key=value", args: []string{"prompt", "summarize", "style", "--demo"}, wantErr: `"style" is not key=value`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, _ := Test()
			var got *CompleteOptions
			cmd := NewCmdComplete(NewFactory(ios), func(o *CompleteOptions) error { got = o; return nil })
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
			got.Factory, got.Server, got.Output = nil, ServerOptions{}, OutputOptions{}
			if diff := cmp.Diff(tt.want, *got); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunDescribeAndComplete(t *testing.T) {
	tests := []struct {
		args     []string
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{[]string{"describe", "tool", "weather", "--demo"}, ExitOK, "days\tinteger (1..7)\t\t1\t\tNumber of days to forecast.\n", ""},
		{[]string{"describe", "tool", "wether", "--demo"}, ExitUsage, "", `no tool "wether"; close matches: weather`},
		{[]string{"describe", "prompt", "summ", "--demo"}, ExitUsage, "", "close matches: summarize"},
		{[]string{"describe", "tool"}, ExitUsage, "", "describe needs a kind and a name"},
		{[]string{"complete", "prompt", "review_code", "language=Py", "--demo"}, ExitOK, "Python\n", ""},
		{[]string{"complete", "template", "greeting", "name=Gr", "--demo"}, ExitOK, "Grace\n", ""},
		{[]string{"complete", "template", "nope", "name=", "--demo"}, ExitUsage, "", `no template "nope"`},
		{[]string{"list", "prompts", "-l", "--demo"}, ExitOK, "Arguments\ncode\tyes\tThe code to review.\n", ""},
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

// TestCompletePromptValues checks that shell completion of a prompt
// argument's value asks the server (completion/complete), with the other
// arguments as context.
func TestCompletePromptValues(t *testing.T) {
	e := newTestEnv(t)
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"prompt", "--demo", "review_code", "language="}, []string{"language=Go", "language=JavaScript", "language=Python", "language=Rust", "language=Shell", "language=TypeScript", ":4"}},
		{[]string{"prompt", "--demo", "summarize", "text=x", "style=b"}, []string{"style=brief", "style=bullets", ":4"}},
		{[]string{"prompt", "--demo", "summarize", "text="}, []string{":4"}},
		{[]string{"describe", "--demo", ""}, []string{"tool", "prompt", "resource", ":4"}},
		{[]string{"describe", "--demo", "prompt", ""}, []string{"review_code", "summarize", ":4"}},
		{[]string{"complete", "--demo", "template", ""}, []string{"demo://greeting/{name}", ":4"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			ios, _, _, _ := Test()
			if diff := cmp.Diff(tt.want, names(complete(t, e.factory(ios), tt.args...))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
