package cmd

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/client"
)

func TestShellSplitWords(t *testing.T) {
	tests := []struct {
		line string
		want []string
		err  string
	}{
		{"", nil, ""},
		{"   ", nil, ""},
		{"# only a comment", nil, ""},
		{"call echo message=hi", []string{"call", "echo", "message=hi"}, ""},
		{"call echo message='hello world'", []string{"call", "echo", "message=hello world"}, ""},
		{`call echo message="say \"hi\" \\ \n"`, []string{"call", "echo", `message=say "hi" \ \n`}, ""},
		{`call echo message=a\ b`, []string{"call", "echo", "message=a b"}, ""},
		{"call echo message='' x", []string{"call", "echo", "message=", "x"}, ""},
		{"call x tags:='[\"a\",\"b\"]'", []string{"call", "x", `tags:=["a","b"]`}, ""},
		{"call echo message=a#b # comment", []string{"call", "echo", "message=a#b"}, ""},
		{"call\techo", []string{"call", "echo"}, ""},
		{"call echo message='open", nil, "unterminated '"},
		{`call echo message="open`, nil, `unterminated "`},
	}
	for _, tt := range tests {
		got, err := splitWords(tt.line)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("splitWords(%q) error = %v, want %q", tt.line, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("splitWords(%q): %v", tt.line, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("splitWords(%q) (-want +got):\n%s", tt.line, diff)
		}
	}
}

func TestShellKeepInHistory(t *testing.T) {
	tests := []struct {
		line string
		keep bool
	}{
		{"call echo message=hi", true},
		{"list tools", true},
		{"call login token=abc", false},
		{"call login api_key=abc", false},
		{"call login apiKey=abc", false},
		{"call login password:='\"x\"'", false},
		{"call login --args '{\"secret\":\"x\"}'", false},
		{"call fetch header='Bearer abc'", false},
		{"call auth_check user=ada", true}, // a tool's name is no secret
		{"call tokenize text=hi", true},    // "tokenize" is a tool, not a key
	}
	for _, tt := range tests {
		if got := keepInHistory(tt.line); got != tt.keep {
			t.Errorf("keepInHistory(%q) = %v, want %v", tt.line, got, tt.keep)
		}
	}
}

func TestShellComplete(t *testing.T) {
	sh := &shell{cache: &shellCache{
		tools: []client.Tool{
			{Name: "echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`)},
			{Name: "weather", InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"unit":{"enum":["celsius","fahrenheit","deg K"]},"days":{"type":"integer"},"verbose":{"type":"boolean"}}}`)},
			{Name: "web", InputSchema: json.RawMessage(`{"type":"object"}`)},
		},
		prompts:   []client.Prompt{{Name: "summarize", Arguments: []client.PromptArgument{{Name: "text"}, {Name: "style"}}}},
		resources: []client.Resource{{URI: "demo://readme"}, {URI: "demo://logo.png"}},
	}}
	tests := []struct {
		line      string
		wantStart int
		want      []string
	}{
		{"ca", 0, []string{"call"}},
		{"", 0, nil}, // every command: checked below
		{"call w", 5, []string{"weather", "web"}},
		{"call weather ", 13, []string{"city=", "days=", "unit=", "verbose="}},
		{"call weather city=Paris ", 24, []string{"days=", "unit=", "verbose="}},
		{"call weather unit=", 13, []string{"unit='deg K'", "unit=celsius", "unit=fahrenheit"}},
		{"call weather unit=c", 13, []string{"unit=celsius"}},
		{"call weather verbose=", 13, []string{"verbose=false", "verbose=true"}},
		{"call nosuch ", 12, nil},
		{"prompt s", 7, []string{"summarize"}},
		{"prompt summarize text=hi ", 25, []string{"style="}},
		{"read demo://r", 5, []string{"demo://readme"}},
		{"subscribe ", 10, []string{"demo://logo.png", "demo://readme"}},
		{"list t", 5, []string{"templates", "tools"}},
		{"tasks c", 6, []string{"cancel"}},
		{"help w", 5, []string{"wait"}},
		{"call echo message='hi ", 0, nil},
	}
	for _, tt := range tests {
		start, got := sh.complete([]rune(tt.line), len([]rune(tt.line)))
		if tt.line == "" {
			if len(got) < 8 {
				t.Errorf("complete(\"\") = %q, want every command", got)
			}
			continue
		}
		if tt.want != nil && start != tt.wantStart {
			t.Errorf("complete(%q) start = %d, want %d", tt.line, start, tt.wantStart)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("complete(%q) (-want +got):\n%s", tt.line, diff)
		}
	}
}
