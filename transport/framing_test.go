package transport

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadLine(t *testing.T) {
	long := strings.Repeat("0123456789", 10) // longer than the 16-byte buffer
	tests := []struct {
		name  string
		input string
		want  []string
	}{
		{"empty", "", nil},
		{"one line", "{}\n", []string{"{}"}},
		{"blank lines kept", "a\n\nb\n", []string{"a", "", "b"}},
		{"crlf left for the caller", "a\r\n", []string{"a\r"}},
		{"unterminated last line", "a\nb", []string{"a", "b"}},
		{"longer than the buffer", long + "\n" + long, []string{long, long}},
		{"exactly the buffer", strings.Repeat("x", 15) + "\n" + strings.Repeat("y", 16) + "\n", []string{strings.Repeat("x", 15), strings.Repeat("y", 16)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := bufio.NewReaderSize(strings.NewReader(tt.input), 16)
			var got []string
			for {
				line, err := readLine(r)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, string(line))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReadLineMemory checks the promise that a long line costs about twice
// its size, not several times.
func TestReadLineMemory(t *testing.T) {
	const size = 8 << 20
	input := append(bytes.Repeat([]byte("x"), size), '\n')
	r := bufio.NewReaderSize(bytes.NewReader(input), 64<<10)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	line, err := readLine(r)
	runtime.ReadMemStats(&after)
	if err != nil || len(line) != size {
		t.Fatalf("readLine = %d bytes, %v", len(line), err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 5*size/2 {
		t.Errorf("reading a %d-byte line allocated %d bytes, want at most 2.5x", size, alloc)
	}
}

func TestCheckLine(t *testing.T) {
	const prefix = "mcpctl: protocol violation: server wrote a line to stdout that is not JSON-RPC (ignored): "
	long := strings.Repeat("y", 300)
	tests := []struct {
		line     string
		wantMsg  string // "" means skipped
		wantWarn string
	}{
		{`{"jsonrpc":"2.0"}`, `{"jsonrpc":"2.0"}`, ""},
		{"  [1]\r", "[1]", ""},
		{"", "", ""},
		{" \t\r", "", ""},
		{"hello", "", prefix + `"hello"` + "\n"},
		{"42", "", prefix + `"42"` + "\n"},
		{`{"a":`, "", prefix + `"{\"a\":"` + "\n"},
		{long, "", prefix + `"` + long[:200] + `"` + "\n"},
	}
	for _, tt := range tests {
		var warn bytes.Buffer
		msg, ok := checkLine([]byte(tt.line), &warn)
		if ok != (tt.wantMsg != "") || string(msg) != tt.wantMsg {
			t.Errorf("checkLine(%q) = %q, %v; want %q", tt.line, msg, ok, tt.wantMsg)
		}
		if got := warn.String(); got != tt.wantWarn {
			t.Errorf("checkLine(%q) warned %q, want %q", tt.line, got, tt.wantWarn)
		}
	}
}

func BenchmarkReadLine(b *testing.B) {
	input := append(bytes.Repeat([]byte("x"), 1<<20), '\n')
	b.SetBytes(int64(len(input)))
	b.ReportAllocs()
	for b.Loop() {
		r := bufio.NewReaderSize(bytes.NewReader(input), 64<<10)
		if _, err := readLine(r); err != nil {
			b.Fatal(err)
		}
	}
}
