package argfuzz

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/client"
)

// crashingSession is a server that exits when a is 10 and answers an
// internal error when b is "boom".
type crashingSession struct {
	done  chan struct{}
	calls *int
}

func (s *crashingSession) CallToolWith(_ context.Context, _ string, raw json.RawMessage, _ client.CallOptions) (*client.CallToolResult, error) {
	*s.calls++
	var args map[string]any
	_ = json.Unmarshal(raw, &args)
	if args["a"] == 10.0 {
		close(s.done)
		return nil, io.EOF
	}
	if args["b"] == "boom" {
		return nil, &client.RPCError{Code: codeInternalError, Message: "boom"}
	}
	return &client.CallToolResult{}, nil
}
func (s *crashingSession) Done() <-chan struct{} { return s.done }
func (s *crashingSession) Violations() []string  { return nil }
func (s *crashingSession) Close() error          { return nil }

func TestRunFindsAndMinimisesACrash(t *testing.T) {
	tool := &client.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{
		"a":{"type":"integer","minimum":0,"maximum":10},
		"b":{"type":"string","maxLength":4},
		"c":{"type":"boolean"}},"required":["a"]}`)}
	calls, connects := 0, 0
	rep, err := Run(context.Background(), Options{
		Tool: tool, Seed: 1, MaxCalls: 100, Timeout: time.Second,
		Server: []string{"--", "srv", "it's"},
		Connect: func(context.Context) (Session, error) {
			connects++
			return &crashingSession{done: make(chan struct{}), calls: &calls}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 1 {
		t.Fatalf("findings %+v, want one", rep.Findings)
	}
	f := rep.Findings[0]
	if f.Kind != KindCrash || len(f.Arguments) != 1 || f.Arguments["a"] != 10.0 {
		t.Errorf("finding %s %v, want a crash reduced to a=10", f.Kind, f.Arguments)
	}
	if want := `mcpctl call t a:=10 -- srv 'it'\''s'`; f.Reproduce != want {
		t.Errorf("reproduce = %s, want %s", f.Reproduce, want)
	}
	if rep.Skipped == 0 || f.Occurrences != rep.Skipped+1 {
		t.Errorf("skipped %d, occurrences %d: cases holding a=10 must not be sent again", rep.Skipped, f.Occurrences)
	}
	if connects < 2 {
		t.Errorf("%d connections: a crashed server must be reached again", connects)
	}
}

// TestRunStopsWhenTheServerCannotBeReachedAgain is the HTTP server mcpctl
// did not start: after the crash it refuses connections, and the run ends
// with the finding, a ServerGoneError and the report saying why.
func TestRunStopsWhenTheServerCannotBeReachedAgain(t *testing.T) {
	tool := &client.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{
		"a":{"type":"integer","minimum":0,"maximum":10}},"required":["a"]}`)}
	calls, connects := 0, 0
	rep, err := Run(context.Background(), Options{
		Tool: tool, Seed: 1, MaxCalls: 100, Timeout: time.Second,
		Server: []string{"--url", "http://127.0.0.1:1/mcp"},
		Connect: func(context.Context) (Session, error) {
			connects++
			if connects > 1 {
				return nil, syscall.ECONNREFUSED
			}
			return &crashingSession{done: make(chan struct{}), calls: &calls}, nil
		},
	})
	var gone *ServerGoneError
	if !errors.As(err, &gone) || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("err = %v, want a ServerGoneError wrapping the refusal", err)
	}
	if gone.Calls != calls {
		t.Errorf("stopped after call %d, but %d calls were made", gone.Calls, calls)
	}
	if len(rep.Findings) != 1 || rep.Findings[0].Kind != KindCrash || rep.Findings[0].Arguments["a"] != 10.0 {
		t.Fatalf("findings %+v, want the crash at a=10", rep.Findings)
	}
	if rep.Stopped != gone.Error() {
		t.Errorf("report stopped = %q, want %q", rep.Stopped, gone.Error())
	}
	if connects != 2 {
		t.Errorf("%d connections, want the first and one failed attempt", connects)
	}
}

func TestReproduceQuotesStringsAndMarksInvalid(t *testing.T) {
	tool := &client.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"b":{"type":"string"},"n":{"type":"integer"}}}`)}
	var doc any
	_ = json.Unmarshal(tool.InputSchema, &doc)
	r := &runner{o: Options{Tool: tool, Server: []string{"--demo"}}, gen: newGenerator(doc, 1)}
	got := r.reproduce(&Finding{Kind: KindInternalError, Arguments: map[string]any{"b": "a b", "n": "x", "odd.key": 1.0}})
	for _, want := range []string{`'b=a b'`, `'n:="x"'`, `--args '{"odd.key":1}'`, `--no-validate --allow-unknown`, `--demo`} {
		if !strings.Contains(got, want) {
			t.Errorf("reproduce = %s, want it to hold %s", got, want)
		}
	}
}
