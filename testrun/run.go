package testrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/schema"
)

// Session is what the runner needs of a connected server; the cmd
// package's session satisfies it.
type Session interface {
	ListTools(ctx context.Context) ([]client.Tool, error)
	ListResources(ctx context.Context) ([]client.Resource, error)
	ListResourceTemplates(ctx context.Context) ([]client.ResourceTemplate, error)
	ListPrompts(ctx context.Context) ([]client.Prompt, error)
	CallTool(ctx context.Context, name string, args map[string]any, opts client.CallOptions) (*client.CallToolResult, error)
	// PlanTask and CallToolTask are how `mcpctl call` decides on and
	// makes a call as a task; the runner uses the same decision.
	PlanTask(tool *client.Tool, mode client.TaskMode) (bool, error)
	CallToolTask(ctx context.Context, name string, args json.RawMessage, opts client.CallOptions, topts client.TaskOptions) (*client.CallToolResult, error)
	ReadResource(ctx context.Context, uri string) (*client.ReadResourceResult, error)
	GetPrompt(ctx context.Context, name string, args map[string]string) (*client.GetPromptResult, error)
	SetLogLevel(ctx context.Context, level string) error
	Complete(ctx context.Context, ref client.CompletionRef, arg, value string, given map[string]string) (*client.CompleteResult, error)
	Close() error
}

// Settler is a [Session] that checks results in the background: Settle
// returns once the results received so far are checked, so that the
// violations found in a step's results are reported as that step's.
type Settler interface {
	Settle()
}

// Hooks are what a session tells the runner besides its answers.
type Hooks struct {
	// Notify receives every server notification (on the client's read
	// loop, as client.Options.OnNotification).
	Notify func(client.Notification)
	// Violation receives each protocol violation the session sees, worded
	// for a report: a line on a stdio server's stdout that is not
	// JSON-RPC, a response whose id matches no request, a result that
	// breaks the official schema. It may run on any goroutine and must not
	// block.
	Violation func(msg string)
}

// Connector starts or reaches the server for a file; server is the
// file's own selection, nil when it has none. The session must pass what
// it sees to hooks. An error means the file's tests cannot run; the
// caller decides its exit code.
type Connector func(ctx context.Context, file *File, server *Server, hooks Hooks) (Session, error)

// Options control a run.
type Options struct {
	Connect Connector
	// Update rewrites snapshots instead of comparing them.
	Update bool
	// Run selects the tests whose names it matches; nil runs all. Steps
	// not selected are skipped, captures included.
	Run *regexp.Regexp
	// Repeat plays each file's steps this many times in its session
	// (at least once), for the p50/p95 durations.
	Repeat int
	// Parallel is how many files run at once (at least one).
	Parallel int
	// Strict makes protocol violations failures: one seen while a step
	// runs fails that step; one seen outside every step (while connecting,
	// between steps, while closing) fails the pseudo-test [SessionTest]
	// added to the file's results. Without Strict they are only listed.
	Strict bool
}

// SessionTest is the name of the pseudo-test that carries, under
// [Options.Strict], the protocol violations a file's session showed
// outside every step.
const SessionTest = "(session)"

// FileResult is the outcome of one file.
type FileResult struct {
	Path  string       `json:"file"`
	Tests []TestResult `json:"tests"`
	// Err is set when the file could not run at all (unreadable, or the
	// server could not be reached); its tests are then absent.
	Err      error         `json:"-"`
	Error    string        `json:"error,omitempty"`
	Duration time.Duration `json:"-"`
	// Violations are the protocol violations seen outside every step;
	// under [Options.Strict] they fail the [SessionTest] pseudo-test too.
	Violations []string `json:"violations,omitempty"`
}

// TestResult is the outcome of one test over its repeats.
type TestResult struct {
	Name    string `json:"name"`
	Passed  bool   `json:"passed"`
	Skipped bool   `json:"skipped,omitempty"`
	// Failure says what did not hold, with expected and actual values
	// and a diff where that helps.
	Failure string `json:"failure,omitempty"`
	// Violations are the protocol violations seen while the test ran;
	// under [Options.Strict] they fail it.
	Violations []string        `json:"violations,omitempty"`
	Durations  []time.Duration `json:"-"`
	// MS, P50MS and P95MS are in milliseconds: the first run's duration
	// and, over repeats, the percentiles.
	MS    float64 `json:"ms"`
	P50MS float64 `json:"p50Ms,omitempty"`
	P95MS float64 `json:"p95Ms,omitempty"`
}

