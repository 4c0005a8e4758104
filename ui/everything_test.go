package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/session"
	"github.com/mcpctl/mcpctl/transport"
)

// everythingServer is the npm reference server scripts/install-tools.sh
// installs in the repository's .tools folder. Where it is missing the test
// skips, except under CI=true or MCPCTL_REQUIRE_INTEROP=1 (as the root
// package's interop scripts do), where a missing server fails the run.
func everythingServer(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", ".tools", "node_modules", ".bin", "mcp-server-everything"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" || os.Getenv("MCPCTL_REQUIRE_INTEROP") == "1" {
			t.Fatalf("the npm reference server is required under CI=true or MCPCTL_REQUIRE_INTEROP=1 (bash scripts/install-tools.sh installs it): %v", err)
		}
		t.Skip("the npm reference server is not installed (bash scripts/install-tools.sh installs it)")
	}
	return p
}

// asyncDriver runs a model as the program does: every command on a
// goroutine of its own, their messages handled one at a time on the test's
// goroutine. A tool call that waits for the user's answer to an
// elicitation needs it: the form is drawn and filled while the call is
// still in flight.
type asyncDriver struct {
	t    *testing.T
	ctx  context.Context
	m    *Model
	msgs chan tea.Msg
}

func newAsyncDriver(t *testing.T, w, h int, opts Options) *asyncDriver {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	m := New(ctx, opts)
	d := &asyncDriver{t: t, ctx: ctx, m: m, msgs: make(chan tea.Msg)}
	// The session closes before the context ends: stopping the server
	// ends the calls in flight, then the feed's listener goes.
	t.Cleanup(cancel)
	t.Cleanup(m.closeSession)
	d.send(tea.WindowSizeMsg{Width: w, Height: h})
	d.start(m.Init())
	return d
}

func (d *asyncDriver) send(msg tea.Msg) {
	_, cmd := d.m.Update(msg)
	d.start(cmd)
}

func (d *asyncDriver) start(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		select {
		case d.msgs <- msg:
		case <-d.ctx.Done():
		}
	}()
}

// until handles messages until done says the screen is there. The
// deadline only keeps a broken run from hanging until go test's timeout;
// it is no measure of speed.
func (d *asyncDriver) until(what string, done func() bool) {
	d.t.Helper()
	deadline := time.NewTimer(2 * time.Minute)
	defer deadline.Stop()
	for !done() {
		select {
		case msg := <-d.msgs:
			switch msg := msg.(type) {
			case nil:
			case tea.BatchMsg:
				for _, c := range msg {
					d.start(c)
				}
			case tea.QuitMsg:
				d.t.Fatalf("the program quit while waiting for %s", what)
			default:
				d.send(msg)
			}
		case <-deadline.C:
			d.t.Fatalf("no %s; the screen:\n%s", what, d.m.View())
		}
	}
}

func (d *asyncDriver) keys(s string) {
	for _, r := range s {
		d.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

func (d *asyncDriver) key(t tea.KeyType) { d.send(tea.KeyMsg{Type: t}) }

func (d *asyncDriver) golden(name string) {
	d.t.Helper()
	(&driver{t: d.t, m: d.m}).golden(name)
}

// TestEverythingElicitation answers an elicitation of the npm reference
// server in the ui's form, at 80×24 and 120×40: its
// trigger-elicitation-request tool asks for a form of thirteen fields; an
// integer out of the schema's range blocks the answer; the accepted answer
// comes back in the tool's result.
func TestEverythingElicitation(t *testing.T) {
	server := everythingServer(t)
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			feed := NewFeed()
			el := &client.Elicitation{Ask: feed.Elicit}
			connect := func(ctx context.Context) (*session.Session, error) {
				return session.Connect(ctx, session.Config{Name: "server-everything",
					Transport: &transport.Command{Path: server, Args: []string{"stdio"}},
					Client: client.Options{ClientInfo: client.Implementation{Name: "mcpctl", Version: "test"},
						Capabilities: map[string]any{"elicitation": el.Capability()},
						Handlers:     map[string]client.RequestHandler{"elicitation/create": el.Handler()}}})
			}
			d := newAsyncDriver(t, size.w, size.h, Options{Name: "server-everything", Connect: connect, Feed: feed})
			suffix := fmt.Sprintf("-%dx%d", size.w, size.h)
			d.until("tools", func() bool { return !d.m.connecting && len(d.m.lists[paneTools].items) > 0 })
			if d.m.connErr != nil {
				t.Fatal(d.m.connErr)
			}

			d.keys("/trigger-elicitation-request")
			d.key(tea.KeyEnter)
			d.key(tea.KeyEnter) // its form: no arguments
			if d.m.mode != modeForm {
				t.Fatalf("no call form; the screen:\n%s", d.m.View())
			}
			d.key(tea.KeyEnter)
			d.until("elicitation form", func() bool { return len(d.m.elicits) > 0 })
			f := d.m.elicits[0]
			d.golden("everything-elicit" + suffix)

			d.keys("Ada")
			integer := slices.IndexFunc(f.fields, func(f formField) bool { return f.name == "integer" })
			if integer < 0 {
				t.Fatalf("the form has no field integer: %+v", f.fields)
			}
			for f.focus != integer {
				d.key(tea.KeyTab)
			}
			for f.fields[integer].input.Value() != "" {
				d.key(tea.KeyBackspace)
			}
			d.keys("500") // its maximum is 100
			d.key(tea.KeyEnter)
			if len(d.m.elicits) == 0 || d.m.elicits[0] != f {
				t.Fatal("a form with an integer out of range was answered")
			}
			if !slices.ContainsFunc(f.problem, func(p string) bool { return strings.HasPrefix(p, "/integer:") }) {
				t.Errorf("problems %q, want one of /integer", f.problem)
			}
			d.golden("everything-invalid" + suffix)

			d.key(tea.KeyBackspace)
			d.key(tea.KeyBackspace) // 5
			d.key(tea.KeyEnter)
			d.until("the tool's result", func() bool { return d.m.mode == modeText && d.m.text.result != nil })
			got := strings.Join(d.m.text.lines, "\n")
			for _, want := range []string{"User provided the requested information", "- Name: Ada", "- Favorite Integer: 5", `"action": "accept"`} {
				if !strings.Contains(got, want) {
					t.Errorf("the result does not say %q:\n%s", want, got)
				}
			}
			d.golden("everything-result" + suffix)
		})
	}
}
