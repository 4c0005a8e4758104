// Package batch runs the calls of `mcpctl call --batch`: an NDJSON input,
// one {"tool": NAME, "arguments": {...}} a line, made in one session, each
// outcome printed as one JSON line in input order:
//
//	{"line": N, "tool": NAME, "result": <CallToolResult>}
//	{"line": N, "tool": NAME, "error": "one line", "exit": CODE}
//
// A result that is not a success carries "exit" too (4 for isError, 5 with
// an "error" for a structuredContent that breaks the outputSchema). A line
// that cannot be used (not JSON, no tool, an unknown tool, arguments that
// break the inputSchema) is an error for that line, and the batch goes on.
// Blank lines are skipped (they still count in the line numbers).
//
// The run ends with the most severe exit code met (see [Severity]), as an
// [*ExitCodeError]. On cancellation reading stops, the calls in flight are
// cancelled, the results that came before are printed, and [Run] returns
// an error wrapping the context's cause.
//
// The package talks to the server through [Session] and leaves what
// belongs to the command (schema checks, signing, the mapping of errors to
// exit codes) to functions in [Options].
package batch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/transport"
)

// MaxParallel bounds [Options.Parallel]: more calls at once than this would
// only queue in the server.
const MaxParallel = 256

// LineForm is the form of a batch line, quoted by errors about one.
const LineForm = `{"tool": NAME, "arguments": {...}}`

// windowFactor sets the reorder window of Parallel N: at most
// N×windowFactor calls are started ahead of the oldest one not yet
// printed, so at most that many results wait in memory for their turn.
const windowFactor = 4

// readAhead is how many input lines the reader may hold ahead of the calls.
const readAhead = 64

// Session is what a batch needs of the server's session. The methods have
// the signatures of [*client.Client]'s of the same names, so the client or
// any session wrapping it serves.
type Session interface {
	ListTools(ctx context.Context) ([]client.Tool, error)
	PlanTask(tool *client.Tool, mode client.TaskMode) (bool, error)
	CallToolWith(ctx context.Context, name string, args json.RawMessage, opts client.CallOptions) (*client.CallToolResult, error)
	CallToolTask(ctx context.Context, name string, args json.RawMessage, opts client.CallOptions, topts client.TaskOptions) (*client.CallToolResult, error)
}

// Progress is told of the batch's advance, for a progress line.
type Progress interface {
	// Printed is called after each result line with the number printed so
	// far and the number expected: the input's calls when known in
	// advance, else the lines read so far (never below done).
	Printed(done, total int)
	// Clear is called once when the run ends.
	Clear()
}

// Options configure a [Run].
type Options struct {
	// In is the NDJSON input. Total is its number of calls when known in
	// advance (see [CountLines]), else 0; it only feeds Progress.
	In    io.Reader
	Total int
	// Out receives the result lines. With OutTTY each line is flushed as
	// it is written; otherwise lines are buffered and flushed soon after.
	Out    io.Writer
	OutTTY bool
	// Progress, when set, is told of each result printed.
	Progress Progress
	// Parallel is how many calls run at once, 1 to [MaxParallel]; the
	// output keeps the input's order either way.
	Parallel int
	// MaxLineSize bounds a line, as the limit of one message bounds it;
	// <= 0 means [transport.DefaultMaxMessageSize].
	MaxLineSize int64
	// Server names the server in error messages.
	Server string
	// Task asks tools whose taskSupport is "optional" to run as tasks.
	Task bool

	// CheckArguments returns the check of a tool's arguments against its
	// inputSchema, called once per tool. When nil the arguments are sent
	// as given, not even decoded.
	CheckArguments func(tool *client.Tool) func(args map[string]any) error
	// Shown reports whether a result that came with err is still printed
	// (with err's exit code): the session's pipeline returns a result with
	// the error of a check it failed after it arrived (its outputSchema, a
	// lost audit record), but not one whose signature failed. Nil shows
	// none.
	Shown func(err error) bool
	// UnknownTool builds the error of a line naming a tool the server
	// does not list; nil gives a plain one.
	UnknownTool func(name string, tools []client.Tool) error
	// ExitCode maps an error met by a line to its exit code, an
	// [*ExitCodeError] to its Code. Required.
	ExitCode func(error) int
	// Redact, when set, removes secrets from error messages before they
	// are printed.
	Redact func(string) string
}