// Summary counts a run's outcomes.
type Summary struct {
	Passed, Failed, Skipped, Broken int // Broken: files that could not run
}

// Summarize counts results.
func Summarize(results []FileResult) Summary {
	var s Summary
	for _, f := range results {
		if f.Err != nil {
			s.Broken++
		}
		for _, t := range f.Tests {
			switch {
			case t.Skipped:
				s.Skipped++
			case t.Passed:
				s.Passed++
			default:
				s.Failed++
			}
		}
	}
	return s
}

// Run plays every file and returns their results in the order given.
func Run(ctx context.Context, paths []string, opts Options) []FileResult {
	results := make([]FileResult, len(paths))
	n := max(opts.Parallel, 1)
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			results[i] = runFile(ctx, p, opts)
		}()
	}
	wg.Wait()
	return results
}

func runFile(ctx context.Context, path string, opts Options) FileResult {
	start := time.Now()
	res := FileResult{Path: path}
	fail := func(err error) FileResult {
		res.Err, res.Error = err, err.Error()
		res.Duration = time.Since(start)
		return res
	}
	f, err := Load(path)
	if err != nil {
		return fail(err)
	}
	selected := make([]bool, len(f.Tests))
	some := false
	for i, t := range f.Tests {
		selected[i] = opts.Run == nil || opts.Run.MatchString(t.Name)
		some = some || selected[i]
	}
	res.Tests = make([]TestResult, len(f.Tests))
	for i, t := range f.Tests {
		res.Tests[i] = TestResult{Name: t.Name, Passed: true, Skipped: !selected[i]}
	}
	if !some {
		res.Duration = time.Since(start)
		return res
	}
	notes := &noteBox{}
	violations := &violationBox{}
	s, err := opts.Connect(ctx, f, f.Server, Hooks{Notify: notes.add, Violation: violations.add})
	if err != nil {
		res.Tests = nil
		return fail(err)
	}
	r := &fileRun{file: f, s: s, vars: map[string]string{}, update: opts.Update, notes: notes}
	outside := violations.take() // the handshake's
	for rep := 0; rep < max(opts.Repeat, 1); rep++ {
		for i := range f.Tests {
			if !selected[i] {
				continue
			}
			outside = append(outside, violations.take()...)
			d, msg := r.step(ctx, &f.Tests[i], rep == 0)
			settle(s)
			tr := &res.Tests[i]
			tr.Durations = append(tr.Durations, d)
			seen := violations.take()
			tr.Violations = append(tr.Violations, seen...)
			if opts.Strict && len(seen) > 0 {
				msg = strings.TrimPrefix(msg+"\n"+violationText(seen), "\n")
			}
			if msg != "" && tr.Passed {
				tr.Passed, tr.Failure = false, msg
			}
		}
	}
	s.Close()
	settle(s)
	res.Violations = append(outside, violations.take()...)
	if opts.Strict && len(res.Violations) > 0 {
		res.Tests = append(res.Tests, TestResult{Name: SessionTest, Failure: violationText(res.Violations)})
	}
	for i := range res.Tests {
		finishTimes(&res.Tests[i], opts.Repeat > 1)
	}
	res.Duration = time.Since(start)
	return res
}

// settle waits for the session's background checks, if it has any.
func settle(s Session) {
	if st, ok := s.(Settler); ok {
		st.Settle()
	}
}

// violationText is the failure a strict run reports for violations.
func violationText(vs []string) string {
	return fmt.Sprintf("--strict: %d protocol %s:\n%s", len(vs), plural(len(vs), "violation", "violations"), indent(strings.Join(vs, "\n")))
}

// violationBox collects the protocol violations of the step that runs.
type violationBox struct {
	mu sync.Mutex
	vs []string
}

func (b *violationBox) add(msg string) {
	b.mu.Lock()
	b.vs = append(b.vs, msg)
	b.mu.Unlock()
}

// take returns the violations collected since the last take.
func (b *violationBox) take() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	v := b.vs
	b.vs = nil
	return v
}

