package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/session"
	"github.com/mcpctl/mcpctl/transport"
)

// sizes are the terminal sizes every screen is checked at.
var sizes = []struct{ w, h int }{{80, 24}, {120, 40}}

func TestPromptFormWithCompletion(t *testing.T) {
	for _, size := range sizes {
		name := func(step string) string { return fmt.Sprintf("%s-%dx%d", step, size.w, size.h) }
		d := newDriver(t, size.w, size.h, nil)
		d.keys("4")
		d.key(tea.KeyEnter) // review_code
		d.key(tea.KeyEnter) // code is required: nothing is sent
		if d.m.busy != "" || !strings.Contains(d.m.status, "not sent") {
			t.Fatalf("a form missing a required argument was sent: busy %q, status %q", d.m.busy, d.m.status)
		}
		d.keys("print(1)")
		d.key(tea.KeyTab)
		d.keys("Py")
		d.golden(name("prompt-completion"))
		if got := d.m.argForm.sugg; len(got) == 0 || got[0] != "Python" {
			t.Fatalf("completions of language=Py: %q", got)
		}
		d.key(tea.KeyDown)
		d.key(tea.KeyTab)
		if got := d.m.argForm.fields[1].input.Value(); got != "Python" {
			t.Fatalf("tab took %q, want Python", got)
		}
		d.key(tea.KeyEnter)
		d.golden(name("prompt-result"))
		if text := strings.Join(d.m.text.lines, "\n"); !strings.Contains(text, "print(1)") || !strings.Contains(text, "user") {
			t.Errorf("prompt messages:\n%s", text)
		}
		d.key(tea.KeyEsc)
		if d.m.mode != modeArgForm {
			t.Errorf("esc from the prompt went to mode %d, want its form", d.m.mode)
		}
	}
}

func TestTemplateFormReads(t *testing.T) {
	d := newDriver(t, 80, 24, nil)
	d.keys("3")
	d.key(tea.KeyEnter)
	d.keys("A")
	d.golden("template-80x24")
	if len(d.m.argForm.sugg) == 0 {
		t.Fatal("no completion of name=A")
	}
	d.key(tea.KeyDown)
	d.key(tea.KeyTab)
	d.key(tea.KeyEnter)
	if d.m.text.content == nil || d.m.text.content.err != nil {
		t.Fatalf("reading the template's resource: %+v", d.m.text.content)
	}
	if text := strings.Join(d.m.text.lines, "\n"); !strings.Contains(text, "Hello") {
		t.Errorf("resource text:\n%s", text)
	}
	// A resource is read with enter.
	d.key(tea.KeyEsc)
	d.key(tea.KeyEsc)
	d.keys("2")
	d.key(tea.KeyEnter)
	d.golden("resource-80x24")
	if d.m.text.content == nil || d.m.text.title != "Resource demo://logo.png" {
		t.Fatalf("enter on a resource shows %q", d.m.text.title)
	}
	// s saves its blob as read --save-dir would.
	d.keys("s")
	if !strings.Contains(d.m.status, "start the ui with --save-dir") {
		t.Errorf("saving without a folder: status %q", d.m.status)
	}
	dir := t.TempDir()
	d.m.opts.SaveDir = dir
	d.keys("s")
	files, _ := filepath.Glob(filepath.Join(dir, "*.png"))
	if len(files) != 1 || !strings.Contains(d.m.status, "saved "+files[0]) {
		t.Errorf("saved %v, status %q", files, d.m.status)
	}
}

func TestSamplingAnswered(t *testing.T) {
	for _, size := range sizes {
		feed := NewFeed()
		d := newDriver(t, size.w, size.h, nil)
		params := json.RawMessage(`{"messages":[{"role":"user","content":{"type":"text","text":"Say hi"}}],"systemPrompt":"Be brief.","maxTokens":50}`)
		answered := make(chan sampleReply, 1)
		go func() {
			r, err := feed.Sample(context.Background(), params)
			answered <- sampleReply{result: r, err: err}
		}()
		d.send(feed.wait(context.Background())())
		d.key(tea.KeyEnter) // an empty answer is not sent
		select {
		case r := <-answered:
			t.Fatalf("an empty answer was sent: %+v", r)
		default:
		}
		d.keys("hi")
		d.key(tea.KeyTab)
		d.key(tea.KeyBackspace)
		d.key(tea.KeyBackspace)
		d.key(tea.KeyBackspace)
		d.key(tea.KeyBackspace)
		d.key(tea.KeyBackspace)
		d.keys("me")
		d.golden(fmt.Sprintf("sampling-%dx%d", size.w, size.h))
		d.key(tea.KeyEnter)
		r := <-answered
		if r.err != nil {
			t.Fatal(r.err)
		}
		var got map[string]any
		if err := json.Unmarshal(r.result, &got); err != nil {
			t.Fatal(err)
		}
		if got["model"] != "me" || got["content"].(map[string]any)["text"] != "hi" {
			t.Errorf("answer %s", r.result)
		}
		if len(d.m.samples) != 0 {
			t.Error("the form stayed after the answer")
		}
	}
}

