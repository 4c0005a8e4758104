package cmd

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestColorWanted(t *testing.T) {
	tests := []struct {
		name string
		tty  bool
		env  map[string]string
		want bool
	}{
		{name: "terminal", tty: true, want: true},
		{name: "pipe", tty: false, want: false},
		{name: "NO_COLOR", tty: true, env: map[string]string{"NO_COLOR": "1"}, want: false},
		{name: "empty NO_COLOR is unset", tty: true, env: map[string]string{"NO_COLOR": ""}, want: true},
		{name: "TERM=dumb", tty: true, env: map[string]string{"TERM": "dumb"}, want: false},
		{name: "CLICOLOR=0", tty: true, env: map[string]string{"CLICOLOR": "0"}, want: false},
		{name: "CLICOLOR_FORCE on a pipe", tty: false, env: map[string]string{"CLICOLOR_FORCE": "1"}, want: true},
		{name: "CLICOLOR_FORCE with TERM=dumb", tty: true, env: map[string]string{"CLICOLOR_FORCE": "1", "TERM": "dumb"}, want: true},
		{name: "CLICOLOR_FORCE=0 forces nothing", tty: false, env: map[string]string{"CLICOLOR_FORCE": "0"}, want: false},
		{name: "NO_COLOR wins over CLICOLOR_FORCE", tty: true, env: map[string]string{"NO_COLOR": "1", "CLICOLOR_FORCE": "1"}, want: false},
		{name: "FORCE_COLOR on a pipe", tty: false, env: map[string]string{"FORCE_COLOR": "1"}, want: true},
		{name: "FORCE_COLOR=0 forces nothing", tty: false, env: map[string]string{"FORCE_COLOR": "0"}, want: false},
		{name: "FORCE_COLOR=false forces nothing", tty: false, env: map[string]string{"FORCE_COLOR": "false"}, want: false},
		{name: "NO_COLOR wins over FORCE_COLOR", tty: true, env: map[string]string{"NO_COLOR": "1", "FORCE_COLOR": "3"}, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string { return tt.env[k] }
			if got := colorWanted(tt.tty, getenv); got != tt.want {
				t.Errorf("colorWanted(%v, %v) = %v, want %v", tt.tty, tt.env, got, tt.want)
			}
		})
	}
}

func TestColumns(t *testing.T) {
	for v, want := range map[string]int{"": 0, "120": 120, "0": 0, "-5": 0, "wide": 0, " 90": 0} {
		if got := columns(v); got != want {
			t.Errorf("columns(%q) = %d, want %d", v, got, want)
		}
	}
}

func TestTestStreams(t *testing.T) {
	ios, in, out, errOut := Test()
	if ios.IsStdinTTY() || ios.IsStdoutTTY() || ios.IsStderrTTY() || ios.ColorEnabled() || ios.ColorErrEnabled() {
		t.Error("Test streams claim a terminal or colour")
	}
	if w := ios.TerminalWidth(); w != 80 {
		t.Errorf("TerminalWidth = %d, want 80", w)
	}
	in.WriteString("input")
	buf := make([]byte, 5)
	if n, _ := ios.In.Read(buf); string(buf[:n]) != "input" {
		t.Errorf("In reads %q", buf[:n])
	}
	ios.Out.Write([]byte("o"))
	ios.ErrOut.Write([]byte("e"))
	if out.String() != "o" || errOut.String() != "e" {
		t.Errorf("Out, ErrOut not wired to the buffers: %q %q", out, errOut)
	}
}

func TestSetters(t *testing.T) {
	ios, _, _, _ := Test()
	ios.SetStdinTTY(true)
	ios.SetStdoutTTY(true)
	ios.SetStderrTTY(true)
	ios.SetColorEnabled(true)
	ios.SetColorErrEnabled(true)
	ios.SetTerminalWidth(132)
	if !ios.IsStdinTTY() || !ios.IsStdoutTTY() || !ios.IsStderrTTY() || !ios.ColorEnabled() || !ios.ColorErrEnabled() {
		t.Error("setters did not take")
	}
	if w := ios.TerminalWidth(); w != 132 {
		t.Errorf("TerminalWidth = %d, want 132", w)
	}
	ios.SetTerminalWidth(0)
	// A "terminal" that is not a file has no size to ask for.
	if w := ios.TerminalWidth(); w != 80 {
		t.Errorf("TerminalWidth after reset = %d, want 80", w)
	}
}

func TestSystemEnvironment(t *testing.T) {
	t.Parallel()
	env := map[string]string{"CLICOLOR_FORCE": "1", "COLUMNS": "101"}
	getenv := func(k string) string { return env[k] }
	ios := systemWith(getenv)
	if !ios.ColorEnabled() || !ios.ColorErrEnabled() {
		t.Error("CLICOLOR_FORCE=1 did not force colour")
	}
	if w := ios.TerminalWidth(); w != 101 {
		t.Errorf("TerminalWidth = %d, want COLUMNS=101", w)
	}

	env["NO_COLOR"] = "1"
	if ios := systemWith(getenv); ios.ColorEnabled() || ios.ColorErrEnabled() {
		t.Error("NO_COLOR did not turn colour off")
	}
}

func TestPrinter(t *testing.T) {
	ios, _, out, errOut := Test()
	ios.SetStdoutTTY(true)
	ios.SetColorErrEnabled(true)
	ios.SetTerminalWidth(99)
	p := ios.Printer()
	if p.Out != out || p.ErrOut != errOut {
		t.Error("Printer is not bound to the streams' writers")
	}
	type facts struct {
		TTY, Color, ErrColor bool
		Width                int
	}
	got := facts{p.TTY, p.Color, p.ErrColor, p.Width}
	want := facts{TTY: true, ErrColor: true, Width: 99}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Printer (-want +got):\n%s", diff)
	}
}
