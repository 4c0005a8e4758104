package testserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The tasks mode: tool calls as tasks, written by hand because the Go SDK
// has no task support. Over -era legacy (the default) it is a 2025-11-25
// server declaring the tasks capability (tools/call, list, cancel); over
// -era modern it speaks 2026-07-28 with the tasks extension
// (io.modelcontextprotocol/tasks) and refuses initialize; -era dual serves
// both, telling a modern request by the protocol version in its _meta.
//
// Its tools:
//   - slow(polls?, message?): taskSupport required; completes after
//     `polls` tasks/get (default 3), with a status message per poll,
//     returning "slow: MESSAGE".
//   - fails: taskSupport required; the task fails with JSON-RPC error
//     -32001 "backend unavailable".
//   - forever(ready?): taskSupport required; works until tasks/cancel. With
//     ready=PATH it creates PATH at its first tasks/get, so a script knows
//     the client holds the task.
//   - maybe(message): taskSupport optional; "maybe: MESSAGE" at once or as
//     a task completing at the first poll.
//   - echo(message): no task support.
//
// Polls are answered with pollInterval 20 ms; a task lives 60 s unless the
// client asks otherwise.

// tasksPollInterval is the pollInterval the tasks mode suggests.
const tasksPollInterval = 20 * time.Millisecond

// tasksExtension is the modern era's tasks extension.
const tasksExtension = "io.modelcontextprotocol/tasks"

// modernVersion is the revision the modern era of a raw mode speaks.
const modernVersion = "2026-07-28"

// taskState is one task of the tasks mode.
type taskState struct {
	id, tool, status, message string
	polls, want               int
	ready                     string // forever's ready file
	result                    map[string]any
	err                       *jsonrpc.Error
	created                   string
	ttl                       int64
}

// tasksServer holds the tasks of one run; the raw server handles one
// message at a time, so it needs no lock.
type tasksServer struct {
	era   string
	tasks map[string]*taskState
	order []string
	next  int
}

func tasksMode(ctx context.Context, e *env) int {
	switch e.era {
	case eraLegacy, eraModern, eraDual:
	default:
		return e.exitStatus(fmt.Errorf("unknown -era %q (want legacy, modern or dual)", e.era))
	}
	ts := &tasksServer{era: e.era, tasks: map[string]*taskState{}}
	methods := rawMethods(e.mode, "")
	legacyInit := methods["initialize"]
	methods["initialize"] = func(params json.RawMessage) (any, *jsonrpc.Error) {
		if ts.era == eraModern {
			return nil, &jsonrpc.Error{Code: -32022, Message: "this server speaks only protocol 2026-07-28 (no initialize)",
				Data: json.RawMessage(`{"supported":["2026-07-28"],"requested":"initialize"}`)}
		}
		res, rpcErr := legacyInit(params)
		if m, ok := res.(map[string]any); ok {
			m["capabilities"] = map[string]any{
				"tools": map[string]any{},
				"tasks": map[string]any{"list": map[string]any{}, "cancel": map[string]any{},
					"requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}},
			}
		}
		return res, rpcErr
	}
	methods["server/discover"] = func(params json.RawMessage) (any, *jsonrpc.Error) {
		if ts.era == eraLegacy {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: server/discover"}
		}
		return map[string]any{
			"resultType":        "complete",
			"ttlMs":             0,
			"cacheScope":        "private",
			"supportedVersions": []string{modernVersion},
			"capabilities": map[string]any{"tools": map[string]any{},
				"extensions": map[string]any{tasksExtension: map[string]any{}}},
			"_meta": map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "testserver-" + e.mode, "version": "1.0.0"}},
		}, nil
	}
	methods["tools/list"] = ts.modern(ts.listTools)
	methods["tools/call"] = ts.modern(ts.callTool)
	methods["tasks/get"] = ts.modern(ts.get)
	methods["tasks/result"] = ts.result
	methods["tasks/list"] = ts.list
	methods["tasks/cancel"] = ts.modern(ts.cancel)
	methods["tasks/update"] = ts.modern(func(params json.RawMessage, modern bool) (any, *jsonrpc.Error) {
		if !modern {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: tasks/update"}
		}
		if _, rpcErr := ts.find(params); rpcErr != nil {
			return nil, rpcErr
		}
		return map[string]any{}, nil
	})
	s := &rawServer{methods: methods, obs: e.obs}
	return e.exitStatus(s.serve(ctx, e.stdin, e.stdout))
}

// requestMeta is what the tasks mode reads of a request's _meta.
type requestMeta struct {
	Meta struct {
		ProtocolVersion    string `json:"io.modelcontextprotocol/protocolVersion"`
		ClientCapabilities struct {
			Extensions map[string]json.RawMessage `json:"extensions"`
		} `json:"io.modelcontextprotocol/clientCapabilities"`
	} `json:"_meta"`
}

