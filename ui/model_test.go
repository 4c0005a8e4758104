package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/internal/demo"
	"github.com/mcpctl/mcpctl/session"
	"github.com/mcpctl/mcpctl/transport"
)

// demoConnect opens a session with the in-process demo server, its frames
// traced to feed, as `mcpctl ui --demo` does through the factory.
func demoConnect(feed *Feed) func(ctx context.Context) (*session.Session, error) {
	return func(ctx context.Context) (*session.Session, error) {
		var t transport.Transport = transport.Func(func(ctx context.Context) (transport.Connection, error) {
			c, s := transport.NewPipe()
			go func() { _ = demo.Serve(context.Background(), s) }()
			return c, nil
		})
		if feed != nil {
			t = &transport.Trace{Transport: t, W: feed.TraceWriter()}
		}
		return session.Connect(ctx, session.Config{Name: "the demo server", Transport: t,
			Client: client.Options{ClientInfo: client.Implementation{Name: "mcpctl", Version: "test"}}})
	}
}

// driver runs a model as the program would, one message at a time, on
// the test's goroutine.
type driver struct {
	t    *testing.T
	m    *Model
	quit bool
}

func newDriver(t *testing.T, w, h int, feed *Feed) *driver {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	m := New(ctx, Options{Name: "the demo server", Connect: demoConnect(feed)})
	t.Cleanup(m.closeSession)
	d := &driver{t: t, m: m}
	d.send(tea.WindowSizeMsg{Width: w, Height: h})
	// Connecting, without the feed's listener: tests deliver its events.
	d.run(m.connect())
	return d
}

func (d *driver) send(msg tea.Msg) {
	_, cmd := d.m.Update(msg)
	d.run(cmd)
}

// run runs cmd and what follows from it. The model's commands all end
// (its text inputs' cursors do not blink), except the feed's listener,
// which the tests leave out by giving the model no feed.
func (d *driver) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case nil:
	case tea.QuitMsg:
		d.quit = true
	case tea.BatchMsg:
		for _, c := range msg {
			d.run(c)
		}
	default:
		d.send(msg)
	}
}

// keys types s, one key per rune, or the named keys.
func (d *driver) keys(s string) {
	for _, r := range s {
		d.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

func (d *driver) key(t tea.KeyType) { d.send(tea.KeyMsg{Type: t}) }

// golden compares the screen with testdata/name.golden (MCPCTL_UPDATE=1
// rewrites it).
func (d *driver) golden(name string) {
	d.t.Helper()
	got := d.m.View()
	if lines := strings.Count(got, "\n") + 1; lines != d.m.height {
		d.t.Errorf("%s: the screen has %d lines, want %d", name, lines, d.m.height)
	}
	for i, line := range strings.Split(got, "\n") {
		if w := cellWidth(line); w > d.m.width {
			d.t.Errorf("%s: line %d is %d cells wide, more than the terminal's %d", name, i+1, w, d.m.width)
		}
	}
	path := filepath.Join("testdata", name+".golden")
	if os.Getenv("MCPCTL_UPDATE") != "" {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			d.t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			d.t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		d.t.Fatalf("%v (MCPCTL_UPDATE=1 writes it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		d.t.Errorf("%s: screen differs (-want +got):\n%s", name, diff)
	}
}

func TestCallAddForm(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		name := func(step string) string { return fmt.Sprintf("%s-%dx%d", step, size.w, size.h) }
		d := newDriver(t, size.w, size.h, nil)
		d.golden(name("connected"))
		d.keys("/add")
		d.key(tea.KeyEnter)
		d.golden(name("filtered"))
		d.key(tea.KeyEnter)
		d.keys("2")
		d.key(tea.KeyTab)
		d.keys("3")
		d.golden(name("form"))
		d.key(tea.KeyEnter)
		d.golden(name("result"))
		if c := d.m.text.result; c == nil || c.err != nil || !strings.Contains(strings.Join(d.m.text.lines, "\n"), "5") {
			t.Fatalf("after calling add: %+v", d.m.text)
		}
		if got, want := d.m.commandLine(&d.m.history[0]), "mcpctl call add a=2 b=3"; got != want {
			t.Errorf("command line = %q, want %q", got, want)
		}
		d.keys("q")
		if !d.quit {
			t.Error("q did not quit")
		}
	}
}

func TestValidationBlocksSending(t *testing.T) {
	d := newDriver(t, 80, 24, nil)
	d.keys("/add")
	d.key(tea.KeyEnter)
	d.key(tea.KeyEnter)
	d.keys("two")
	d.key(tea.KeyEnter)
	d.golden("invalid-80x24")
	if len(d.m.history) != 0 || d.m.mode != modeForm {
		t.Fatalf("an invalid form was sent: history %d, mode %d", len(d.m.history), d.m.mode)
	}
	if !strings.Contains(d.m.status, "not sent") {
		t.Errorf("status = %q, want it to say the call was not sent", d.m.status)
	}
}

func TestElicitationForm(t *testing.T) {
	feed := NewFeed()
	d := newDriver(t, 80, 24, nil)
	req := &client.ElicitRequest{Mode: "form", Message: "Who are you?", Fields: []client.FormField{
		{Name: "name", Type: "string", Required: true},
		{Name: "age", Type: "integer"},
	}}
	answered := make(chan client.ElicitResult, 1)
	go func() {
		r, _ := feed.Elicit(context.Background(), req)
		answered <- r
	}()
	d.send(feed.wait(context.Background())())
	d.key(tea.KeyEnter) // the required name is empty: nothing is sent
	select {
	case r := <-answered:
		t.Fatalf("an invalid form was answered: %+v", r)
	default:
	}
	d.keys("Ada")
	d.key(tea.KeyTab)
	d.keys("36")
	d.golden("elicit-80x24")
	d.key(tea.KeyEnter)
	r := <-answered
	want := client.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada", "age": int64(36)}}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("answer (-want +got):\n%s", diff)
	}
}

func TestFramesPane(t *testing.T) {
	feed := NewFeed()
	d := newDriver(t, 80, 24, feed)
	d.send(feed.wait(context.Background())())
	if len(d.m.frames) < 2 {
		t.Fatalf("frames: %d, want the handshake's", len(d.m.frames))
	}
	f := d.m.frames[0]
	if f.dir != transport.DirectionSend && f.event == "" {
		t.Errorf("first frame %+v", f)
	}
	var answered bool
	for _, f := range d.m.frames {
		answered = answered || (f.dir == transport.DirectionRecv && f.id != "" && f.latency > 0)
	}
	if !answered {
		t.Error("no response has a latency")
	}
}

func TestServerPaneAndHelp(t *testing.T) {
	d := newDriver(t, 80, 24, nil)
	d.keys("5")
	d.golden("server-80x24")
	d.keys("jjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjj")
	d.golden("server-scrolled-80x24")
	d.keys("?")
	d.golden("help-80x24")
	d.key(tea.KeyEsc)
	// Resized while running: the next frame fits the new size.
	d.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	d.golden("server-120x40")
}
