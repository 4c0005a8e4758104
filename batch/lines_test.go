package batch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/transport"
)

// collect runs readLines over r to its end and returns what it sent.
func collect(r io.Reader, limit int64) (lines []line, read int64) {
	out := make(chan line, readAhead)
	var n atomic.Int64
	go readLines(context.Background(), transport.NewLineReader(r, limit, "batch line"), out, &n, nil)
	for l := range out {
		lines = append(lines, l)
	}
	return lines, n.Load()
}

func TestReadLines(t *testing.T) {
	tests := []struct {
		name  string
		input string
		limit int64
		want  []string // the lines' data, or "ERR n" for a line too long
	}{
		{"plain", "a\nb\n", 100, []string{"1:a", "2:b"}},
		{"no final newline", "a\nb", 100, []string{"1:a", "2:b"}},
		{"crlf", "a\r\nb\r\n", 100, []string{"1:a", "2:b"}},
		{"blank lines count but are skipped", "\na\n  \n\t\nb\n\n", 100, []string{"2:a", "5:b"}},
		{"empty", "", 100, nil},
		{"at the limit", "abcd\nx\n", 4, []string{"1:abcd", "2:x"}},
		{"over the limit, skipped to its end", "abcde\nx\n", 4, []string{"ERR 1", "2:x"}},
		{"longer than the buffer", strings.Repeat("y", 200000) + "\nx\n", 100, []string{"ERR 1", "2:x"}},
		{"long line kept", strings.Repeat("y", 200000) + "\n", 300000, []string{"1:" + strings.Repeat("y", 200000)}},
		{"over the limit, unterminated", "a\n" + strings.Repeat("y", 200), 100, []string{"1:a", "ERR 2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines, read := collect(strings.NewReader(tt.input), tt.limit)
			var got []string
			for _, l := range lines {
				switch {
				case l.fatal != nil:
					t.Fatal(l.fatal)
				case l.err != nil:
					var ce *ExitCodeError
					var tooLarge *transport.MessageTooLargeError
					if !errors.As(l.err, &ce) || ce.Code != exitUsage || !errors.As(l.err, &tooLarge) {
						t.Errorf("line %d: error %v, want a usage error over the size limit", l.n, l.err)
					}
					got = append(got, fmt.Sprintf("ERR %d", l.n))
				default:
					got = append(got, fmt.Sprintf("%d:%s", l.n, l.data))
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			if read != int64(len(tt.want)) {
				t.Errorf("read = %d, want %d", read, len(tt.want))
			}
		})
	}
}

// failingReader fails after its data.
type failingReader struct{ data io.Reader }

func (r failingReader) Read(p []byte) (int, error) {
	n, err := r.data.Read(p)
	if err == io.EOF {
		return n, errors.New("disk on fire")
	}
	return n, err
}

func TestReadFailure(t *testing.T) {
	got, read := collect(failingReader{strings.NewReader("a\n")}, 100)
	if len(got) != 2 || string(got[0].data) != "a" || got[1].fatal == nil || got[1].fatal.Error() != "reading the batch after line 1: disk on fire" {
		t.Errorf("lines = %+v, want line a then a fatal error", got)
	}
	if read != 1 {
		t.Errorf("read = %d, want 1", read)
	}
}

func TestParseLine(t *testing.T) {
	tests := []struct {
		line     string
		tool     string
		args     string
		errMatch string
	}{
		{line: `{"tool":"echo","arguments":{"message":"hi"}}`, tool: "echo", args: `{"message":"hi"}`},
		{line: `{"tool":"echo"}`, tool: "echo"},
		{line: `{"tool":"echo","arguments":null}`, tool: "echo"},
		{line: ` {"arguments":{},"tool":"x"} `, tool: "x", args: `{}`},
		{line: `not json`, errMatch: "the line is not a JSON object"},
		{line: `[1,2]`, errMatch: "the line is not a JSON object {\"tool\": NAME, \"arguments\": {...}}: got an array"},
		{line: `null`, errMatch: "got null"},
		{line: `{"tool":"a"} {}`, errMatch: "after top-level value"},
		{line: `{"tool":3}`, errMatch: `"tool" must be a string`},
		{line: `{"tool":""}`, errMatch: `names no "tool"`},
		{line: `{"arguments":{}}`, errMatch: `names no "tool"`},
		{line: `{"tool":"echo","args":{}}`, tool: "echo", errMatch: `unknown key "args"`},
		{line: `{"tool":"echo","b":1,"a":2}`, tool: "echo", errMatch: `unknown keys "a", "b"`},
		{line: `{"tool":"echo","arguments":[1]}`, tool: "echo", errMatch: `"arguments" must be a JSON object, got an array`},
		{line: `{"tool":"echo","arguments":"x"}`, tool: "echo", errMatch: `got a string`},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			tool, args, err := parseLine([]byte(tt.line))
			if tool != tt.tool {
				t.Errorf("tool = %q, want %q", tool, tt.tool)
			}
			if tt.errMatch != "" {
				var ce *ExitCodeError
				if err == nil || !strings.Contains(err.Error(), tt.errMatch) || !errors.As(err, &ce) || ce.Code != exitUsage {
					t.Fatalf("err = %v, want a usage error containing %q", err, tt.errMatch)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(args) != tt.args {
				t.Errorf("args = %s, want %s", args, tt.args)
			}
		})
	}
}
