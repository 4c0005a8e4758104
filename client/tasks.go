package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"time"
)

// Tool calls as tasks, in both eras.
//
// Legacy (2025-11-25, basic/utilities/tasks): the server declares
// capabilities.tasks.requests.tools.call, each tool its
// execution.taskSupport; the client asks for a task with params.task, gets
// a CreateTaskResult {task}, polls tasks/get and fetches the result with
// tasks/result, which also carries the server's requests (elicitation) while
// the task is input_required. tasks/list and tasks/cancel exist.
//
// Modern (2026-07-28, the tasks extension of SEP-2663): the server declares
// the extension io.modelcontextprotocol/tasks in server/discover; the
// client declares it in the clientCapabilities of each request that can
// take a task, and the server alone decides whether to answer with a
// CreateTaskResult (resultType "task", the task's fields inline). tasks/get
// carries the result or error inline once the task ends, and its
// inputRequests while it is input_required, answered with tasks/update.
// There is no tasks/result and no tasks/list; tasks/cancel is an ack.

// TasksExtension is the identifier of the modern era's tasks extension.
const TasksExtension = "io.modelcontextprotocol/tasks"

// The statuses of a task.
const (
	TaskWorking       = "working"
	TaskInputRequired = "input_required"
	TaskCompleted     = "completed"
	TaskFailed        = "failed"
	TaskCancelled     = "cancelled"
)

// The values of a tool's execution.taskSupport (2025-11-25).
const (
	// TaskSupportForbidden: the tool must not be called as a task; also
	// what an absent or unknown value means.
	TaskSupportForbidden = "forbidden"
	// TaskSupportOptional: a task or a plain call, as the client likes.
	TaskSupportOptional = "optional"
	// TaskSupportRequired: the tool must be called as a task.
	TaskSupportRequired = "required"
)

// Polling bounds. A server's pollInterval is honoured within
// [MinPollInterval, MaxPollInterval]; without one the client polls every
// [DefaultPollInterval].
const (
	DefaultPollInterval = time.Second
	MinPollInterval     = 10 * time.Millisecond
	MaxPollInterval     = 30 * time.Second
)

// cancelTaskTimeout bounds the tasks/cancel sent when the caller has
// given up (Ctrl-C, the task's timeout): the caller's context is done by
// then.
const cancelTaskTimeout = 5 * time.Second

// Task is the state of a task, as tasks/get, a CreateTaskResult, tasks/list
// or tasks/cancel carries it in either era. The durations are in
// milliseconds as on the wire: the legacy era's ttl and pollInterval, the
// modern era's ttlMs and pollIntervalMs. Raw keeps what the server sent.
type Task struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	CreatedAt     string `json:"createdAt,omitempty"`
	LastUpdatedAt string `json:"lastUpdatedAt,omitempty"`
	// TTLMs is the task's lifetime from creation; nil when absent or null
	// (unlimited).
	TTLMs *int64 `json:"-"`
	// PollIntervalMs is the server's suggested time between polls; nil
	// when it suggests none.
	PollIntervalMs *int64 `json:"-"`
	// Modern era, tasks/get: the result of a completed task, the JSON-RPC
	// error of a failed one, the requests of one that is input_required.
	Result        json.RawMessage `json:"-"`
	Error         *RPCError       `json:"-"`
	InputRequests json.RawMessage `json:"-"`

	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON reads both eras' names and keeps data in Raw.
