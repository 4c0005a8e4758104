package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/mcpctl/mcpctl/shell"
)

// openPTY opens a pseudo-terminal pair with the Linux ioctls (no
// dependency for forty lines): the master the test types into and reads,
// the slave the shell gets as its terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		if os.Getenv("CI") == "true" {
			// CI promises the whole suite: a machine without ptys
			// fails it rather than passing it with a hole.
			t.Fatalf("no pseudo-terminals here (CI=true needs them for the line-editor test): %v", err)
		}
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	var unlock int32
	if err := ioctl(m, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err != nil {
		m.Close()
		t.Fatalf("unlocking the pty: %v", err)
	}
	var n uint32
	if err := ioctl(m, syscall.TIOCGPTN, unsafe.Pointer(&n)); err != nil {
		m.Close()
		t.Fatalf("naming the pty: %v", err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Fatalf("opening the pty's slave: %v", err)
	}
	return m, s
}

func ioctl(f *os.File, req uint, arg unsafe.Pointer) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), uintptr(req), uintptr(arg)); errno != 0 {
		return errno
	}
	return nil
}

// ptyOutput collects what the terminal shows and lets the test wait for a
// piece of it, by event, not by sleeping.
type ptyOutput struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func (o *ptyOutput) readFrom(f *os.File) {
	b := make([]byte, 4096)
	for {
		n, err := f.Read(b)
		o.mu.Lock()
		o.buf.Write(b[:n])
		close(o.changed)
		o.changed = make(chan struct{})
		o.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// expect waits until the output after mark holds want, and returns the
// new mark: the end of what matched.
func (o *ptyOutput) expect(t *testing.T, mark int, want string) int {
	t.Helper()
	deadline := time.After(60 * time.Second) // a busy machine is slow, never this slow
	for {
		o.mu.Lock()
		seen := o.buf.String()
		ch := o.changed
		o.mu.Unlock()
		if i := strings.Index(seen[mark:], want); i >= 0 {
			return mark + i + len(want)
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("the terminal never showed %q; after the last match it shows:\n%q", want, seen[mark:])
		}
	}
}

// ptySession is mcpctl running on a pseudo-terminal, as a user's shell
// would run it.
type ptySession struct {
	t             *testing.T
	master, slave *os.File
	out           *ptyOutput
	done          chan int
}

// startPTY runs mcpctl with args on a pseudo-terminal width columns wide,
// with state as its state folder and home; the test's end stops it.
func startPTY(t *testing.T, state string, width int, args ...string) *ptySession {
	t.Helper()
	master, slave := openPTY(t)
	t.Cleanup(func() { master.Close() })
	p := &ptySession{t: t, master: master, slave: slave, out: &ptyOutput{changed: make(chan struct{})}, done: make(chan int, 1)}
	go p.out.readFrom(master)
	ios := &IOStreams{In: slave, Out: slave, ErrOut: slave, stdinTTY: true, stdoutTTY: true, stderrTTY: true, width: width}
	f := NewFactory(ios)
	f.Environ = func() []string { return []string{"XDG_STATE_HOME=" + state, "HOME=" + state} }
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() { p.done <- runWith(ctx, f, args) }()
	return p
}

// typ types s at the terminal.
func (p *ptySession) typ(s string) {
	p.t.Helper()
	if _, err := p.master.Write([]byte(s)); err != nil {
		p.t.Fatalf("typing %q: %v", s, err)
	}
}

// wait waits for mcpctl to exit with code; stuck names what did not
// happen if it does not.
func (p *ptySession) wait(code int, stuck string) {
	p.t.Helper()
	select {
	case got := <-p.done:
		if got != code {
			p.t.Errorf("exit code %d, want %d", got, code)
		}
	case <-time.After(60 * time.Second):
		p.t.Fatal(stuck)
	}
	p.slave.Close()
}

// TestShellTTY drives mcpctl shell --demo through a pseudo-terminal: tab
// completion of a command, a tool and an argument key, the listing of
// several candidates, history recall, output in cooked mode, Ctrl-C on a
// line, Ctrl-D to leave, and the history file.
func TestShellTTY(t *testing.T) {
	state := t.TempDir()
	p := startPTY(t, state, 80, "shell", "--demo")
	out, typ := p.out, p.typ
	mark := out.expect(t, 0, "connected to mcpctl-demo")
	mark = out.expect(t, mark, "mcpctl> ")

	typ("ca\t")
	mark = out.expect(t, mark, "mcpctl> call ")
	typ("ec\t")
	mark = out.expect(t, mark, "mcpctl> call echo ")
	typ("mes\t")
	mark = out.expect(t, mark, "mcpctl> call echo message=")
	typ("hi\r")
	mark = out.expect(t, mark, "hi\r\n")
	mark = out.expect(t, mark, "mcpctl> ")

	// Two keys to choose from: Tab lists them above the line.
	typ("call add \t")
	mark = out.expect(t, mark, "a=")
	mark = out.expect(t, mark, "b=")
	mark = out.expect(t, mark, "mcpctl> call add ")
	typ("\x15") // Ctrl-U

	// The history brings the echo back; editing it runs the new line.
	typ("\x1b[A")
	mark = out.expect(t, mark, "mcpctl> call echo message=hi")
	typ("\x7f\x7fthere\r")
	mark = out.expect(t, mark, "there\r\n")

	// Ctrl-C drops the line; the shell goes on.
	typ("call nothing\x03")
	mark = out.expect(t, mark, "^C")
	typ("call add a=2 b=3\r")
	mark = out.expect(t, mark, "5\r\n")
	out.expect(t, mark, "mcpctl> ")

	typ("\x04") // Ctrl-D on an empty line
	p.wait(0, "the shell did not end at Ctrl-D")

	path := shell.HistoryFile(filepath.Join(state, "mcpctl"))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := "call echo message=hi\ncall echo message=there\ncall add a=2 b=3\n"; string(data) != want {
		t.Errorf("history file %q, want %q", data, want)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("history file mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
}
