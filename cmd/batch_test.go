package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/batch"
)

// TestBatchSeverity checks the batch's ranking against this package's exit
// codes, which the batch cannot import: from the mildest to the gravest, as
// batch.Severity documents.
func TestBatchSeverity(t *testing.T) {
	order := []int{ExitOK, ExitToolError, ExitValidation, ExitRPCError, ExitUsage, ExitPolicy, ExitTimeout, 42, ExitError, ExitAuth, ExitSignature, ExitInterrupted}
	for i := 1; i < len(order); i++ {
		if batch.Severity(order[i-1]) >= batch.Severity(order[i]) {
			t.Errorf("batch.Severity(%d) = %d, not below batch.Severity(%d) = %d", order[i-1], batch.Severity(order[i-1]), order[i], batch.Severity(order[i]))
		}
	}
}

// TestBatchExitCodes: a batch's line outcomes carry this package's codes
// for usage errors (2), isError (4) and validation (5), and its verdict
// exits with the most severe.
func TestBatchExitCodes(t *testing.T) {
	t.Parallel()
	ios, in, out, errOut := Test()
	in.WriteString(`{"tool":"nope"}` + "\n" + `{"tool":"fail"}` + "\n" + `{"tool":"add","arguments":{"a":"x","b":1}}` + "\n")
	f := NewFactory(ios)
	state := t.TempDir()
	f.Environ = func() []string { return []string{"XDG_STATE_HOME=" + state, "HOME=" + state} }
	if code := runWith(context.Background(), f, []string{"call", "--demo", "--batch", "-"}); code != ExitUsage {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, ExitUsage, errOut)
	}
	for _, want := range []string{
		`{"line":1,"tool":"nope","error":"the server has no tool \"nope\"`,
		fmt.Sprintf(`"exit":%d}`, ExitUsage),
		fmt.Sprintf(`"isError":true},"exit":%d}`, ExitToolError),
		fmt.Sprintf(`"exit":%d}`, ExitValidation),
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
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