func finishTimes(t *TestResult, repeated bool) {
	if len(t.Durations) == 0 {
		return
	}
	t.MS = ms(t.Durations[0])
	if repeated {
		t.P50MS = ms(percentile(t.Durations, 50))
		t.P95MS = ms(percentile(t.Durations, 95))
	}
}

func ms(d time.Duration) float64 { return math.Round(float64(d)/1e4) / 100 }

// percentile is the nearest-rank percentile p of ds.
func percentile(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	rank := int(math.Ceil(float64(p) / 100 * float64(len(s))))
	return s[max(rank, 1)-1]
}

// fileRun is the state of one file's session: its tools (listed once, for
// typing arguments and outputSchema) and the captured variables.
type fileRun struct {
	file   *File
	s      Session
	tools  []client.Tool
	listed bool
	vars   map[string]string
	update bool
	notes  *noteBox
	// logLevel is the level the server was last asked for logs at.
	logLevel string
	// schemas compiles each schema the file's steps use once.
	schemas schema.Cache
}

// noteBox collects the notifications of the step that runs.
type noteBox struct {
	mu    sync.Mutex
	notes []client.Notification
}

func (b *noteBox) add(n client.Notification) {
	b.mu.Lock()
	b.notes = append(b.notes, n)
	b.mu.Unlock()
}

// take returns the notifications collected since the last take.
func (b *noteBox) take() []client.Notification {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := b.notes
	b.notes = nil
	return n
}

func (r *fileRun) tool(ctx context.Context, name string) (*client.Tool, error) {
	if !r.listed {
		tools, err := r.s.ListTools(ctx)
		if err != nil {
			return nil, fmt.Errorf("listing the tools to find %q: %w", name, err)
		}
		r.tools, r.listed = tools, true
	}
	for i := range r.tools {
		if r.tools[i].Name == name {
			return &r.tools[i], nil
		}
	}
	return nil, fmt.Errorf("the server has no tool %q", name)
}

// outcome is what a step got: a result, or a JSON-RPC error.
type outcome struct {
	raw     json.RawMessage // the protocol result
	text    string          // the joined text
	isError bool
	rpcErr  *client.RPCError
	tool    *client.Tool
}

// step runs one test and returns its duration and, when it failed, why.
// Snapshots are written only on the first repeat.
func (r *fileRun) step(ctx context.Context, t *Test, first bool) (time.Duration, string) {
	if n := t.Expect.Notifications; n != nil && n.Log != nil {
		level := cmpOr(n.Log.Level, "debug")
		if level != r.logLevel {
			if err := r.s.SetLogLevel(ctx, level); err != nil {
				return 0, fmt.Sprintf("notifications.log: asking for logs at %s: %v", level, err)
			}
			r.logLevel = level
		}
	}
	r.notes.take()
	start := time.Now()
	out, err := r.do(ctx, t)
	d := time.Since(start)
	notes := r.notes.take()
	if err != nil {
		var rpc *client.RPCError
		if !errors.As(err, &rpc) {
			return d, err.Error()
		}
		out = &outcome{rpcErr: rpc}
	}
	var problems []string
	e := t.Expect
	if e.MaxMS > 0 && d > time.Duration(e.MaxMS)*time.Millisecond {
		problems = append(problems, fmt.Sprintf("maxMs: took %dms, over the budget of %dms", d.Milliseconds(), e.MaxMS))
	}
	problems = append(problems, r.check(t, out, first)...)
	problems = append(problems, checkNotifications(e.Notifications, notes)...)
	if len(problems) == 0 {
		for name, expr := range t.Capture {
			v, err := captureValue(expr, out.raw)
			if err != nil {
				problems = append(problems, fmt.Sprintf("capture %s: %v", name, err))
				continue
			}
			r.vars[name] = v
		}
	}
	return d, strings.Join(problems, "\n")
}

