// Package argfuzz runs `mcpctl fuzz`: it calls one tool many times with
// arguments generated from its inputSchema — valid ones spread over the
// schema's space, invalid ones at its edges — from a seed that reproduces
// the run, and reports what a well-behaved server never does: exit, miss
// the timeout, answer a JSON-RPC internal error where an isError result
// was due, or return a result that breaks the tool's outputSchema or the
// official schema. Each finding is minimised to the smallest arguments
// that still fail the same way and printed as the `mcpctl call` line that
// reproduces it.
//
// Every call goes through the sessions the caller opens, so the tool
// policy and the audit trail apply to each.
package argfuzz

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"sort"
	"time"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/policy"
	"github.com/mcpctl/mcpctl/session"
)

// Session is what fuzzing needs of a server's session.
type Session interface {
	CallToolWith(ctx context.Context, name string, args json.RawMessage, opts client.CallOptions) (*client.CallToolResult, error)
	// Done is closed when the session has ended (a stdio server exited).
	Done() <-chan struct{}
	// Violations returns the protocol violations seen since it was last
	// called (results breaking the official schema among them), once the
	// checks of the results received so far are done.
	Violations() []string
	Close() error
}

// The kinds of findings.
const (
	KindCrash         = "crash"
	KindTimeout       = "timeout"
	KindInternalError = "internal-error"
	KindOutputSchema  = "output-schema"
	KindProtocol      = "protocol"
)

// codeInternalError is JSON-RPC's "Internal error".
const codeInternalError = -32603

// Options configure a [Run].
type Options struct {
	Tool *client.Tool
	// Connect opens a session to the server: at the start, and again after
	// the server exited or a call timed out.
	Connect func(ctx context.Context) (Session, error)
	Seed    uint64
	// MaxCalls bounds the cases generated; Duration, when set, bounds the
	// run's time as well.
	MaxCalls int
	Duration time.Duration
	// Timeout is the time a call may take, to name in a finding's
	// reproduction (the sessions apply it).
	Timeout time.Duration
	// MaxShrinkCalls bounds the calls spent minimising one finding.
	MaxShrinkCalls int
	// Valid reports whether arguments satisfy the inputSchema (the same
	// check `mcpctl call` makes before sending).
	Valid func(args map[string]any) bool
	// Server are the words of the server selection, for reproductions:
	// ["--", "cmd", "arg"], ["--url", "URL"], ["-s", "NAME"].
	Server []string
	// Progress, when set, is called after each case.
	Progress func(calls, findings int)
}

// Finding is one way the server failed, minimised.
type Finding struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	// Arguments are the smallest arguments found that fail this way;
	// Original are the generated ones that first did.
	Arguments map[string]any `json:"arguments"`
	Original  map[string]any `json:"original"`
	// Valid says Arguments satisfy the inputSchema.
	Valid bool `json:"valid"`
	// Reproduce is the `mcpctl call` line that reproduces it.
	Reproduce string `json:"reproduce"`
	// Occurrences counts the generated cases that failed this way,
	// including those not sent because they held Arguments.
	Occurrences int `json:"occurrences"`
}

// Report is a run's outcome.
type Report struct {
	Tool    string `json:"tool"`
	Seed    uint64 `json:"seed"`
	Calls   int    `json:"calls"`
	Valid   int    `json:"valid"`
	Invalid int    `json:"invalid"`
	// Skipped counts generated cases not sent because they held the
	// arguments of a finding already minimised (they would fail the same
	// way, a crash or a timeout at a cost).
	Skipped  int        `json:"skipped"`
	Seconds  float64    `json:"seconds"`
	Findings []*Finding `json:"findings"`
	// Stopped says why the run ended before its last case, when the
	// server could not be reached again; empty when it ran to the end.
	Stopped  string        `json:"stopped,omitempty"`
	Duration time.Duration `json:"-"`
}

// ServerGoneError is why a run stopped when the server could not be
// reached again after a crash or a timeout: a server mcpctl did not start
// (an HTTP one) cannot be restarted, so the run ends with what it found.
type ServerGoneError struct {
	// Calls is how many calls had been made when the run stopped.
	Calls int
	Err   error
}

