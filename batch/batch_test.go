package batch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/internal/demo"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/transport"
)

type transportFunc func(context.Context) (transport.Connection, error)

func (f transportFunc) Connect(ctx context.Context) (transport.Connection, error) { return f(ctx) }

// connectDemo connects a client to the demo server, in process.
func connectDemo(t *testing.T) *client.Client {
	t.Helper()
	clientEnd, serverEnd := transport.NewPipe()
	served := make(chan error, 1)
	go func() { served <- demo.Serve(context.Background(), serverEnd) }()
	c, err := client.Connect(t.Context(), transportFunc(func(context.Context) (transport.Connection, error) { return clientEnd, nil }),
		client.Options{ClientInfo: client.Implementation{Name: "batch-test", Version: "0"}})
	if err != nil {
		t.Fatalf("connecting to the demo server: %v", err)
	}
	t.Cleanup(func() {
		c.Close()
		clientEnd.Close()
		if err := <-served; err != nil {
			t.Errorf("demo.Serve: %v", err)
		}
	})
	return c
}

// exitCode stands in for the command's mapping of errors to exit codes:
// the batch's own codes, and 1 for anything else.
func exitCode(err error) int {
	var ce *ExitCodeError
	if errors.As(err, &ce) {
		return ce.Code
	}
	return exitError
}

// testOptions are the options of a batch over input, its checks made with
// the schema package as the command makes them.
func testOptions(input string, out *bytes.Buffer) Options {
	return Options{
		In: strings.NewReader(input), Out: out, Parallel: 1, Server: "the demo server",
		CheckArguments: func(t *client.Tool) func(map[string]any) error {
			sch, err := schema.Compile(t.InputSchema)
			if err != nil {
				panic(err)
			}
			return func(args map[string]any) error {
				if vs := sch.Validate(args); len(vs) > 0 {
					return &ExitCodeError{Code: exitValidation, Err: fmt.Errorf("bad arguments:\n  %s", vs[0])}
				}
				return nil
			}
		},
		ExitCode: exitCode,
	}
}

// TestRunOrder runs a batch against the demo server, slow calls first, and
// checks the output keeps the input's order.
func TestRunOrder(t *testing.T) {
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
	for _, parallel := range []int{1, 3, 16} {
		t.Run(fmt.Sprint("parallel=", parallel), func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			opts := testOptions(input.String(), &out)
			opts.Parallel = parallel
			if err := Run(t.Context(), connectDemo(t), opts); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want.String(), out.String()); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRunOutcomes: each line's outcome and the verdict, the most severe
// code met, sequential and parallel alike.
func TestRunOutcomes(t *testing.T) {
	input := `{"tool":"echo","arguments":{"message":"ok"}}
not json

{"tool":"nope"}
{"tool":"add","arguments":{"a":"x","b":1}}
{"tool":"fail","arguments":{"reason":"on purpose"}}
` + strings.Repeat("x", 300) + `
{"tool":"echo","arguments":{"message":"last"}}
`
	want := `{"line":1,"tool":"echo","result":{"content":[{"type":"text","text":"ok"}]}}
{"line":2,"error":"the line is not a JSON object {\"tool\": NAME, \"arguments\": {...}}: invalid character 'o' in literal null (expecting 'u')","exit":2}
{"line":4,"tool":"nope","error":"the server has no tool \"nope\"","exit":2}
{"line":5,"tool":"add","error":"bad arguments: /a: must be a number, got string \"x\"","exit":5}
{"line":6,"tool":"fail","result":{"content":[{"type":"text","text":"on purpose"}],"isError":true},"exit":4}
{"line":7,"error":"batch line larger than the 256 bytes message size limit (raise it with --max-message-size)","exit":2}
{"line":8,"tool":"echo","result":{"content":[{"type":"text","text":"last"}]}}
`
	for _, parallel := range []int{1, 4} {
		t.Run(fmt.Sprint("parallel=", parallel), func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			opts := testOptions(input, &out)
			opts.Parallel = parallel
			opts.MaxLineSize = 256
			err := Run(t.Context(), connectDemo(t), opts)
			if diff := cmp.Diff(want, out.String()); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
			var ce *ExitCodeError
			if !errors.As(err, &ce) || ce.Code != exitUsage {
				t.Fatalf("Run = %v, want an exit 2 verdict", err)
			}
			if got, want := err.Error(), "batch: 5 of 7 lines failed (3 with exit 2, 1 with exit 5, 1 with exit 4); the exit code is the most severe, 2"; got != want {
				t.Errorf("verdict %q, want %q", got, want)
			}
		})
	}
}

// cancelling is a session that cancels the run when a call of tool
// starts, as Ctrl-C during that call would.
type cancelling struct {
	*client.Client
	tool   string
	cancel context.CancelFunc
}

func (s *cancelling) CallToolWith(ctx context.Context, name string, args json.RawMessage, opts client.CallOptions) (*client.CallToolResult, error) {
	if name == s.tool {
		s.cancel()
	}
	return s.Client.CallToolWith(ctx, name, args, opts)
}

// TestRunCancelled: cancelling stops the batch; what finished is printed,
// the calls in flight are cancelled and the error names the first line
// that did not finish.
func TestRunCancelled(t *testing.T) {
	const (
		echo  = `{"tool":"echo","arguments":{"message":"a"}}` + "\n"
		sleep = `{"tool":"sleep","arguments":{"ms":600000}}` + "\n"
	)
	tests := []struct {
		parallel   int
		input      string
		msg, lines string
	}{
		{1, echo + sleep + echo, "the batch stopped after 1 result (line 2 and later did not finish)",
			`{"line":1,"tool":"echo","result":{"content":[{"type":"text","text":"a"}]}}` + "\n"},
		{2, sleep + sleep + echo, "the batch stopped after 0 results (line 1 and later did not finish)", ""},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint("parallel=", tt.parallel), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var out bytes.Buffer
			opts := testOptions(tt.input, &out)
			opts.Parallel = tt.parallel
			err := Run(ctx, &cancelling{Client: connectDemo(t), tool: "sleep", cancel: cancel}, opts)
			if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), tt.msg+":") {
				t.Errorf("Run = %v, want %q", err, tt.msg)
			}
			if out.String() != tt.lines {
				t.Errorf("output %q, want %q", out.String(), tt.lines)
			}
		})
	}
}

