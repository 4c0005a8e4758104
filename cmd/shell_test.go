package cmd

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/shell"
)

// TestShellCompleter checks the completion of the mcpctl commands' arguments
// in the shell; the shell keeps the candidates that start with the word.
func TestShellCompleter(t *testing.T) {
	cat := &shell.Catalog{
		Tools: []client.Tool{
			{Name: "echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`)},
			{Name: "weather", InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"unit":{"enum":["celsius","fahrenheit","deg K"]},"days":{"type":"integer"},"verbose":{"type":"boolean"}}}`)},
			{Name: "web", InputSchema: json.RawMessage(`{"type":"object"}`)},
		},
		Prompts:   []client.Prompt{{Name: "summarize", Arguments: []client.PromptArgument{{Name: "text"}, {Name: "style"}}}},
		Resources: []client.Resource{{URI: "demo://readme"}, {URI: "demo://logo.png"}},
		Templates: []client.ResourceTemplate{{URITemplate: "demo://{name}"}},
	}
	tests := []struct {
		line string
		want []string
	}{
		{"call w", []string{"weather", "web"}},
		{"call weather ", []string{"city=", "days=", "unit=", "verbose="}},
		{"call weather city=Paris ", []string{"days=", "unit=", "verbose="}},
		{"call weather unit=", []string{"unit='deg K'", "unit=celsius", "unit=fahrenheit"}},
		{"call weather unit=c", []string{"unit=celsius"}},
		{"call weather verbose=", []string{"verbose=false", "verbose=true"}},
		{"call nosuch ", nil},
		{"prompt s", []string{"summarize"}},
		{"prompt summarize text=hi ", []string{"style="}},
		{"read demo://r", []string{"demo://readme"}},
		{"list t", []string{"templates", "tools"}},
		{"tasks c", []string{"cancel"}},
		{"describe ", []string{"prompt", "resource", "tool"}},
		{"describe tool e", []string{"echo"}},
		{"complete template ", []string{"demo://{name}"}},
		{"complete prompt summarize s", []string{"style="}},
	}
	for _, tt := range tests {
		i := strings.LastIndex(tt.line, " ")
		before, word := strings.Fields(tt.line[:i]), tt.line[i+1:]
		var got []string
		for _, c := range (shellCompleter{}).CompleteArgs(cat, before, word) {
			if strings.HasPrefix(c, word) {
				got = append(got, c)
			}
		}
		slices.Sort(got)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("CompleteArgs for %q (-want +got):\n%s", tt.line, diff)
		}
	}
}

// TestShellCLICommands checks that the shell runs the mcpctl commands it
// documents, each one that mcpctl has.
func TestShellCLICommands(t *testing.T) {
	var names []string
	for _, c := range shellCLICommands() {
		names = append(names, c.Name)
		if c.Usage == "" || !strings.HasPrefix(c.Usage, c.Name) {
			t.Errorf("command %s: usage %q", c.Name, c.Usage)
		}
	}
	for _, want := range []string{"list", "call", "read", "prompt", "tasks"} {
		if !slices.Contains(names, want) {
			t.Errorf("the shell does not run %s (it runs %q)", want, names)
		}
	}
}
