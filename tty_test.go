//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"unsafe"
)

// ttyRun is the ttyrun command of the scripts:
//
//	ttyrun COLS PROGRAM [ARGS...]
//
// It runs PROGRAM with its standard output on a pseudo-terminal COLS
// columns wide and copies what the terminal received to its own standard
// output, line ends as "\n", so that scripts can compare what a person sees
// at that width with a golden file. Standard input and error are passed
// through; the exit status is PROGRAM's. The width comes from the terminal
// as it would in use, unless the script sets COLUMNS.
func ttyRun(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: ttyrun COLS PROGRAM [ARGS...]")
		return 2
	}
	cols, err := strconv.Atoi(args[0])
	if err != nil || cols <= 0 || cols > 0xffff {
		fmt.Fprintf(os.Stderr, "ttyrun: COLS %q is not a width\n", args[0])
		return 2
	}
	master, slave, err := openTTY(cols)
	if err != nil {
		fmt.Fprintf(os.Stderr, "ttyrun: %v\n", err)
		return 2
	}
	defer master.Close()
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, slave, os.Stderr
	if err := cmd.Start(); err != nil {
		slave.Close()
		fmt.Fprintf(os.Stderr, "ttyrun: %v\n", err)
		return 2
	}
	// Only the child holds the terminal now, so reading ends (EIO) when
	// it and whatever it started have closed it.
	slave.Close()
	var buf bytes.Buffer
	copied := make(chan error, 1)
	go func() {
		_, err := io.Copy(&buf, master)
		copied <- err
	}()
	waitErr := cmd.Wait()
	if err := <-copied; err != nil && !errors.Is(err, syscall.EIO) {
		fmt.Fprintf(os.Stderr, "ttyrun: reading the terminal: %v\n", err)
		return 2
	}
	os.Stdout.Write(bytes.ReplaceAll(buf.Bytes(), []byte("\r\n"), []byte("\n")))
	var exitErr *exec.ExitError
	switch {
	case errors.As(waitErr, &exitErr):
		return exitErr.ExitCode()
	case waitErr != nil:
		fmt.Fprintf(os.Stderr, "ttyrun: %v\n", waitErr)
		return 2
	}
	return 0
}

// openTTY opens a pseudo-terminal pair cols columns wide with the Linux
// ioctls: the master to read, the slave for the child.
func openTTY(cols int) (master, slave *os.File, err error) {
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("no pseudo-terminals here: %w", err)
	}
	var unlock int32
	var n uint32
	ws := struct{ row, col, x, y uint16 }{row: 50, col: uint16(cols)}
	for _, c := range []struct {
		req uintptr
		arg unsafe.Pointer
	}{{syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)}, {syscall.TIOCGPTN, unsafe.Pointer(&n)}, {syscall.TIOCSWINSZ, unsafe.Pointer(&ws)}} {
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), c.req, uintptr(c.arg)); errno != 0 {
			m.Close()
			return nil, nil, fmt.Errorf("setting up the pseudo-terminal: %w", errno)
		}
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		return nil, nil, fmt.Errorf("opening the pseudo-terminal's slave: %w", err)
	}
	return m, s, nil
}
