// Command paired compares the start-up of two programs, whole process: it
// runs them alternately (A, B, A, B, ...) so that a change in the machine's
// load hits both alike, and prints each one's median wall time and the ratio
// of the medians.
//
// Usage: paired [-n RUNS] [-warmup N] 'A ARGS...' 'B ARGS...'
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
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: paired [-n RUNS] [-warmup N] 'A ARGS...' 'B ARGS...'")
		os.Exit(2)
	}
	a, b := strings.Fields(flag.Arg(0)), strings.Fields(flag.Arg(1))
	for range *warmup {
		run(a)
		run(b)
	}
	var wallA, wallB, cpuA, cpuB, ratios []float64
	measure := func(argv []string, wall, cpu *[]float64) {
		w, c := run(argv)
		*wall, *cpu = append(*wall, w), append(*cpu, c)
	}
	for i := range *runs {
		// Alternate which goes first, so neither always follows the other.
		if i%2 == 0 {
			measure(a, &wallA, &cpuA)
			measure(b, &wallB, &cpuB)
		} else {
			measure(b, &wallB, &cpuB)
			measure(a, &wallA, &cpuA)
		}
		ratios = append(ratios, wallA[i]/wallB[i])
	}
	ma, mb := median(wallA), median(wallB)
	fmt.Printf("A %-40s median wall %6.2f ms, user+sys %6.2f ms\n", flag.Arg(0), ma, median(cpuA))
	fmt.Printf("B %-40s median wall %6.2f ms, user+sys %6.2f ms\n", flag.Arg(1), mb, median(cpuB))
	fmt.Printf("ratio of medians A/B: wall %.2f, user+sys %.2f (median of paired wall ratios %.2f, %d pairs)\n",
		ma/mb, median(cpuA)/median(cpuB), median(ratios), *runs)
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
