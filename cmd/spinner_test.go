package cmd

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeTTY is a terminal's writer for tests: it keeps what was written and
// signals each write.
type fakeTTY struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes chan struct{}
}

func newFakeTTY() *fakeTTY { return &fakeTTY{writes: make(chan struct{}, 1000)} }

func (f *fakeTTY) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	select {
	case f.writes <- struct{}{}:
	default:
	}
	return f.buf.Write(p)
}

func (f *fakeTTY) String() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.buf.String()
}

func TestSpinnerAppearsAfterDelayAndIsCleared(t *testing.T) {
	tty := newFakeTTY()
	const delay = 30 * time.Millisecond
	start := time.Now()
	sp := startSpinner(tty, "starting srv…", delay, time.Millisecond)
	<-tty.writes // the first frame
	if waited := time.Since(start); waited < delay {
		t.Errorf("the spinner appeared after %v, before its delay of %v", waited, delay)
	}
	<-tty.writes // it turns
	sp.Stop()
	got := tty.String()
	if !strings.HasPrefix(got, "\r\x1b[K"+spinnerFrames[0]+" starting srv…") {
		t.Errorf("first frame: %q", got)
	}
	if !strings.Contains(got, spinnerFrames[1]+" starting srv…") {
		t.Errorf("the spinner did not turn: %q", got)
	}
	if !strings.HasSuffix(got, "starting srv…\r\x1b[K") {
		t.Errorf("the spinner was not erased when stopped: %q", got)
	}
	// Stopped means silent, and Stop may be called again.
	sp.Stop()
	if after := tty.String(); after != got {
		t.Errorf("wrote after Stop: %q", strings.TrimPrefix(after, got))
	}
}

func TestSpinnerQuickStartDrawsNothing(t *testing.T) {
	tty := newFakeTTY()
	sp := startSpinner(tty, "starting srv…", time.Hour, time.Millisecond)
	sp.Stop()
	if got := tty.String(); got != "" {
		t.Errorf("a spinner stopped before its delay wrote %q", got)
	}
}

func TestSpinnerGivesWayToOtherOutput(t *testing.T) {
	tty := newFakeTTY()
	sp := startSpinner(tty, "starting srv…", 0, time.Millisecond)
	<-tty.writes
	if _, err := sp.Write([]byte("server: hello\n")); err != nil {
		t.Fatal(err)
	}
	before := tty.String()
	if !strings.HasSuffix(before, "starting srv…\r\x1b[Kserver: hello\n") {
		t.Errorf("the spinner was not erased before other output: %q", before)
	}
	sp.Stop()
	if got := tty.String(); got != before {
		t.Errorf("the spinner came back after other output: %q", strings.TrimPrefix(got, before))
	}
	// Writes after Stop pass straight through.
	_, _ = sp.Write([]byte("later\n"))
	if got := tty.String(); got != before+"later\n" {
		t.Errorf("after Stop: %q", got)
	}
}

func TestSpinnerOnlyOnTTY(t *testing.T) {
	ios, _, _, errOut := Test()
	f := NewFactory(ios)
	g, stop := f.spinning("srv")
	stop()
	if g != f || errOut.Len() != 0 {
		t.Errorf("piped stderr got a spinner: factory changed %v, wrote %q", g != f, errOut)
	}
	ios.SetStderrTTY(true)
	g, stop = f.spinning("srv")
	defer stop()
	if g == f || g.IOStreams.ErrOut == ios.ErrOut {
		t.Error("a terminal's stderr got no spinner")
	}
	if f.IOStreams.ErrOut != errOut {
		t.Error("spinning changed the original factory's streams")
	}
}

// TestSpinnerConnectPiped checks that a connection on piped streams writes
// nothing to stderr.
func TestSpinnerConnectPiped(t *testing.T) {
	ios, _, out, errOut := Test()
	if code := run(t.Context(), ios, []string{"describe", "tool", "echo", "--demo"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if errOut.Len() != 0 || strings.ContainsAny(out.String(), "\x1b⠋") {
		t.Errorf("stderr %q, stdout %q", errOut, out)
	}
}
