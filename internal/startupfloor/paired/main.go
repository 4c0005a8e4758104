// Command paired compares the start-up of a program with one or more
// baselines, whole process: it runs them in turn (A, B, C, A, B, C, ...,
// the order rotating each round) so that a change in the machine's load
// hits all alike, and prints each one's median wall time and CPU time and
// the ratios of A's medians to each baseline's.
//
// Usage: paired [-n RUNS] [-warmup N] [-pair X/Y ...] 'A ARGS...' 'B ARGS...' ['C ARGS...' ...]
//
// -pair X/Y (repeatable) also prints the ratios of X to Y, for two
// baselines ("E/B").
//
// The commands are split on spaces and run without a shell, their output
// discarded. Leading NAME=VALUE words set variables in that command's
// environment, as a shell would ('GODEBUG=inittrace=1 mcpctl version').
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
	var pairs pairList
	flag.Var(&pairs, "pair", "also print the ratios of `X/Y`, two programs by letter (repeatable)")
	flag.Parse()
	if flag.NArg() < 2 {
		fmt.Fprintln(os.Stderr, "usage: paired [-n RUNS] [-warmup N] [-pair X/Y ...] 'A ARGS...' 'B ARGS...' ['C ARGS...' ...]")
		os.Exit(2)
	}
	for _, pr := range pairs {
		if pr[0] >= flag.NArg() || pr[1] >= flag.NArg() {
			fmt.Fprintf(os.Stderr, "paired: -pair %c/%c names a program not given (A to %c)\n", 'A'+pr[0], 'A'+pr[1], 'A'+flag.NArg()-1)
			os.Exit(2)
		}
	}
	progs := make([]*program, flag.NArg())
	for i, arg := range flag.Args() {
		p := &program{name: string(rune('A' + i)), cmd: arg, argv: strings.Fields(arg)}
		for len(p.argv) > 1 && strings.Contains(p.argv[0], "=") {
			p.env = append(p.env, p.argv[0])
			p.argv = p.argv[1:]
		}
		progs[i] = p
	}
	for range *warmup {
		for _, p := range progs {
			run(p)
		}
	}
	for i := range *runs {
		// Rotate the order, so that no program always follows another.
		for j := range progs {
			p := progs[(i+j)%len(progs)]
			w, c := run(p)
			p.wall, p.cpu = append(p.wall, w), append(p.cpu, c)
		}
	}
	for _, p := range progs {
		fmt.Printf("%s %-40s median wall %6.2f ms, user+sys %6.2f ms\n", p.name, p.cmd, median(p.wall), median(p.cpu))
	}
	for _, b := range progs[1:] {
		printRatio(progs[0], b, *runs)
	}
	for _, pr := range pairs {
		printRatio(progs[pr[0]], progs[pr[1]], *runs)
	}
}

// printRatio prints the ratios of a's medians to b's, and the median of
// their paired wall ratios.
func printRatio(a, b *program, runs int) {
	ratios := make([]float64, runs)
	for i := range ratios {
		ratios[i] = a.wall[i] / b.wall[i]
	}
	fmt.Printf("ratio of medians %s/%s: wall %.2f, user+sys %.2f (median of paired wall ratios %.2f, %d rounds)\n",
		a.name, b.name, median(a.wall)/median(b.wall), median(a.cpu)/median(b.cpu), median(ratios), runs)
}

// pairList is the value of -pair: pairs of program indexes.
type pairList [][2]int

func (l *pairList) String() string { return fmt.Sprint(*l) }

func (l *pairList) Set(v string) error {
	x, y, ok := strings.Cut(v, "/")
	if !ok || len(x) != 1 || len(y) != 1 || x[0] < 'A' || x[0] > 'Z' || y[0] < 'A' || y[0] > 'Z' || x == y {
		return fmt.Errorf("want two different programs by letter, as E/B; got %q", v)
	}
	*l = append(*l, [2]int{int(x[0] - 'A'), int(y[0] - 'A')})
	return nil
}

// program is one command measured, with its wall and CPU times in
// milliseconds, one per round.
type program struct {
	name, cmd string
	argv, env []string
	wall, cpu []float64
}

// run runs the command once and returns its wall time and its user+system
// CPU time, in milliseconds.
func run(p *program) (wall, cpu float64) {
	c := exec.Command(p.argv[0], p.argv[1:]...)
	if p.env != nil {
		c.Env = append(os.Environ(), p.env...)
	}
	start := time.Now()
	if err := c.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "paired: %s: %v\n", p.cmd, err)
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