func (t *Task) UnmarshalJSON(data []byte) error {
	var w struct {
		TaskID         string          `json:"taskId"`
		Status         string          `json:"status"`
		StatusMessage  string          `json:"statusMessage"`
		CreatedAt      string          `json:"createdAt"`
		LastUpdatedAt  string          `json:"lastUpdatedAt"`
		TTL            *float64        `json:"ttl"`
		TTLMs          *float64        `json:"ttlMs"`
		PollInterval   *float64        `json:"pollInterval"`
		PollIntervalMs *float64        `json:"pollIntervalMs"`
		Result         json.RawMessage `json:"result"`
		Error          *RPCError       `json:"error"`
		InputRequests  json.RawMessage `json:"inputRequests"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	ms := func(a, b *float64) *int64 {
		if a == nil {
			a = b
		}
		if a == nil {
			return nil
		}
		v := int64(*a)
		return &v
	}
	*t = Task{
		TaskID: w.TaskID, Status: w.Status, StatusMessage: w.StatusMessage,
		CreatedAt: w.CreatedAt, LastUpdatedAt: w.LastUpdatedAt,
		TTLMs: ms(w.TTL, w.TTLMs), PollIntervalMs: ms(w.PollInterval, w.PollIntervalMs),
		Result: w.Result, Error: w.Error, InputRequests: w.InputRequests,
		Raw: data,
	}
	return nil
}

// MarshalJSON writes Raw when set.
func (t Task) MarshalJSON() ([]byte, error) {
	if t.Raw != nil {
		return t.Raw, nil
	}
	m := map[string]any{"taskId": t.TaskID, "status": t.Status}
	if t.StatusMessage != "" {
		m["statusMessage"] = t.StatusMessage
	}
	if t.CreatedAt != "" {
		m["createdAt"] = t.CreatedAt
	}
	if t.LastUpdatedAt != "" {
		m["lastUpdatedAt"] = t.LastUpdatedAt
	}
	if t.TTLMs != nil {
		m["ttl"] = *t.TTLMs
	}
	if t.PollIntervalMs != nil {
		m["pollInterval"] = *t.PollIntervalMs
	}
	return json.Marshal(m)
}

// Terminal reports whether the task has ended: completed, failed or
// cancelled.
func (t *Task) Terminal() bool {
	switch t.Status {
	case TaskCompleted, TaskFailed, TaskCancelled:
		return true
	}
	return false
}

// PollInterval is the time to wait before the next tasks/get: the
// server's suggestion within [MinPollInterval, MaxPollInterval], else
// [DefaultPollInterval].
func (t *Task) PollInterval() time.Duration {
	if t.PollIntervalMs == nil {
		return DefaultPollInterval
	}
	d := time.Duration(*t.PollIntervalMs) * time.Millisecond
	return min(max(d, MinPollInterval), MaxPollInterval)
}

// TaskSupport is the tool's execution.taskSupport: [TaskSupportOptional],
// [TaskSupportRequired], or [TaskSupportForbidden] when absent or unknown
// (2025-11-25 basic/utilities/tasks: absent means forbidden).
func (t *Tool) TaskSupport() string {
	var x struct {
		Execution struct {
			TaskSupport string `json:"taskSupport"`
		} `json:"execution"`
	}
	if len(t.Raw) > 0 {
		_ = json.Unmarshal(t.Raw, &x) // a malformed execution means none
	}
	switch s := x.Execution.TaskSupport; s {
	case TaskSupportOptional, TaskSupportRequired:
		return s
	}
	return TaskSupportForbidden
}

// TaskCapabilities is what the server declared about tasks.
type TaskCapabilities struct {
	// ToolCall: tools/call may run as a task (legacy
	// tasks.requests.tools.call; modern: the extension is declared).
	ToolCall bool
	// List: tasks/list is answered (legacy tasks.list; never modern).
	List bool
	// Cancel: tasks/cancel is answered (legacy tasks.cancel; modern: the
	// extension is declared).
	Cancel bool
}

// TaskCapabilities reads the server's declaration: the tasks capability
// of initialize in the legacy era, the tasks extension of server/discover
// in the modern era.
func (c *Client) TaskCapabilities() TaskCapabilities {
	c.mu.Lock()
	caps := c.init.Capabilities
	c.mu.Unlock()
	if c.isModern() {
		var ext map[string]json.RawMessage
		_ = json.Unmarshal(caps["extensions"], &ext)
		_, ok := ext[TasksExtension]
		return TaskCapabilities{ToolCall: ok, Cancel: ok}
	}
	var t struct {
		List     json.RawMessage `json:"list"`
		Cancel   json.RawMessage `json:"cancel"`
		Requests struct {
			Tools struct {
				Call json.RawMessage `json:"call"`
			} `json:"tools"`
		} `json:"requests"`
	}
	_ = json.Unmarshal(caps["tasks"], &t)
	present := func(r json.RawMessage) bool { return len(r) > 0 && string(r) != "null" }
	return TaskCapabilities{ToolCall: present(t.Requests.Tools.Call), List: present(t.List), Cancel: present(t.Cancel)}
}

// TaskMode says when [Client.PlanTask] runs a call as a task.
type TaskMode int

const (
	// TaskAuto runs a call as a task when the protocol says so: in the
	// legacy era when the tool's taskSupport is "required"; in the modern
	// era whenever the server declares the extension (the server then
	// decides, call by call).
	TaskAuto TaskMode = iota
	// TaskAsk asks for a task: the tool must allow one (legacy
	// taskSupport "optional" or "required") and the server must support
	// tasks, else [*TaskSupportError].
	TaskAsk
)

// TaskSupportError reports a tool call that cannot run the way it was
// asked to: a task asked of a tool or server that does not take one, or a
// tool that requires a task from a server that does not declare tasks.
type TaskSupportError struct {
	Tool string
	// TaskSupport is the tool's execution.taskSupport ("" in the modern
	// era, which has none).
	TaskSupport string
	// Asked says the caller asked for a task ([TaskAsk]).
	Asked bool
	Msg   string
}

func (e *TaskSupportError) Error() string {
	return fmt.Sprintf("tool %q: %s", e.Tool, e.Msg)
}

// PlanTask reports whether a call of tool runs as a task in mode, or
// a [*TaskSupportError] when it cannot be made as asked. The rules are the
// legacy era's tool-level negotiation (2025-11-25 basic/utilities/tasks)
// and, in the modern era, the extension's declaration.
func (c *Client) PlanTask(tool *Tool, mode TaskMode) (bool, error) {
	caps := c.TaskCapabilities()
	if c.isModern() {
		if !caps.ToolCall && mode == TaskAsk {
			return false, &TaskSupportError{Tool: tool.Name, Asked: true,
				Msg: fmt.Sprintf("cannot run as a task: the server does not declare the tasks extension (%s) in server/discover", TasksExtension)}
		}
		return caps.ToolCall, nil
	}
	support := tool.TaskSupport()
	switch {
	case mode == TaskAsk && !caps.ToolCall:
		return false, &TaskSupportError{Tool: tool.Name, TaskSupport: support, Asked: true,
			Msg: "cannot run as a task: the server does not declare tasks.requests.tools.call in its capabilities"}
	case mode == TaskAsk && support == TaskSupportForbidden:
		return false, &TaskSupportError{Tool: tool.Name, TaskSupport: support, Asked: true,
			Msg: `cannot run as a task: its execution.taskSupport is "forbidden" (or absent); call it without a task`}
	case support == TaskSupportRequired && !caps.ToolCall:
		return false, &TaskSupportError{Tool: tool.Name, TaskSupport: support,
			Msg: `requires a task (execution.taskSupport "required"), but the server does not declare tasks.requests.tools.call, so it cannot be called: the server contradicts itself`}
	}
	return mode == TaskAsk || support == TaskSupportRequired, nil
}

// TaskOptions configure a tool call run as a task.
type TaskOptions struct {
	// TTL, when positive, is the lifetime asked for the task (legacy
	// params.task.ttl). The modern era has no way to ask; it is ignored
	// there.
	TTL time.Duration
	// Timeout bounds the whole task, from tools/call to its result; zero
	// means [Options.Timeout]. Each request is bounded by
	// [Options.Timeout] as always. When it passes the client sends
	// tasks/cancel and returns a [*TimeoutError].
	Timeout time.Duration
	// OnStatus receives the task as created and then each time its status
	// or status message changes. It runs on the calling goroutine.
	OnStatus func(Task)
}

// TaskCancelledError reports a task that ended cancelled without the
// caller asking: the server (or another client) cancelled it.
type TaskCancelledError struct {
	TaskID        string
	StatusMessage string
}

func (e *TaskCancelledError) Error() string {
	s := fmt.Sprintf("task %q was cancelled by the server", e.TaskID)
	if e.StatusMessage != "" {
		s += ": " + e.StatusMessage
	}
	return s
}

// CallToolTask calls a tool as a task and waits for its result: it asks
// for a task (legacy params.task; modern: the extension in this request's
// capabilities), polls tasks/get at the server's pollInterval, answers
// what the task asks meanwhile through [Options.Handlers], and returns the
// result as a plain call would: a [*CallToolResult] (check IsError), or the
// task's JSON-RPC error as [*RPCError]. A server that answers with the
// result at once (it may decline to create a task) is fine too.
//
// When ctx is cancelled the client sends tasks/cancel and returns ctx's
// error; when [TaskOptions.Timeout] passes, tasks/cancel and a
// [*TimeoutError]. A task the server cancels is a [*TaskCancelledError].
func (c *Client) CallToolTask(ctx context.Context, name string, args json.RawMessage, opts CallOptions, topts TaskOptions) (*CallToolResult, error) {
	return c.callToolTask(ctx, name, args, opts, topts, sleepCtx)
}

// sleepCtx waits for d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *Client) callToolTask(ctx context.Context, name string, args json.RawMessage, opts CallOptions, topts TaskOptions, sleep func(context.Context, time.Duration) error) (*CallToolResult, error) {
	params, err := callToolParams(name, args, opts)
	if err != nil {
		return nil, err
	}
	if !c.isModern() {
		task := map[string]any{}
		if topts.TTL > 0 {
			task["ttl"] = topts.TTL.Milliseconds()
		}
		p, err := withMember(params.joined(), "task", task)
		if err != nil {
			return nil, fmt.Errorf("calling tool %q as a task: %w", name, err)
		}
		params = oneParams(p)
	}
	timeout := topts.Timeout
	if timeout <= 0 {
		timeout = c.opts.Timeout
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	ro := requestOptions{task: true}
	if c.isModern() {
		hs, err := c.paramHeaders(ctx, name)
		if err != nil {
			return nil, err
		}
		ro.header = ParamHeaderValues(hs, args)
	}
	raw, err := c.call(tctx, "tools/call", params, ro)
	if err != nil {
		return nil, c.taskGaveUp(ctx, tctx, "", nil, timeout, err)
	}
	task, ok := createdTask(raw, c.isModern())
	if !ok {
		// No task: the result came at once.
		return decodeCallToolResult(raw)
	}
	if task.TaskID == "" {
		return nil, &ProtocolError{Method: "tools/call", Msg: "the CreateTaskResult has no taskId"}
	}
	var (
		last     = Task{}
		answered = map[string]bool{} // modern inputRequests keys answered
	)
	for {
		if task.Status != last.Status || task.StatusMessage != last.StatusMessage {
			if topts.OnStatus != nil {
				topts.OnStatus(*task)
			}
			last = *task
		}
		switch {
		case task.Terminal():
			return c.taskOutcome(tctx, ctx, task, timeout)
		case task.Status == TaskInputRequired && !c.isModern():
			// The server's requests come on the tasks/result stream; the
			// answer is the result, once the task ends.
			res, err := c.legacyTaskResult(tctx, task.TaskID)
			if err != nil {
				return nil, c.taskGaveUp(ctx, tctx, task.TaskID, task, timeout, err)
			}
			return res, nil
		case task.Status == TaskInputRequired:
			if err := c.answerTaskInput(tctx, task, answered); err != nil {
				return nil, c.taskGaveUp(ctx, tctx, task.TaskID, task, timeout, err)
			}
		}
		if err := sleep(tctx, task.PollInterval()); err != nil {
			return nil, c.taskGaveUp(ctx, tctx, task.TaskID, task, timeout, err)
		}
		next, err := c.GetTask(tctx, task.TaskID)
		if err != nil {
			return nil, c.taskGaveUp(ctx, tctx, task.TaskID, task, timeout, err)
		}
		task = next
	}
}

// taskOutcome turns a task that ended into the call's result.
func (c *Client) taskOutcome(tctx, ctx context.Context, task *Task, timeout time.Duration) (*CallToolResult, error) {
	if task.Status == TaskCancelled {
		return nil, &TaskCancelledError{TaskID: task.TaskID, StatusMessage: task.StatusMessage}
	}
	if !c.isModern() {
		res, err := c.legacyTaskResult(tctx, task.TaskID)
		if err != nil {
			return nil, c.taskGaveUp(ctx, tctx, "", nil, timeout, err)
		}
		return res, nil
	}
	if task.Status == TaskFailed {
		if task.Error == nil {
			return nil, &ProtocolError{Method: "tasks/get", Msg: fmt.Sprintf("task %q failed, but the server sent no error", task.TaskID)}
		}
		return nil, fmt.Errorf("task %q failed: %w", task.TaskID, task.Error)
	}
	if len(task.Result) == 0 || string(task.Result) == "null" {
		return nil, &ProtocolError{Method: "tasks/get", Msg: fmt.Sprintf("task %q completed, but the server sent no result", task.TaskID)}
	}
	if c.opts.OnResult != nil {
		c.opts.OnResult("tools/call", c.ProtocolVersion(), task.Result)
	}
	return decodeCallToolResult(task.Result)
}

// legacyTaskResult fetches a legacy task's result with tasks/result, which
// the server answers when the task ends: the tool's result, or the JSON-RPC
// error the call would have had.
func (c *Client) legacyTaskResult(ctx context.Context, id string) (*CallToolResult, error) {
	raw, err := c.Call(ctx, "tasks/result", map[string]string{"taskId": id})
	if err != nil {
		var rpc *RPCError
		if errors.As(err, &rpc) {
			return nil, fmt.Errorf("task %q failed: %w", id, err)
		}
		return nil, err
	}
	if c.opts.OnResult != nil {
		c.opts.OnResult("tools/call", c.ProtocolVersion(), raw)
	}
	return decodeCallToolResult(raw)
}

// answerTaskInput answers a modern task's inputRequests not answered yet
// through [Options.Handlers] and sends the answers with tasks/update.
func (c *Client) answerTaskInput(ctx context.Context, task *Task, answered map[string]bool) error {
	var reqs map[string]struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(task.InputRequests, &reqs); err != nil || len(reqs) == 0 {
		return &ProtocolError{Method: "tasks/get", Msg: fmt.Sprintf("task %q is input_required without inputRequests", task.TaskID)}
	}
	keys := make([]string, 0, len(reqs))
	for k := range reqs {
		if !answered[k] {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil // answered already; the server has not caught up
	}
	sort.Strings(keys)
	answers := map[string]json.RawMessage{}
	for _, k := range keys {
		req := reqs[k]
		h := c.opts.Handlers[req.Method]
		if h == nil {
			return &ProtocolError{Method: "tasks/get", Msg: fmt.Sprintf("task %q needs input: %s (%q), which this command does not answer", task.TaskID, req.Method, k)}
		}
		res, err := h(ctx, req.Params)
		if err != nil {
			return fmt.Errorf("task %q: answering the server's %s (%q): %w", task.TaskID, req.Method, k, err)
		}
		b, err := json.Marshal(res)
		if err != nil {
			return fmt.Errorf("task %q: encoding the answer to %s: %w", task.TaskID, req.Method, err)
		}
		answers[k] = b
	}
	if _, err := c.taskRequest(ctx, "tasks/update", task.TaskID, map[string]any{"taskId": task.TaskID, "inputResponses": answers}); err != nil {
		return err
	}
	for k := range answers {
		answered[k] = true
	}
	return nil
}

// taskGaveUp ends a task the caller stops waiting for: when ctx (the
// caller's) is cancelled or tctx (the task's deadline) passed, it sends
// tasks/cancel for a task that has not ended, so the server stops working
// on it, and returns ctx's error or a [*TimeoutError]; any other err is
// returned as it is.
func (c *Client) taskGaveUp(ctx, tctx context.Context, id string, task *Task, timeout time.Duration, err error) error {
	cancelled := ctx.Err() != nil
	// A request's own timer may fire an instant before tctx's: the
	// deadline having passed is what counts.
	d, _ := tctx.Deadline()
	timedOut := !cancelled && (errors.Is(tctx.Err(), context.DeadlineExceeded) || !time.Now().Before(d))
	if !cancelled && !timedOut {
		return err
	}
	sent := ""
	if id != "" && (task == nil || !task.Terminal()) {
		cctx, done := context.WithTimeout(c.bgCtx, min(cancelTaskTimeout, c.opts.Timeout))
		if _, cerr := c.CancelTask(cctx, id); cerr == nil {
			sent = "; sent tasks/cancel"
		} else {
			sent = fmt.Sprintf("; tasks/cancel failed: %v", cerr)
		}
		done()
	}
	if cancelled {
		if id != "" {
			return fmt.Errorf("task %q%s: %w", id, sent, ctx.Err())
		}
		return err
	}
	waiting := "waiting for the server to create the task"
	if id != "" {
		waiting = fmt.Sprintf("waiting for task %q to finish (last status %s", id, task.Status)
		if task.StatusMessage != "" {
			waiting += ": " + task.StatusMessage
		}
		waiting += ")" + sent
	}
	return &TimeoutError{Method: "tools/call", After: timeout,
		Waiting: waiting + " (the timeout bounds the whole task: raise --timeout for a long one)"}
}

// GetTask asks for a task's state with tasks/get.
func (c *Client) GetTask(ctx context.Context, id string) (*Task, error) {
	raw, err := c.taskRequest(ctx, "tasks/get", id, map[string]string{"taskId": id})
	if err != nil {
		return nil, err
	}
	var t Task
	if err := json.Unmarshal(raw, &t); err != nil || t.Status == "" {
		return nil, &ProtocolError{Method: "tasks/get", Msg: "result is not a task: " + truncate(raw, 200)}
	}
	if t.TaskID == "" {
		t.TaskID = id
	}
	return &t, nil
}

// CancelTask asks the server to cancel a task with tasks/cancel. A legacy
// server answers with the task, which is returned; a modern one with an
// acknowledgement only, and the task is nil.
func (c *Client) CancelTask(ctx context.Context, id string) (*Task, error) {
	raw, err := c.taskRequest(ctx, "tasks/cancel", id, map[string]string{"taskId": id})
	if err != nil {
		return nil, err
	}
	if c.isModern() {
		return nil, nil
	}
	var t Task
	if err := json.Unmarshal(raw, &t); err != nil || t.Status == "" {
		return nil, nil // an ack without the task is enough
	}
	return &t, nil
}

// TaskResult is the result of a task that has ended: in the legacy era
// from tasks/result (which waits for the task to end); in the modern era
// from the result tasks/get carries, or an error saying the task has not
// ended.
func (c *Client) TaskResult(ctx context.Context, id string) (*CallToolResult, error) {
	if !c.isModern() {
		return c.legacyTaskResult(ctx, id)
	}
	t, err := c.GetTask(ctx, id)
	if err != nil {
		return nil, err
	}
	if !t.Terminal() {
		return nil, fmt.Errorf("task %q has no result yet: it is %s (the modern era has no tasks/result that waits; poll with tasks/get)", id, t.Status)
	}
	return c.taskOutcome(ctx, ctx, t, c.opts.Timeout)
}

// ListTasks returns every task the server lists with tasks/list, following
// pagination. Only the legacy era has tasks/list.
func (c *Client) ListTasks(ctx context.Context) ([]Task, error) {
	if c.isModern() {
		return nil, fmt.Errorf("tasks/list does not exist in the modern protocol era (the tasks extension has no list); ask for a task by id")
	}
	return listAll[Task](ctx, c, "tasks/list", "tasks", nil)
}

// taskRequest sends a request about task id: in the modern era with the
// extension declared and the Mcp-Name header set to the task's id, which
// routes it to the server instance holding the task (SEP-2663).
func (c *Client) taskRequest(ctx context.Context, method, id string, params any) (json.RawMessage, error) {
	p, err := encodeParams(method, params)
	if err != nil {
		return nil, err
	}
	ro := requestOptions{task: true}
	if c.isModern() {
		ro.header = http.Header{"Mcp-Name": {headerValue(id)}}
	}
	return c.call(ctx, method, oneParams(p), ro)
}

func decodeCallToolResult(raw json.RawMessage) (*CallToolResult, error) {
	res := &CallToolResult{}
	if err := json.Unmarshal(raw, res); err != nil {
		return nil, &ProtocolError{Method: "tools/call", Msg: "result is not a CallToolResult: " + err.Error()}
	}
	return res, nil
}

// createdTask reads a CreateTaskResult: legacy {task: {…}}, modern
// {resultType: "task", …the task inline}. ok is false for any other
// result.
func createdTask(raw json.RawMessage, modern bool) (*Task, bool) {
	var probe struct {
		ResultType string          `json:"resultType"`
		Task       json.RawMessage `json:"task"`
	}
	if json.Unmarshal(raw, &probe) != nil {
		return nil, false
	}
	var t Task
	switch {
	case modern && probe.ResultType == "task":
		if json.Unmarshal(raw, &t) != nil {
			return nil, false
		}
	case !modern && len(probe.Task) > 0 && probe.Task[0] == '{':
		if json.Unmarshal(probe.Task, &t) != nil {
			return nil, false
		}
	default:
		return nil, false
	}
	return &t, true
}

// withMember returns the object params with member name set to v, every
// other member keeping its bytes.
func withMember(params json.RawMessage, name string, v any) (json.RawMessage, error) {
	fields := map[string]json.RawMessage{}
	if len(params) > 0 && string(params) != "null" {
		if err := json.Unmarshal(params, &fields); err != nil {
			return nil, fmt.Errorf("params are not a JSON object: %w", err)
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	fields[name] = b
	return marshalObject(fields)
}

// taskCreated reports whether raw is a CreateTaskResult a request of a
// task ([requestOptions.task]) asked for: [Client.call] then leaves its
// checks (resultType, the result schema) to the task's code, since the
// result is not the method's own.
func (c *Client) taskCreated(method string, raw json.RawMessage, ro requestOptions) bool {
	if method != "tools/call" || !ro.task {
		return false
	}
	_, ok := createdTask(raw, c.isModern())
	return ok
}

// declareTasks adds the tasks extension to the clientCapabilities in the
// _meta of a modern request's params (built by withMeta), keeping every
// other member's bytes.
func declareTasks(params json.RawMessage) (json.RawMessage, error) {
	return editCapabilities(params, func(caps map[string]json.RawMessage) error {
		var ext map[string]json.RawMessage
		_ = json.Unmarshal(caps["extensions"], &ext)
		if ext == nil {
			ext = map[string]json.RawMessage{}
		}
		ext[TasksExtension] = json.RawMessage("{}")
		var err error
		caps["extensions"], err = marshalObject(ext)
		return err
	})
}