// ExitCodeError is an outcome whose exit code the batch itself decides:
// the verdict of a run in which some line failed (Err then names how many
// failed with which code), or a line that cannot be used (exit 2).
type ExitCodeError struct {
	Code int
	Err  error
}

func (e *ExitCodeError) Error() string { return e.Err.Error() }
func (e *ExitCodeError) Unwrap() error { return e.Err }

// usageError marks a line that cannot be used as it stands.
func usageError(format string, args ...any) error {
	return &ExitCodeError{Code: exitUsage, Err: fmt.Errorf(format, args...)}
}

// The exit codes the batch names, from the contract in ARCHITECTURE.md
// (cmd/errors.go holds the table; cmd's tests check these against it).
const (
	exitOK          = 0
	exitError       = 1
	exitUsage       = 2
	exitRPCError    = 3
	exitToolError   = 4
	exitValidation  = 5
	exitSignature   = 6
	exitTimeout     = 7
	exitAuth        = 8
	exitPolicy      = 9
	exitInterrupted = 130
)

// Run makes the calls of opts.In in session s and prints their outcomes to
// opts.Out. It returns nil when every line succeeded, an [*ExitCodeError]
// with the most severe code met when some failed, and any other error when
// the batch could not go on (listing the tools, reading the input, writing
// the output, or ctx done).
//
// Memory stays bounded: results are written as they come; with Parallel N
// at most N×4 wait for an earlier one to be printed.
func Run(ctx context.Context, s Session, opts Options) error {
	tools, err := s.ListTools(ctx)
	if err != nil {
		return fmt.Errorf("listing the tools of %s for the batch: %w", opts.Server, err)
	}
	r := &run{
		s: s, opts: &opts,
		tools:    make(map[string]*client.Tool, len(tools)),
		prepared: map[string]*tool{},
		out:      newWriter(opts.Out, opts.OutTTY),
		codes:    map[int]int{},
	}
	for i := range tools {
		r.tools[tools[i].Name] = &tools[i]
	}
	lines := make(chan line, readAhead)
	readCtx, stopReading := context.WithCancel(ctx)
	defer stopReading()
	// The reader also prepares each line (decodes and checks its
	// arguments), so that work overlaps the call before it instead of
	// waiting for it: prepare runs on the reader's goroutine only.
	go readLines(readCtx, transport.NewLineReader(opts.In, opts.MaxLineSize, "batch line"), lines, &r.read, r.prepare)

	if opts.Parallel > 1 {
		err = r.runParallel(ctx, lines)
	} else {
		err = r.runSequential(ctx, lines)
	}
	stopReading()
	if ferr := r.out.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("writing the results: %w", ferr)
	}
	if opts.Progress != nil {
		opts.Progress.Clear()
	}
	if err != nil {
		return err
	}
	return r.verdict()
}

// run is one run of a batch.
type run struct {
	s        Session
	opts     *Options
	tools    map[string]*client.Tool
	prepared map[string]*tool // by tool name, built on first use
	out      *writer
	read     atomic.Int64 // lines read, for progress

	// Written by emit only (one goroutine at a time).
	codes   map[int]int // exit code → lines that ended with it
	lines   int         // results printed
	pending int         // the first line that did not finish, after an interruption
}

// tool is what the calls of one tool share: the tool, its compiled checks
// and whether it runs as a task.
type tool struct {
	tool      *client.Tool
	checkArgs func(map[string]any) error
	asTask    bool
	planErr   error
}

// job is one line of the batch on its way to the output.
type job struct {
	line  int
	tool  string
	t     *tool
	args  json.RawMessage
	out   outcome
	ready bool          // out is final before any call (a line that cannot be used)
	done  chan struct{} // closed when out is final (Parallel > 1)
}

// outcome is what one line printed: a result, an error, or both (a result
// that breaks the outputSchema), and its exit code.
type outcome struct {
	result json.RawMessage
	err    error
	code   int
	// unfinished marks a call cancelled with the run: nothing is printed.
	unfinished bool
}

