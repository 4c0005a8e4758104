// Command stallrepro reproduces, with the standard library alone, the
// Go 1.26 runtime race that stalls a process for up to a minute
// (docs/performance.md, 2026-12-07): a goroutine enters a blocking read(2)
// just as another starts a stop-the-world, the stop waits for the reader's
// processor, and only the runtime's monitor thread, asleep for up to 60 s
// while a stop is pending, takes it back.
//
// The program starts itself as a child and plays ping-pong with it over
// pipes, one byte each way, as a client and a stdio server do. In the
// child, one goroutine reads stdin with blocking reads (os.Stdin as a
// process inherits it) and hands each byte to the main goroutine, which
// starts a garbage collection (a stop-the-world) at once, then answers;
// so the stop often begins while the reader goes back into read(2). An
// answer later than -timeout counts as a stall: the parent prints it,
// sends the child SIGQUIT (a full dump under GOTRACEBACK=crash on its
// stderr, showing the reader in syscall.read, the collector in
// stopTheWorldWithSema and sysmon in notetsleep) and exits 1.
//
// With -poll the child reads stdin through the runtime's poller instead
// (a non-blocking descriptor of its own, as internal/pipeio does): the
// control, which does not stall.
//
// With -timeout 2m a stall is waited out instead: its length shows who
// ended it (the monitor's 60 s, or the next timer).
//
// Usage: stallrepro [-n EXCHANGES] [-slow D] [-timeout D] [-poll] [-alloc BYTES]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"time"
)

func main() {
	isChild := flag.Bool("child", false, "run as the child (internal)")
	n := flag.Int("n", 1_000_000, "exchanges to make before giving up")
	slow := flag.Duration("slow", time.Second, "print each answer later than this")
	timeout := flag.Duration("timeout", 2*time.Second, "an answer later than this is a stall: dump the child and stop")
	poll := flag.Bool("poll", false, "the child reads stdin through the runtime's poller (the control)")
	alloc := flag.Int("alloc", 0, "instead of a garbage collection each exchange, allocate this many bytes (GOGC=1)")
	flag.Parse()
	if *isChild {
		if err := child(*poll, *alloc); err != nil {
			fmt.Fprintln(os.Stderr, "stallrepro child:", err)
			os.Exit(1)
		}
		return
	}
	os.Exit(parent(*n, *slow, *timeout, *poll, *alloc))
}

// parent runs the child and the exchanges; it returns the exit code.
func parent(n int, slow, timeout time.Duration, poll bool, alloc int) int {
	args := []string{"-child", "-alloc", strconv.Itoa(alloc)}
	if poll {
		args = append(args, "-poll")
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Stderr = os.Stderr
	cmd.Env = append(os.Environ(), "GOTRACEBACK=crash")
	if alloc > 0 {
		cmd.Env = append(cmd.Env, "GOGC=1")
	}
	toChild, err := cmd.StdinPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "stallrepro:", err)
		return 2
	}
	fromChild, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "stallrepro:", err)
		return 2
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "stallrepro:", err)
		return 2
	}
	// The parent's pipes are in the poller, so its own reads cannot stall
	// this way, and a deadline bounds each wait.
	answers := fromChild.(*os.File)
	start := time.Now()
	var b [1]byte
	slowOnes := 0
	for i := 1; i <= n; i++ {
		sent := time.Now()
		if _, err := toChild.Write([]byte{'x'}); err != nil {
			fmt.Fprintf(os.Stderr, "stallrepro: writing exchange %d: %v\n", i, err)
			return 2
		}
		answers.SetReadDeadline(sent.Add(timeout))
		if _, err := answers.Read(b[:]); err != nil {
			fmt.Printf("stall: exchange %d got no answer in %v (%v into the run, %s); the child's dump follows on stderr\n",
				i, timeout, time.Since(start).Round(time.Millisecond), runtime.Version())
			cmd.Process.Signal(syscall.SIGQUIT)
			cmd.Wait()
			return 1
		}
		if d := time.Since(sent); d > slow {
			slowOnes++
			fmt.Printf("slow: exchange %d answered after %v (%v into the run)\n", i, d.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
		}
		if i%100_000 == 0 {
			fmt.Printf("%d exchanges, %v\n", i, time.Since(start).Round(time.Millisecond))
		}
	}
	toChild.Close()
	cmd.Wait()
	if slowOnes > 0 {
		fmt.Printf("%d of %d exchanges answered after more than %v, %v (%s)\n", slowOnes, n, slow, time.Since(start).Round(time.Millisecond), runtime.Version())
		return 1
	}
	fmt.Printf("no stall in %d exchanges, %v (%s)\n", n, time.Since(start).Round(time.Millisecond), runtime.Version())
	return 0
}

// sink keeps the child's allocations from being optimised away.
var sink []byte

// child answers each byte read from stdin with the same byte, starting a
// garbage collection (or allocating alloc bytes) before each answer.
func child(poll bool, alloc int) error {
	stdin := os.Stdin
	if poll {
		// A descriptor of its own in non-blocking mode joins the poller;
		// the description shared with the parent keeps its mode.
		fd, err := syscall.Open("/proc/self/fd/0", syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		stdin = os.NewFile(uintptr(fd), "stdin")
	}
	bytes := make(chan byte)
	go func() {
		defer close(bytes)
		var b [1]byte
		for {
			if _, err := stdin.Read(b[:]); err != nil {
				return
			}
			bytes <- b[0]
		}
	}()
	for c := range bytes {
		if alloc > 0 {
			sink = make([]byte, alloc)
		} else {
			runtime.GC()
		}
		if _, err := os.Stdout.Write([]byte{c}); err != nil {
			return err
		}
	}
	return nil
}
