package cmd

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// complete runs cobra's hidden __complete command, as the shell scripts do,
// and returns its lines (completions, then ":directive").
func complete(t *testing.T, f *Factory, args ...string) []string {
	t.Helper()
	code := execute(f, append([]string{"__complete"}, args...)...)
	if code != 0 {
		t.Fatalf("__complete %q: exit %d", args, code)
	}
	return strings.Split(strings.TrimSpace(f.IOStreams.Out.(interface{ String() string }).String()), "\n")
}

// names keeps the completions before their descriptions.
func names(lines []string) []string {
	var out []string
	for _, l := range lines {
		name, _, _ := strings.Cut(l, "\t")
		out = append(out, name)
	}
	return out
}

func TestCompleteToolsAndKeys(t *testing.T) {
	e := newTestEnv(t)
	schema := e.write(t, "schema.json", `{"type": "object", "properties": {"days": {"type": "integer"}, "city": {"type": "string"}}, "required": ["city"]}`)
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"call", "--demo", ""}, []string{"add", "audio", "count_words", "echo", "embedded", "fail", "image", "random_number", "resource_link", "sleep", "upper", "weather", ":4"}},
		{[]string{"call", "--demo", "e"}, []string{"echo", "embedded", ":4"}},
		{[]string{"validate", "--demo", "we"}, []string{"weather", ":4"}},
		// Keys: no space after "key=" (2) and no files (4).
		{[]string{"call", "--demo", "weather", ""}, []string{"city=", "days=", ":6"}},
		{[]string{"call", "--demo", "weather", "city=Paris", ""}, []string{"days=", ":6"}},
		{[]string{"call", "--demo", "weather", "days:=3", "c"}, []string{"city=", ":6"}},
		{[]string{"call", "--demo", "weather", "city="}, []string{":4"}},
		{[]string{"call", "--demo", "nosuchtool", ""}, []string{":4"}},
		{[]string{"validate", "--schema", schema, ""}, []string{"city=", "days=", ":6"}},
		{[]string{"prompt", "--demo", ""}, []string{"review_code", "summarize", ":4"}},
		{[]string{"prompt", "--demo", "summarize", ""}, []string{"text=", "style=", ":6"}},
		{[]string{"read", "--demo", ""}, []string{"demo://logo.png", "demo://readme", ":4"}},
		// No server: nothing, and no file names either.
		{[]string{"call", ""}, []string{":4"}},
		{[]string{"call", "-s", "nope", ""}, []string{":4"}},
		// After --, the server's command line: files.
		{[]string{"call", "--", "srv", ""}, []string{":0"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			ios, _, _, _ := Test()
			if diff := cmp.Diff(tt.want, names(complete(t, e.factory(ios), tt.args...))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	ios, _, _, _ := Test()
	lines := complete(t, e.factory(ios), "call", "--demo", "weather", "")
	if lines[0] != "city=\tstring, required: Name of the city." {
		t.Errorf("description: %q", lines[0])
	}
}

func TestCompleteServerNames(t *testing.T) {
	e := newTestEnv(t)
	e.write(t, "~/.cursor/mcp.json", `{"mcpServers": {"alpha": {"command": "a"}, "beta": {"url": "http://u:p@h/mcp"}}}`)
	e.write(t, ".mcp.json", `{"mcpServers": {"alpha": {"command": "project-a"}}}`)
	ios, _, _, _ := Test()
	got := complete(t, e.factory(ios), "list", "-s", "")
	// The user's own alpha wins over the project's.
	want := []string{"alpha\tcursor: a", "beta\tcursor: http://****@h/mcp", ":4"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	ios, _, _, _ = Test()
	if diff := cmp.Diff([]string{"beta", ":4"}, names(complete(t, e.factory(ios), "servers", "show", "b"))); diff != "" {
		t.Errorf("servers show (-want +got):\n%s", diff)
	}
	ios, _, _, _ = Test()
	if diff := cmp.Diff([]string{"text", "json", "yaml", ":4"}, names(complete(t, e.factory(ios), "list", "-o", ""))); diff != "" {
		t.Errorf("-o (-want +got):\n%s", diff)
	}
}

func TestCompletionScripts(t *testing.T) {
	for shell, marker := range map[string]string{
		"bash":       "__start_mcpctl",
		"zsh":        "#compdef mcpctl",
		"fish":       "complete -c mcpctl",
		"powershell": "Register-ArgumentCompleter",
	} {
		ios, _, out, errOut := Test()
		if code := execute(NewFactory(ios), "completion", shell); code != 0 || !strings.Contains(out.String(), marker) {
			t.Errorf("completion %s: exit %d, stderr %s, no %q in output", shell, code, errOut, marker)
		}
	}
	ios, _, _, errOut := Test()
	if code := execute(NewFactory(ios), "completion", "tcsh"); code != ExitUsage {
		t.Errorf("completion tcsh: exit %d, %s", code, errOut)
	}
}
