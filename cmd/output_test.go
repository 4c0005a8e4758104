package cmd

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestOutputValidate(t *testing.T) {
	tests := []struct {
		in      OutputOptions
		want    string
		wantErr string
	}{
		{in: OutputOptions{Format: "text"}, want: "text"},
		{in: OutputOptions{Format: "yaml"}, want: "yaml"},
		{in: OutputOptions{Format: "yaml", JSON: true}, want: "json"},
		{in: OutputOptions{Format: "text", JQ: ".a"}, want: "json"},
		{in: OutputOptions{Format: "yaml", JQ: ".a"}, want: "yaml"},
		{in: OutputOptions{Format: "xml"}, wantErr: `invalid --output "xml": expected text, json or yaml`},
		{in: OutputOptions{Format: "text", JQ: ".tools["}, wantErr: `invalid --jq expression ".tools[": unexpected EOF`},
		{in: OutputOptions{Format: "text", JQ: "nosuchfunc(1)"}, wantErr: `invalid --jq expression "nosuchfunc(1)": function not defined: nosuchfunc/1`},
	}
	for _, tt := range tests {
		o := tt.in
		err := o.validate()
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || exitCode(err, false) != ExitUsage {
				t.Errorf("%+v: error %v, want a usage error containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || o.Format != tt.want {
			t.Errorf("%+v: format %q, error %v; want %q", tt.in, o.Format, err, tt.want)
		}
	}
}

func TestOutputWrite(t *testing.T) {
	doc := json.RawMessage(`{"zeta": 1, "alpha": {"big": 12345678901234567890, "f": 1.5, "s": "true", "n": null, "multi": "a\nb"},
		"tools": [{"name": "add"}, {"name": "echo"}], "empty": {}, "none": []}`)
	tests := []struct {
		name    string
		o       OutputOptions
		want    string
		wantErr string
	}{
		{name: "jq strings raw", o: OutputOptions{Format: "json", JQ: ".tools[].name"}, want: "add\necho\n"},
		{name: "jq numbers exact", o: OutputOptions{Format: "json", JQ: ".alpha.big, .zeta"}, want: "12345678901234567890\n1\n"},
		{name: "jq objects as JSON", o: OutputOptions{Format: "json", JQ: ".tools[0]"}, want: "{\n  \"name\": \"add\"\n}\n"},
		{name: "jq string that looks like a bool", o: OutputOptions{Format: "json", JQ: ".alpha.s"}, want: "true\n"},
		{name: "jq nothing", o: OutputOptions{Format: "json", JQ: "empty"}, want: ""},
		{name: "jq then yaml", o: OutputOptions{Format: "yaml", JQ: ".tools"}, want: "- name: add\n- name: echo\n"},
		{name: "jq runtime error", o: OutputOptions{Format: "json", JQ: ".zeta[]"}, wantErr: "--jq .zeta[]: cannot iterate over: number (1)"},
		{
			name: "yaml keeps key order",
			o:    OutputOptions{Format: "yaml"},
			want: `zeta: 1
alpha:
  big: 12345678901234567890
  f: 1.5
  s: "true"
  n: null
  multi: |-
    a
    b
tools:
  - name: add
  - name: echo
empty: {}
none: []
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, out, _ := Test()
			err := tt.o.write(ios.Printer(), doc)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, out.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestOutputWriteStructs(t *testing.T) {
	ios, _, out, _ := Test()
	o := OutputOptions{Format: "yaml"}
	if err := o.write(ios.Printer(), argsReport{Valid: false, Violations: nil}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "valid: false\nviolations: null\n" {
		t.Errorf("got %q", out)
	}
}

func TestJQExitStatus(t *testing.T) {
	doc := json.RawMessage(`{"sum": 5, "ok": true, "off": false, "n": null, "list": [true, false]}`)
	tests := []struct {
		jq       string
		exit     bool
		wantCode int
		wantOut  string
	}{
		{jq: ".sum == 5", exit: true, wantCode: ExitOK, wantOut: "true\n"},
		{jq: ".sum == 4", exit: true, wantCode: ExitError, wantOut: "false\n"},
		{jq: ".sum == 4", exit: false, wantCode: ExitOK, wantOut: "false\n"},
		{jq: ".n", exit: true, wantCode: ExitError, wantOut: "null\n"},
		{jq: ".sum", exit: true, wantCode: ExitOK, wantOut: "5\n"},
		{jq: "empty", exit: true, wantCode: ExitError, wantOut: ""},
		{jq: ".list[]", exit: true, wantCode: ExitError, wantOut: "true\nfalse\n"},        // the last output counts
		{jq: ".list | reverse[]", exit: true, wantCode: ExitOK, wantOut: "false\ntrue\n"}, // the last output counts
		{jq: `"s"`, exit: true, wantCode: ExitOK, wantOut: "s\n"},
	}
	for _, tt := range tests {
		ios, _, out, _ := Test()
		o := OutputOptions{Format: "text", JQ: tt.jq, ExitStatus: tt.exit}
		if err := o.validate(); err != nil {
			t.Fatalf("%s: validate: %v", tt.jq, err)
		}
		err := o.write(ios.Printer(), doc)
		if got := exitCode(err, false); got != tt.wantCode || out.String() != tt.wantOut {
			t.Errorf("--jq %q exit-status=%v: exit %d (%v), output %q; want %d, %q", tt.jq, tt.exit, got, err, out.String(), tt.wantCode, tt.wantOut)
		}
	}
	o := OutputOptions{Format: "json", ExitStatus: true}
	if err := o.validate(); exitCode(err, false) != ExitUsage {
		t.Errorf("--exit-status without --jq: %v, want a usage error", err)
	}
}
