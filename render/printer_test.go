package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFields(t *testing.T) {
	fields := [][2]string{
		{"Server", "everything 2.0.0"},
		{"Protocol", "2025-06-18"},
		{"Capabilities", "tools, resources,\r\nprompts\n\nlogging"},
		{"Empty", ""},
		{"日本", "wide label"},
	}
	want := "" +
		"Server:       everything 2.0.0\n" +
		"Protocol:     2025-06-18\n" +
		"Capabilities: tools, resources,\n" +
		"              prompts\n" +
		"\n" +
		"              logging\n" +
		"Empty:\n" +
		"日本:         wide label\n"
	for _, tty := range []bool{false, true} {
		var out bytes.Buffer
		p := &Printer{Out: &out, TTY: tty}
		if err := p.Fields(fields); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, out.String()); diff != "" {
			t.Errorf("tty=%v (-want +got):\n%s", tty, diff)
		}
	}

	var out bytes.Buffer
	p := &Printer{Out: &out, TTY: true, Color: true}
	if err := p.Fields([][2]string{{"A", "b"}}); err != nil {
		t.Fatal(err)
	}
	if want := "\x1b[1mA:\x1b[0m b\n"; out.String() != want {
		t.Errorf("coloured Fields = %q, want %q", out.String(), want)
	}
}

func TestStderrLines(t *testing.T) {
	tests := []struct {
		name     string
		errColor bool
		want     string
	}{
		{name: "plain", want: "warning: disk almost full\nerror: it broke\n"},
		{
			name:     "colour",
			errColor: true,
			want:     "\x1b[1;33mwarning:\x1b[0m disk almost full\n\x1b[1;31merror:\x1b[0m it broke\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			// Colour on Out must not leak to ErrOut, and the reverse.
			p := &Printer{Out: &out, ErrOut: &errOut, Color: !tt.errColor, ErrColor: tt.errColor}
			p.Warning("disk almost full")
			_, _ = errOut.WriteString(ErrorLine("it broke\n", p.ErrColor) + "\n")
			if diff := cmp.Diff(tt.want, errOut.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if out.Len() != 0 {
				t.Errorf("stdout = %q", out.String())
			}
			gotFuncs := Warning("disk almost full", tt.errColor) + "\n" + ErrorLine("it broke", tt.errColor) + "\n"
			if gotFuncs != tt.want {
				t.Errorf("Warning+ErrorLine = %q, want %q", gotFuncs, tt.want)
			}
		})
	}
}

func TestDimAndHeading(t *testing.T) {
	if got := Dim("server log", false); got != "server log" {
		t.Errorf("Dim without colour = %q", got)
	}
	if got := Dim("server log", true); got != faintOn+"server log"+styleOff {
		t.Errorf("Dim with colour = %q", got)
	}
	if got := (&Printer{TTY: true}).Heading("Tools"); got != "Tools" {
		t.Errorf("Heading without colour = %q", got)
	}
	if got := (&Printer{TTY: true, Color: true}).Heading("Tools"); got != "\x1b[1mTools"+styleOff {
		t.Errorf("Heading with colour = %q", got)
	}
}

func TestNilWriters(t *testing.T) {
	p := &Printer{TTY: true, Color: true, ErrColor: true, Width: 10}
	p.Warning("w")
	if err := p.Table([]string{"A"}, nil, "none"); err != nil {
		t.Fatal(err)
	}
	if err := p.JSON(1); err != nil {
		t.Fatal(err)
	}
}

func TestFieldsWrapOnTerminal(t *testing.T) {
	fields := [][2]string{{"Server", "demo"}, {"Capabilities", "tools (listChanged), resources (subscribe, listChanged), prompts, logging"}}
	tests := []struct {
		name string
		p    Printer
		want string
	}{
		{"terminal wraps at words under the value", Printer{TTY: true, Width: 50}, "" +
			"Server:       demo\n" +
			"Capabilities: tools (listChanged), resources\n" +
			"              (subscribe, listChanged), prompts,\n" +
			"              logging\n"},
		{"piped stays whole", Printer{Width: 50}, "" +
			"Server:       demo\n" +
			"Capabilities: tools (listChanged), resources (subscribe, listChanged), prompts, logging\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			p := tt.p
			p.Out = &out
			if err := p.Fields(fields); err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", out.String(), tt.want)
			}
		})
	}
}

func TestWrap(t *testing.T) {
	text := "Use the tools below.\n  - weather gives a forecast for any city you name\nshort"
	p := &Printer{TTY: true, Width: 24}
	want := "Use the tools below.\n  - weather gives a\n  forecast for any city\n  you name\nshort"
	if got := p.Wrap(text); got != want {
		t.Errorf("Wrap on a terminal:\n%q\nwant\n%q", got, want)
	}
	p.TTY = false
	if got := p.Wrap(text); got != text {
		t.Errorf("Wrap piped changed the text: %q", got)
	}
}

func TestErrorLineWidth(t *testing.T) {
	url := "http://127.0.0.1:3101/a/very/long/path/that/does/not/fit"
	tests := []struct {
		name  string
		msg   string
		width int
		want  string
	}{
		{"piped", "no MCP endpoint at http://127.0.0.1:3101/ (404)", 0, "error: no MCP endpoint at http://127.0.0.1:3101/ (404)"},
		{"fits", "short", 40, "error: short"},
		{"words", "no MCP endpoint at the root of this server (404)", 24,
			"error: no MCP endpoint\n  at the root of this\n  server (404)"},
		{"long word stays whole", "try --url " + url + " instead", 30,
			"error: try --url\n  " + url + "\n  instead"},
		{"indented lines keep their indent", "arguments break the schema\n  /a: \"x\" is not a number", 20,
			"error: arguments\n  break the schema\n  /a: \"x\" is not a\n  number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ErrorLineWidth(tt.msg, false, tt.width)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			for _, line := range strings.Split(got, "\n") {
				if len(line) > tt.width && tt.width > 0 && !strings.Contains(line, url) {
					t.Errorf("line %q is wider than %d", line, tt.width)
				}
			}
		})
	}
}
