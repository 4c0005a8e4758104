package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// legacyTaskCaps is an initialize answer declaring tasks for tools/call,
// tasks/list and tasks/cancel.
func legacyTaskInit(s *fakeServer, m message) {
	s.reply(m, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"fake","version":"0.1"}}`)
}

func modernTaskDiscover(s *fakeServer, m message) {
	s.reply(m, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{},"extensions":{"io.modelcontextprotocol/tasks":{}}},"ttlMs":0,"cacheScope":"private"}`)
}

// sleeps records the waits a task asked for and returns at once.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func taskIDOf(t *testing.T, m message) string {
	t.Helper()
	var p struct {
		TaskID string `json:"taskId"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil {
		t.Errorf("%s params %s: %v", m.Method, m.Params, err)
	}
	return p.TaskID
}

// TestLegacyTaskCompletes: params.task is sent, the statuses reach OnStatus
// once per change, each wait is the server's pollInterval of the moment,
// and the result comes from tasks/result.
func TestLegacyTaskCompletes(t *testing.T) {
	polls := 0
	s, conn := startFake(t, map[string]handler{
		"initialize": legacyTaskInit,
		"tools/call": func(s *fakeServer, m message) {
			s.reply(m, `{"task":{"taskId":"t1","status":"working","createdAt":"2025-11-25T10:00:00Z","ttl":60000,"pollInterval":250}}`)
		},
		"tasks/get": func(s *fakeServer, m message) {
			polls++
			switch polls {
			case 1:
				s.reply(m, `{"taskId":"t1","status":"working","createdAt":"x","lastUpdatedAt":"x","ttl":60000,"pollInterval":250}`)
			case 2:
				s.reply(m, `{"taskId":"t1","status":"working","statusMessage":"half way","createdAt":"x","lastUpdatedAt":"x","ttl":60000,"pollInterval":40}`)
			default:
				s.reply(m, `{"taskId":"t1","status":"completed","createdAt":"x","lastUpdatedAt":"x","ttl":60000}`)
			}
		},
		"tasks/result": func(s *fakeServer, m message) {
			s.reply(m, `{"content":[{"type":"text","text":"done"}],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t1"}}}`)
		},
	})
	c, err := Connect(context.Background(), fixed(conn), Options{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var seen []string
	sl := &sleeps{}
	res, err := c.callToolTask(context.Background(), "slow", json.RawMessage(`{"n":1}`), CallOptions{},
		TaskOptions{TTL: time.Minute, OnStatus: func(t Task) { seen = append(seen, t.Status+"/"+t.StatusMessage) }}, sl.sleep)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 || res.Content[0].Text != "done" {
		t.Errorf("result %s", res.Raw)
	}
	if diff := cmp.Diff([]string{"working/", "working/half way", "completed/"}, seen); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	want := []time.Duration{250 * time.Millisecond, 250 * time.Millisecond, 40 * time.Millisecond}
	if diff := cmp.Diff(want, sl.d); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	var call message
	for _, m := range s.drain() {
		if m.Method == "tools/call" {
			call = m
		}
		if strings.HasPrefix(m.Method, "tasks/") && taskIDOf(t, m) != "t1" {
			t.Errorf("%s for task %q", m.Method, taskIDOf(t, m))
		}
	}
	var p struct {
		Task      map[string]any  `json:"task"`
		Arguments json.RawMessage `json:"arguments"`
	}
	_ = json.Unmarshal(call.Params, &p)
	if p.Task == nil || p.Task["ttl"] != float64(60000) || string(p.Arguments) != `{"n":1}` {
		t.Errorf("tools/call params %s: want task.ttl 60000 and the arguments", call.Params)
	}
}

// TestLegacyTaskFailed: a failed task's tasks/result error is the call's
// error, a *RPCError naming the task.
func TestLegacyTaskFailed(t *testing.T) {
	_, conn := startFake(t, map[string]handler{
		"initialize": legacyTaskInit,
		"tools/call": func(s *fakeServer, m message) {
			s.reply(m, `{"task":{"taskId":"t2","status":"working","createdAt":"x","ttl":null}}`)
		},
		"tasks/get": func(s *fakeServer, m message) {
			s.reply(m, `{"taskId":"t2","status":"failed","statusMessage":"backend down","createdAt":"x","lastUpdatedAt":"x","ttl":null}`)
		},
		"tasks/result": func(s *fakeServer, m message) {
			s.replyError(m, `{"code":-32001,"message":"backend down"}`)
		},
	})
	c, err := Connect(context.Background(), fixed(conn), Options{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sl := &sleeps{}
	_, err = c.callToolTask(context.Background(), "fails", nil, CallOptions{}, TaskOptions{}, sl.sleep)
	var rpc *RPCError
	if !errors.As(err, &rpc) || rpc.Code != -32001 || !strings.Contains(err.Error(), `task "t2" failed`) {
		t.Errorf("error %v, want the task's -32001", err)
	}
	if diff := cmp.Diff([]time.Duration{DefaultPollInterval}, sl.d); diff != "" {
		t.Errorf("waits without a pollInterval (-want +got):\n%s", diff)
	}
}

// TestLegacyTaskCancel: when the caller gives up, tasks/cancel is sent for
// the task and the error is the context's.
func TestLegacyTaskCancel(t *testing.T) {
	s, conn := startFake(t, map[string]handler{
		"initialize": legacyTaskInit,
		"tools/call": func(s *fakeServer, m message) {
			s.reply(m, `{"task":{"taskId":"t3","status":"working","createdAt":"x","ttl":null,"pollInterval":10}}`)
		},
		"tasks/get": func(s *fakeServer, m message) {
			s.reply(m, `{"taskId":"t3","status":"working","createdAt":"x","lastUpdatedAt":"x","ttl":null,"pollInterval":10}`)
		},
		"tasks/cancel": func(s *fakeServer, m message) {
			s.reply(m, `{"taskId":"t3","status":"cancelled","createdAt":"x","lastUpdatedAt":"x","ttl":null}`)
		},
	})
	c, err := Connect(context.Background(), fixed(conn), Options{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	polls := 0
	sleep := func(sctx context.Context, d time.Duration) error {
		if polls++; polls == 3 {
			cancel() // the user's Ctrl-C, while waiting
		}
		return sctx.Err()
	}
	_, err = c.callToolTask(ctx, "slow", nil, CallOptions{}, TaskOptions{}, sleep)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "sent tasks/cancel") {
		t.Errorf("error %v, want context.Canceled after tasks/cancel", err)
	}
	m := s.waitFor(t, "tasks/cancel", isMethod("tasks/cancel"))
	if id := taskIDOf(t, m); id != "t3" {
		t.Errorf("tasks/cancel for %q", id)
	}
}

// TestTaskTimeout: the task's timeout bounds the whole task: tasks/cancel
// and a *TimeoutError naming the task and its last status.
func TestTaskTimeout(t *testing.T) {
	s, conn := startFake(t, map[string]handler{
		"initialize": legacyTaskInit,
		"tools/call": func(s *fakeServer, m message) {
			s.reply(m, `{"task":{"taskId":"t4","status":"working","statusMessage":"busy","createdAt":"x","ttl":null,"pollInterval":600000}}`)
		},
		"tasks/cancel": func(s *fakeServer, m message) {
			s.reply(m, `{"taskId":"t4","status":"cancelled","createdAt":"x","lastUpdatedAt":"x","ttl":null}`)
		},
	})
	c, err := Connect(context.Background(), fixed(conn), Options{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The wait ends only with the task's deadline.
	block := func(ctx context.Context, _ time.Duration) error { <-ctx.Done(); return ctx.Err() }
	_, err = c.callToolTask(context.Background(), "slow", nil, CallOptions{}, TaskOptions{Timeout: 2 * time.Second}, block)
	var te *TimeoutError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), `task "t4"`) || !strings.Contains(err.Error(), "working: busy") {
		t.Fatalf("error %v, want a timeout naming the task", err)
	}
	s.waitFor(t, "tasks/cancel", isMethod("tasks/cancel"))
}

// TestPlanTask: the tool-level negotiation of 2025-11-25 and the modern
// extension's declaration.
func TestPlanTask(t *testing.T) {
	tool := func(support string) *Tool {
		raw := `{"name":"t","inputSchema":{"type":"object"}}`
		if support != "" {
			raw = fmt.Sprintf(`{"name":"t","inputSchema":{"type":"object"},"execution":{"taskSupport":%q}}`, support)
		}
		var tl Tool
		if err := json.Unmarshal([]byte(raw), &tl); err != nil {
			t.Fatal(err)
		}
		return &tl
	}
	withTasks := legacyTaskInit
	without := answerInitialize(LatestProtocolVersion)
	tests := []struct {
		name    string
		init    handler
		modern  bool
		support string
		mode    TaskMode
		want    bool
		wantErr string
	}{
		{"absent auto", withTasks, false, "", TaskAuto, false, ""},
		{"absent asked", withTasks, false, "", TaskAsk, false, `"forbidden"`},
		{"forbidden asked", withTasks, false, "forbidden", TaskAsk, false, `"forbidden"`},
		{"optional auto", withTasks, false, "optional", TaskAuto, false, ""},
		{"optional asked", withTasks, false, "optional", TaskAsk, true, ""},
		{"required auto", withTasks, false, "required", TaskAuto, true, ""},
		{"unknown value", withTasks, false, "sometimes", TaskAsk, false, `"forbidden"`},
		{"no capability asked", without, false, "optional", TaskAsk, false, "tasks.requests.tools.call"},
		{"no capability required", without, false, "required", TaskAuto, false, "contradicts itself"},
		{"modern declared", nil, true, "", TaskAuto, true, ""},
		{"modern undeclared auto", nil, true, "", TaskAuto, false, ""},
		{"modern undeclared asked", nil, true, "", TaskAsk, false, TasksExtension},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := map[string]handler{"initialize": tt.init}
			opts := Options{Timeout: 10 * time.Second}
			if tt.modern {
				opts.ProtocolVersion = ModernProtocolVersion
				h["server/discover"] = modernTaskDiscover
				if strings.Contains(tt.name, "undeclared") {
					h["server/discover"] = func(s *fakeServer, m message) {
						s.reply(m, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}`)
					}
				}
			}
			_, conn := startFake(t, h)
			c, err := Connect(context.Background(), fixed(conn), opts)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			got, err := c.PlanTask(tool(tt.support), tt.mode)
			if tt.wantErr != "" {
				var se *TaskSupportError
				if !errors.As(err, &se) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want a TaskSupportError with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("PlanTask = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

// TestModernTask: the extension is declared in the request's
// capabilities, the server answers with a task, input_required is answered
// with tasks/update (once per key), and the result comes inline.
func TestModernTask(t *testing.T) {
	polls := 0
	s, conn := startFake(t, map[string]handler{
		"server/discover": modernTaskDiscover,
		"tools/list":      listOneTool,
		"tools/call": func(s *fakeServer, m message) {
			s.reply(m, `{"resultType":"task","taskId":"m1","status":"working","createdAt":"x","lastUpdatedAt":"x","ttlMs":null,"pollIntervalMs":30}`)
		},
		"tasks/get": func(s *fakeServer, m message) {
			polls++
			switch polls {
			case 1, 2: // the second poll shows the same request: not answered twice
				s.reply(m, `{"resultType":"complete","taskId":"m1","status":"input_required","createdAt":"x","lastUpdatedAt":"x","ttlMs":null,"pollIntervalMs":30,"inputRequests":{"k1":{"method":"elicitation/create","params":{"message":"sure?"}}}}`)
			case 3:
				s.reply(m, `{"resultType":"complete","taskId":"m1","status":"working","createdAt":"x","lastUpdatedAt":"x","ttlMs":null,"pollIntervalMs":30}`)
			default:
				s.reply(m, `{"resultType":"complete","taskId":"m1","status":"completed","createdAt":"x","lastUpdatedAt":"x","ttlMs":null,"result":{"content":[{"type":"text","text":"42"}]}}`)
			}
		},
		"tasks/update": func(s *fakeServer, m message) { s.reply(m, `{"resultType":"complete"}`) },
	})
	asked := 0
	c, err := Connect(context.Background(), fixed(conn), Options{Timeout: 10 * time.Second, ProtocolVersion: ModernProtocolVersion,
		Handlers: map[string]RequestHandler{"elicitation/create": func(context.Context, json.RawMessage) (any, error) {
			asked++
			return map[string]any{"action": "accept", "content": map[string]any{}}, nil
		}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var seen []string
	sl := &sleeps{}
	res, err := c.callToolTask(context.Background(), "t", nil, CallOptions{}, TaskOptions{OnStatus: func(t Task) { seen = append(seen, t.Status) }}, sl.sleep)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 || res.Content[0].Text != "42" {
		t.Errorf("result %s", res.Raw)
	}
	if diff := cmp.Diff([]string{"working", "input_required", "working", "completed"}, seen); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if asked != 1 {
		t.Errorf("the elicitation was asked %d times, want once", asked)
	}
	if sl.d[0] != 30*time.Millisecond {
		t.Errorf("first wait %s, want pollIntervalMs 30ms", sl.d[0])
	}
	updates := 0
	for _, m := range s.drain() {
		switch m.Method {
		case "tools/call", "tasks/get", "tasks/update":
			var p struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			}
			_ = json.Unmarshal(m.Params, &p)
			if !strings.Contains(string(p.Meta[metaClientCapabilities]), `"extensions":{"io.modelcontextprotocol/tasks":{}}`) {
				t.Errorf("%s declares %s, want the tasks extension", m.Method, p.Meta[metaClientCapabilities])
			}
		}
		if m.Method == "tasks/update" {
			updates++
			if !strings.Contains(string(m.Params), `"inputResponses":{"k1":{"action":"accept"`) {
				t.Errorf("tasks/update params %s", m.Params)
			}
		}
		if m.Method == "tasks/result" {
			t.Error("tasks/result sent in the modern era")
		}
	}
	if updates != 1 {
		t.Errorf("%d tasks/update, want 1", updates)
	}
}

// TestModernTaskOutcomes: a failed task's inline error, a cancelled task,
// and a server that answers at once without a task.
func TestModernTaskOutcomes(t *testing.T) {
	tests := []struct {
		name, call, get string
		check           func(t *testing.T, res *CallToolResult, err error)
	}{
		{"failed",
			`{"resultType":"task","taskId":"f","status":"working","createdAt":"x","lastUpdatedAt":"x","ttlMs":null}`,
			`{"resultType":"complete","taskId":"f","status":"failed","createdAt":"x","lastUpdatedAt":"x","ttlMs":null,"error":{"code":-32603,"message":"boom"}}`,
			func(t *testing.T, _ *CallToolResult, err error) {
				var rpc *RPCError
				if !errors.As(err, &rpc) || rpc.Message != "boom" {
					t.Errorf("error %v, want the task's error", err)
				}
			}},
		{"cancelled",
			`{"resultType":"task","taskId":"c","status":"working","createdAt":"x","lastUpdatedAt":"x","ttlMs":null}`,
			`{"resultType":"complete","taskId":"c","status":"cancelled","statusMessage":"operator","createdAt":"x","lastUpdatedAt":"x","ttlMs":null}`,
			func(t *testing.T, _ *CallToolResult, err error) {
				var ce *TaskCancelledError
				if !errors.As(err, &ce) || ce.StatusMessage != "operator" {
					t.Errorf("error %v, want TaskCancelledError", err)
				}
			}},
		{"no task",
			`{"resultType":"complete","content":[{"type":"text","text":"now"}]}`, ``,
			func(t *testing.T, res *CallToolResult, err error) {
				if err != nil || res.Content[0].Text != "now" {
					t.Errorf("%v %v, want the result at once", res, err)
				}
			}},
		{"completed isError",
			`{"resultType":"task","taskId":"e","status":"working","createdAt":"x","lastUpdatedAt":"x","ttlMs":null}`,
			`{"resultType":"complete","taskId":"e","status":"completed","createdAt":"x","lastUpdatedAt":"x","ttlMs":null,"result":{"content":[],"isError":true}}`,
			func(t *testing.T, res *CallToolResult, err error) {
				if err != nil || !res.IsError {
					t.Errorf("%v %v, want the isError result", res, err)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, conn := startFake(t, map[string]handler{
				"server/discover": modernTaskDiscover,
				"tools/list":      listOneTool,
				"tools/call":      func(s *fakeServer, m message) { s.reply(m, tt.call) },
				"tasks/get":       func(s *fakeServer, m message) { s.reply(m, tt.get) },
			})
			c, err := Connect(context.Background(), fixed(conn), Options{Timeout: 10 * time.Second, ProtocolVersion: ModernProtocolVersion})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			sl := &sleeps{}
			res, err := c.callToolTask(context.Background(), "t", nil, CallOptions{}, TaskOptions{}, sl.sleep)
			tt.check(t, res, err)
		})
	}
}

// TestPlainCallRejectsTask: a CreateTaskResult to a call that did not
// declare tasks is a protocol error, not an empty result.
func TestPlainCallRejectsTask(t *testing.T) {
	_, conn := startFake(t, map[string]handler{
		"server/discover": modernTaskDiscover,
		"tools/list":      listOneTool,
		"tools/call": func(s *fakeServer, m message) {
			s.reply(m, `{"resultType":"task","taskId":"x","status":"working","createdAt":"x","lastUpdatedAt":"x","ttlMs":null}`)
		},
	})
	c, err := Connect(context.Background(), fixed(conn), Options{Timeout: 10 * time.Second, ProtocolVersion: ModernProtocolVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.CallToolWith(context.Background(), "t", nil, CallOptions{})
	var pe *ProtocolError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), `"task"`) {
		t.Errorf("error %v, want a protocol error about resultType task", err)
	}
}

// TestTaskDecode reads both eras' field names.
func TestTaskDecode(t *testing.T) {
	var legacy, modern Task
	if err := json.Unmarshal([]byte(`{"taskId":"a","status":"working","ttl":1000,"pollInterval":5000}`), &legacy); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(`{"taskId":"b","status":"working","ttlMs":null,"pollIntervalMs":50000000}`), &modern); err != nil {
		t.Fatal(err)
	}
	if *legacy.TTLMs != 1000 || legacy.PollInterval() != 5*time.Second {
		t.Errorf("legacy %+v", legacy)
	}
	if modern.TTLMs != nil || modern.PollInterval() != MaxPollInterval {
		t.Errorf("modern %+v: null ttl is unlimited, a huge interval is capped", modern)
	}
}