// modern adapts a handler that answers both eras: a request is modern when
// its _meta names a protocol version (only modern requests carry one); its
// result then carries resultType "complete" unless it set one. A modern
// request to a legacy-only server, or a legacy one to a modern-only
// server, is refused.
func (ts *tasksServer) modern(h func(params json.RawMessage, modern bool) (any, *jsonrpc.Error)) rawHandler {
	return func(params json.RawMessage) (any, *jsonrpc.Error) {
		var rm requestMeta
		_ = json.Unmarshal(params, &rm)
		modern := rm.Meta.ProtocolVersion != ""
		switch {
		case modern && ts.era == eraLegacy:
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "this server speaks only the legacy protocol era: initialize first"}
		case !modern && ts.era == eraModern:
			return nil, &jsonrpc.Error{Code: -32022, Message: "this server speaks only protocol 2026-07-28: send _meta io.modelcontextprotocol/protocolVersion",
				Data: json.RawMessage(`{"supported":["2026-07-28"]}`)}
		}
		res, rpcErr := h(params, modern)
		if m, ok := res.(map[string]any); ok && modern {
			if _, set := m["resultType"]; !set {
				m["resultType"] = "complete"
			}
		}
		return res, rpcErr
	}
}

func (ts *tasksServer) listTools(_ json.RawMessage, modern bool) (any, *jsonrpc.Error) {
	tool := func(name, support, desc string, props map[string]any) map[string]any {
		t := map[string]any{"name": name, "description": desc,
			"inputSchema": map[string]any{"type": "object", "properties": props}}
		if support != "" && !modern {
			t["execution"] = map[string]any{"taskSupport": support}
		}
		return t
	}
	str := map[string]any{"type": "string"}
	res := map[string]any{"tools": []any{
		tool("slow", "required", "Completes after `polls` polls (default 3).", map[string]any{"polls": map[string]any{"type": "integer", "minimum": 1}, "message": str}),
		tool("fails", "required", "A task that fails with -32001.", map[string]any{}),
		tool("forever", "required", "A task that works until cancelled; ready=PATH is created at its first poll.", map[string]any{"ready": str}),
		tool("maybe", "optional", "A task if asked, else at once.", map[string]any{"message": str}),
		echoTool(),
	}}
	if modern {
		// What a modern list result must say about caching.
		res["ttlMs"], res["cacheScope"] = 0, "private"
	}
	return res, nil
}

