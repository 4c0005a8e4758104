package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMarkdownExamples checks what the examples runner takes from a
// Markdown document: sh and console command lines, continuations joined,
// comments and other languages skipped, and block marks.
func TestMarkdownExamples(t *testing.T) {
	doc := "intro\n" +
		"```sh\n# a comment\nmcpctl list --demo   # tools\nprintf 'a' |\n  mcpctl shell --demo\nmcpctl call --demo \\\n  add a=1 b=2\n```\n" +
		"```console\n$ mcpctl connect --demo\nServer: demo\n```\n" +
		"```yaml\nserver: x\n```\n" +
		"<!-- needs: a server started by hand -->\n```sh\n./srv &\n```\n" +
		"```sh\ncat > p.yaml <<'EOF'\nadd:\n  sensitivity: low\nEOF\nmcpctl list --demo\n```\n"
	got := markdownExamples("R.md", doc, 0)
	type ex struct {
		Source string
		Block  int
		Line   string
		Marked string
	}
	var gotEx []ex
	for _, e := range got {
		gotEx = append(gotEx, ex{e.source, e.block, e.line, e.marked})
	}
	want := []ex{
		{"R.md:4", 1, "mcpctl list --demo   # tools", ""},
		{"R.md:5", 1, "printf 'a' |   mcpctl shell --demo", ""},
		{"R.md:7", 1, "mcpctl call --demo    add a=1 b=2", ""},
		{"R.md:11", 2, "mcpctl connect --demo", ""},
		{"R.md:19", 4, "./srv &", "a server started by hand"},
		{"R.md:22", 5, "cat > p.yaml <<'EOF'\nadd:\n  sensitivity: low\nEOF", ""},
		{"R.md:26", 5, "mcpctl list --demo", ""},
	}
	if diff := cmp.Diff(want, gotEx); diff != "" {
		t.Errorf("examples (-want +got):\n%s", diff)
	}
}

// TestHelpSection checks that sections of cobra's help are read up to the
// next heading, blank lines inside them kept.
func TestHelpSection(t *testing.T) {
	help := "Long text.\n\nUsage:\n  mcpctl x\n\nExamples:\n  mcpctl x --demo\n\n  mcpctl x -o json --demo\n\nAvailable Commands:\n  a   A\n\nFlags:\n  -h\n"
	if diff := cmp.Diff([]string{"  mcpctl x --demo", "", "  mcpctl x -o json --demo", ""},
		helpSection(help, func(h string) bool { return h == "Examples:" })); diff != "" {
		t.Errorf("Examples (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"  a   A", ""},
		helpSection(help, func(h string) bool { return len(h) > 9 && h[len(h)-9:] == "Commands:" })); diff != "" {
		t.Errorf("Commands (-want +got):\n%s", diff)
	}
}

// TestExpectedExit checks the status a trailing comment announces.
func TestExpectedExit(t *testing.T) {
	for _, tc := range []struct {
		line string
		want int
	}{
		{"mcpctl validate --demo weather days=0   # /days: must be >= 1 (exit 5)", 5},
		{"mcpctl call --demo --batch -   # exit 2, the most severe", 2},
		{"mcpctl list --demo", -1},
		{"mcpctl call --demo echo message='exit 3'", -1},
	} {
		if got := expectedExit(tc.line); got != tc.want {
			t.Errorf("expectedExit(%q) = %d, want %d", tc.line, got, tc.want)
		}
	}
}
