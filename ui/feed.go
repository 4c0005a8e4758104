package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/transport"
)

// maxPending bounds what waits in a [Feed] for the program to take it:
// beyond it, the oldest events are dropped and counted rather than letting
// a flooding server hold memory or block its reader.
const maxPending = 4096

// Feed carries what the session reports while it runs — protocol frames
// from the trace, notifications, server stderr, elicitation requests — to
// the program. Its methods never block the session's goroutines on the
// screen: events queue (bounded) until the program takes them.
type Feed struct {
	mu      sync.Mutex
	pending []tea.Msg
	dropped int
	wake    chan struct{}
	line    []byte // an unfinished trace line
	errLine []byte // an unfinished stderr line
	now     func() time.Time
}

// NewFeed returns an empty feed.
func NewFeed() *Feed {
	return &Feed{wake: make(chan struct{}, 1), now: time.Now}
}

// push queues msg and wakes the program.
func (f *Feed) push(msg tea.Msg) {
	f.mu.Lock()
	if len(f.pending) >= maxPending {
		f.pending = f.pending[1:]
		f.dropped++
	}
	f.pending = append(f.pending, msg)
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// feedMsg is a batch of events taken from the feed.
type feedMsg struct {
	msgs    []tea.Msg
	dropped int
}

// wait is the command that takes the next batch of events.
func (f *Feed) wait(ctx context.Context) tea.Cmd {
	return func() tea.Msg {
		for {
			f.mu.Lock()
			if len(f.pending) > 0 || f.dropped > 0 {
				m := feedMsg{msgs: f.pending, dropped: f.dropped}
				f.pending, f.dropped = nil, 0
				f.mu.Unlock()
				return m
			}
			f.mu.Unlock()
			select {
			case <-f.wake:
			case <-ctx.Done():
				return nil
			}
		}
	}
}

// TraceWriter receives the session's trace (NDJSON of
// [transport.TraceEntry], as --trace writes it): each entry becomes a
// frame of the protocol pane.
func (f *Feed) TraceWriter() io.Writer { return &traceWriter{f: f} }

type traceWriter struct{ f *Feed }

func (w *traceWriter) Write(b []byte) (int, error) {
	f := w.f
	f.mu.Lock()
	f.line = append(f.line, b...)
	var lines [][]byte
	for {
		i := bytes.IndexByte(f.line, '\n')
		if i < 0 {
			break
		}
		lines = append(lines, bytes.Clone(f.line[:i]))
		f.line = f.line[i+1:]
	}
	f.mu.Unlock()
	for _, l := range lines {
		var e transport.TraceEntry
		if json.Unmarshal(l, &e) != nil {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, e.Time)
		if err != nil {
			at = f.now()
		}
		f.push(frameMsg{at: at, entry: e})
	}
	return len(b), nil
}

// frameMsg is one trace entry.
type frameMsg struct {
	at    time.Time
	entry transport.TraceEntry
}

// Notify receives the session's notifications (logs, progress, list
// changes); it never blocks.
func (f *Feed) Notify(n client.Notification) { f.push(noteMsg{n: n, at: f.now()}) }

// noteMsg is one notification.
type noteMsg struct {
	n  client.Notification
	at time.Time
}

// Stderr is where the run's own messages and a stdio server's stderr go
// while the screen is the program's: each line becomes an event.
func (f *Feed) Stderr() io.Writer { return &stderrWriter{f: f} }

type stderrWriter struct{ f *Feed }

func (w *stderrWriter) Write(b []byte) (int, error) {
	f := w.f
	f.mu.Lock()
	f.errLine = append(f.errLine, b...)
	var lines []string
	for {
		i := bytes.IndexByte(f.errLine, '\n')
		if i < 0 {
			break
		}
		lines = append(lines, string(f.errLine[:i]))
		f.errLine = f.errLine[i+1:]
	}
	f.mu.Unlock()
	for _, l := range lines {
		l = string(bytes.TrimRight([]byte(l), "\r"))
		if l == "" {
			continue
		}
		f.push(stderrMsg{text: l, at: f.now()})
	}
	return len(b), nil
}

// stderrMsg is one line of stderr.
type stderrMsg struct {
	text string
	at   time.Time
}

// eventMsg is a line of the events pane from the program itself (a
// task's status).
type eventMsg struct {
	text string
	at   time.Time
}

// Elicit answers a form elicitation request with a form on the screen; it
// waits for the person, or for ctx.
func (f *Feed) Elicit(ctx context.Context, req *client.ElicitRequest) (client.ElicitResult, error) {
	reply := make(chan client.ElicitResult, 1)
	f.push(elicitMsg{req: req, reply: reply})
	select {
	case r := <-reply:
		return r, nil
	case <-ctx.Done():
		return client.ElicitResult{Action: "cancel"}, nil
	}
}

// elicitMsg is a request for the elicitation form; reply takes the answer.
type elicitMsg struct {
	req   *client.ElicitRequest
	reply chan<- client.ElicitResult
}
