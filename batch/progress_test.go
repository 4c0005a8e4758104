package batch

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestCountLines(t *testing.T) {
	for input, want := range map[string]int{"": 0, "a": 1, "a\n": 1, "a\n\n  \r\nb": 2, "\n\n": 0, "a\r\nb\r\n": 2} {
		if got := CountLines(strings.NewReader(input)); got != want {
			t.Errorf("CountLines(%q) = %d, want %d", input, got, want)
		}
	}
}

// TestTerminalProgress: the first result draws the line, a redraw within
// progressEvery of the last is skipped, and Clear erases what was drawn
// (and only then).
func TestTerminalProgress(t *testing.T) {
	var w bytes.Buffer
	p := NewTerminalProgress(&w)
	p.Clear()
	if w.Len() != 0 {
		t.Fatalf("Clear before any line wrote %q", w.String())
	}
	p.Printed(1, 3)
	p.last = time.Now().Add(time.Hour) // the last draw is recent, whatever the clock does
	p.Printed(2, 3)
	p.last = time.Time{} // long ago
	p.Printed(3, 3)
	p.Clear()
	if got, want := w.String(), "\r1/3 done\x1b[K\r3/3 done\x1b[K\r\x1b[K"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}
