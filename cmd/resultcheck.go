package cmd

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/mcpctl/mcpctl/schema"
)

// resultChecks validates every result a command receives against the
// official schema of the negotiated revision (the client calls check for
// each one). A violation is a warning naming the JSON pointer and the
// definition; with --strict the run then ends with exit 5.
//
// Checking costs milliseconds the first time a definition is compiled, so
// it is done off the read loop, by one goroutine, while the command goes on;
// [resultChecks.wait] waits for it before the run ends. [resultChecks.prepare]
// compiles the usual definitions while the server starts.
//
// The goroutine lives from the first result to wait, idle in between: a
// goroutine started for each result would grow its stack from the minimum
// again every time (validating nests deeply), which cost about 7% of
// mcpctl's CPU time in a batch of small calls.
type resultChecks struct {
	f      *Factory
	strict bool

	checker schema.Checker
	mu      sync.Mutex
	count   int // violations found
	methods map[string]bool
	queue   []checkJob
	running bool           // the worker goroutine is alive
	stop    bool           // the worker ends once queue is empty
	idle    sync.Cond      // on mu: the worker waits for a job or stop
	pending sync.WaitGroup // jobs queued and not yet checked

	// failed is a failure beside the command's own work, already told on
	// stderr: an audit record that was not written (audit.go). It ends a
	// run that nothing else failed with exit 1.
	failed error
}

// fail records a failure found beside the command's work; the first is
// kept.
func (r *resultChecks) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failed == nil {
		r.failed = err
	}
}

// checkJob is one result to check.
type checkJob struct {
	method, version string
	result          json.RawMessage
}

// resultChecks returns the run's result checker, built on first use.
func (f *Factory) resultChecks(strict bool) *resultChecks {
	st := f.state()
	st.mu.Lock()
	if st.results == nil {
		st.results = &resultChecks{f: f}
		st.results.idle.L = &st.results.mu
	}
	r := st.results
	st.mu.Unlock()
	r.mu.Lock()
	r.strict = r.strict || strict
	r.mu.Unlock()
	return r
}

// prepare compiles, in the background, the definitions most commands need,
// for the revision mcpctl offers: what it costs overlaps with the server
// starting and answering.
func (r *resultChecks) prepare(version string) {
	go r.checker.Prepare(version, "initialize", "tools/list", "tools/call")
}

// check queues one result for checking. It runs on the client's read loop,
// so it only queues; a result too large to check is not kept.
func (r *resultChecks) check(method, version string, result json.RawMessage) {
	if r.checker.ResultDefinition(version, method) == "" {
		return
	}
	if int64(len(result)) > schema.MaxCheckSize {
		return
	}
	r.pending.Add(1)
	r.mu.Lock()
	r.queue = append(r.queue, checkJob{method, version, result})
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
func (r *resultChecks) work() {
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
		r.mu.Unlock()
		r.run(j.method, j.version, j.result)
		r.pending.Done()
		r.mu.Lock()
	}
}

// wait returns when every queued result has been checked, and lets the
// worker goroutine end; a later result starts another.
func (r *resultChecks) wait() {
	if r == nil {
		return
	}
	r.pending.Wait()
	r.mu.Lock()
	r.stop = true
	r.mu.Unlock()
	r.idle.Signal()
}

// run checks one result and reports its violations.
func (r *resultChecks) run(method, version string, result json.RawMessage) {
	vs, err := r.checker.CheckResult(version, method, result)
	w := r.f.Warner()
	red := r.f.Redactor()
	if err != nil {
		// Too large to check, or not JSON (the client reports that itself).
		if _, tooLarge := err.(*schema.TooLargeError); !tooLarge {
			w.Warn("result check", red.String(fmt.Sprintf("mcpctl: warning: %s result not checked against the official schema: %v", method, err)))
		}
		return
	}
	if len(vs) == 0 {
		return
	}
	r.mu.Lock()
	r.count += len(vs)
	if r.methods == nil {
		r.methods = map[string]bool{}
	}
	r.methods[method] = true
	r.mu.Unlock()
	for _, v := range vs {
		w.Warn("schema violation", red.String(fmt.Sprintf("mcpctl: warning: %s result breaks the official %s schema: %s", method, version, v.String())))
	}
}

// err is the run's verdict: a failure recorded with fail ends it with exit
// 1; with --strict, any violation fails it.
func (r *resultChecks) err() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failed != nil {
		return &ExitCodeError{Code: ExitError}
	}
	if !r.strict || r.count == 0 {
		return nil
	}
	noun := "violation"
	if r.count > 1 {
		noun += "s"
	}
	return &ExitCodeError{Code: ExitValidation, Msg: fmt.Sprintf("--strict: %d %s of the official schema in the server's results (see the warnings above)", r.count, noun)}
}