func (ts *tasksServer) callTool(params json.RawMessage, modern bool) (any, *jsonrpc.Error) {
	var p struct {
		requestMeta
		Name      string `json:"name"`
		Arguments struct {
			Polls   int    `json:"polls"`
			Message string `json:"message"`
			Ready   string `json:"ready"`
		} `json:"arguments"`
		Task *struct {
			TTL *int64 `json:"ttl"`
		} `json:"task"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid tools/call params: " + err.Error()}
	}
	support := map[string]string{"slow": "required", "fails": "required", "forever": "required", "maybe": "optional", "echo": "forbidden"}[p.Name]
	if support == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", p.Name)}
	}
	var asTask bool
	if modern {
		// The server decides: a task whenever the client declared the
		// extension and the tool runs long.
		_, declared := p.Meta.ClientCapabilities.Extensions[tasksExtension]
		asTask = declared && support != "forbidden"
		if support == "required" && !declared {
			return nil, &jsonrpc.Error{Code: -32021, Message: "Missing required client capability",
				Data: json.RawMessage(`{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`)}
		}
	} else {
		asTask = p.Task != nil
		switch {
		case support == "required" && !asTask:
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("tool %q must be called as a task (execution.taskSupport required)", p.Name)}
		case support == "forbidden" && asTask:
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("tool %q cannot be called as a task", p.Name)}
		}
	}
	text := func(s string) map[string]any {
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}}
	}
	if !asTask {
		switch p.Name {
		case "echo":
			return text(p.Arguments.Message), nil
		case "maybe":
			return text("maybe: " + p.Arguments.Message), nil
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "unreachable"}
	}
	ts.next++
	t := &taskState{id: fmt.Sprintf("task-%d", ts.next), tool: p.Name, status: "working",
		created: time.Now().UTC().Format(time.RFC3339), ttl: 60000, ready: p.Arguments.Ready}
	if p.Task != nil && p.Task.TTL != nil {
		t.ttl = *p.Task.TTL
	}
	switch p.Name {
	case "slow":
		t.want = max(p.Arguments.Polls, 1)
		if p.Arguments.Polls == 0 {
			t.want = 3
		}
		t.message = fmt.Sprintf("step 0 of %d", t.want)
		t.result = text("slow: " + p.Arguments.Message)
	case "fails":
		t.want = 1
		t.err = &jsonrpc.Error{Code: -32001, Message: "backend unavailable"}
	case "forever":
		t.want = -1
		t.message = "working until cancelled"
	case "maybe":
		t.want = 1
		t.result = text("maybe: " + p.Arguments.Message)
	}
	ts.tasks[t.id] = t
	ts.order = append(ts.order, t.id)
	if modern {
		m := t.wire(true)
		m["resultType"] = "task"
		return m, nil
	}
	return map[string]any{"task": t.wire(false)}, nil
}

// wire is the task as tasks/get answers it in an era; a modern one
// carries its result or error inline once it ended.
func (t *taskState) wire(modern bool) map[string]any {
	m := map[string]any{"taskId": t.id, "status": t.status, "createdAt": t.created, "lastUpdatedAt": time.Now().UTC().Format(time.RFC3339)}
	if t.message != "" {
		m["statusMessage"] = t.message
	}
	if modern {
		m["ttlMs"] = t.ttl
		m["pollIntervalMs"] = tasksPollInterval.Milliseconds()
		switch t.status {
		case "completed":
			res := map[string]any{"resultType": "complete"}
			for k, v := range t.result {
				res[k] = v
			}
			m["result"] = res
		case "failed":
			m["error"] = t.err
		}
		return m
	}
	m["ttl"] = t.ttl
	m["pollInterval"] = tasksPollInterval.Milliseconds()
	return m
}

func (ts *tasksServer) find(params json.RawMessage) (*taskState, *jsonrpc.Error) {
	var p struct {
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal(params, &p)
	t := ts.tasks[p.TaskID]
	if t == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("Failed to retrieve task: Task not found: %q", p.TaskID)}
	}
	return t, nil
}

func (ts *tasksServer) get(params json.RawMessage, modern bool) (any, *jsonrpc.Error) {
	t, rpcErr := ts.find(params)
	if rpcErr != nil {
		return nil, rpcErr
	}
	if t.status == "working" {
		t.polls++
		if t.ready != "" && t.polls == 1 {
			_ = os.WriteFile(t.ready, nil, 0o644)
		}
		switch {
		case t.want < 0:
		case t.polls >= t.want && t.err != nil:
			t.status, t.message = "failed", "Tool execution failed: "+t.err.Message
		case t.polls >= t.want:
			t.status, t.message = "completed", ""
		default:
			t.message = fmt.Sprintf("step %d of %d", t.polls, t.want)
		}
	}
	return t.wire(modern), nil
}

func (ts *tasksServer) result(params json.RawMessage) (any, *jsonrpc.Error) {
	var rm requestMeta
	_ = json.Unmarshal(params, &rm)
	if rm.Meta.ProtocolVersion != "" || ts.era == eraModern {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: tasks/result (the tasks extension has none)"}
	}
	t, rpcErr := ts.find(params)
	if rpcErr != nil {
		return nil, rpcErr
	}
	switch t.status {
	case "completed":
		res := map[string]any{}
		for k, v := range t.result {
			res[k] = v
		}
		res["_meta"] = map[string]any{"io.modelcontextprotocol/related-task": map[string]any{"taskId": t.id}}
		return res, nil
	case "failed":
		return nil, t.err
	case "cancelled":
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("task %q was cancelled", t.id)}
	}
	// A real server blocks until the task ends; this one handles a message
	// at a time and cannot.
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("task %q is still %s (this test server does not wait in tasks/result)", t.id, t.status)}
}

func (ts *tasksServer) list(params json.RawMessage) (any, *jsonrpc.Error) {
	var rm requestMeta
	_ = json.Unmarshal(params, &rm)
	if rm.Meta.ProtocolVersion != "" || ts.era == eraModern {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: tasks/list (the tasks extension has none)"}
	}
	tasks := []any{}
	for _, id := range ts.order {
		tasks = append(tasks, ts.tasks[id].wire(false))
	}
	return map[string]any{"tasks": tasks}, nil
}

func (ts *tasksServer) cancel(params json.RawMessage, modern bool) (any, *jsonrpc.Error) {
	t, rpcErr := ts.find(params)
	if rpcErr != nil {
		return nil, rpcErr
	}
	if t.status != "working" && t.status != "input_required" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("Cannot cancel task: already in terminal status '%s'", t.status)}
	}
	t.status, t.message = "cancelled", "The task was cancelled by request."
	if modern {
		return map[string]any{}, nil
	}
	return t.wire(false), nil
}
