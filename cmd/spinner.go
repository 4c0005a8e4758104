package cmd

import (
	"io"
	"sync"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/mcpctl/mcpctl/render"
)

// The spinner shows only when starting a server takes long enough to
// wonder about (a quick start draws nothing, so nothing flickers), and
// turns at a pace the eye follows.
const (
	spinnerDelay    = 300 * time.Millisecond
	spinnerInterval = 100 * time.Millisecond
)

var spinnerFrames = [...]string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// spinner draws "⠋ text" on a terminal's line after a delay, turning
// until it is stopped, and erases its line when stopped, so nothing of it
// is left before the output that follows. Anything else written through
// it (a server's stderr, a sign-in URL) first erases the spinner, which
// then stays away for good: it never draws over or under other text.
// It is safe for concurrent use.
type spinner struct {
	out  io.Writer
	text string

	mu    sync.Mutex
	drawn bool // the spinner's line is on the screen
	ended bool // stopped, or displaced by other output

	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// startSpinner starts a spinner on w, a terminal, showing text after
// delay. The caller must call Stop.
func startSpinner(w io.Writer, text string, delay, interval time.Duration) *spinner {
	s := &spinner{out: w, text: text, stop: make(chan struct{}), done: make(chan struct{})}
	go s.run(delay, interval)
	return s
}

func (s *spinner) run(delay, interval time.Duration) {
	defer close(s.done)
	wait := time.NewTimer(delay)
	defer wait.Stop()
	select {
	case <-s.stop:
		return
	case <-wait.C:
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for i := 0; ; i++ {
		s.mu.Lock()
		if s.ended {
			s.mu.Unlock()
			return
		}
		// Errors writing to the terminal have nowhere to go.
		_, _ = io.WriteString(s.out, "\r\x1b[K"+spinnerFrames[i%len(spinnerFrames)]+" "+s.text)
		s.drawn = true
		s.mu.Unlock()
		select {
		case <-s.stop:
			return
		case <-tick.C:
		}
	}
}

// clearLocked erases the spinner's line if it is drawn.
func (s *spinner) clearLocked() {
	if s.drawn {
		_, _ = io.WriteString(s.out, "\r\x1b[K")
		s.drawn = false
	}
}

// Stop ends the spinner and erases it; when it returns, the spinner will
// write nothing more. It may be called more than once.
func (s *spinner) Stop() {
	s.once.Do(func() { close(s.stop) })
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ended = true
	s.clearLocked()
}

// Write writes p to the terminal, erasing the spinner first and for good.
func (s *spinner) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ended {
		s.ended = true
		s.clearLocked()
	}
	return s.out.Write(p)
}

// spinning returns a copy of f whose standard error shows a spinner
// saying what is being started, and the function that stops it. Only a
// terminal gets one: piped, f itself comes back and stop does nothing.
// Whatever the copy writes to standard error goes through the spinner,
// which gives way to it.
func (f *Factory) spinning(what string) (*Factory, func()) {
	ios := f.IOStreams
	if ios == nil || !ios.IsStderrTTY() {
		return f, func() {}
	}
	text := ansi.Truncate(render.Sanitize("starting "+what+"…"), max(ios.TerminalWidth()-3, 10), "…")
	if ios.ColorErrEnabled() {
		text = render.Dim(text, true)
	}
	sp := startSpinner(ios.ErrOut, text, spinnerDelay, spinnerInterval)
	c := *ios
	c.ErrOut = sp
	q := *f
	q.IOStreams = &c
	q.built = f.state()
	return &q, sp.Stop
}