func (e *ServerGoneError) Error() string {
	return fmt.Sprintf("the server stopped answering after call %d, so fuzzing stopped (reconnecting: %v)", e.Calls, e.Err)
}

func (e *ServerGoneError) Unwrap() error { return e.Err }

// outcome is what one call came to: kind "" is a pass.
type outcome struct {
	kind, message string
}

// runner holds a run's state.
type runner struct {
	o   Options
	s   Session
	gen *generator
	// calls counts the calls sent, shrinking's among them.
	calls int
}

// Run fuzzes the tool. It returns the report, and an error when the run
// could not go on: the tool policy refused a call, the server could not be
// reached again (a [*ServerGoneError]), or ctx ended (the report then holds
// what was found).
func Run(ctx context.Context, o Options) (rep *Report, err error) {
	var schema any
	if len(o.Tool.InputSchema) > 0 {
		if err := json.Unmarshal(o.Tool.InputSchema, &schema); err != nil {
			return nil, fmt.Errorf("the inputSchema of tool %q is not JSON: %w", o.Tool.Name, err)
		}
	}
	if o.MaxShrinkCalls <= 0 {
		o.MaxShrinkCalls = 64
	}
	r := &runner{o: o, gen: newGenerator(schema, o.Seed)}
	rep = &Report{Tool: o.Tool.Name, Seed: o.Seed, Findings: []*Finding{}}
	start := time.Now()
	defer func() {
		rep.Duration = time.Since(start)
		rep.Seconds = rep.Duration.Seconds()
		if gone := (*ServerGoneError)(nil); errors.As(err, &gone) {
			rep.Stopped = gone.Error()
		}
		if r.s != nil {
			_ = r.s.Close()
		}
	}()
	var deadline time.Time
	if o.Duration > 0 {
		deadline = start.Add(o.Duration)
	}
	for i := 0; i < o.MaxCalls; i++ {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		if !deadline.IsZero() && time.Now().After(deadline) {
			break
		}
		var args map[string]any
		if i%3 == 2 {
			args = r.gen.invalidArguments()
		} else {
			args = r.gen.arguments()
		}
		valid := o.Valid == nil || o.Valid(args)
		if valid {
			rep.Valid++
		} else {
			rep.Invalid++
		}
		if f := known(rep.Findings, args); f != nil {
			f.Occurrences++
			rep.Skipped++
			continue
		}
		rep.Calls++
		out, err := r.call(ctx, args)
		if err != nil {
			return rep, err
		}
		if out.kind != "" {
			f, err := r.shrink(ctx, args, out)
			rep.Findings = append(rep.Findings, f)
			if err != nil {
				return rep, err
			}
		}
		if o.Progress != nil {
			o.Progress(rep.Calls, len(rep.Findings))
		}
	}
	return rep, nil
}

// known returns the finding whose minimised arguments args holds, nil
// when none.
func known(findings []*Finding, args map[string]any) *Finding {
	for _, f := range findings {
		if holds(args, f.Arguments) {
			return f
		}
	}
	return nil
}

// holds reports whether args has every argument of sub, equal.
func holds(args, sub map[string]any) bool {
	for k, v := range sub {
		w, ok := args[k]
		if !ok || !reflect.DeepEqual(v, w) {
			return false
		}
	}
	return true
}

// call makes one call and judges it. The error is one that stops the run:
// a policy refusal, a server that cannot be reached again, ctx done.
func (r *runner) call(ctx context.Context, args map[string]any) (outcome, error) {
	if r.s == nil {
		s, err := r.o.Connect(ctx)
		if err != nil {
			return outcome{}, &ServerGoneError{Calls: r.calls, Err: err}
		}
		r.s = s
	}
	r.calls++
	raw, err := json.Marshal(args)
	if err != nil {
		return outcome{}, err
	}
	res, err := r.s.CallToolWith(ctx, r.o.Tool.Name, raw, client.CallOptions{})
	if ctx.Err() != nil {
		return outcome{}, ctx.Err()
	}
	if policy.IsRefusal(err) {
		return outcome{}, err
	}
	out := r.judge(res, err)
	switch out.kind {
	case KindCrash, KindTimeout:
		// A fresh session for the next call: the server is gone, or may
		// still be busy with the call that timed out.
		_ = r.s.Close()
		r.s = nil
	default:
		if v := r.s.Violations(); out.kind == "" && len(v) > 0 {
			out = outcome{KindProtocol, v[0]}
		}
	}
	return out, nil
}

