package pipeio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/internal/pipeio/pipeiotest"
)

// pipePair returns both ends of a new pipe, wrapped as Files, closed when
// the test ends.
func pipePair(t *testing.T) (r, w *os.File, pr, pw *File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	pr, pw = New(r), New(w)
	if pr == nil || pw == nil {
		t.Fatal("New refused the ends of an os.Pipe")
	}
	return r, w, pr, pw
}

func TestRoundTrip(t *testing.T) {
	_, w, pr, pw := pipePair(t)
	// Four pipes' worth, so the writer waits on a full pipe many times and
	// the reader on an empty one.
	want := make([]byte, 4*pipeSize+123)
	for i := range want {
		want[i] = byte(i * 7)
	}
	done := make(chan error, 1)
	go func() {
		n, err := pw.Write(want)
		if err == nil && n != len(want) {
			err = io.ErrShortWrite
		}
		w.Close()
		done <- err
	}()
	got, err := io.ReadAll(pr)
	if err != nil {
		t.Fatalf("ReadAll: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Write: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes, not the %d written", len(got), len(want))
	}
	// At the end, Read keeps reporting EOF.
	if n, err := pr.Read(make([]byte, 8)); n != 0 || err != io.EOF {
		t.Fatalf("Read after EOF = %d, %v; want 0, io.EOF", n, err)
	}
}

func TestWriteDeadline(t *testing.T) {
	_, w, _, pw := pipePair(t)
	// Nobody reads: the write fills the pipe, then waits until the
	// deadline, and reports how much went in.
	w.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
	n, err := pw.Write(make([]byte, 4*pipeSize))
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Write on a full pipe = %v, want os.ErrDeadlineExceeded", err)
	}
	if n <= 0 || n >= 4*pipeSize {
		t.Fatalf("Write wrote %d bytes, want part of them (a pipe's capacity)", n)
	}
}

func TestCloseUnblocksRead(t *testing.T) {
	r, _, pr, _ := pipePair(t)
	done := make(chan error, 1)
	go func() {
		_, err := pr.Read(make([]byte, 16))
		done <- err
	}()
	time.Sleep(20 * time.Millisecond) // let Read wait (it returns either way)
	r.Close()
	select {
	case err := <-done:
		if err == nil || !errors.Is(err, os.ErrClosed) {
			t.Fatalf("Read after Close = %v, want os.ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Read still waiting 10s after the file was closed")
	}
}

func TestBrokenPipe(t *testing.T) {
	r, _, _, pw := pipePair(t)
	r.Close()
	if _, err := pw.Write([]byte("x")); !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("Write with the read end closed = %v, want EPIPE", err)
	}
}

func TestNewRefusesBlockingFiles(t *testing.T) {
	// A regular file is not in the poller.
	f, err := os.CreateTemp(t.TempDir(), "x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if New(f) != nil {
		t.Error("New accepted a regular file")
	}
	// Nor is a pipe end that is in blocking mode: a raw read of it could
	// block a thread the scheduler believes is running.
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	r := os.NewFile(uintptr(fds[0]), "r")
	w := os.NewFile(uintptr(fds[1]), "w")
	defer r.Close()
	defer w.Close()
	if err := syscall.SetNonblock(fds[0], false); err != nil {
		t.Fatal(err)
	}
	if New(r) != nil {
		t.Error("New accepted a blocking pipe end")
	}
}

// pipeSize is a pipe's default capacity.
const pipeSize = 64 << 10

// reopen is Reopen that fails the test when it declines f.
func reopen(t *testing.T, f *os.File) *os.File {
	t.Helper()
	nf := Reopen(f)
	if nf == nil {
		t.Fatalf("Reopen declined the pipe end %s", f.Name())
	}
	t.Cleanup(func() { nf.Close() })
	return nf
}

// A reopened read end is in the poller (deadlines work, which they do
// not on a blocking file), reads what the pipe carries to its end, and
// leaves the original end's description as it was.
func TestReopenReadEnd(t *testing.T) {
	r, w := pipeiotest.InheritedPipe(t)
	nr := reopen(t, r)
	if err := nr.SetReadDeadline(time.Now().Add(time.Millisecond)); err != nil {
		t.Fatalf("the reopened end refuses a deadline (%v): it is not in the poller", err)
	}
	if _, err := nr.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read of an empty pipe past its deadline: %v, want a deadline error", err)
	}
	nr.SetReadDeadline(time.Time{})
	if pipeiotest.Nonblocking(t, r) {
		t.Error("Reopen made the original end non-blocking")
	}
	if nr.Name() != r.Name() {
		t.Errorf("the reopened end is named %q, want the original's %q", nr.Name(), r.Name())
	}
	go func() {
		w.Write([]byte("hello"))
		w.Close()
	}()
	got, err := io.ReadAll(nr)
	if err != nil || string(got) != "hello" {
		t.Fatalf("read %q, %v; want %q and the end of the stream", got, err, "hello")
	}
}

