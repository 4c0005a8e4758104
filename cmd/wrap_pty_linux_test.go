package cmd

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// ptyLines are the lines of what the terminal showed between the first
// from and the following to (both included), escape sequences removed.
func ptyLines(t *testing.T, o *ptyOutput, from, to string) []string {
	t.Helper()
	o.mu.Lock()
	seen := ansi.Strip(o.buf.String())
	o.mu.Unlock()
	i := strings.Index(seen, from)
	if i < 0 {
		t.Fatalf("the terminal never showed %q: %q", from, seen)
	}
	j := strings.Index(seen[i:], to)
	if j < 0 {
		t.Fatalf("the terminal never showed %q after %q: %q", to, from, seen[i:])
	}
	return strings.Split(strings.ReplaceAll(seen[i:i+j+len(to)], "\r\n", "\n"), "\n")
}

// checkWrapped fails unless lines fit width and hold words, each whole,
// in the order of want.
func checkWrapped(t *testing.T, lines []string, width int, want string) {
	t.Helper()
	if len(lines) < 2 {
		t.Errorf("not wrapped: %q", lines)
	}
	for _, l := range lines {
		if ansi.StringWidth(l) > width {
			t.Errorf("line %q is wider than %d", l, width)
		}
	}
	if got := strings.Join(strings.Fields(strings.Join(lines, " ")), " "); got != want {
		t.Errorf("words %q, want %q (a word split, or one lost)", got, want)
	}
}

// TestErrorLineWrapsOnTerminal: on a terminal an error line wraps at its
// width, at word boundaries.
func TestErrorLineWrapsOnTerminal(t *testing.T) {
	p := startPTY(t, t.TempDir(), 40, "call", "nosuch", "--demo")
	p.out.expect(t, 0, "list)")
	p.wait(ExitUsage, "call nosuch did not end")
	lines := ptyLines(t, p.out, "error: ", "list)")
	checkWrapped(t, lines, 40, `error: the server has no tool "nosuch"; its tools are: add, audio, count_words, echo, embedded, fail, image, random_number, resource_link, sleep, upper, weather (see: mcpctl list)`)
}

// TestShellBannerWraps: the shell's banner and its errors wrap at the
// terminal's width, and its hints are written as shell lines.
func TestShellBannerWraps(t *testing.T) {
	p := startPTY(t, t.TempDir(), 40, "shell", "--demo")
	mark := p.out.expect(t, 0, "Ctrl-D leaves")
	mark = p.out.expect(t, mark, "mcpctl> ")
	lines := ptyLines(t, p.out, "connected to", "Ctrl-D leaves")
	checkWrapped(t, lines, 40, "connected to mcpctl-demo 1.0.0 (protocol 2025-11-25, legacy era); help lists the commands, exit or Ctrl-D leaves")

	p.typ("read\r")
	mark = p.out.expect(t, mark, "demo://readme")
	p.out.expect(t, mark, "mcpctl> ")
	lines = ptyLines(t, p.out, "error: read", "demo://readme")
	checkWrapped(t, lines, 40, "error: read takes exactly one URI, e.g. read demo://readme")
	p.typ("\x04")
	p.wait(0, "the shell did not end at Ctrl-D")
}