// fakeServer is a legacy server that declares tasks, lists one task,
// cancels it on request, and reports each method it receives.
func fakeServer(t *testing.T, seen chan<- string) func(ctx context.Context) (*session.Session, error) {
	return func(ctx context.Context) (*session.Session, error) {
		tr := transport.Func(func(ctx context.Context) (transport.Connection, error) {
			c, s := transport.NewPipe()
			go serveFake(s, seen)
			return c, nil
		})
		roots := client.NewRoots(nil)
		return session.Connect(ctx, session.Config{Name: "fake", Transport: tr, Roots: roots,
			Client: client.Options{ClientInfo: client.Implementation{Name: "mcpctl", Version: "test"},
				Capabilities: map[string]any{"roots": roots.Capability()},
				Handlers:     map[string]client.RequestHandler{"roots/list": roots.Handler()}}})
	}
}

func serveFake(conn transport.Connection, seen chan<- string) {
	ctx := context.Background()
	status := "working"
	task := func() map[string]any {
		return map[string]any{"taskId": "t-1", "status": status, "createdAt": "2025-01-01T00:00:00Z", "lastUpdatedAt": "2025-01-01T00:00:00Z", "ttl": nil}
	}
	for {
		raw, err := conn.Read(ctx)
		if err != nil {
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if json.Unmarshal(raw, &msg) != nil || msg.Method == "" {
			continue
		}
		select {
		case seen <- msg.Method:
		default:
		}
		if msg.ID == nil {
			continue
		}
		var result any
		switch msg.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": msg.Params.ProtocolVersion, "serverInfo": map[string]any{"name": "fake", "version": "1"},
				"capabilities": map[string]any{"tasks": map[string]any{"list": map[string]any{}, "cancel": map[string]any{}}}}
		case "tasks/list":
			result = map[string]any{"tasks": []any{task()}}
		case "tasks/cancel":
			status = "cancelled"
			result = task()
		case "ping":
			result = map[string]any{}
		}
		var out []byte
		if result == nil {
			out, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32601, "message": "method not found"}})
		} else {
			out, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result})
		}
		if conn.Write(ctx, out, transport.WriteOptions{}) != nil {
			return
		}
	}
}

func newFakeDriver(t *testing.T, w, h int, seen chan string) *driver {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	m := New(ctx, Options{Name: "fake", Connect: fakeServer(t, seen)})
	t.Cleanup(m.closeSession)
	d := &driver{t: t, m: m}
	d.send(tea.WindowSizeMsg{Width: w, Height: h})
	d.run(m.connect())
	if m.connErr != nil {
		t.Fatal(m.connErr)
	}
	return d
}

// waitMethod waits for the server to receive method.
func waitMethod(t *testing.T, seen <-chan string, method string) {
	t.Helper()
	for m := range seen {
		if m == method {
			return
		}
	}
}

func TestRootAdded(t *testing.T) {
	for _, size := range sizes {
		seen := make(chan string, 64)
		d := newFakeDriver(t, size.w, size.h, seen)
		d.keys("0")
		d.keys("a")
		dir := t.TempDir()
		d.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(dir), Paste: true})
		d.key(tea.KeyEnter)
		waitMethod(t, seen, "notifications/roots/list_changed")
		roots := d.m.sess.Roots().List()
		if len(roots) != 1 || !strings.HasSuffix(roots[0].URI, dir) {
			t.Fatalf("roots after adding %s: %+v", dir, roots)
		}
		// The temporary folder's name changes each run: the golden
		// screen shows a fixed one.
		d.m.lists[paneRoots].items[0] = newEntry("file:///tmp/project", "project")
		d.m.status = ""
		d.golden(fmt.Sprintf("roots-%dx%d", size.w, size.h))
		d.keys("d")
		waitMethod(t, seen, "notifications/roots/list_changed")
		if got := d.m.sess.Roots().List(); len(got) != 0 {
			t.Errorf("roots after removing: %+v", got)
		}
	}
}

func TestTaskCancelled(t *testing.T) {
	for _, size := range sizes {
		seen := make(chan string, 64)
		d := newFakeDriver(t, size.w, size.h, seen)
		d.keys("9")
		if len(d.m.tasks) != 1 || d.m.tasks[0].Status != "working" {
			t.Fatalf("tasks: %+v", d.m.tasks)
		}
		d.golden(fmt.Sprintf("tasks-%dx%d", size.w, size.h))
		d.keys("c")
		if len(d.m.tasks) != 1 || d.m.tasks[0].Status != "cancelled" {
			t.Fatalf("tasks after c: %+v", d.m.tasks)
		}
		d.golden(fmt.Sprintf("task-cancelled-%dx%d", size.w, size.h))
		waitMethod(t, seen, "tasks/cancel")
	}
}