// runSequential makes the calls one after the other.
func (r *run) runSequential(ctx context.Context, lines <-chan line) error {
	for {
		var l line
		var ok bool
		select {
		case <-ctx.Done():
			return r.interrupted(ctx, 0)
		case l, ok = <-lines:
		}
		if !ok {
			return nil
		}
		if l.fatal != nil {
			return l.fatal
		}
		j := l.job
		if !j.ready {
			r.call(ctx, j)
		}
		if j.out.unfinished {
			return r.interrupted(ctx, j.line)
		}
		if err := r.emit(j); err != nil {
			return err
		}
	}
}

// runParallel runs up to opts.Parallel calls at once; one goroutine prints
// their outcomes in input order.
func (r *run) runParallel(ctx context.Context, lines <-chan line) error {
	n := r.opts.Parallel
	order := make(chan *job, n*windowFactor)
	slots := make(chan struct{}, n)
	printed := make(chan error, 1)
	go func() {
		var err error
		for j := range order {
			<-j.done
			if err != nil {
				continue
			}
			if j.out.unfinished {
				if r.pending == 0 {
					r.pending = j.line
				}
				continue
			}
			err = r.emit(j)
		}
		printed <- err
	}()

	var fatal error
read:
	for {
		var l line
		var ok bool
		select {
		case <-ctx.Done():
			break read
		case l, ok = <-lines:
		}
		if !ok {
			break
		}
		if l.fatal != nil {
			fatal = l.fatal
			break
		}
		j := l.job
		j.done = make(chan struct{})
		select {
		case order <- j:
		case <-ctx.Done():
			break read
		}
		if j.ready {
			close(j.done)
			continue
		}
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			j.out.unfinished = true
			close(j.done)
			break read
		}
		go func() {
			defer func() { <-slots; close(j.done) }()
			r.call(ctx, j)
		}()
	}
	close(order)
	err := <-printed
	switch {
	case fatal != nil:
		return fatal
	case ctx.Err() != nil:
		return r.interrupted(ctx, r.pending)
	}
	return err
}

// interrupted is the error of a batch stopped by ctx; line is the first
// line that did not finish, or 0 if none had started.
func (r *run) interrupted(ctx context.Context, line int) error {
	msg := fmt.Sprintf("the batch stopped after %d result", r.lines)
	if r.lines != 1 {
		msg += "s"
	}
	if line > 0 {
		msg += fmt.Sprintf(" (line %d and later did not finish)", line)
	}
	return fmt.Errorf("%s: %w", msg, context.Cause(ctx))
}

// prepare turns one input line into a job: its tool found, its arguments
// decoded and checked. A line that cannot be called gets its final outcome
// here. Only readLines's goroutine calls it (r.prepared is its own), ahead
// of the calls.
func (r *run) prepare(l line) *job {
	j := &job{line: l.n}
	fail := func(err error) *job {
		j.out = outcome{err: err, code: r.opts.ExitCode(err)}
		j.ready = true
		return j
	}
	if l.err != nil {
		return fail(l.err)
	}
	name, args, err := parseLine(l.data)
	j.tool = name
	if err != nil {
		return fail(err)
	}
	t, err := r.toolFor(name)
	if err != nil {
		return fail(err)
	}
	j.t = t
	if t.checkArgs != nil {
		var decoded map[string]any
		if len(args) > 0 {
			if decoded, err = decodeArguments(args); err != nil {
				return fail(err)
			}
		}
		if err := t.checkArgs(decoded); err != nil {
			return fail(err)
		}
	}
	j.args = args
	return j
}

// toolFor returns what calls of the tool named share, built on first use.
func (r *run) toolFor(name string) (*tool, error) {
	if t, ok := r.prepared[name]; ok {
		return t, nil
	}
	ct, ok := r.tools[name]
	if !ok {
		tools := make([]client.Tool, 0, len(r.tools))
		for _, t := range r.tools {
			tools = append(tools, *t)
		}
		if r.opts.UnknownTool != nil {
			return nil, r.opts.UnknownTool(name, tools)
		}
		return nil, usageError("the server has no tool %q", name)
	}
	mode := client.TaskAuto
	if r.opts.Task {
		mode = client.TaskAsk
	}
	t := &tool{tool: ct}
	if r.opts.CheckArguments != nil {
		t.checkArgs = r.opts.CheckArguments(ct)
	}
	t.asTask, t.planErr = r.s.PlanTask(ct, mode)
	if t.planErr != nil {
		var se *client.TaskSupportError
		if errors.As(t.planErr, &se) && se.Asked {
			t.planErr = usageError("--task: %w", t.planErr)
		}
	}
	r.prepared[name] = t
	return t, nil
}

