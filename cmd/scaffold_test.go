package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/scaffold"
)

// runScaffold runs mcpctl with args and returns the exit code, stdout and
// stderr.
func runScaffold(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ios, _, out, errOut := Test()
	f := NewFactory(ios)
	// MCPCTL_OUTPUT is the -o setting of other commands; it must not
	// become an --output property of scaffold tool.
	f.Environ = func() []string { return append(os.Environ(), "MCPCTL_OUTPUT=json") }
	code := runWith(context.Background(), f, args)
	return code, out.String(), errOut.String()
}

func TestScaffoldServerAndTool(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")

	code, out, errOut := runScaffold(t, "scaffold", "server", "demo", "--lang", "go", "--dir", dir)
	if code != ExitOK {
		t.Fatalf("scaffold server exited %d: %s", code, errOut)
	}
	if !strings.Contains(out, "created "+filepath.Join(dir, "go.mod")+"\n") {
		t.Errorf("stdout does not list go.mod:\n%s", out)
	}
	if !strings.Contains(errOut, "Next:\n  cd "+dir+"\n  go test ./...\n") {
		t.Errorf("stderr has no next steps:\n%s", errOut)
	}

	code, out, errOut = runScaffold(t, "scaffold", "tool", "weather-forecast", "--dir", dir,
		"--arg", "city:string:required:The city", "--output", "summary:string", "--read-only")
	if code != ExitOK {
		t.Fatalf("scaffold tool exited %d: %s", code, errOut)
	}
	want := "created " + filepath.Join(dir, "weather_forecast.go") + "\n" +
		"created " + filepath.Join(dir, "weather_forecast_test.go") + "\n" +
		"updated " + filepath.Join(dir, "tools_gen.go") + "\n" +
		"updated " + filepath.Join(dir, scaffold.ManifestFile) + "\n"
	if out != want {
		t.Errorf("scaffold tool printed (-want +got):\n%s", cmp.Diff(want, out))
	}
	if !strings.Contains(errOut, "cd "+dir+" && go test ./...") {
		t.Errorf("stderr has no next steps:\n%s", errOut)
	}

	schema := filepath.Join(t.TempDir(), "count.json")
	if err := os.WriteFile(schema, []byte(`{"type":"object","properties":{"n":{"type":"integer","minimum":1}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runScaffold(t, "scaffold", "tool", "count", "--dir", dir, "--from-schema", schema)
	if code != ExitOK || !strings.Contains(errOut, `property "n": ignoring minimum`) {
		t.Errorf("scaffold tool --from-schema = %d, stderr %q; want 0 and a warning about minimum", code, errOut)
	}
}

func TestScaffoldUsageErrors(t *testing.T) {
	project := t.TempDir()
	if code, _, errOut := runScaffold(t, "scaffold", "server", "demo", "--lang", "ts", "--dir", project); code != ExitOK {
		t.Fatalf("scaffold server exited %d: %s", code, errOut)
	}
	notProject := t.TempDir()
	schema := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(schema, []byte(`{"properties":{"a":{"type":"object"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"scaffold"}, "scaffold needs a subcommand: server or tool"},
		{[]string{"scaffold", "nope"}, `unknown command "nope"`},
		{[]string{"scaffold", "server"}, "scaffold server needs one name"},
		{[]string{"scaffold", "server", "demo"}, "--lang is required: go or ts"},
		{[]string{"scaffold", "server", "demo", "--lang", "py"}, `unknown language "py"`},
		{[]string{"scaffold", "server", "bad name", "--lang", "go"}, "MCP tool names use only"},
		{[]string{"scaffold", "server", "demo", "--lang", "ts", "--dir", project}, filepath.Join(project, ".gitignore") + " already exists (and 11 more of the files to write); nothing was written (--force overwrites)"},
		{[]string{"scaffold", "tool"}, "scaffold tool needs one name"},
		{[]string{"scaffold", "tool", "x", "--dir", notProject}, "is not a project made by mcpctl scaffold"},
		{[]string{"scaffold", "tool", "greet", "--dir", project}, `the project already has a tool "greet"`},
		{[]string{"scaffold", "tool", "x", "--dir", project, "--lang", "go"}, "is a TypeScript project"},
		{[]string{"scaffold", "tool", "x y", "--dir", project}, "invalid tool name"},
		{[]string{"scaffold", "tool", "x", "--dir", project, "--arg", "a"}, `invalid --arg "a" is not name:type`},
		{[]string{"scaffold", "tool", "x", "--dir", project, "--output", "a:date"}, `invalid --output "a:date": property "a" has type "date"`},
		{[]string{"scaffold", "tool", "x", "--dir", project, "--arg", "a:string", "--from-schema", schema}, "use --arg or --from-schema, not both"},
		{[]string{"scaffold", "tool", "x", "--dir", project, "--from-schema", schema}, `property "a" has type object`},
		{[]string{"scaffold", "tool", "x", "--dir", project, "--from-schema", filepath.Join(notProject, "missing.json")}, "reading --from-schema"},
	} {
		code, out, errOut := runScaffold(t, tc.args...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("mcpctl %q = %d, stderr %q; want exit 2 and %q", tc.args, code, errOut, tc.want)
		}
		if out != "" {
			t.Errorf("mcpctl %q printed %q on stdout", tc.args, out)
		}
	}
}

func TestScaffoldToolAnnotationFlags(t *testing.T) {
	yes, no := new(true), new(false)
	for _, tc := range []struct {
		flags []string
		want  scaffold.Annotations
	}{
		{nil, scaffold.Annotations{}},
		{[]string{"--read-only"}, scaffold.Annotations{ReadOnly: yes}},
		{[]string{"--destructive=false", "--idempotent", "--open-world"}, scaffold.Annotations{Destructive: no, Idempotent: yes, OpenWorld: yes}},
		{[]string{"--read-only=false", "--destructive"}, scaffold.Annotations{ReadOnly: no, Destructive: yes}},
	} {
		var got *ScaffoldToolOptions
		cmd := NewCmdScaffoldTool(NewFactory(nil), func(o *ScaffoldToolOptions) error { got = o; return nil })
		cmd.SetArgs(append([]string{"t"}, tc.flags...))
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%q: %v", tc.flags, err)
		}
		if diff := cmp.Diff(tc.want, got.Annotations); diff != "" {
			t.Errorf("%q: annotations (-want +got):\n%s", tc.flags, diff)
		}
	}
}

// TestScaffoldHelpExample keeps the example of `mcpctl scaffold --help`
// complete: from nothing to a listed and called tool, in both languages.
func TestScaffoldHelpExample(t *testing.T) {
	code, out, _ := runScaffold(t, "scaffold", "--help")
	if code != ExitOK {
		t.Fatalf("scaffold --help exited %d", code)
	}
	for _, want := range []string{
		"mcpctl scaffold server weather --lang go\n",
		"go test ./...\n",
		"go build -o weather . && mcpctl list -- ./weather\n",
		"mcpctl call forecast city=Paris days=2 -- ./weather\n",
		"mcpctl scaffold server weather-ts --lang ts\n",
		"npm install && npm test\n",
		"mcpctl call forecast city=Paris -- node dist/index.js\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("scaffold --help lacks %q", want)
		}
	}
}
