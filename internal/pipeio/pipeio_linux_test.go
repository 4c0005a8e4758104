package pipeio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"syscall"
	"testing"
	"time"
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
