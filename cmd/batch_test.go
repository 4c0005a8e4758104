package cmd

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBatchLineReader(t *testing.T) {
	tests := []struct {
		name  string
		input string
		max   int64
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lr := newLineReader(strings.NewReader(tt.input), tt.max)
			var got []string
			for {
				l, err := lr.next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if l.err != nil {
					got = append(got, fmt.Sprintf("ERR %d", l.n))
					continue
				}
				got = append(got, fmt.Sprintf("%d:%s", l.n, l.data))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
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

func TestBatchReadFailure(t *testing.T) {
	lines := make(chan batchLine, 10)
	var read atomic.Int64
	readBatch(context.Background(), &lineReader{r: bufio.NewReader(failingReader{strings.NewReader("a\n")}), max: 100}, lines, &read, nil)
	var got []batchLine
	for l := range lines {
		got = append(got, l)
	}
	if len(got) != 2 || string(got[0].data) != "a" || got[1].fatal == nil || !strings.Contains(got[1].fatal.Error(), "reading the batch after line 1: disk on fire") {
		t.Errorf("lines = %+v, want line a then a fatal error", got)
	}
	if read.Load() != 1 {
		t.Errorf("read = %d, want 1", read.Load())
	}
}

func TestBatchParseLine(t *testing.T) {
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
			tool, args, err := parseBatchLine([]byte(tt.line))
			if tool != tt.tool {
				t.Errorf("tool = %q, want %q", tool, tt.tool)
			}
			if tt.errMatch != "" {
				var fe *FlagError
				if err == nil || !strings.Contains(err.Error(), tt.errMatch) || !errors.As(err, &fe) {
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

func TestBatchSeverity(t *testing.T) {
	// From the mildest to the gravest, as batchSeverity documents.
	order := []int{ExitOK, ExitToolError, ExitValidation, ExitRPCError, ExitUsage, ExitPolicy, ExitTimeout, 42, ExitError, ExitAuth, ExitSignature, ExitInterrupted}
	for i := 1; i < len(order); i++ {
		if batchSeverity(order[i-1]) >= batchSeverity(order[i]) {
			t.Errorf("batchSeverity(%d) = %d, not below batchSeverity(%d) = %d", order[i-1], batchSeverity(order[i-1]), order[i], batchSeverity(order[i]))
		}
	}
}

func TestBatchVerdict(t *testing.T) {
	tests := []struct {
		codes map[int]int
		want  int
		msg   string
	}{
		{map[int]int{ExitOK: 3}, ExitOK, ""},
		{map[int]int{ExitOK: 1, ExitToolError: 2}, ExitToolError, "batch: 2 of 3 lines failed (2 with exit 4); the exit code is the most severe, 4"},
		{map[int]int{ExitToolError: 1, ExitRPCError: 1, ExitValidation: 1}, ExitRPCError, "batch: 3 of 3 lines failed (1 with exit 3, 1 with exit 5, 1 with exit 4); the exit code is the most severe, 3"},
		{map[int]int{ExitError: 1, ExitUsage: 5}, ExitError, "batch: 6 of 6 lines failed (1 with exit 1, 5 with exit 2); the exit code is the most severe, 1"},
	}
	for _, tt := range tests {
		b := &batch{codes: tt.codes}
		for _, n := range tt.codes {
			b.lines += n
		}
		err := b.verdict()
		if got := exitCode(err, false); got != tt.want {
			t.Errorf("%v: exit code %d, want %d", tt.codes, got, tt.want)
		}
		if err != nil && err.Error() != tt.msg {
			t.Errorf("%v: message %q, want %q", tt.codes, err.Error(), tt.msg)
		}
	}
}

func TestBatchOutcomeLine(t *testing.T) {
	tests := []struct {
		name string
		tool string
		out  batchOutcome
		want string
	}{
		{"result", "echo", batchOutcome{result: json.RawMessage(`{"content":[]}`)}, `{"line":7,"tool":"echo","result":{"content":[]}}`},
		{"result over lines is compacted", "echo", batchOutcome{result: json.RawMessage("{\n  \"content\": [\r\n]\n}")}, `{"line":7,"tool":"echo","result":{"content":[]}}`},
		{"isError", "t", batchOutcome{result: json.RawMessage(`{"isError":true}`), code: 4}, `{"line":7,"tool":"t","result":{"isError":true},"exit":4}`},
		{"error on one line", "t", batchOutcome{err: errors.New("headline:\n  /a: bad\n  /b: worse"), code: 5}, `{"line":7,"tool":"t","error":"headline: /a: bad; /b: worse","exit":5}`},
		{"no tool", "", batchOutcome{err: errors.New(`not "json" <x> & é` + "\x01\xff"), code: 2}, `{"line":7,"error":"not \"json\" <x> & é\u0001\ufffd","exit":2}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewFactory(nil)
			got := string(appendBatchOutcome(nil, 7, tt.tool, &tt.out, f.Redactor()))
			if got != tt.want+"\n" {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if !json.Valid([]byte(got)) {
				t.Errorf("not JSON: %s", got)
			}
		})
	}
}

// TestBatchParallelOrder runs a batch against the demo server in process,
// slow calls first, and checks the output keeps the input's order.
func TestBatchParallelOrder(t *testing.T) {
	for _, parallel := range []string{"1", "3", "16"} {
		t.Run("parallel="+parallel, func(t *testing.T) {
			ios, in, out, errOut := Test()
			var input, want strings.Builder
			for i := 1; i <= 40; i++ {
				if i%10 == 1 {
					fmt.Fprintf(&input, `{"tool":"sleep","arguments":{"ms":%d}}`+"\n", 50-i)
					fmt.Fprintf(&want, `{"line":%d,"tool":"sleep","result":{"content":[{"type":"text","text":"slept %d ms"}]}}`+"\n", i, 50-i)
					continue
				}
				fmt.Fprintf(&input, `{"tool":"echo","arguments":{"message":"m%d"}}`+"\n", i)
				fmt.Fprintf(&want, `{"line":%d,"tool":"echo","result":{"content":[{"type":"text","text":"m%d"}]}}`+"\n", i, i)
			}
			in.WriteString(input.String())
			f := NewFactory(ios)
			state := t.TempDir()
			f.Environ = func() []string { return []string{"XDG_STATE_HOME=" + state, "HOME=" + state} }
			code := runWith(context.Background(), f, []string{"call", "--demo", "--batch", "-", "--parallel", parallel})
			if code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", code, errOut)
			}
			if diff := cmp.Diff(want.String(), out.String()); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBatchProgress checks the "N/M done" line on a terminal (M the file's
// count of lines that are not blank, known in advance) and its absence when stderr is piped.
func TestBatchProgress(t *testing.T) {
	dir := t.TempDir()
	input := filepath.Join(dir, "calls.ndjson")
	if err := os.WriteFile(input, []byte(`{"tool":"echo","arguments":{"message":"a"}}`+"\n\n"+`{"tool":"echo","arguments":{"message":"b"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tty := range []bool{true, false} {
		ios, _, out, errOut := Test()
		ios.SetStderrTTY(tty)
		f := NewFactory(ios)
		f.Environ = func() []string { return []string{"XDG_STATE_HOME=" + dir, "HOME=" + dir} }
		if code := runWith(context.Background(), f, []string{"call", "--demo", "--batch", input}); code != 0 {
			t.Fatalf("tty=%v: exit %d; stderr:\n%s", tty, code, errOut)
		}
		if n := strings.Count(out.String(), "\n"); n != 2 {
			t.Errorf("tty=%v: %d result lines, want 2:\n%s", tty, n, out)
		}
		switch {
		case tty && (!strings.Contains(errOut.String(), "\r1/2 done\x1b[K") || !strings.HasSuffix(errOut.String(), "\r\x1b[K")):
			t.Errorf("stderr on a terminal = %q, want the progress line, then cleared", errOut)
		case !tty && errOut.Len() > 0:
			t.Errorf("stderr piped = %q, want nothing", errOut)
		}
	}
}

func TestBatchCountLines(t *testing.T) {
	for input, want := range map[string]int{"": 0, "a": 1, "a\n": 1, "a\n\n  \r\nb": 2, "\n\n": 0, "a\r\nb\r\n": 2} {
		if got := countLines(strings.NewReader(input)); got != want {
			t.Errorf("countLines(%q) = %d, want %d", input, got, want)
		}
	}
}

// TestToolSchemaCompiledOnce: the run's copies of the factory (the shell
// lends its session through one) share one schema cache, so a tool schema
// is compiled once a run; schema.TestCache covers the cache itself.
func TestToolSchemaCompiledOnce(t *testing.T) {
	t.Parallel()
	f := NewFactory(&IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard})
	raw := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)
	first, err := f.toolSchema(raw)
	if err != nil {
		t.Fatal(err)
	}
	shared := f.sharing(nil, f.IOStreams)
	if s, err := shared.toolSchema(append(json.RawMessage(nil), raw...)); err != nil || s != first {
		t.Fatalf("the shell's copy of the factory compiled the schema again (%p, %v; want %p)", s, err, first)
	}
}
