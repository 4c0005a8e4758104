//go:build unix

package transport

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/internal/pipeio"
)

// helperEnv selects a fake server mode: the test binary re-executes itself
// with it set, so the stdio tests need no external program.
const helperEnv = "MCPCTL_TRANSPORT_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode))
	}
	os.Exit(m.Run())
}

// runHelper behaves as the fake server named by mode and returns its exit
// status.
func runHelper(mode string) int {
	out := bufio.NewWriter(os.Stdout)
	say := func(format string, args ...any) {
		fmt.Fprintf(out, format+"\n", args...)
		out.Flush()
	}
	// Stdin through the poller, as mcpctl's test servers read it
	// (pipeio.Reopen says why).
	stdin, restore := pipeio.Stdin()
	defer restore()
	drainStdin := func() { io.Copy(io.Discard, stdin) }
	sleepForever := func() {
		for {
			time.Sleep(time.Hour)
		}
	}

	switch mode {
	case "echo": // every stdin line back on stdout; exit 0 at EOF
		in := bufio.NewReader(stdin)
		for {
			line, err := in.ReadBytes('\n')
			out.Write(line)
			out.Flush()
			if err != nil {
				return 0
			}
		}
	case "env": // report environment and working directory
		dir, _ := os.Getwd()
		names, _ := json.Marshal(os.Environ())
		say(`{"x":%q,"dir":%q,"environ":%s}`, os.Getenv("MCPCTL_TEST_X"), dir, names)
		drainStdin()
		return 0
	case "huge": // one line of MCPCTL_TEST_SIZE bytes, then a small one
		size, _ := strconv.Atoi(os.Getenv("MCPCTL_TEST_SIZE"))
		out.WriteString(`{"data":"`)
		block := strings.Repeat("x", 64<<10)
		for n := len(`{"data":""}`); n < size; n += len(block) {
			out.WriteString(block[:min(len(block), size-n)])
		}
		out.WriteString("\"}\n{\"end\":true}\n")
		out.Flush()
		drainStdin()
		return 0
	case "endless": // one line that never ends; stdin EOF ignored, dies of SIGTERM
		out.WriteString(`{"data":"`)
		block := strings.Repeat("x", 64<<10)
		for {
			if _, err := out.WriteString(block); err != nil {
				return 1
			}
		}
	case "noise": // stray output between messages
		out.WriteString("Server starting on stdio...\n")
		out.WriteString("\n")
		out.WriteString("   \r\n")
		out.WriteString(`{"jsonrpc":"2.0","method":"one"}` + "\r\n")
		out.WriteString(`"a string is JSON but not JSON-RPC"` + "\n")
		out.WriteString(`{"truncated":` + "\n")
		out.WriteString(`  [{"jsonrpc":"2.0","method":"two"}]  ` + "\n")
		out.WriteString(`{"jsonrpc":"2.0","method":"three"}`) // no final newline
		out.Flush()
		os.Stdout.Close()
		drainStdin()
		return 0
	case "big": // one 20 MB line, then a small one
		out.WriteString(`{"data":"`)
		out.WriteString(strings.Repeat("x", bigLineData))
		out.WriteString("\"}\n{\"end\":true}\n")
		out.Flush()
		drainStdin()
		return 0
	case "crash": // explain on stderr, then die
		fmt.Fprint(os.Stderr, "starting\nfatal: boom\n\n")
		return 3
	case "closeout": // close stdout but keep running until stdin ends
		os.Stdout.Close()
		drainStdin()
		return 0
	case "deaf": // never read stdin
		say(`{"pid":%d}`, os.Getpid())
		sleepForever()
	case "exit0", "exit1": // exit on stdin EOF
		say(`{"pid":%d}`, os.Getpid())
		drainStdin()
		if mode == "exit1" {
			fmt.Fprintln(os.Stderr, "error: stdin closed")
			return 1
		}
		return 0
	case "hang": // ignore stdin EOF, die of SIGTERM
		say(`{"pid":%d}`, os.Getpid())
		drainStdin()
		sleepForever()
	case "stubborn": // ignore stdin EOF and SIGTERM: needs SIGKILL
		signal.Ignore(syscall.SIGTERM)
		say(`{"pid":%d}`, os.Getpid())
		drainStdin()
		sleepForever()
	case "orphan": // leave a stubborn grandchild behind on exit
		exe, err := os.Executable()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		gc := exec.Command(exe)
		gc.Env = append(os.Environ(), helperEnv+"=grandchild")
		gc.Stderr = os.Stderr // holds mcpctl's stderr pipe open
		ready, err := gc.StdoutPipe()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if err := gc.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		bufio.NewReader(ready).ReadString('\n') // SIGTERM is ignored from here on
		say(`{"pid":%d,"grandchild":%d}`, os.Getpid(), gc.Process.Pid)
		drainStdin()
		return 0
	case "grandchild":
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("ready")
		sleepForever()
	}
	fmt.Fprintf(os.Stderr, "unknown helper mode %q\n", mode)
	return 2
}
