package cmd

import (
	"bytes"
	"io"
	"os"
	"strconv"

	"golang.org/x/term"

	"github.com/mcpctl/mcpctl/internal/pipeio"
	"github.com/mcpctl/mcpctl/render"
)

// defaultTerminalWidth is the width assumed when neither COLUMNS nor the
// terminal says otherwise.
const defaultTerminalWidth = 80

// IOStreams are the standard streams of one command run, with what is known
// about them: whether each is a terminal and whether colour may be used.
// Commands write data to Out and everything else to ErrOut, and never touch
// os.Stdout or os.Stderr directly, so that tests can drive them with [Test].
type IOStreams struct {
	// In is standard input.
	In io.Reader
	// Out is standard output: results only.
	Out io.Writer
	// ErrOut is standard error: progress, warnings, server stderr, errors.
	ErrOut io.Writer

	stdinTTY  bool
	stdoutTTY bool
	stderrTTY bool

	colorEnabled    bool
	colorErrEnabled bool

	// width is a fixed terminal width from COLUMNS or SetTerminalWidth;
	// zero means ask the terminal.
	width int

	// restore puts standard input back as System found it; nil for
	// streams that are not the process's.
	restore func()
}

// Restore puts the process's standard input back as [System] found it (a
// socket's blocking mode, for whoever shares it). Call it as the command
// ends.
func (s *IOStreams) Restore() {
	if s.restore != nil {
		s.restore()
		s.restore = nil
	}
}

// System returns the process's streams. It runs on every start, so it only
// asks the kernel whether each stream is a terminal and reads a few
// environment variables; the terminal itself is never queried.
//
// Standard input, when it is a pipe or a socket, is read through the
// runtime's poller ([pipeio.Stdin]): a batch, a mock server or a bridge
// waits on it while its peer waits for an answer, and a wait in a blocking
// read can stall the whole process for up to a minute. [IOStreams.Restore]
// puts back what that changed. Nothing mcpctl starts is given In; a child
// gets pipes of its own.
func System() *IOStreams { return systemWith(os.Getenv) }

// systemWith is [System] reading the environment with getenv.
func systemWith(getenv func(string) string) *IOStreams {
	in, restore := pipeio.Stdin()
	s := &IOStreams{
		In:        in,
		restore:   restore,
		Out:       os.Stdout,
		ErrOut:    os.Stderr,
		stdinTTY:  isTerminal(os.Stdin),
		stdoutTTY: isTerminal(os.Stdout),
		stderrTTY: isTerminal(os.Stderr),
		width:     columns(getenv("COLUMNS")),
	}
	s.colorEnabled = colorWanted(s.stdoutTTY, getenv)
	s.colorErrEnabled = colorWanted(s.stderrTTY, getenv)
	return s
}

// Test returns streams backed by buffers, as a pipe would be: no terminal,
// no colour, width 80. The buffers are standard input (for the test to
// fill), standard output and standard error.
func Test() (*IOStreams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut}, in, out, errOut
}

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// colorWanted decides colour for one stream. NO_COLOR (any non-empty value,
// https://no-color.org) and CLICOLOR=0 turn colour off and win over
// CLICOLOR_FORCE and FORCE_COLOR: a user who asked for no colour gets none.
// Otherwise CLICOLOR_FORCE or FORCE_COLOR (non-empty, not "0"; FORCE_COLOR
// also not "false", as Node has it) turns it on even when piped, and by
// default colour follows the stream being a terminal other than TERM=dumb.
// The --color flag, applied later, overrides all of these.
func colorWanted(tty bool, getenv func(string) string) bool {
	if getenv("NO_COLOR") != "" || getenv("CLICOLOR") == "0" {
		return false
	}
	if force := getenv("CLICOLOR_FORCE"); force != "" && force != "0" {
		return true
	}
	if force := getenv("FORCE_COLOR"); force != "" && force != "0" && force != "false" {
		return true
	}
	return tty && getenv("TERM") != "dumb"
}

// columns parses COLUMNS; anything but a positive integer means unset.
func columns(v string) int {
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// IsStdinTTY reports whether standard input is a terminal, that is, whether
// reading it would wait for a person to type.
func (s *IOStreams) IsStdinTTY() bool { return s.stdinTTY }

// IsStdoutTTY reports whether standard output is a terminal.
func (s *IOStreams) IsStdoutTTY() bool { return s.stdoutTTY }

// IsStderrTTY reports whether standard error is a terminal.
func (s *IOStreams) IsStderrTTY() bool { return s.stderrTTY }

// ColorEnabled reports whether escape sequences may be written to Out.
func (s *IOStreams) ColorEnabled() bool { return s.colorEnabled }

// ColorErrEnabled reports whether escape sequences may be written to ErrOut.
func (s *IOStreams) ColorErrEnabled() bool { return s.colorErrEnabled }

// TerminalWidth returns the width in cells that output to Out should fit:
// COLUMNS when set to a positive integer, else the terminal's width when Out
// is a terminal, else 80.
func (s *IOStreams) TerminalWidth() int {
	if s.width > 0 {
		return s.width
	}
	if s.stdoutTTY {
		if f, ok := s.Out.(*os.File); ok {
			if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
				return w
			}
		}
	}
	return defaultTerminalWidth
}

// SetStdinTTY overrides whether standard input counts as a terminal; for
// tests.
func (s *IOStreams) SetStdinTTY(v bool) { s.stdinTTY = v }

// SetStdoutTTY overrides whether standard output counts as a terminal; for
// tests. It does not change colour: see [IOStreams.SetColorEnabled].
func (s *IOStreams) SetStdoutTTY(v bool) { s.stdoutTTY = v }

// SetStderrTTY overrides whether standard error counts as a terminal; for
// tests.
func (s *IOStreams) SetStderrTTY(v bool) { s.stderrTTY = v }

// SetColorEnabled overrides whether Out gets colour; for tests.
func (s *IOStreams) SetColorEnabled(v bool) { s.colorEnabled = v }

// SetColorErrEnabled overrides whether ErrOut gets colour; for tests.
func (s *IOStreams) SetColorErrEnabled(v bool) { s.colorErrEnabled = v }

// SetTerminalWidth fixes the width TerminalWidth reports; zero or less
// restores the default behaviour. For tests.
func (s *IOStreams) SetTerminalWidth(w int) { s.width = max(w, 0) }

// Printer returns a [render.Printer] for these streams.
func (s *IOStreams) Printer() *render.Printer {
	return &render.Printer{
		Out:      s.Out,
		ErrOut:   s.ErrOut,
		TTY:      s.stdoutTTY,
		ErrTTY:   s.stderrTTY,
		Color:    s.colorEnabled,
		ErrColor: s.colorErrEnabled,
		Width:    s.TerminalWidth(),
	}
}
