// Package pipeiotest makes the ends a process inherits from its host, for
// the tests of the code that reads and writes them (pipeio, the proxy's
// stdio shim). Test-only: nothing in the shipped program imports it.
package pipeiotest

import (
	"os"
	"syscall"
	"testing"
)

// InheritedPipe returns both ends of a pipe in blocking mode, opened as a
// process's inherited stdin and stdout are (outside the runtime's
// poller), closed when tb ends.
func InheritedPipe(tb testing.TB) (r, w *os.File) {
	tb.Helper()
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
		tb.Fatal(err)
	}
	r, w = os.NewFile(uintptr(fds[0]), "r"), os.NewFile(uintptr(fds[1]), "w")
	tb.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// InheritedSockets returns both ends of a connected Unix socket pair in
// blocking mode, as a host written on Node hands its server stdin and
// stdout, closed when tb ends.
func InheritedSockets(tb testing.TB) (a, b *os.File) {
	tb.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		tb.Fatal(err)
	}
	a, b = os.NewFile(uintptr(fds[0]), "a"), os.NewFile(uintptr(fds[1]), "b")
	tb.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

// Nonblocking reports whether f's open file description is non-blocking.
func Nonblocking(tb testing.TB, f *os.File) bool {
	tb.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		tb.Fatal(err)
	}
	var flags uintptr
	rc.Control(func(fd uintptr) {
		flags, _, _ = syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
	})
	return flags&syscall.O_NONBLOCK != 0
}