// call makes the job's call and records its outcome.
func (r *run) call(ctx context.Context, j *job) {
	t := j.t
	if t.planErr != nil {
		j.out = outcome{err: t.planErr, code: r.opts.ExitCode(t.planErr)}
		return
	}
	if ctx.Err() != nil {
		j.out.unfinished = true
		return
	}
	var co client.CallOptions
	var res *client.CallToolResult
	var err error
	if t.asTask {
		res, err = r.s.CallToolTask(ctx, t.tool.Name, j.args, co, client.TaskOptions{})
	} else {
		res, err = r.s.CallToolWith(ctx, t.tool.Name, j.args, co)
	}
	var after error // the error of a result printed all the same
	if err != nil && res != nil && r.opts.Shown != nil && r.opts.Shown(err) {
		after, err = err, nil
	}
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			j.out.unfinished = true
			return
		}
		j.out = outcome{err: err, code: r.opts.ExitCode(err)}
		return
	}
	j.out.result = res.Raw
	switch {
	case after != nil:
		j.out.err, j.out.code = after, r.opts.ExitCode(after)
	case res.IsError:
		j.out.code = exitToolError
	}
}

// emit prints one job's outcome and counts it.
func (r *run) emit(j *job) error {
	line := appendOutcome(r.out.buf(), j.line, j.tool, &j.out, r.opts.Redact)
	if err := r.out.writeLine(line); err != nil {
		return fmt.Errorf("writing the result of line %d: %w", j.line, err)
	}
	r.codes[j.out.code]++
	r.lines++
	if p := r.opts.Progress; p != nil {
		total := r.opts.Total
		if total == 0 {
			total = int(r.read.Load())
		}
		p.Printed(r.lines, max(total, r.lines))
	}
	return nil
}

// verdict is the batch's error: nil when every line succeeded, else an
// [*ExitCodeError] with the most severe code met and a count of each.
func (r *run) verdict() error {
	worst, failed := exitOK, 0
	codes := make([]int, 0, len(r.codes))
	for code, n := range r.codes {
		if code == exitOK {
			continue
		}
		failed += n
		codes = append(codes, code)
		if Severity(code) > Severity(worst) {
			worst = code
		}
	}
	if worst == exitOK {
		return nil
	}
	sort.Slice(codes, func(i, k int) bool { return Severity(codes[i]) > Severity(codes[k]) })
	parts := make([]string, len(codes))
	for i, code := range codes {
		parts[i] = fmt.Sprintf("%d with exit %d", r.codes[code], code)
	}
	noun := "line"
	if r.lines != 1 {
		noun += "s"
	}
	return &ExitCodeError{Code: worst, Err: fmt.Errorf("batch: %d of %d %s failed (%s); the exit code is the most severe, %d",
		failed, r.lines, noun, strings.Join(parts, ", "), worst)}
}

// Severity ranks an exit code for a batch's verdict: the batch exits with
// the code of the highest rank any line met. From the most severe:
//
//	130  interrupted: results are missing
//	6    a signature failed: a result cannot be trusted
//	8    authorization failed
//	1    connection, transport, protocol or internal error: the session broke
//	     (any code not listed here ranks just below 1)
//	7    a call timed out: no answer
//	9    the policy refused a call (nothing sent)
//	2    a line could not be used (not JSON, no such tool): the input is wrong
//	3    the server answered a JSON-RPC error
//	5    validation: arguments broke the inputSchema (nothing sent), or a
//	     result broke the outputSchema
//	4    the tool ran and reported isError: true
//	0    success
//
// The further a failure is from the tool itself, the more it says about
// the whole batch, and the higher it ranks: a tool's own error is the
// mildest, a broken session or an untrustworthy result the gravest.
func Severity(code int) int {
	switch code {
	case exitOK:
		return 0
	case exitToolError:
		return 1
	case exitValidation:
		return 2
	case exitRPCError:
		return 3
	case exitUsage:
		return 4
	case exitPolicy:
		return 5
	case exitTimeout:
		return 6
	case exitError:
		return 8
	case exitAuth:
		return 9
	case exitSignature:
		return 10
	case exitInterrupted:
		return 11
	}
	return 7
}
