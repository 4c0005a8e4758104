package session

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/mcpctl/mcpctl/schema"
)

// Bounds of the result checks' queue: results waiting to be checked past
// either are not checked, and counted (see [ResultChecks.Wait]).
const (
	maxQueuedResults = 1024
	maxQueuedBytes   = 64 << 20
)

// The kinds of warning [ResultChecks.Warn] reports.
const (
	// KindSchemaViolation: a result breaks the official schema.
	KindSchemaViolation = "schema violation"
	// KindResultCheck: a result could not be checked.
	KindResultCheck = "result check"
)

// ResultChecks validates every result a session receives against the
// official schema of the negotiated revision. A violation is a warning
// naming the JSON pointer and the definition; with Strict the run then
// ends with exit 5 ([ResultChecks.Err]).
//
// Checks run off the client's read loop, on one worker goroutine that
// lives from the first result to [ResultChecks.Wait], so reading never
// waits for them. The queue is bounded: when checks fall behind a fast
// batch, results past the bound are dropped unchecked — never blocking the
// read loop — and the count is reported once when the run ends. One
// ResultChecks may serve many sessions of a run (mcpctl test --parallel).
type ResultChecks struct {
	// Warn reports one warning of a kind ("schema violation", "result
	// check"); the caller limits repeats.
	Warn func(kind, msg string)
	// Redact hides secrets in messages; nil keeps them as they are.
	Redact func(string) string

	checker schema.Checker
	mu      sync.Mutex
	strict  bool
	count   int // violations found
	dropped int // results not checked because the queue was full
	queue   []checkJob
	bytes   int
	running bool           // the worker goroutine is alive
	stop    bool           // the worker ends once queue is empty
	idle    sync.Cond      // on mu: the worker waits for a job or stop
	pending sync.WaitGroup // jobs queued and not yet checked
}

// checkJob is one result to check.
type checkJob struct {
	method, version string
	result          json.RawMessage
}

// SetStrict makes violations fail the run.
func (r *ResultChecks) SetStrict() {
	r.mu.Lock()
	r.strict = true
	r.mu.Unlock()
}

// Prepare compiles, in the background, the definitions most commands
// need, for the revision mcpctl offers, while the server starts.
func (r *ResultChecks) Prepare(version string) {
	go r.checker.Prepare(version, "initialize", "tools/list", "tools/call")
}

// Check queues one result for checking; it is the client's OnResult. It
// runs on the client's read loop, so it only queues; a result too large to
// check is not kept.
func (r *ResultChecks) Check(method, version string, result json.RawMessage) {
	if r.checker.ResultDefinition(version, method) == "" {
		return
	}
	if int64(len(result)) > schema.MaxCheckSize {
		return
	}
	r.mu.Lock()
	if r.idle.L == nil {
		r.idle.L = &r.mu
	}
	if len(r.queue) >= maxQueuedResults || r.bytes+len(result) > maxQueuedBytes {
		r.dropped++
		r.mu.Unlock()
		return
	}
	r.pending.Add(1)
	r.queue = append(r.queue, checkJob{method, version, result})
	r.bytes += len(result)
	r.stop = false
	start := !r.running
	r.running = true
	r.mu.Unlock()
	if start {
		go r.work()
	} else {
		r.idle.Signal()
	}
}

// work checks queued results as they come, until stop is set and the
// queue is empty.
func (r *ResultChecks) work() {
	r.mu.Lock()
	for {
		for len(r.queue) == 0 && !r.stop {
			r.idle.Wait()
		}
		if len(r.queue) == 0 {
			r.running = false
			r.mu.Unlock()
			return
		}
		j := r.queue[0]
		r.queue[0] = checkJob{}
		r.queue = r.queue[1:]
		r.bytes -= len(j.result)
		r.mu.Unlock()
		r.run(j.method, j.version, j.result)
		r.pending.Done()
		r.mu.Lock()
	}
}

// Wait returns when every queued result has been checked, lets the worker
// end (a later result starts another), and reports the results dropped
// unchecked since the last Wait.
func (r *ResultChecks) Wait() {
	if r == nil {
		return
	}
	r.pending.Wait()
	r.mu.Lock()
	r.stop = true
	dropped := r.dropped
	r.dropped = 0
	if r.idle.L == nil {
		r.idle.L = &r.mu
	}
	r.mu.Unlock()
	r.idle.Signal()
	if dropped > 0 {
		r.warn(KindResultCheck, fmt.Sprintf("mcpctl: warning: %d results were not checked against the official schema: the checks fell behind (at most %d results wait to be checked)", dropped, maxQueuedResults))
	}
}

func (r *ResultChecks) warn(kind, msg string) {
	if r.Redact != nil {
		msg = r.Redact(msg)
	}
	if r.Warn != nil {
		r.Warn(kind, msg)
	}
}

// run checks one result and reports its violations.
func (r *ResultChecks) run(method, version string, result json.RawMessage) {
	vs, err := r.checker.CheckResult(version, method, result)
	if err != nil {
		// Too large to check, or not JSON (the client reports that itself).
		if _, tooLarge := err.(*schema.TooLargeError); !tooLarge {
			r.warn(KindResultCheck, fmt.Sprintf("mcpctl: warning: %s result not checked against the official schema: %v", method, err))
		}
		return
	}
	if len(vs) == 0 {
		return
	}
	r.mu.Lock()
	r.count += len(vs)
	r.mu.Unlock()
	for _, v := range vs {
		r.warn(KindSchemaViolation, fmt.Sprintf("mcpctl: warning: %s result breaks the official %s schema: %s", method, version, v.String()))
	}
}

// StrictError is the verdict of a strict run whose results broke the
// official schema.
type StrictError struct{ Violations int }

func (e *StrictError) Error() string {
	noun := "violation"
	if e.Violations > 1 {
		noun += "s"
	}
	return fmt.Sprintf("--strict: %d %s of the official schema in the server's results (see the warnings above)", e.Violations, noun)
}

// Err is the run's verdict: with strict checks, any violation fails it
// with a [*StrictError].
func (r *ResultChecks) Err() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.strict || r.count == 0 {
		return nil
	}
	return &StrictError{Violations: r.count}
}
