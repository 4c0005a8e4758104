package render

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	faintOn  = "\x1b[2m"
	styleOff = "\x1b[0m"
)

func TestDimWriter(t *testing.T) {
	tests := []struct {
		name   string
		color  bool
		writes []string
		flush  bool
		want   []string // what w holds after each write, then after Flush
	}{
		{
			name:   "colour off passes bytes through",
			writes: []string{"partial", " line\n\x1b[31mraw\x1b[0m\r\n"},
			flush:  true,
			want:   []string{"partial", "partial line\n\x1b[31mraw\x1b[0m\r\n", "partial line\n\x1b[31mraw\x1b[0m\r\n"},
		},
		{
			name:   "complete lines are dimmed",
			color:  true,
			writes: []string{"one\ntwo\n"},
			want:   []string{faintOn + "one" + styleOff + "\n" + faintOn + "two" + styleOff + "\n"},
		},
		{
			name:   "partial lines wait for their newline",
			color:  true,
			writes: []string{"par", "tial", " line\nnext"},
			flush:  true,
			want: []string{
				"",
				"",
				faintOn + "partial line" + styleOff + "\n",
				faintOn + "partial line" + styleOff + "\n" + faintOn + "next" + styleOff,
			},
		},
		{
			name:   "CRLF and empty lines",
			color:  true,
			writes: []string{"a\r\n\n\r\n"},
			want:   []string{faintOn + "a" + styleOff + "\r\n\n\r\n"},
		},
		{
			name:   "a multi-byte character split across writes stays whole",
			color:  true,
			writes: []string{"caf\xc3", "\xa9\n"},
			want:   []string{"", faintOn + "café" + styleOff + "\n"},
		},
		{
			name:   "flush with nothing held writes nothing",
			color:  true,
			writes: []string{"x\n"},
			flush:  true,
			want:   []string{faintOn + "x" + styleOff + "\n", faintOn + "x" + styleOff + "\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			w := DimWriter(&out, tt.color)
			var got []string
			for _, s := range tt.writes {
				n, err := w.Write([]byte(s))
				if err != nil || n != len(s) {
					t.Fatalf("Write(%q) = %d, %v", s, n, err)
				}
				got = append(got, out.String())
			}
			if tt.flush {
				if err := w.Flush(); err != nil {
					t.Fatal(err)
				}
				got = append(got, out.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestDimWriterLongPartialLine(t *testing.T) {
	var out bytes.Buffer
	w := DimWriter(&out, true)
	// 70,000 bytes of a three-byte character: more than the limit, and the
	// limit falls inside a character.
	long := strings.Repeat("€", 70000/3)
	if _, err := w.Write([]byte(long)); err != nil {
		t.Fatal(err)
	}
	if out.Len() == 0 {
		t.Fatal("a partial line over the limit was held back")
	}
	if _, err := w.Write([]byte("\n")); err != nil {
		t.Fatal(err)
	}
	got := strings.ReplaceAll(strings.ReplaceAll(out.String(), faintOn, ""), styleOff, "")
	if got != long+"\n" {
		t.Errorf("text changed: %d bytes, want %d", len(got), len(long)+1)
	}
	for _, part := range strings.Split(out.String(), faintOn) {
		if !strings.HasPrefix(part, "€") && part != "" {
			t.Errorf("a styled piece starts inside a character: %q…", part[:min(len(part), 8)])
		}
	}
}

// TestDimWriterConcurrent checks that lines from concurrent writers reach w
// whole and dimmed; run with -race.
func TestDimWriterConcurrent(t *testing.T) {
	var out bytes.Buffer
	w := DimWriter(&out, true)
	const writers, lines = 8, 200
	var wg sync.WaitGroup
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range lines {
				fmt.Fprintf(w, "writer %d line %d\n", i, j)
			}
		}()
	}
	wg.Wait()
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(got) != writers*lines {
		t.Fatalf("%d lines, want %d", len(got), writers*lines)
	}
	for _, line := range got {
		if !strings.HasPrefix(line, faintOn+"writer ") || !strings.HasSuffix(line, styleOff) {
			t.Errorf("line not whole and dimmed: %q", line)
		}
	}
}