// Reopening the read end of a pipe whose writer has gone does not wait
// for a writer, as opening a named pipe for reading would, and reads the
// end of the stream.
func TestReopenAfterTheWriterIsGone(t *testing.T) {
	r, w := pipeiotest.InheritedPipe(t)
	w.Write([]byte("last"))
	w.Close()
	got, err := io.ReadAll(reopen(t, r))
	if err != nil || string(got) != "last" {
		t.Fatalf("read %q, %v; want %q and the end of the stream", got, err, "last")
	}
}

func TestReopenWriteEnd(t *testing.T) {
	r, w := pipeiotest.InheritedPipe(t)
	nw := reopen(t, w)
	if _, err := nw.Write([]byte("out")); err != nil {
		t.Fatal(err)
	}
	if pipeiotest.Nonblocking(t, w) {
		t.Error("Reopen made the original end non-blocking")
	}
	// Both writers must close before the reader sees the end.
	nw.Close()
	w.Close()
	if got, err := io.ReadAll(r); err != nil || string(got) != "out" {
		t.Fatalf("read %q, %v; want %q", got, err, "out")
	}
}

// Closing the reopened end ends a read waiting on it and leaves the
// original open.
func TestReopenCloseEndsARead(t *testing.T) {
	r, _ := pipeiotest.InheritedPipe(t)
	nr := reopen(t, r)
	done := make(chan error, 1)
	go func() {
		_, err := nr.Read(make([]byte, 1))
		done <- err
	}()
	nr.Close()
	if err := <-done; !errors.Is(err, os.ErrClosed) {
		t.Errorf("read after Close: %v, want os.ErrClosed", err)
	}
	if _, err := r.Stat(); err != nil {
		t.Errorf("the original end: %v", err)
	}
}

func TestReopenDeclinesWhatIsNoPipe(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if nf := Reopen(f); nf != nil {
		nf.Close()
		t.Error("Reopen reopened a regular file, whose offset the new description would not share")
	}
}

// A pipe is reopened: its description is never switched.
func TestPollPipe(t *testing.T) {
	r, w := pipeiotest.InheritedPipe(t)
	nr, release := Poll(r)
	if nr == nil {
		t.Fatal("Poll declined a pipe")
	}
	defer release()
	if pipeiotest.Nonblocking(t, r) {
		t.Error("Poll switched the pipe's own description to non-blocking")
	}
	w.Write([]byte("p"))
	w.Close()
	if got, err := io.ReadAll(nr); err != nil || string(got) != "p" {
		t.Fatalf("read %q, %v; want %q", got, err, "p")
	}
}

// A socket is duplicated into the poller, its shared description
// non-blocking until release, which puts it back.
func TestPollSocket(t *testing.T) {
	a, b := pipeiotest.InheritedSockets(t)
	na, release := Poll(a)
	if na == nil {
		t.Fatal("Poll declined a socket")
	}
	if err := na.SetReadDeadline(time.Now().Add(time.Millisecond)); err != nil {
		t.Fatalf("the socket's new file refuses a deadline (%v): it is not in the poller", err)
	}
	if _, err := na.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read of a quiet socket past its deadline: %v, want a deadline error", err)
	}
	na.SetReadDeadline(time.Time{})
	if p := New(na); p == nil {
		t.Error("New refused the socket's new file")
	}
	go func() {
		b.Write([]byte("over the socket"))
		b.Close()
	}()
	if got, err := io.ReadAll(na); err != nil || string(got) != "over the socket" {
		t.Fatalf("read %q, %v; want %q", got, err, "over the socket")
	}
	release()
	if pipeiotest.Nonblocking(t, a) {
		t.Error("release left the socket non-blocking")
	}
	if _, err := na.Read(make([]byte, 1)); !errors.Is(err, os.ErrClosed) {
		t.Errorf("read after release: %v, want os.ErrClosed", err)
	}
}

// A socket that is also one of avoid is left as it is: another writer
// (a server writing its stderr there) could meet EAGAIN.
func TestPollAvoidsASharedSocket(t *testing.T) {
	a, _ := pipeiotest.InheritedSockets(t)
	other, _ := pipeiotest.InheritedSockets(t)
	if na, _ := Poll(a, other, a); na != nil {
		t.Error("Poll took a socket it was told to avoid")
	}
	if pipeiotest.Nonblocking(t, a) {
		t.Error("Poll switched a socket it declined")
	}
	na, release := Poll(a, other, nil)
	if na == nil {
		t.Fatal("Poll declined a socket that is not among avoid")
	}
	release()
}
