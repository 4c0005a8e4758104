package shell

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/client"
)

// argsCompleter offers fixed words for any command's arguments and
// records what it was asked.
type argsCompleter struct {
	words  []string
	before []string
	word   string
}

func (c *argsCompleter) CompleteArgs(_ *Catalog, before []string, word string) []string {
	c.before, c.word = before, word
	return c.words
}

func TestComplete(t *testing.T) {
	comp := &argsCompleter{words: []string{"weather", "web", "echo", "web"}}
	sh := &shell{
		opts:    Options{Commands: []Command{{Name: "call", Usage: "call TOOL"}, {Name: "list", Usage: "list"}}, Completer: comp},
		catalog: &catalog{cur: &Catalog{Resources: []client.Resource{{URI: "demo://readme"}, {URI: "demo://logo.png"}}}},
	}
	tests := []struct {
		line      string
		wantStart int
		want      []string
	}{
		{"ca", 0, []string{"call"}},
		{"", 0, []string{"call", "exit", "help", "list", "roots", "subscribe", "unsubscribe", "wait"}},
		{"call w", 5, []string{"weather", "web"}}, // sorted, once each
		{"  call  e", 8, []string{"echo"}},
		{"subscribe ", 10, []string{"demo://logo.png", "demo://readme"}},
		{"subscribe demo://r", 10, []string{"demo://readme"}},
		{"help w", 5, []string{"wait"}},
		{"help wait ", 10, nil},
		{"wait ", 5, nil},
		{"bogus ", 6, nil},
		{"call echo message='hi ", 0, nil},
		{"é call w", 0, nil},                        // not a command
		{"call é w", 7, []string{"weather", "web"}}, // rune offsets
	}
	for _, tt := range tests {
		start, got := sh.complete([]rune(tt.line), len([]rune(tt.line)))
		if tt.want != nil && start != tt.wantStart {
			t.Errorf("complete(%q) start = %d, want %d", tt.line, start, tt.wantStart)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("complete(%q) (-want +got):\n%s", tt.line, diff)
		}
	}
	sh.complete([]rune("call echo mes"), len("call echo mes"))
	if diff := cmp.Diff([]string{"call", "echo"}, comp.before); diff != "" || comp.word != "mes" {
		t.Errorf("the completer was asked for %q after (-want +got):\n%s", comp.word, diff)
	}
}
