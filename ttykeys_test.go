//go:build linux

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// ttyKeys is the ttykeys command of the scripts, which drives a full-screen
// program as a person would:
//
//	ttykeys COLS ROWS STEPS PROGRAM [ARGS...]
//
// PROGRAM runs with its standard input and output on a pseudo-terminal of
// COLS×ROWS; standard error is passed through. STEPS is a file of lines
// "wait TEXT" (until the terminal has shown TEXT since the previous wait)
// and "send KEYS" (Go-quoted escapes allowed: \r, \x1b). Each wait met
// prints "saw TEXT". When PROGRAM has exited, it prints whether the
// terminal was given back: "alt screen left" and "terminal restored"
// (canonical mode and echo on again), and exits with PROGRAM's status. A
// wait not met within a minute fails: the program is stuck.
func ttyKeys(args []string) int {
	if len(args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: ttykeys COLS ROWS STEPS PROGRAM [ARGS...]")
		return 2
	}
	cols, err1 := strconv.Atoi(args[0])
	rows, err2 := strconv.Atoi(args[1])
	steps, err3 := os.ReadFile(args[2])
	if err1 != nil || err2 != nil || err3 != nil {
		fmt.Fprintln(os.Stderr, "ttykeys: bad COLS, ROWS or STEPS")
		return 2
	}
	master, slave, err := openTTY(cols)
	if err != nil {
		fmt.Fprintf(os.Stderr, "ttykeys: %v\n", err)
		return 2
	}
	defer master.Close()
	ws := struct{ row, col, x, y uint16 }{row: uint16(rows), col: uint16(cols)}
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCSWINSZ, uintptr(unsafe.Pointer(&ws))); errno != 0 {
		fmt.Fprintf(os.Stderr, "ttykeys: %v\n", errno)
		return 2
	}
	cmd := exec.Command(args[3], args[4:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		slave.Close()
		fmt.Fprintf(os.Stderr, "ttykeys: %v\n", err)
		return 2
	}
	slave.Close()
	var (
		mu     sync.Mutex
		screen []byte
		more   = make(chan struct{}, 1)
		done   = make(chan struct{})
	)
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			mu.Lock()
			screen = append(screen, buf[:n]...)
			mu.Unlock()
			select {
			case more <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	from := 0
	sc := bufio.NewScanner(bytes.NewReader(steps))
	for sc.Scan() {
		verb, arg, _ := strings.Cut(sc.Text(), " ")
		switch verb {
		case "wait":
			deadline := time.After(time.Minute)
			for {
				mu.Lock()
				i := bytes.Index(screen[from:], []byte(arg))
				if i >= 0 {
					from += i + len(arg)
				}
				mu.Unlock()
				if i >= 0 {
					fmt.Printf("saw %s\n", arg)
					break
				}
				select {
				case <-more:
				case <-done:
					fmt.Fprintf(os.Stderr, "ttykeys: the program ended before showing %q\n", arg)
					return 1
				case <-deadline:
					_ = cmd.Process.Kill()
					fmt.Fprintf(os.Stderr, "ttykeys: %q not shown in a minute; screen:\n%q\n", arg, screen[from:])
					return 1
				}
			}
		case "send":
			keys, err := strconv.Unquote(`"` + arg + `"`)
			if err != nil {
				fmt.Fprintf(os.Stderr, "ttykeys: send %s: %v\n", arg, err)
				return 2
			}
			if _, err := master.WriteString(keys); err != nil {
				fmt.Fprintf(os.Stderr, "ttykeys: %v\n", err)
				return 2
			}
		}
	}
	waitErr := cmd.Wait()
	// Termios is the pair's: read from the master, it is what the
	// program left on the terminal.
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
	<-done
	mu.Lock()
	out := screen
	mu.Unlock()
	if i := bytes.LastIndex(out, []byte("\x1b[?1049l")); i >= 0 && i > bytes.LastIndex(out, []byte("\x1b[?1049h")) {
		fmt.Println("alt screen left")
	}
	if errno == 0 && t.Lflag&syscall.ICANON != 0 && t.Lflag&syscall.ECHO != 0 {
		fmt.Println("terminal restored")
	}
	if ee, ok := waitErr.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return 0
}
