// Command relayfloor is the floor of the proxy benchmark: the least a
// stdio relay can do. It starts the server given on its command line and
// copies its own stdin to the server's and the server's stdout to its own
// through pipes of its own, as any relay must, byte for byte, with io.Copy
// and nothing else: no lines, no observers, no
// log. What mcpctl proxy costs beyond it is the price of seeing the frames.
//
// Usage: relayfloor SERVER [ARGS...]
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: relayfloor SERVER [ARGS...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	check(err)
	stdout, err := cmd.StdoutPipe()
	check(err)
	check(cmd.Start())
	go func() {
		io.Copy(stdin, os.Stdin)
		stdin.Close()
	}()
	io.Copy(os.Stdout, stdout)
	err = cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		os.Exit(exit.ExitCode())
	}
	check(err)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "relayfloor:", err)
		os.Exit(1)
	}
}
