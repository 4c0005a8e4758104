package transport

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// testLineReader returns a LineReader with a small buffer, so that short
// inputs exercise the paths long lines take.
func testLineReader(r io.Reader, limit int64, bufSize int) *LineReader {
	l := NewLineReader(r, limit, "stdio line")
	l.buf = make([]byte, bufSize)
	return l
}

// readLines reads l to its end and describes each result: the line, or
// "ERR too large" for an over-limit line, or "ERR <message>" for the error
// that ended the stream (io.EOF is not listed).
func readLines(l *LineReader) []string {
	var got []string
	for range 10000 {
		line, err := l.Next()
		var tooLarge *MessageTooLargeError
		switch {
		case errors.As(err, &tooLarge):
			got = append(got, "ERR too large")
		case errors.Is(err, io.EOF):
			return got
		case err != nil:
			return append(got, "ERR "+err.Error())
		default:
			got = append(got, string(line))
		}
	}
	return append(got, "ERR no end")
}

func TestLineReader(t *testing.T) {
	long := strings.Repeat("0123456789", 10) // longer than the 16-byte buffer
	tests := []struct {
		name  string
		input string
		limit int64
		want  []string
	}{
		{"empty", "", 0, nil},
		{"one line", "{}\n", 0, []string{"{}"}},
		{"blank lines kept", "a\n\nb\n", 0, []string{"a", "", "b"}},
		{"crlf left for the caller", "a\r\n", 0, []string{"a\r"}},
		{"unterminated last line", "a\nb", 0, []string{"a", "b"}},
		{"longer than the buffer", long + "\n" + long, 0, []string{long, long}},
		{"exactly the buffer", strings.Repeat("x", 15) + "\n" + strings.Repeat("y", 16) + "\n", 0, []string{strings.Repeat("x", 15), strings.Repeat("y", 16)}},
		{"straddles two reads", "abcdefghij\nklmnopqrstuv\nw\n", 0, []string{"abcdefghij", "klmnopqrstuv", "w"}},
		{"at the limit", "12345\n123456\n", 5, []string{"12345", "ERR too large"}},
		{"over the limit then more", "ok\n" + long + "\nnext\n", 20, []string{"ok", "ERR too large", "next"}},
		{"over the limit, short", "abcdef\nnext\n", 5, []string{"ERR too large", "next"}},
		{"over the limit, unterminated", "ok\n" + long, 20, []string{"ok", "ERR too large"}},
		{"several over the limit", long + "\n" + long + "\n" + "x\n", 50, []string{"ERR too large", "ERR too large", "x"}},
		{"long line at a large limit", long + "\n", 100, []string{long}},
	}
	readers := []struct {
		name string
		wrap func(io.Reader) io.Reader
	}{
		{"whole", func(r io.Reader) io.Reader { return r }},
		{"one byte", iotest.OneByteReader},
		{"half", iotest.HalfReader},
		{"data with EOF", iotest.DataErrReader},
	}
	for _, tt := range tests {
		for _, rd := range readers {
			t.Run(tt.name+"/"+rd.name, func(t *testing.T) {
				got := readLines(testLineReader(rd.wrap(strings.NewReader(tt.input)), tt.limit, 16))
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("lines (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestLineReaderErrors(t *testing.T) {
	boom := errors.New("boom")
	// A read error other than EOF drops the partial line: it cannot be a
	// whole message.
	r := io.MultiReader(strings.NewReader("a\npartial"), iotest.ErrReader(boom))
	if diff := cmp.Diff([]string{"a", "ERR boom"}, readLines(testLineReader(r, 0, 16))); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	// A reader that never makes progress is given up on.
	l := testLineReader(emptyReader{}, 0, 16)
	if _, err := l.Next(); !errors.Is(err, io.ErrNoProgress) {
		t.Errorf("next over a reader making no progress = %v, want io.ErrNoProgress", err)
	}
	// The error names the limit and the flag.
	l = testLineReader(strings.NewReader(strings.Repeat("x", 2000)), 1024, 16)
	_, err := l.Next()
	if got, want := errString(err), "stdio line larger than the 1 KiB message size limit (raise it with --max-message-size)"; got != want {
		t.Errorf("over-limit error = %s, want %s", got, want)
	}
}

type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, nil }

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// TestLineReaderMemory checks the promise that a long line costs about
// twice its size in allocations and that an over-limit line costs nothing
// beyond the limit.
func TestLineReaderMemory(t *testing.T) {
	const size = 8 << 20
	input := append(bytes.Repeat([]byte("x"), size), '\n')
	tests := []struct {
		name     string
		limit    int64
		maxAlloc uint64
	}{
		{"under the limit", 0, size * 22 / 10},
		{"over the limit", 1 << 20, 3 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := NewLineReader(bytes.NewReader(input), tt.limit, "stdio line")
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			line, err := l.Next()
			runtime.ReadMemStats(&after)
			if tt.limit == 0 && (err != nil || len(line) != size) {
				t.Fatalf("next = %d bytes, %v", len(line), err)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > tt.maxAlloc {
				t.Errorf("reading a %d-byte line allocated %d bytes, want at most %d", size, alloc, tt.maxAlloc)
			}
		})
	}
}

func TestCheckLine(t *testing.T) {
	long := strings.Repeat("y", 300)
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	deepInString := `{"a":"` + strings.Repeat("[", 20000) + `"`
	tests := []struct {
		line     string
		wantMsg  string // "" means skipped
		wantWarn string // the reported line, quoted
	}{
		{`{"jsonrpc":"2.0"}`, `{"jsonrpc":"2.0"}`, ""},
		{"  [1]\r", "[1]", ""},
		{`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{}}]`, `[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{}}]`, ""},
		{"{\"text\":\"\xff\xfe\"}", "{\"text\":\"\xff\xfe\"}", ""}, // invalid UTF-8 is the client's to judge
		{deep, deep, ""}, // too deep for encoding/json: the client reports it
		{"", "", ""},
		{" \t\r", "", ""},
		{"hello", "", `"hello"`},
		{"42", "", `"42"`},
		{`{"a":`, "", `"{\"a\":"`},
		{long, "", `"` + long[:200] + `"`},
		{deepInString, "", strconv.Quote(deepInString[:200])},
	}
	for _, tt := range tests {
		var got string
		msg, ok := checkLine([]byte(tt.line), func(v Violation) {
			if v.Kind != ViolationStdoutLine {
				t.Errorf("checkLine(%.40q) reported a violation of kind %d", tt.line, v.Kind)
			}
			got += strconv.Quote(string(v.Line))
		})
		if ok != (tt.wantMsg != "") || string(msg) != tt.wantMsg {
			t.Errorf("checkLine(%.40q) = %.40q, %v; want %.40q", tt.line, msg, ok, tt.wantMsg)
		}
		if got != tt.wantWarn {
			t.Errorf("checkLine(%.40q) warned %q, want %q", tt.line, got, tt.wantWarn)
		}
	}
}

func BenchmarkLineReader(b *testing.B) {
	input := append(bytes.Repeat([]byte("x"), 1<<20), '\n')
	b.SetBytes(int64(len(input)))
	b.ReportAllocs()
	for b.Loop() {
		l := NewLineReader(bytes.NewReader(input), 0, "stdio line")
		if _, err := l.Next(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLineReaderSmall(b *testing.B) {
	input := bytes.Repeat([]byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`+"\n"), 1000)
	b.SetBytes(int64(len(input)))
	b.ReportAllocs()
	for b.Loop() {
		l := NewLineReader(bytes.NewReader(input), 0, "stdio line")
		for {
			if _, err := l.Next(); err != nil {
				break
			}
		}
	}
}
