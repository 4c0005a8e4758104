// Command rtthost measures round trips through a stdio server or whatever
// stands in front of one: it starts the command given, initializes, makes N
// sequential tools/call of echo (each waiting for its answer, as
// bench/echofloor does) and prints the median and 90th percentile round
// trip of the calls, in microseconds, on stdout.
//
// Usage: rtthost N SERVER [ARGS...]
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"time"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: rtthost N SERVER [ARGS...]")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[1])
	check(err)
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	check(err)
	stdout, err := cmd.StdoutPipe()
	check(err)
	check(cmd.Start())
	r := bufio.NewReader(stdout)
	roundTrip := func(req []byte, id int) time.Duration {
		start := time.Now()
		_, err := stdin.Write(req)
		check(err)
		want := []byte(`"id":` + strconv.Itoa(id) + `,`)
		want2 := []byte(`"id":` + strconv.Itoa(id) + `}`)
		for {
			line, err := r.ReadSlice('\n')
			check(err)
			if bytes.Contains(line, want) || bytes.Contains(line, want2) {
				return time.Since(start)
			}
		}
	}
	roundTrip([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"rtthost","version":"1"}}}`+"\n"), 0)
	_, err = stdin.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
	check(err)
	rtts := make([]time.Duration, 0, n)
	var req []byte
	for id := 1; id <= n; id++ {
		req = fmt.Appendf(req[:0], `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello %d"}}}`+"\n", id, id)
		rtts = append(rtts, roundTrip(req, id))
	}
	check(stdin.Close())
	check(cmd.Wait())
	slices.Sort(rtts)
	fmt.Printf("%.1f %.1f\n", us(rtts[len(rtts)/2]), us(rtts[len(rtts)*9/10]))
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "rtthost:", err)
		os.Exit(1)
	}
}
