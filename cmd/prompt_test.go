package cmd

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/client"
)

func TestCheckPromptArgs(t *testing.T) {
	p := &client.Prompt{Name: "summarize", Arguments: []client.PromptArgument{{Name: "text", Required: true}, {Name: "style"}}}
	none := &client.Prompt{Name: "hello"}
	tests := []struct {
		name   string
		prompt *client.Prompt
		args   map[string]string
		allow  bool     // --allow-unknown
		want   []string // lines of the error after the headline; nil: no error
	}{
		{name: "all there", prompt: p, args: map[string]string{"text": "hi"}},
		{name: "optional too", prompt: p, args: map[string]string{"text": "hi", "style": "short"}},
		{name: "missing", prompt: p, args: map[string]string{}, want: []string{"/text: required argument is missing"}},
		{name: "misspelt", prompt: p, args: map[string]string{"txt": "hi"}, want: []string{
			"/text: required argument is missing",
			`/txt: unknown argument; did you mean "text"?`,
		}},
		{name: "unknown", prompt: p, args: map[string]string{"text": "a", "zzz": "b"}, want: []string{"/zzz: unknown argument (its arguments are: text, style)"}},
		{name: "none taken", prompt: none, args: map[string]string{"x": "1"}, want: []string{"/x: unknown argument (the prompt takes none)"}},
		{name: "unknown allowed", prompt: p, allow: true, args: map[string]string{"text": "a", "zzz": "b"}},
		{name: "allowed, still required", prompt: p, allow: true, args: map[string]string{"txt": "a"}, want: []string{"/text: required argument is missing"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkPromptArgs(tt.prompt, tt.args, tt.allow)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var ce *ExitCodeError
			if !errors.As(err, &ce) || ce.Code != ExitValidation {
				t.Fatalf("error %v, want exit %d", err, ExitValidation)
			}
			lines := strings.Split(ce.Msg, "\n")[1:]
			for i := range lines {
				lines[i] = strings.TrimSpace(lines[i])
			}
			if strings.Join(lines, "|") != strings.Join(tt.want, "|") {
				t.Errorf("violations %q, want %q", lines, tt.want)
			}
		})
	}
}

func TestUnknownPromptError(t *testing.T) {
	prompts := []client.Prompt{{Name: "summarize"}, {Name: "review_code"}}
	err := unknownPromptError("summarise", prompts, "mcpctl list prompts")
	if exitCode(err, false) != ExitUsage || !strings.Contains(err.Error(), `did you mean "summarize"?`) {
		t.Errorf("got %v (exit %d), want a usage error suggesting summarize", err, exitCode(err, false))
	}
	err = unknownPromptError("zzz", prompts, "mcpctl list prompts")
	if !strings.Contains(err.Error(), "its prompts are: review_code, summarize") {
		t.Errorf("got %v, want the prompts listed", err)
	}
}

func TestArgumentsCheckFormat(t *testing.T) {
	tool := &client.Tool{Name: "gz", InputSchema: []byte(`{"type":"object","properties":{"data":{"type":"string","format":"uri"},"n":{"type":"integer"}}}`)}
	tests := []struct {
		name     string
		strict   bool
		args     map[string]any
		wantExit int
		wantWarn bool
	}{
		{name: "format mismatch warns", args: map[string]any{"data": "README.md"}, wantWarn: true},
		{name: "strict refuses it", strict: true, args: map[string]any{"data": "README.md"}, wantExit: ExitValidation},
		{name: "other violations still fail", args: map[string]any{"data": "README.md", "n": "x"}, wantExit: ExitValidation, wantWarn: true},
		{name: "valid", args: map[string]any{"data": "file:///README.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, errOut := Test()
			err := argumentsCheck(NewFactory(ios), tool, tt.strict, false)(tt.args, nil)
			if got := exitCode(err, false); got != tt.wantExit {
				t.Errorf("exit %d (%v), want %d", got, err, tt.wantExit)
			}
			if warned := strings.Contains(errOut.String(), "format is an annotation"); warned != tt.wantWarn {
				t.Errorf("stderr %q: warned %v, want %v", errOut, warned, tt.wantWarn)
			}
		})
	}
}
