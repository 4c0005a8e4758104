package lineedit

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// screen is an in-memory terminal: it interprets what the editor writes
// (\r, \n, ESC[K, ESC[nC, ESC[H ESC[2J) into rows of text and a cursor.
type screen struct {
	rows     [][]rune
	row, col int
}

func (s *screen) Write(p []byte) (int, error) {
	rs := []rune(string(p))
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		for len(s.rows) <= s.row {
			s.rows = append(s.rows, nil)
		}
		switch {
		case r == '\r':
			s.col = 0
		case r == '\n':
			s.row++
		case r == 0x1b && i+1 < len(rs) && rs[i+1] == '[':
			j := i + 2
			for j < len(rs) && (rs[j] < 0x40 || rs[j] > 0x7e) {
				j++
			}
			params, final := string(rs[i+2:j]), rs[j]
			switch final {
			case 'K':
				if s.col < len(s.rows[s.row]) {
					s.rows[s.row] = s.rows[s.row][:s.col]
				}
			case 'C':
				n, _ := strconv.Atoi(params)
				s.col += n
			case 'H':
				s.row, s.col = 0, 0
			case 'J':
				s.rows = nil
			}
			i = j
		default:
			line := s.rows[s.row]
			for len(line) <= s.col {
				line = append(line, ' ')
			}
			line[s.col] = r
			s.rows[s.row] = line
			s.col++
		}
	}
	return len(p), nil
}

