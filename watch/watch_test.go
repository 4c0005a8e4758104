package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/render"
)

// fakeSession serves lists from a map of method to items; listing fails
// with err when it is set.
type fakeSession struct {
	lists map[string][]string
	err   error
}

func (s *fakeSession) HasCapability(name string) bool { return s.lists != nil }
func (s *fakeSession) ListAll(ctx context.Context, method, key string) ([]json.RawMessage, error) {
	if s.err != nil {
		return nil, s.err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var raw []json.RawMessage
	for _, item := range s.lists[method] {
		raw = append(raw, json.RawMessage(item))
	}
	return raw, nil
}
func (s *fakeSession) Subscribe(context.Context, client.SubscriptionFilter) (*client.Subscription, error) {
	return nil, errors.New("not in this test")
}
func (s *fakeSession) InitializeResult() *client.InitializeResult { return &client.InitializeResult{} }
func (s *fakeSession) Era() string                                { return "legacy" }
func (s *fakeSession) LogLevel() string                           { return "" }
func (s *fakeSession) Done() <-chan struct{}                      { return nil }

var at = time.Date(2025, 6, 18, 12, 34, 56, 789e6, time.UTC)

// TestWatcherText checks the text printed for each kind of event, a list
// change explained by listing the list again.
func TestWatcherText(t *testing.T) {
	s := &fakeSession{lists: map[string][]string{
		"tools/list":     {`{"name":"a"}`, `{"name":"c","description":"old"}`},
		"resources/list": {`{"uri":"demo://x"}`},
	}}
	var out bytes.Buffer
	w := New(s, Options{Server: "test", Printer: &render.Printer{Out: &out}})
	for _, kind := range []string{"tools", "resources"} {
		if err := w.Follow(context.Background(), kind); err != nil {
			t.Fatal(err)
		}
	}
	s.lists["tools/list"] = []string{`{"name":"b"}`, `{ "name": "c", "description": "new" }`}
	total := 3.0
	items := []Item{
		{At: at, N: client.Notification{Log: &client.LoggingMessage{Level: "info", Logger: "db", Data: json.RawMessage(`"hello"`)}}},
		{At: at, N: client.Notification{Progress: &client.Progress{Progress: 1, Total: &total, Message: "step 1"}}},
		{At: at, N: client.Notification{ResourceUpdated: &client.ResourceUpdated{URI: "demo://x"}}},
		{At: at, N: client.Notification{ListChanged: "tools"}},
		{At: at, N: client.Notification{ListChanged: "resources"}},
		{At: at, N: client.Notification{ListChanged: "prompts"}},
		{At: at, N: client.Notification{Method: "notifications/other"}},
	}
	if err := w.Print(context.Background(), items); err != nil {
		t.Fatal(err)
	}
	want := "12:34:56.789 log info db: hello\n" +
		"12:34:56.789 progress 1/3 step 1\n" +
		"12:34:56.789 updated demo://x\n" +
		"12:34:56.789 changed tools: +b -a ~c\n" +
		"12:34:56.789 changed resources: (no difference)\n" +
		"12:34:56.789 changed prompts: (not listed: the server did not declare it)\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("printed (-want +got):\n%s", diff)
	}
}

// TestWatcherQuiet: a quiet watch says a list change only when the list
// changed.
func TestWatcherQuiet(t *testing.T) {
	s := &fakeSession{lists: map[string][]string{"tools/list": {`{"name":"a"}`}}}
	var out bytes.Buffer
	w := New(s, Options{Printer: &render.Printer{Out: &out}, Quiet: true})
	if err := w.Follow(context.Background(), "tools"); err != nil {
		t.Fatal(err)
	}
	changed := Item{At: at, N: client.Notification{ListChanged: "tools"}}
	if err := w.Print(context.Background(), []Item{changed}); err != nil {
		t.Fatal(err)
	}
	s.lists["tools/list"] = []string{`{"name":"a"}`, `{"name":"b"}`}
	if err := w.Print(context.Background(), []Item{changed}); err != nil {
		t.Fatal(err)
	}
	if want := "12:34:56.789 changed tools: +b\n"; out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
}