// recordingProgress records what a Progress is told.
type recordingProgress struct {
	calls []string
}

func (p *recordingProgress) Printed(done, total int) {
	p.calls = append(p.calls, fmt.Sprintf("%d/%d", done, total))
}
func (p *recordingProgress) Clear() { p.calls = append(p.calls, "clear") }

func TestRunProgress(t *testing.T) {
	var out bytes.Buffer
	p := &recordingProgress{}
	opts := testOptions(`{"tool":"echo","arguments":{"message":"a"}}`+"\n\n"+`{"tool":"echo","arguments":{"message":"b"}}`+"\n", &out)
	opts.Progress, opts.Total = p, 2
	if err := Run(t.Context(), connectDemo(t), opts); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"1/2", "2/2", "clear"}, p.calls); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
}

func TestSeverity(t *testing.T) {
	// From the mildest to the gravest, as Severity documents.
	order := []int{exitOK, exitToolError, exitValidation, exitRPCError, exitUsage, exitPolicy, exitTimeout, 42, exitError, exitAuth, exitSignature, exitInterrupted}
	for i := 1; i < len(order); i++ {
		if Severity(order[i-1]) >= Severity(order[i]) {
			t.Errorf("Severity(%d) = %d, not below Severity(%d) = %d", order[i-1], Severity(order[i-1]), order[i], Severity(order[i]))
		}
	}
}

func TestVerdict(t *testing.T) {
	tests := []struct {
		codes map[int]int
		want  int
		msg   string
	}{
		{map[int]int{exitOK: 3}, exitOK, ""},
		{map[int]int{exitOK: 1, exitToolError: 2}, exitToolError, "batch: 2 of 3 lines failed (2 with exit 4); the exit code is the most severe, 4"},
		{map[int]int{exitToolError: 1, exitRPCError: 1, exitValidation: 1}, exitRPCError, "batch: 3 of 3 lines failed (1 with exit 3, 1 with exit 5, 1 with exit 4); the exit code is the most severe, 3"},
		{map[int]int{exitError: 1, exitUsage: 5}, exitError, "batch: 6 of 6 lines failed (1 with exit 1, 5 with exit 2); the exit code is the most severe, 1"},
		{map[int]int{exitToolError: 1}, exitToolError, "batch: 1 of 1 line failed (1 with exit 4); the exit code is the most severe, 4"},
	}
	for _, tt := range tests {
		r := &run{codes: tt.codes}
		for _, n := range tt.codes {
			r.lines += n
		}
		err := r.verdict()
		if tt.want == exitOK {
			if err != nil {
				t.Errorf("%v: verdict %v, want nil", tt.codes, err)
			}
			continue
		}
		var ce *ExitCodeError
		if !errors.As(err, &ce) || ce.Code != tt.want {
			t.Errorf("%v: verdict %v, want exit %d", tt.codes, err, tt.want)
			continue
		}
		if err.Error() != tt.msg {
			t.Errorf("%v: message %q, want %q", tt.codes, err.Error(), tt.msg)
		}
	}
}
