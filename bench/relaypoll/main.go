//go:build linux

// Command relaypoll is bench/relayc.c's design in Go: one OS thread, one
// ppoll(2) over the host's stdin and the server's stdout, each read
// written whole to the other side, on blocking pipes the runtime's poller
// never sees, so no goroutine is woken for a frame. Beside bench/relayfloor
// (io.Copy in two goroutines) it tells what a Go relay pays that its I/O
// design does not explain (scripts/bench-proxy.sh).
//
// Usage: relaypoll SERVER [ARGS...]
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"unsafe"
)

// pollFd is struct pollfd.
type pollFd struct {
	fd      int32
	events  int16
	revents int16
}

const pollIn = 0x1

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: relaypoll SERVER [ARGS...]")
		os.Exit(2)
	}
	runtime.LockOSThread()
	// Pipes made with pipe2 and no O_NONBLOCK stay out of the poller.
	var in, out [2]int
	check(syscall.Pipe2(in[:], syscall.O_CLOEXEC))
	check(syscall.Pipe2(out[:], syscall.O_CLOEXEC))
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin = os.NewFile(uintptr(in[0]), "server stdin")
	cmd.Stdout = os.NewFile(uintptr(out[1]), "server stdout")
	cmd.Stderr = os.Stderr
	check(cmd.Start())
	syscall.Close(in[0])
	syscall.Close(out[1])
	toServer, fromServer := in[1], out[0]

	fds := []pollFd{{fd: int32(fromServer), events: pollIn}, {fd: 0, events: pollIn}}
	watched := 2 // the host's stdin is dropped from the set at its end
	buf := make([]byte, 64<<10)
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&fds[0])), uintptr(watched), 0, 0, 0, 0)
		if errno != 0 && errno != syscall.EINTR {
			check(errno)
		}
		if watched == 2 && fds[1].revents != 0 {
			if n, _ := syscall.Read(0, buf); n > 0 {
				put(toServer, buf[:n])
			} else {
				watched = 1
				syscall.Close(toServer)
			}
		}
		if fds[0].revents != 0 {
			n, _ := syscall.Read(fromServer, buf)
			if n <= 0 {
				break
			}
			put(1, buf[:n])
		}
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		os.Exit(exit.ExitCode())
	}
	check(err)
}

// put writes all of b to fd, retrying short and interrupted writes.
func put(fd int, b []byte) {
	for len(b) > 0 {
		n, err := syscall.Write(fd, b)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		check(err)
		b = b[n:]
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "relaypoll:", err)
		os.Exit(1)
	}
}
