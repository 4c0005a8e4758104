package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/approval"
	"github.com/mcpctl/mcpctl/proxy"
)

// The fixtures are session logs the real proxy recorded: session.ndjson
// a shell making calls through `mcpctl proxy -- testserver basic`,
// session-flags.ndjson a call through a server that writes lines that are
// not JSON-RPC to stdout (`faultserver non-json-lines`).

// sessionAt is when the approvals of the tests were held, and now for
// their ages.
var sessionAt = time.Date(2026, 11, 27, 23, 30, 0, 0, time.UTC)

// sessDriver runs a session model as the program would, on the test's
// goroutine.
type sessDriver struct {
	t     *testing.T
	m     *SessionModel
	quit  bool
	store approval.Store
}

// newSessDriver shows the recorded session fixture (an ended session, in
// a store of the test's own), read to its end, with a held call of its
// and one of another session.
func newSessDriver(t *testing.T, fixture string, w, h, maxFrames int) *sessDriver {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	dir := t.TempDir()
	id := "20261127T232753688Z-30861"
	data, err := os.ReadFile(filepath.Join("testdata", fixture))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, id+".ndjson"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	store := approval.Store{Dir: filepath.Join(dir, "approvals"), Keep: time.Hour}
	for i, req := range []approval.Request{
		{Server: "testserver basic", Tool: "delete_file", Arguments: json.RawMessage(`{"path":"/tmp/report.txt"}`), Host: approval.Host{Name: "claude-code", Version: "2.1"}, SessionID: id, Rule: "destructive", Time: sessionAt.Add(-42 * time.Second)},
		{Server: "testserver basic", Tool: "drop_table", Arguments: json.RawMessage(`{"table":"users"}`), Host: approval.Host{Name: "cursor"}, SessionID: id, Rule: "requires_approval", Time: sessionAt.Add(-3 * time.Minute)},
		{Server: "other", Tool: "not_this_session", SessionID: "20261127T000000000Z-1", Time: sessionAt},
	} {
		if _, err := store.Hold(req); err != nil {
			t.Fatalf("hold %d: %v", i, err)
		}
	}
	m := NewSession(ctx, SessionOptions{Store: proxy.Store{Dir: dir}, Ref: "latest", Approvals: &store, By: "alice",
		Interval: time.Millisecond, MaxFrames: maxFrames, Location: time.UTC, Now: func() time.Time { return sessionAt }})
	d := &sessDriver{t: t, m: m, store: store}
	d.send(tea.WindowSizeMsg{Width: w, Height: h})
	d.run(m.find())
	if !m.found {
		t.Fatalf("session not found: %v", m.findErr)
	}
	// The log's reader runs on its own goroutine; take what it hands on
	// until it says the session ended.
	for !m.ended {
		switch msg := m.feed.wait(ctx)().(type) {
		case sessionBatch:
			for _, e := range msg {
				m.take(e)
			}
		default:
			t.Fatalf("feed gave %T", msg)
		}
	}
	d.run(m.pollApprovals(0))
	return d
}

func (d *sessDriver) send(msg tea.Msg) {
	_, cmd := d.m.Update(msg)
	d.run(cmd)
}

// run runs cmd and what follows from it, up to the next poll of the
// approvals queue, which the tests make themselves.
func (d *sessDriver) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case nil, pollMsg:
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

func (d *sessDriver) keys(s string) {
	for _, r := range s {
		d.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

func (d *sessDriver) key(t tea.KeyType) { d.send(tea.KeyMsg{Type: t}) }

// golden compares the screen with testdata/name.golden (MCPCTL_UPDATE=1
// rewrites it), as the server screens' tests do.
func (d *sessDriver) golden(name string) {
	d.t.Helper()
	got := d.m.View()
	// The queue's IDs are random: the screens show them as ID0001, ….
	for i, e := range d.m.held {
		got = strings.ReplaceAll(got, e.ID, fmt.Sprintf("ID%04d", i+1))
	}
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

func (d *sessDriver) screenHas(want ...string) {
	d.t.Helper()
	screen := d.m.View()
	for _, w := range want {
		if !strings.Contains(screen, w) {
			d.t.Errorf("the screen does not show %q:\n%s", w, screen)
		}
	}
}

func TestSessionScreens(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			d := newSessDriver(t, "session.ndjson", w, h, 0)
			sfx := fmt.Sprintf("-%dx%d", w, h)
			d.screenHas("proxy session 20261127T232753688Z-30861 (ended)", "mcpctl-demo", "tools/call add", "ok")
			d.golden("session-calls" + sfx)
			d.keys("4")
			d.screenHas("add", "echo")
			d.golden("session-tools" + sfx)
			d.keys("2")
			d.golden("session-frames" + sfx)
			d.key(tea.KeyEnter)
			d.screenHas(`"method": "server/discover"`)
			d.key(tea.KeyEsc)
			d.keys("5")
			d.golden("session-approvals" + sfx)
			if strings.Contains(d.m.View(), "not_this_session") {
				t.Error("the approvals pane lists another session's held call")
			}
		})
	}
}