func (s *screen) text() string {
	lines := make([]string, len(s.rows))
	for i, r := range s.rows {
		lines[i] = string(r)
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

// Key bytes as a terminal sends them.
const (
	up, down, left, right = "\x1b[A", "\x1b[B", "\x1b[D", "\x1b[C"
	home, end, del        = "\x1b[H", "\x1b[F", "\x1b[3~"
	bs, tab               = "\x7f", "\t"
	ctrlA, ctrlC, ctrlD   = "\x01", "\x03", "\x04"
	ctrlE, ctrlK, ctrlU   = "\x05", "\x0b", "\x15"
	ctrlW, altB, altF     = "\x17", "\x1bb", "\x1bf"
)

func newEditor(input string, s *screen) *Editor {
	return &Editor{In: strings.NewReader(input), Out: s, Prompt: "> ", Width: func() int { return 40 }}
}

func TestReadLineKeys(t *testing.T) {
	tests := []struct {
		name, input, want string
		err               error
	}{
		{"plain", "hello\r", "hello", nil},
		{"newline ends too", "hi\n", "hi", nil},
		{"left and insert", "helo" + left + "l\r", "hello", nil},
		{"home and end", "ello" + ctrlA + "h" + ctrlE + "!\r", "hello!", nil},
		{"arrows home end", "b" + home + "a" + end + "c\r", "abc", nil},
		{"backspace", "helpp" + bs + bs + "lo\r", "hello", nil},
		{"backspace at start", bs + "x\r", "x", nil},
		{"delete", "hxello" + home + right + del + "\r", "hello", nil},
		{"ctrl-d deletes on a line", "hxi" + left + left + ctrlD + "\r", "hi", nil},
		{"ctrl-u", "call echo" + left + left + left + left + ctrlU + "\r", "echo", nil},
		{"ctrl-k", "call echo" + ctrlA + right + right + right + right + ctrlK + "\r", "call", nil},
		{"ctrl-w", "call echo message=a" + ctrlW + "\r", "call echo ", nil},
		{"ctrl-w over spaces", "call echo   " + ctrlW + "\r", "call ", nil},
		{"alt-b alt-f", "one two" + altB + altB + "x" + altF + "y\r", "xoney two", nil},
		{"utf-8", "héllo→" + left + "!\r", "héllo!→", nil},
		{"control bytes ignored", "a\x00\x07b\r", "ab", nil},
		{"ctrl-c", "abc" + ctrlC, "", ErrInterrupted},
		{"ctrl-d on empty", ctrlD, "", io.EOF},
		{"end of input", "abc", "", io.EOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &screen{}
			e := newEditor(tt.input, s)
			got, err := e.ReadLine()
			if !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if got != tt.want {
				t.Errorf("line = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRender(t *testing.T) {
	s := &screen{}
	e := newEditor("hello"+left+left+"\r", s)
	if _, err := e.ReadLine(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("> hello", s.text()); diff != "" {
		t.Errorf("screen (-want +got):\n%s", diff)
	}
	if s.row != 1 || s.col != 0 {
		t.Errorf("cursor at %d,%d after Enter, want 1,0", s.row, s.col)
	}

	// The cursor follows the edits.
	s = &screen{}
	e = newEditor("", s)
	e.active = true
	for _, k := range []key{{r: 'a'}, {r: 'b'}, {r: 'c'}, {name: keyLeft}} {
		e.handle(k)
	}
	if s.text() != "> abc" || s.col != 4 {
		t.Errorf("screen %q cursor %d, want \"> abc\" at 4", s.text(), s.col)
	}

	// A line longer than the terminal scrolls to keep the cursor shown.
	s = &screen{}
	e = newEditor(strings.Repeat("x", 60)+"END", s)
	e.Width = func() int { return 20 }
	e.ReadLine()
	if got := s.rows[0]; len(got) > 20 || !strings.HasSuffix(string(got), "END") {
		t.Errorf("long line shown as %q, want at most 20 columns ending in END", string(got))
	}
}

func TestHistoryKeys(t *testing.T) {
	h := &History{}
	h.Add("list")
	h.Add("call echo message=a")
	h.Add("call echo message=a") // a repeat is kept once
	tests := []struct{ name, input, want string }{
		{"up", up + "\r", "call echo message=a"},
		{"up up", up + up + "\r", "list"},
		{"up past the oldest", up + up + up + "\r", "list"},
		{"up down keeps the draft", "dra" + up + up + down + down + "ft\r", "draft"},
		{"down on the new line", down + "x\r", "x"},
		{"edit an old line", up + bs + "b\r", "call echo message=b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hist := &History{}
			for i := range h.Len() {
				hist.Add(h.At(i))
			}
			e := newEditor(tt.input, &screen{})
			e.History = hist
			got, err := e.ReadLine()
			if err != nil || got != tt.want {
				t.Errorf("ReadLine = %q, %v, want %q", got, err, tt.want)
			}
		})
	}
}

// complete is a completer over a fixed table: commands as the first word,
// then tool names, then argument keys and enum values, as the shell's.
func complete(line []rune, pos int) (int, []string) {
	text := string(line[:pos])
	start := strings.LastIndexByte(text, ' ') + 1
	word := text[start:]
	var all []string
	switch fields := strings.Fields(text[:start]); len(fields) {
	case 0:
		all = []string{"call", "exit", "help", "list"}
	case 1:
		all = []string{"echo", "add", "addmany"}
	default:
		if k, _, ok := strings.Cut(word, "="); ok && k == "unit" {
			all = []string{"unit=celsius", "unit=fahrenheit"}
		} else {
			all = []string{"message=", "unit="}
		}
	}
	var out []string
	for _, c := range all {
		if strings.HasPrefix(c, word) {
			out = append(out, c)
		}
	}
	return len([]rune(text[:start])), out
}

func TestCompletion(t *testing.T) {
	tests := []struct {
		name, input, want string
		listed            string // a line of the screen listing candidates
	}{
		{"command", "ca" + tab + "\r", "call ", ""},
		{"tool", "call ec" + tab + "\r", "call echo ", ""},
		{"common prefix", "call a" + tab + "\r", "call add", ""},
		{"list when no longer prefix", "call add" + tab + "\r", "call add", "add      addmany"},
		{"key gets no space", "call echo me" + tab + "hi\r", "call echo message=hi", ""},
		{"enum value", "call echo unit=f" + tab + "\r", "call echo unit=fahrenheit ", ""},
		{"enum values listed", "call echo unit=" + tab + "\r", "call echo unit=", "unit=celsius     unit=fahrenheit"},
		{"nothing to complete", "call echo zz" + tab + "\r", "call echo zz", ""},
		{"in the middle", "cal echo" + ctrlA + right + right + right + tab + "\r", "call echo", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &screen{}
			e := newEditor(tt.input, s)
			e.Complete = complete
			got, err := e.ReadLine()
			if err != nil || got != tt.want {
				t.Fatalf("ReadLine = %q, %v, want %q", got, err, tt.want)
			}
			if tt.listed != "" && !strings.Contains(s.text(), tt.listed) {
				t.Errorf("screen does not list %q:\n%s", tt.listed, s.text())
			}
			if last := s.rows[len(s.rows)-1]; !strings.HasPrefix(string(last), "> "+tt.want) && len(s.rows) > 0 {
				t.Errorf("the last line is %q, want the prompt with %q", string(last), tt.want)
			}
		})
	}
}

func TestWriteAboveTheLine(t *testing.T) {
	s := &screen{}
	e := newEditor("", s)
	e.active = true
	for _, r := range "call ec" {
		e.handle(key{r: r})
	}
	io.WriteString(e, "log info one\n")
	io.WriteString(e, "partial ")
	if want := "log info one\n> call ec"; s.text() != want {
		t.Errorf("screen:\n%s\nwant:\n%s", s.text(), want)
	}
	io.WriteString(e, "line\nsecond\n")
	if want := "log info one\npartial line\nsecond\n> call ec"; s.text() != want {
		t.Errorf("screen:\n%s\nwant:\n%s", s.text(), want)
	}
	if s.col != len("> call ec") {
		t.Errorf("cursor at column %d, want %d", s.col, len("> call ec"))
	}
	// Held output is flushed when the line ends; output with no line
	// being edited passes as it is.
	io.WriteString(e, "held")
	e.handle(key{name: keyEnter})
	io.WriteString(e, "after\n")
	if want := "log info one\npartial line\nsecond\n> call ec\nheldafter"; s.text() != want {
		t.Errorf("screen:\n%s\nwant:\n%s", s.text(), want)
	}
}

func TestHistoryFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state", "shell_history")
	noSecrets := func(l string) bool { return !strings.Contains(l, "token=") }
	h, err := LoadHistory(path, 3, noSecrets)
	if err != nil || h.Len() != 0 {
		t.Fatalf("LoadHistory of a missing file = %d lines, %v", h.Len(), err)
	}
	for _, l := range []string{"one", "call login token=s3cret", "two", "three", "four"} {
		if err := h.Add(l); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("two\nthree\nfour\n", string(data)); diff != "" {
		t.Errorf("file (-want +got):\n%s", diff)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, %v; want 0600", fi.Mode(), err)
	}
	// The session still recalls a refused line; the file never sees it.
	h.Add("call login token=s3cret")
	if got := h.At(h.Len() - 1); got != "call login token=s3cret" {
		t.Errorf("last line in memory %q, want the refused one", got)
	}
	if data, _ := os.ReadFile(path); strings.Contains(string(data), "s3cret") {
		t.Errorf("the file holds the secret: %q", data)
	}
	h2, err := LoadHistory(path, 3, nil)
	if err != nil || h2.Len() != 3 || h2.At(2) != "four" {
		t.Errorf("reloaded: %d lines, %v", h2.Len(), err)
	}
}
