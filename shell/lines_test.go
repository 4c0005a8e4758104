package shell

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// TestLineReader checks that lines over the limit are refused with an
// excerpt and skipped, and that the lines around them are read whole.
func TestLineReader(t *testing.T) {
	long := "call echo message=" + strings.Repeat("x", 200<<10)
	type line struct {
		text    string
		tooLong bool
	}
	tests := []struct {
		name  string
		in    string
		max   int64
		lines []line
	}{
		{"no limit", "a\n" + long + "\n", 0, []line{{"a", false}, {long, false}}},
		{"under the limit", "call x\n\n", 6, []line{{"call x", false}, {"", false}}},
		{"last line without newline", "a\nb", 6, []line{{"a", false}, {"b", false}}},
		{"over by one", "call xy\ncall x\n", 6, []line{{"call x", true}, {"call x", false}}},
		{"last line over, without newline", "a\ncall xy", 6, []line{{"a", false}, {"call x", true}}},
		{"a long line between short ones", "a\n" + long + "\nb\n", 1024, []line{{"a", false}, {"call echo message=xxxx", true}, {"b", false}}},
		{"a long last line", long, 1024, []line{{"call echo message=xxxx", true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lr := newLineReader(strings.NewReader(tt.in), tt.max)
			for i, want := range tt.lines {
				got, err := lr.read()
				var tooLong *LineTooLongError
				switch {
				case want.tooLong && !errors.As(err, &tooLong):
					t.Fatalf("line %d: %.40q, %v; want a LineTooLongError", i+1, got, err)
				case want.tooLong:
					if !strings.HasPrefix(tooLong.Start, want.text) || len(tooLong.Start) > excerptBytes || tooLong.Max != tt.max {
						t.Errorf("line %d: refused with start %q (max %d), want %q… (max %d)", i+1, tooLong.Start, tooLong.Max, want.text, tt.max)
					}
					if msg := err.Error(); len(msg) > 200 || !strings.Contains(msg, "(--max-message-size)") {
						t.Errorf("line %d: error %q: want a short one naming --max-message-size", i+1, msg)
					}
				case err != nil:
					t.Fatalf("line %d: %v", i+1, err)
				case got != want.text:
					t.Errorf("line %d: %.60q, want %.60q", i+1, got, want.text)
				}
			}
			if got, err := lr.read(); err != io.EOF {
				t.Errorf("after the last line: %.40q, %v; want io.EOF", got, err)
			}
		})
	}
}

func TestLineTooLongError(t *testing.T) {
	err := &LineTooLongError{Start: "call echo message=" + strings.Repeat("x", 200), Max: 1024}
	want := `the line "call echo message=xxxxxxxxxxxxxxxxxxxxxx…" is longer than the limit of 1 KiB (--max-message-size): it was not run`
	if err.Error() != want {
		t.Errorf("got  %s\nwant %s", err, want)
	}
}