// do sends the step's request.
func (r *fileRun) do(ctx context.Context, t *Test) (*outcome, error) {
	switch {
	case t.Call != "":
		name := r.expand(t.Call)
		tool, err := r.tool(ctx, name)
		if err != nil {
			return nil, err
		}
		args, err := r.arguments(t.Args, tool)
		if err != nil {
			return nil, fmt.Errorf("args: %w", err)
		}
		var callOpts client.CallOptions
		if n := t.Expect.Notifications; n != nil && n.Progress {
			callOpts.ProgressToken = "mcpctl-test"
		}
		res, err := r.callTool(ctx, tool, args, t.Task, callOpts)
		if err != nil {
			return nil, err
		}
		return &outcome{raw: res.Raw, text: joinContent(res.Content), isError: res.IsError, tool: tool}, nil
	case t.Read != "":
		res, err := r.s.ReadResource(ctx, r.expand(t.Read))
		if err != nil {
			return nil, err
		}
		var parts []string
		for _, c := range res.Contents {
			if c.Text != nil {
				parts = append(parts, *c.Text)
			}
		}
		return &outcome{raw: res.Raw, text: strings.Join(parts, "\n")}, nil
	case t.Complete != nil:
		c := t.Complete
		ref := client.PromptRef(r.expand(c.Prompt))
		if c.Template != "" {
			ref = client.TemplateRef(r.expand(c.Template))
		}
		res, err := r.s.Complete(ctx, ref, c.Argument, r.expand(c.Value), stringArgs(r.expandArgs(t.Args)))
		if err != nil {
			return nil, err
		}
		return &outcome{raw: res.Raw, text: strings.Join(res.Completion.Values, "\n")}, nil
	case t.Prompt != "":
		res, err := r.s.GetPrompt(ctx, r.expand(t.Prompt), stringArgs(r.expandArgs(t.Args)))
		if err != nil {
			return nil, err
		}
		var parts []string
		for _, m := range res.Messages {
			if m.Content.Type == "text" {
				text, _ := m.Content.TextString()
				parts = append(parts, text)
			}
		}
		return &outcome{raw: res.Raw, text: strings.Join(parts, "\n")}, nil
	default:
		return r.list(ctx, t.List)
	}
}

// callTool calls tool as `mcpctl call` does: as a task when the tool's
// taskSupport is "required" (or the era's extension decides), or when the
// step asks for one (task: true, as --task).
func (r *fileRun) callTool(ctx context.Context, tool *client.Tool, args map[string]any, task bool, co client.CallOptions) (*client.CallToolResult, error) {
	mode := client.TaskAuto
	if task {
		mode = client.TaskAsk
	}
	asTask, err := r.s.PlanTask(tool, mode)
	if err != nil {
		return nil, err
	}
	if !asTask {
		return r.s.CallTool(ctx, tool.Name, args, co)
	}
	data, err := client.MarshalArguments(args)
	if err != nil {
		return nil, fmt.Errorf("calling tool %q: %w", tool.Name, err)
	}
	return r.s.CallToolTask(ctx, tool.Name, data, co, client.TaskOptions{})
}

// list runs a list step; its result is {"<kind>": [...]} as `mcpctl list
// -o json` prints, and its text the names, one a line.
func (r *fileRun) list(ctx context.Context, kind string) (*outcome, error) {
	var items []json.RawMessage
	var names []string
	switch kind {
	case "tools":
		v, err := r.s.ListTools(ctx)
		if err != nil {
			return nil, err
		}
		r.tools, r.listed = v, true
		for _, x := range v {
			items, names = append(items, x.Raw), append(names, x.Name)
		}
	case "resources":
		v, err := r.s.ListResources(ctx)
		if err != nil {
			return nil, err
		}
		for _, x := range v {
			items, names = append(items, x.Raw), append(names, x.URI)
		}
	case "templates":
		v, err := r.s.ListResourceTemplates(ctx)
		if err != nil {
			return nil, err
		}
		kind = "resourceTemplates"
		for _, x := range v {
			items, names = append(items, x.Raw), append(names, x.URITemplate)
		}
	case "prompts":
		v, err := r.s.ListPrompts(ctx)
		if err != nil {
			return nil, err
		}
		for _, x := range v {
			items, names = append(items, x.Raw), append(names, x.Name)
		}
	}
	if items == nil {
		items = []json.RawMessage{}
	}
	raw, err := json.Marshal(map[string]any{kind: items})
	if err != nil {
		return nil, err
	}
	return &outcome{raw: raw, text: strings.Join(names, "\n")}, nil
}

