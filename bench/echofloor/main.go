// Command echofloor is the Go floor of the batch benchmark: the C client's
// work (bench/echoclient.c) written in plain Go — start the server,
// initialize, notifications/initialized, N tools/call of echo each waiting
// for its answer on the same goroutine, close stdin, wait — with no
// goroutine hand-off, no JSON decoding and no checks. The distance from it
// to the C client is what any Go client pays (the runtime, os/exec, the
// network poller on pipes); the distance from mcpctl to it is mcpctl's.
// Built with -tags libs it also links the four libraries of mcpctl's
// design (libs.go).
//
// With ECHOFLOOR_HANDOFFS=K (K >= 1) the server's lines reach the calling
// goroutine through K goroutines in a row (a reader, then K-1 relays,
// over unbuffered channels), as a client with a read loop gets them: the
// distance to the plain floor is what such hand-offs cost a round trip.
//
// Usage: echofloor N SERVER [ARGS...]
package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: echofloor N SERVER [ARGS...]")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "echofloor:", err)
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	check(err)
	stdout, err := cmd.StdoutPipe()
	check(err)
	check(cmd.Start())
	next := lineReader(bufio.NewReader(stdout), os.Getenv("ECHOFLOOR_HANDOFFS"))
	roundTrip := func(req []byte, id int) {
		_, err := stdin.Write(req)
		check(err)
		want := []byte(`"id":` + strconv.Itoa(id) + `,`)
		want2 := []byte(`"id":` + strconv.Itoa(id) + `}`)
		for {
			line := next()
			if bytes.Contains(line, want) || bytes.Contains(line, want2) {
				return
			}
		}
	}
	roundTrip([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"echofloor","version":"1"}}}`+"\n"), 0)
	_, err = stdin.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
	check(err)
	var req []byte
	for id := 1; id <= n; id++ {
		req = fmt.Appendf(req[:0], `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello %d"}}}`+"\n", id, id)
		roundTrip(req, id)
	}
	check(stdin.Close())
	check(cmd.Wait())
}

// lineReader returns the function that gives the server's next line:
// read on the caller's goroutine, or through handoffs goroutines.
func lineReader(r *bufio.Reader, handoffs string) func() []byte {
	k := 0
	if handoffs != "" {
		var err error
		k, err = strconv.Atoi(handoffs)
		if err != nil || k < 0 {
			fmt.Fprintln(os.Stderr, "echofloor: ECHOFLOOR_HANDOFFS is not a count:", handoffs)
			os.Exit(2)
		}
	}
	if k == 0 {
		return func() []byte {
			line, err := r.ReadSlice('\n')
			check(err)
			return line
		}
	}
	lines := make(chan []byte)
	go func() {
		defer close(lines) // the end of the stream: after the last answer, or a server gone early
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			lines <- line
		}
	}()
	for range k - 1 {
		in, out := lines, make(chan []byte)
		go func() {
			defer close(out)
			for line := range in {
				out <- line
			}
		}()
		lines = out
	}
	return func() []byte {
		line, ok := <-lines
		if !ok {
			check(errors.New("the server's output ended before its answer"))
		}
		return line
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "echofloor:", err)
		os.Exit(1)
	}
}