// TestWatcherJSON checks the NDJSON events, whose fields scripts rely on.
func TestWatcherJSON(t *testing.T) {
	s := &fakeSession{lists: map[string][]string{"tools/list": {`{"name":"a"}`}}}
	var out bytes.Buffer
	w := New(s, Options{Printer: &render.Printer{Out: &out}, JSON: true})
	if err := w.Follow(context.Background(), "tools"); err != nil {
		t.Fatal(err)
	}
	s.lists["tools/list"] = nil
	items := []Item{
		{At: at, N: client.Notification{Log: &client.LoggingMessage{Level: "info", Data: json.RawMessage(`{"a":"<b>"}`)}}},
		{At: at, N: client.Notification{Progress: &client.Progress{Token: json.RawMessage(`"t1"`), Progress: 2}}},
		{At: at, N: client.Notification{ResourceUpdated: &client.ResourceUpdated{URI: "demo://x"}}},
		{At: at, N: client.Notification{ListChanged: "tools"}},
	}
	if err := w.Print(context.Background(), items); err != nil {
		t.Fatal(err)
	}
	want := `{"time":"2025-06-18T12:34:56.789Z","event":"log","level":"info","data":{"a":"<b>"}}
{"time":"2025-06-18T12:34:56.789Z","event":"progress","progressToken":"t1","progress":2}
{"time":"2025-06-18T12:34:56.789Z","event":"resource_updated","uri":"demo://x"}
{"time":"2025-06-18T12:34:56.789Z","event":"list_changed","list":"tools","added":[],"removed":["a"],"changed":[]}
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("printed (-want +got):\n%s", diff)
	}
}

// TestWatcherListFails checks that a list that cannot be listed again is
// reported in its event and the watch goes on, unless the watch was
// interrupted.
func TestWatcherListFails(t *testing.T) {
	s := &fakeSession{lists: map[string][]string{"tools/list": {`{"name":"a"}`}}}
	var out bytes.Buffer
	w := New(s, Options{Printer: &render.Printer{Out: &out}})
	if err := w.Follow(context.Background(), "tools"); err != nil {
		t.Fatal(err)
	}
	s.err = errors.New("boom")
	changed := []Item{{At: at, N: client.Notification{ListChanged: "tools"}}}
	if err := w.Print(context.Background(), changed); err != nil {
		t.Fatal(err)
	}
	if want := "12:34:56.789 changed tools: (listing again: boom)\n"; out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := w.Print(ctx, changed); !errors.Is(err, ErrInterrupted) {
		t.Errorf("interrupted: %v, want ErrInterrupted", err)
	}
}

func TestFollowUnknownKind(t *testing.T) {
	w := New(&fakeSession{}, Options{})
	if err := w.Follow(context.Background(), "widgets"); err == nil {
		t.Error("Follow(widgets) succeeded")
	}
	if w.Following() {
		t.Error("following a list after a failed Follow")
	}
}

func TestQueue(t *testing.T) {
	q := NewQueue()
	if items := q.Take(); items != nil {
		t.Errorf("a new queue holds %v", items)
	}
	for i := range 3 {
		q.Push(Item{N: client.Notification{Method: string(rune('a' + i))}})
	}
	select {
	case <-q.Ready():
	default:
		t.Fatal("not ready after a push")
	}
	var got []string
	for _, it := range q.Take() {
		got = append(got, it.N.Method)
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, got); diff != "" {
		t.Errorf("taken (-want +got):\n%s", diff)
	}
	if items := q.Take(); items != nil {
		t.Errorf("taken twice: %v", items)
	}
}

func TestWantListChanges(t *testing.T) {
	var want client.SubscriptionFilter
	for _, kind := range ListKinds() {
		WantListChanges(&want, kind)
	}
	if !want.ToolsListChanged || !want.ResourcesListChanged || !want.PromptsListChanged {
		t.Errorf("every list kind wanted: %+v", want)
	}
}