func TestSessionFlags(t *testing.T) {
	d := newSessDriver(t, "session-flags.ndjson", 80, 24, 0)
	d.keys("3")
	d.screenHas("pollution", "faultserver-non-j")
	if d.m.flagTotal != 3 || d.m.kinds[proxy.FlagPollution] != 3 {
		t.Errorf("flags = %d (%v), want 3 of pollution", d.m.flagTotal, d.m.kinds)
	}
	d.golden("session-flags-80x24")
}

// The approvals pane decides held calls through the queue, as `mcpctl
// proxy approve` and `deny` do: a approves, d asks for a reason and denies.
func TestSessionApprovals(t *testing.T) {
	d := newSessDriver(t, "session.ndjson", 80, 24, 0)
	d.keys("5")
	if len(d.m.held) != 2 {
		t.Fatalf("held = %d calls, want the session's 2", len(d.m.held))
	}
	first, second := d.m.held[0], d.m.held[1]
	d.keys("d")
	d.screenHas("reason: ")
	d.keys("not on production")
	d.key(tea.KeyEnter)
	d.screenHas("denied " + first.ID)
	e, err := d.store.Find(first.ID)
	if err != nil {
		t.Fatal(err)
	}
	if e.State != approval.Denied || e.Verdict.By != "alice" || e.Verdict.Reason != "not on production" {
		t.Errorf("after d: %+v %+v, want denied by alice with the reason", e, e.Verdict)
	}
	if len(d.m.held) != 1 || d.m.held[0].ID != second.ID {
		t.Fatalf("held after deny = %+v, want %s alone", d.m.held, second.ID)
	}
	d.keys("a")
	d.screenHas("approved " + second.ID)
	if e, _ := d.store.Find(second.ID); e.State != approval.Approved || e.Verdict.By != "alice" {
		t.Errorf("after a: %+v, want approved by alice", e)
	}
	// esc in the reason prompt denies nothing.
	if len(d.m.held) != 0 {
		t.Errorf("held after both = %d", len(d.m.held))
	}
}

// Memory holds the newest frames only; [ and ] page the older ones back
// from the log.
func TestSessionPagesFrames(t *testing.T) {
	d := newSessDriver(t, "session.ndjson", 80, 24, 10)
	total := d.m.frameTotal
	if total < 30 || len(d.m.frames) > 10 {
		t.Fatalf("frames: %d kept of %d, want at most 10 of more than 30", len(d.m.frames), total)
	}
	first := total - len(d.m.frames)
	d.keys("2[")
	if d.m.page == nil || d.m.page.from != first-10 || len(d.m.page.frames) != 10 {
		t.Fatalf("after [: page %+v, want 10 frames from %d", d.m.page, first-10)
	}
	d.screenHas(fmt.Sprintf("frames %d–%d of %d, read from the log", first-9, first, total))
	for d.m.page.from > 0 {
		d.keys("[")
	}
	d.screenHas("→ server/discover")
	d.keys("[")
	d.screenHas("these are the session's first frames")
	for d.m.page != nil {
		d.keys("]")
	}
	if n := len(d.m.lists[spaneFrames].items); n != len(d.m.frames) {
		t.Errorf("back to the newest: %d rows, want %d", n, len(d.m.frames))
	}
}

// The percentiles are nearest-rank.
func TestToolStatsPercentile(t *testing.T) {
	s := &toolStats{}
	for i := 1; i <= 100; i++ {
		s.add(proxy.Call{Latency: time.Duration(i) * time.Millisecond})
	}
	if p50, p95 := s.percentile(50), s.percentile(95); p50 != 50*time.Millisecond || p95 != 95*time.Millisecond {
		t.Errorf("p50 %s p95 %s, want 50ms 95ms", p50, p95)
	}
	for i := 0; i < maxLatencies; i++ {
		s.add(proxy.Call{Latency: time.Second})
	}
	if len(s.latencies) != maxLatencies || s.percentile(50) != time.Second {
		t.Errorf("after %d more: %d kept, p50 %s", maxLatencies, len(s.latencies), s.percentile(50))
	}
}
