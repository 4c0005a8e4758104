// Command paired compares the start-up of a program with one or more
// baselines, whole process: it runs them in turn (A, B, C, A, B, C, ...,
// the order rotating each round) so that a change in the machine's load
// hits all alike, and prints each one's median wall time and CPU time and
// the ratios of A's medians to each baseline's.
//
// Usage: paired [-n RUNS] [-warmup N] 'A ARGS...' 'B ARGS...' ['C ARGS...' ...]
//
// The commands are split on spaces and run without a shell, their output
// discarded.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

func main() {
	runs := flag.Int("n", 200, "number of runs of each program")
	warmup := flag.Int("warmup", 20, "runs of each program before measuring")
	flag.Parse()
	if flag.NArg() < 2 {
		fmt.Fprintln(os.Stderr, "usage: paired [-n RUNS] [-warmup N] 'A ARGS...' 'B ARGS...' ['C ARGS...' ...]")
		os.Exit(2)
	}
	progs := make([]*program, flag.NArg())
	for i, arg := range flag.Args() {
		progs[i] = &program{name: string(rune('A' + i)), cmd: arg, argv: strings.Fields(arg)}
	}
	for range *warmup {
		for _, p := range progs {
			run(p.argv)
		}
	}
	for i := range *runs {
		// Rotate the order, so that no program always follows another.
		for j := range progs {
			p := progs[(i+j)%len(progs)]
			w, c := run(p.argv)
			p.wall, p.cpu = append(p.wall, w), append(p.cpu, c)
		}
	}
	for _, p := range progs {
		fmt.Printf("%s %-40s median wall %6.2f ms, user+sys %6.2f ms\n", p.name, p.cmd, median(p.wall), median(p.cpu))
	}
	a := progs[0]
	for _, b := range progs[1:] {
		ratios := make([]float64, *runs)
		for i := range ratios {
			ratios[i] = a.wall[i] / b.wall[i]
		}
		fmt.Printf("ratio of medians A/%s: wall %.2f, user+sys %.2f (median of paired wall ratios %.2f, %d rounds)\n",
			b.name, median(a.wall)/median(b.wall), median(a.cpu)/median(b.cpu), median(ratios), *runs)
	}
}

// program is one command measured, with its wall and CPU times in
// milliseconds, one per round.
type program struct {
	name, cmd string
	argv      []string
	wall, cpu []float64
}

// run runs the command once and returns its wall time and its user+system
// CPU time, in milliseconds.
func run(argv []string) (wall, cpu float64) {
	c := exec.Command(argv[0], argv[1:]...)
	start := time.Now()
	if err := c.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "paired: %s: %v\n", strings.Join(argv, " "), err)
		os.Exit(1)
	}
	wall = float64(time.Since(start).Microseconds()) / 1000
	cpu = float64((c.ProcessState.UserTime() + c.ProcessState.SystemTime()).Microseconds()) / 1000
	return wall, cpu
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}
