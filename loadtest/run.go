// Package loadtest runs `mcpctl bench`: many requests of one kind (a tool
// call, tools/list or ping) kept in flight at once against a server,
// through the sessions the caller opened (so the tool policy and the audit
// trail apply to each), and reports throughput, latency percentiles from a
// log-linear histogram, and errors by kind. A report can be compared with a
// baseline saved from an earlier run.
package loadtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/policy"
)

// Session is what a load test needs of a server's session; a
// [*session.Session] serves. Its methods must be safe for concurrent use.
type Session interface {
	CallToolWith(ctx context.Context, name string, args json.RawMessage, opts client.CallOptions) (*client.CallToolResult, error)
	ListTools(ctx context.Context) ([]client.Tool, error)
	Ping(ctx context.Context) error
	Done() <-chan struct{}
}

// Target is the request every worker repeats.
type Target struct {
	// Tool is the tool to call; "" means tools/list, or ping with Ping.
	Tool string
	// Args are the tool's arguments, a JSON object.
	Args json.RawMessage
	Ping bool
}

// String names the request as reports do: "tools/call echo", "tools/list"
// or "ping".
func (t Target) String() string {
	switch {
	case t.Tool != "":
		return "tools/call " + t.Tool
	case t.Ping:
		return "ping"
	}
	return "tools/list"
}

// Options configure a [Run].
type Options struct {
	Target Target
	// Sessions are the sessions the workers share: worker i uses
	// Sessions[i % len(Sessions)] (one stdio session for every worker, or
	// one HTTP session each).
	Sessions []Session
	// Concurrency is how many requests are in flight at once.
	Concurrency int
	// Requests, when above zero, is how many requests to make in all;
	// otherwise the run lasts Duration. Requests in flight when the
	// duration ends are waited for and counted.
	Requests int
	Duration time.Duration
	// Warmup requests are made, one after the other over the sessions,
	// before the clock starts, and not counted: the first request of a
	// session pays for what is prepared once (the checks of its result
	// compiled, buffers grown), which is not the server's steady state.
	Warmup int
	// Progress, when set, is called about four times a second with the
	// requests completed and failed so far and the time since the start.
	Progress func(done, failed uint64, elapsed time.Duration)
}

// Result is what a run measured.
type Result struct {
	// Latency holds the successful requests' durations, as the session
	// saw them (mcpctl's own share included: see docs/performance.md).
	Latency Histogram
	// Done counts every completed request, failed ones included.
	Done    uint64
	Failed  uint64
	ByKind  map[string]uint64
	Elapsed time.Duration
}

// ServerGoneError ends a run whose server went away.
type ServerGoneError struct{ After uint64 }

func (e *ServerGoneError) Error() string {
	return fmt.Sprintf("the server went away after %d requests", e.After)
}

// worker is one worker's share of a run, merged at the end.
type worker struct {
	hist   Histogram
	done   uint64
	failed uint64
	kinds  map[string]uint64
}

// Run makes the requests and returns what it measured. A request refused
// by the tool policy stops the run, which returns the refusal; so does a
// session that ends (a [*ServerGoneError]), and ctx ending (its error).
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.Concurrency < 1 || len(o.Sessions) == 0 {
		return nil, errors.New("loadtest: need at least one worker and one session")
	}
	for i := range o.Warmup {
		err := request(ctx, o.Sessions[i%len(o.Sessions)], o.Target)
		if policy.IsRefusal(err) || ctx.Err() != nil {
			return nil, errors.Join(err, ctx.Err())
		}
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		issued, done, failed atomic.Uint64
		wg                   sync.WaitGroup
		workers              = make([]worker, o.Concurrency)
	)
	start := time.Now()
	deadline := start.Add(o.Duration)
	more := func() bool {
		if runCtx.Err() != nil {
			return false
		}
		if o.Requests > 0 {
			return issued.Add(1) <= uint64(o.Requests)
		}
		return time.Now().Before(deadline)
	}
	for i := range workers {
		w := &workers[i]
		w.kinds = map[string]uint64{}
		s := o.Sessions[i%len(o.Sessions)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for more() {
				t0 := time.Now()
				err := request(runCtx, s, o.Target)
				d := time.Since(t0)
				if err != nil && runCtx.Err() != nil {
					return // stopped: this one is not the server's failure
				}
				w.done++
				done.Add(1)
				if err == nil {
					w.hist.Record(d)
					continue
				}
				w.failed++
				failed.Add(1)
				w.kinds[Kind(err)]++
				if policy.IsRefusal(err) {
					cancel(err)
					return
				}
				select {
				case <-s.Done():
					cancel(&ServerGoneError{After: done.Load()})
					return
				default:
				}
			}
		}()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	if o.Progress != nil {
		tick := time.NewTicker(250 * time.Millisecond)
	loop:
		for {
			select {
			case <-finished:
				break loop
			case <-tick.C:
				o.Progress(done.Load(), failed.Load(), time.Since(start))
			}
		}
		tick.Stop()
	}
	<-finished
	r := &Result{Elapsed: time.Since(start), ByKind: map[string]uint64{}}
	for i := range workers {
		w := &workers[i]
		r.Latency.Merge(&w.hist)
		r.Done += w.done
		r.Failed += w.failed
		for k, n := range w.kinds {
			r.ByKind[k] += n
		}
	}
	if err := context.Cause(runCtx); err != nil && !errors.Is(err, context.Canceled) {
		return r, err
	}
	if err := ctx.Err(); err != nil {
		return r, err
	}
	return r, nil
}

// errToolError is a tool result with isError: true, counted as a failure.
var errToolError = errors.New("the tool returned isError: true")

func request(ctx context.Context, s Session, t Target) error {
	switch {
	case t.Tool != "":
		res, err := s.CallToolWith(ctx, t.Tool, t.Args, client.CallOptions{})
		if err == nil && res.IsError {
			return errToolError
		}
		return err
	case t.Ping:
		return s.Ping(ctx)
	}
	_, err := s.ListTools(ctx)
	return err
}