// judge classifies a call's outcome.
func (r *runner) judge(res *client.CallToolResult, err error) outcome {
	if err == nil {
		return outcome{}
	}
	var rpc *client.RPCError
	switch {
	case errors.As(err, &rpc):
		if rpc.Code == codeInternalError {
			return outcome{KindInternalError, fmt.Sprintf("a JSON-RPC internal error where an isError result was due: %v", err)}
		}
		return outcome{} // invalid params and the like: a fair answer
	case errors.As(err, new(*client.TimeoutError)):
		return outcome{KindTimeout, fmt.Sprintf("no answer within %s", r.o.Timeout)}
	case errors.As(err, new(*session.OutputError)):
		return outcome{KindOutputSchema, err.Error()}
	}
	select {
	case <-r.s.Done():
		return outcome{KindCrash, fmt.Sprintf("the server exited: %v", err)}
	default:
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, os.ErrClosed) {
		// A server mcpctl did not start (over HTTP) is seen only through
		// its connection, which cannot tell an exit from a dropped socket.
		return outcome{KindCrash, fmt.Sprintf("the server dropped the connection (it may have exited): %v", err)}
	}
	return outcome{KindCrash, fmt.Sprintf("the connection failed: %v", err)}
}

// shrink minimises args while the call keeps failing with out's kind:
// it drops arguments one by one, then simplifies the values left, until
// neither changes anything or the budget of calls is spent. On an error
// that stops the run (the server cannot be reached again) the finding is
// returned as far as it was minimised.
func (r *runner) shrink(ctx context.Context, args map[string]any, out outcome) (*Finding, error) {
	cur := clone(args)
	done := func() *Finding {
		f := &Finding{Kind: out.kind, Message: out.message, Arguments: cur, Original: args, Occurrences: 1}
		f.Valid = r.o.Valid == nil || r.o.Valid(cur)
		f.Reproduce = r.reproduce(f)
		return f
	}
	budget := r.o.MaxShrinkCalls
	fails := func(cand map[string]any) (bool, error) {
		budget--
		o, err := r.call(ctx, cand)
		return o.kind == out.kind, err
	}
	for changed := true; changed && budget > 0; {
		changed = false
		for _, k := range keys(cur) {
			if budget <= 0 {
				break
			}
			cand := clone(cur)
			delete(cand, k)
			ok, err := fails(cand)
			if err != nil {
				return done(), err // as far as it got
			}
			if ok {
				cur, changed = cand, true
			}
		}
		for _, k := range keys(cur) {
			for _, v := range simpler(cur[k]) {
				if budget <= 0 {
					break
				}
				cand := clone(cur)
				cand[k] = v
				ok, err := fails(cand)
				if err != nil {
					return done(), err
				}
				if ok {
					cur, changed = cand, true
					break
				}
			}
		}
	}
	return done(), nil
}

// simpler returns simpler values than v to try in its place, simplest
// first.
func simpler(v any) []any {
	switch x := v.(type) {
	case string:
		var out []any
		if x != "" {
			out = append(out, "")
		}
		if r := []rune(x); len(r) > 1 {
			out = append(out, string(r[:len(r)/2]))
		}
		return out
	case float64:
		var out []any
		if x != 0 {
			out = append(out, 0.0)
		}
		if t := float64(int64(x / 2)); t != x && t != 0 {
			out = append(out, t)
		}
		return out
	case bool:
		if x {
			return []any{false}
		}
	case []any:
		var out []any
		if len(x) > 0 {
			out = append(out, []any{})
		}
		if len(x) > 1 {
			out = append(out, append([]any(nil), x[:len(x)/2]...))
		}
		return out
	case map[string]any:
		var out []any
		if len(x) > 0 {
			out = append(out, map[string]any{})
		}
		for _, k := range keys(x) {
			c := clone(x)
			delete(c, k)
			out = append(out, c)
		}
		return out
	}
	return nil
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// clone copies m deeply enough for shrinking: nested maps are copied when
// changed, not shared.
func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if n, ok := v.(map[string]any); ok {
			v = clone(n)
		}
		out[k] = v
	}
	return out
}
