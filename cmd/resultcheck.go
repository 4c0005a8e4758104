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
type resultChecks struct {
	f      *Factory
	strict bool

	checker schema.Checker
	mu      sync.Mutex
	count   int // violations found
	methods map[string]bool
}

// resultChecks returns the run's result checker, built on first use.
func (f *Factory) resultChecks(strict bool) *resultChecks {
	st := f.state()
	if st.results == nil {
		st.results = &resultChecks{f: f}
	}
	st.results.strict = st.results.strict || strict
	return st.results
}

// check validates one result. It runs on the client's read loop: it only
// computes and prints.
func (r *resultChecks) check(method, version string, result json.RawMessage) {
	if schema.ResultDefinition(version, method) == "" {
		return
	}
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

// err is the run's verdict: with --strict, any violation fails it.
func (r *resultChecks) err() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.strict || r.count == 0 {
		return nil
	}
	noun := "violation"
	if r.count > 1 {
		noun += "s"
	}
	return &ExitCodeError{Code: ExitValidation, Msg: fmt.Sprintf("--strict: %d %s of the official schema in the server's results (see the warnings above)", r.count, noun)}
}