func joinContent(cs []client.Content) string {
	var parts []string
	for _, c := range cs {
		if c.Type == "text" {
			text, _ := c.TextString()
			parts = append(parts, text)
		}
	}
	return strings.Join(parts, "\n")
}

// arguments types a step's args as the command line does: a string value
// is key=value (typed by the tool's inputSchema), anything else key:=json.
// Nothing is checked against the schema: the server judges the arguments.
func (r *fileRun) arguments(given map[string]any, tool *client.Tool) (map[string]any, error) {
	given = r.expandArgs(given)
	keys := make([]string, 0, len(given))
	for k := range given {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	args := make([]string, 0, len(keys))
	for _, k := range keys {
		if s, ok := given[k].(string); ok {
			args = append(args, k+"="+s)
			continue
		}
		b, err := jsonValue(given[k])
		if err != nil {
			return nil, fmt.Errorf("argument %s: %w", k, err)
		}
		args = append(args, k+":="+string(b))
	}
	// A string that does not fit its property's type is sent as the string
	// written, as --no-validate sends it: a test file tests the server, so
	// a step may give a wrong type on purpose and expect the server's error.
	var mismatches []schema.Violation
	argOpts := schema.ArgOptions{
		ReadFile: func(string) ([]byte, error) {
			return nil, errors.New("key=@file is not read in test files; give the value")
		},
		Mismatches: &mismatches,
	}
	if sch, err := r.schemas.Compile(tool.InputSchema); err == nil {
		return sch.ParseArgs(args, argOpts)
	}
	// A schema that does not compile types nothing.
	return schema.ParseArgs(args, nil, argOpts)
}

var varRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// expand replaces ${name} with captured values; unknown names stay.
func (r *fileRun) expand(s string) string {
	if len(r.vars) == 0 || !strings.Contains(s, "${") {
		return s
	}
	return varRef.ReplaceAllStringFunc(s, func(m string) string {
		if v, ok := r.vars[m[2:len(m)-1]]; ok {
			return v
		}
		return m
	})
}

func (r *fileRun) expandArgs(args map[string]any) map[string]any {
	out := make(map[string]any, len(args))
	for k, v := range args {
		out[k] = r.expandValue(v)
	}
	return out
}

func (r *fileRun) expandValue(v any) any {
	switch v := v.(type) {
	case string:
		return r.expand(v)
	case map[string]any:
		return r.expandArgs(v)
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = r.expandValue(x)
		}
		return out
	}
	return v
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// levels are the syslog levels of MCP logging, least severe first.
var levels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

func levelRank(l string) int { return slices.Index(levels, l) }

// checkNotifications returns what does not hold of e on the notifications
// a step received.
func checkNotifications(e *ExpectNotifications, notes []client.Notification) []string {
	if e == nil {
		return nil
	}
	var problems []string
	var progress int
	var logs []string
	for _, n := range notes {
		if n.Progress != nil {
			progress++
		}
		if e.Log != nil && n.Log != nil && levelRank(n.Log.Level) >= levelRank(cmpOr(e.Log.Level, "debug")) {
			logs = append(logs, n.Log.Level+": "+n.Log.Text())
		}
	}
	if e.Progress && progress == 0 {
		problems = append(problems, fmt.Sprintf("notifications.progress: expected progress notifications, got none (of %d notifications)", len(notes)))
	}
	if e.Log != nil {
		found := false
		for _, l := range logs {
			if strings.Contains(l, e.Log.Contains) {
				found = true
				break
			}
		}
		if !found {
			msg := fmt.Sprintf("notifications.log: expected a log message at %s or above", cmpOr(e.Log.Level, "debug"))
			if e.Log.Contains != "" {
				msg += fmt.Sprintf(" containing %q", e.Log.Contains)
			}
			if len(logs) == 0 {
				msg += ", got none"
			} else {
				msg += ", got:\n" + indent(strings.Join(logs, "\n"))
			}
			problems = append(problems, msg)
		}
	}
	return problems
}

// stringArgs gives arguments as the strings prompts and completions take:
// strings as they are, anything else as its JSON.
func stringArgs(in map[string]any) map[string]string {
	out := map[string]string{}
	for k, v := range in {
		if s, ok := v.(string); ok {
			out[k] = s
		} else {
			b, _ := json.Marshal(v)
			out[k] = string(b)
		}
	}
	return out
}
