package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/lint"
	"github.com/mcpctl/mcpctl/render"
)

func TestNewCmdValidateFlags(t *testing.T) {
	text := OutputOptions{Format: "text"}
	tests := []struct {
		name    string
		args    []string
		want    ValidateOptions
		wantErr string
	}{
		{name: "lint", args: []string{"--demo"}, want: ValidateOptions{Server: ServerOptions{Demo: true}, Output: text}},
		{name: "lint strict", args: []string{"--strict", "--", "srv", "-x"}, want: ValidateOptions{Server: ServerOptions{Strict: true, Command: []string{"srv", "-x"}}, Output: text}},
		{name: "tool", args: []string{"--demo", "weather", "city=Paris", "days:=2"}, want: ValidateOptions{Tool: "weather", Args: []string{"city=Paris", "days:=2"}, Server: ServerOptions{Demo: true}, Output: text}},
		{name: "tool with --args", args: []string{"weather", "--args", `{"city": "x"}`, "--demo", "-o", "json"}, want: ValidateOptions{Tool: "weather", Args: []string{}, ArgsJSON: `{"city": "x"}`, Server: ServerOptions{Demo: true}, Output: OutputOptions{Format: "json"}}},
		{name: "schema file", args: []string{"--schema", "s.json", "days=1"}, want: ValidateOptions{SchemaFile: "s.json", Args: []string{"days=1"}, Output: text}},
		{name: "schema with a server", args: []string{"--schema", "s.json", "--demo"}, wantErr: "--schema checks arguments against a local schema file, without a server"},
		{name: "schema with --url", args: []string{"--schema", "s.json", "--url", "http://127.0.0.1:1/mcp"}, wantErr: "drop -s, --url, --demo"},
		{name: "schema with -s", args: []string{"--schema", "s.json", "-s", "everything"}, wantErr: "without a server"},
		{name: "schema with a server command", args: []string{"--schema", "s.json", "--", "srv"}, wantErr: "without a server"},
		{name: "args without a tool", args: []string{"--demo", "--args", "{}"}, wantErr: "--args needs a tool or --schema"},
		{name: "bad output", args: []string{"--demo", "-o", "xml"}, wantErr: `invalid --output "xml"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, _ := Test()
			var got *ValidateOptions
			cmd := NewCmdValidate(NewFactory(ios), func(o *ValidateOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SetOut(ios.Out)
			cmd.SetErr(ios.ErrOut)
			err := cmd.ExecuteContext(context.Background())
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
				}
				if code := exitCode(err, false); code != ExitUsage {
					t.Errorf("exit code %d, want %d", code, ExitUsage)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got.Factory = nil
			got.Server.Timeout, got.Server.ProtocolVersion, got.Server.Transport, got.Server.Era = 0, "", "", ""
			got.Output.JSON = false
			if diff := cmp.Diff(tt.want, *got); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateRun(t *testing.T) {
	dir := t.TempDir()
	schemaFile := filepath.Join(dir, "days.json")
	if err := os.WriteFile(schemaFile, []byte(`{"type": "object", "properties": {"days": {"type": "integer", "minimum": 1}}, "required": ["days"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	badSchema := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(badSchema, []byte(`{"type": "objet"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args     []string
		wantCode int
		wantOut  string // exact
		wantErr  string // substring
	}{
		{[]string{"validate", "--demo", "weather", "city=Paris", "days=3"}, ExitOK, "", "arguments are valid\n"},
		{[]string{"validate", "--demo", "weather", "city=Paris", "days=0"}, ExitValidation, "/days: must be >= 1, got 0\n",
			`error: the arguments do not match the inputSchema of tool "weather" (1 problem)`},
		{[]string{"validate", "--demo", "weather", "days=9", "colour=red"}, ExitValidation,
			"/: additional property \"colour\" is not allowed\n/city: required property is missing\n/days: must be <= 7, got 9\n", "(3 problems)"},
		{[]string{"validate", "--demo", "weather", "--args", `{"city": "Paris", "days": 0}`, "days=2"}, ExitOK, "", "arguments are valid"},
		{[]string{"validate", "--demo", "weather", "city=Paris", "days=0", "-o", "json"}, ExitValidation,
			"{\n  \"valid\": false,\n  \"violations\": [\n    {\n      \"path\": \"/days\",\n      \"keyword\": \"minimum\",\n      \"message\": \"must be >= 1, got 0\"\n    }\n  ]\n}\n", ""},
		{[]string{"validate", "--demo", "weather", "city=Paris", "--json"}, ExitOK, "{\n  \"valid\": true,\n  \"violations\": []\n}\n", ""},
		{[]string{"validate", "--demo", "wether", "city=Paris"}, ExitUsage, "", `the server has no tool "wether"; did you mean "weather"?`},
		{[]string{"validate", "--demo", "weather", "days=x"}, ExitValidation, "/city: required property is missing\n/days: \"x\" is not an integer\n", `(2 problems)`},
		{[]string{"validate", "--demo"}, ExitOK, "", "0 errors, 0 warnings\n"},
		{[]string{"validate", "--demo", "--strict", "-o", "json"}, ExitOK, "{\n  \"findings\": [],\n  \"errors\": 0,\n  \"warnings\": 0\n}\n", "0 errors, 0 warnings"},
		{[]string{"validate", "--schema", schemaFile, "days=2"}, ExitOK, "", "arguments are valid"},
		{[]string{"validate", "--schema", schemaFile}, ExitValidation, "/days: required property is missing\n", "do not match the schema in " + schemaFile},
		{[]string{"validate", "--schema", badSchema, "days=2"}, ExitUsage, "", "--schema " + badSchema + ": invalid schema: /type"},
		{[]string{"validate", "--schema", filepath.Join(dir, "none.json")}, ExitUsage, "", "no such file"},
		{[]string{"validate"}, ExitUsage, "", "no server given"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			ios, _, out, errOut := Test()
			code := run(context.Background(), ios, tt.args)
			if code != tt.wantCode {
				t.Errorf("exit code %d, want %d (stderr: %s)", code, tt.wantCode, errOut)
			}
			if out.String() != tt.wantOut {
				t.Errorf("stdout:\n%s\nwant:\n%s", out, tt.wantOut)
			}
			if !strings.Contains(errOut.String(), tt.wantErr) {
				t.Errorf("stderr %q does not contain %q", errOut, tt.wantErr)
			}
		})
	}
}

func TestPrintFindings(t *testing.T) {
	findings := []lint.Finding{
		{RuleID: "tool-name-invalid", Severity: lint.SeverityError, Subject: `tool "a b"`, Message: "has a space", SpecRef: "docs/x.mdx#y"},
		{RuleID: "description-missing", Severity: lint.SeverityWarning, Subject: `tool "c"`, Message: "no description", SpecRef: "docs/z.mdx"},
	}
	var plain bytes.Buffer
	if err := printFindings(&render.Printer{Out: &plain}, findings); err != nil {
		t.Fatal(err)
	}
	wantPlain := "error\ttool-name-invalid\ttool \"a b\"\thas a space\tdocs/x.mdx#y\n" +
		"warning\tdescription-missing\ttool \"c\"\tno description\tdocs/z.mdx\n"
	if diff := cmp.Diff(wantPlain, plain.String()); diff != "" {
		t.Errorf("piped (-want +got):\n%s", diff)
	}
	var tty bytes.Buffer
	if err := printFindings(&render.Printer{Out: &tty, TTY: true, Width: 100}, findings); err != nil {
		t.Fatal(err)
	}
	wantTTY := "" +
		"SEVERITY  RULE                 SUBJECT     MESSAGE\n" +
		"error     tool-name-invalid    tool \"a b\"  has a space [1]\n" +
		"warning   description-missing  tool \"c\"    no description [2]\n" +
		"\n" +
		"[1] docs/x.mdx#y\n" +
		"[2] docs/z.mdx\n"
	if diff := cmp.Diff(wantTTY, tty.String()); diff != "" {
		t.Errorf("terminal (-want +got):\n%s", diff)
	}
	var empty, emptyErr bytes.Buffer
	if err := printFindings(&render.Printer{Out: &empty, ErrOut: &emptyErr, TTY: true}, nil); err != nil {
		t.Fatal(err)
	}
	if empty.String() != "" || emptyErr.String() != "No findings.\n" {
		t.Errorf("no findings on a terminal: stdout %q, stderr %q", empty.String(), emptyErr.String())
	}
}
