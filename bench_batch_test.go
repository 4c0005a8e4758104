package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// batchCalls is the number of echo calls in one round of BenchmarkBatchVsC.
const batchCalls = 1000

// BenchmarkBatchVsC measures `mcpctl call --batch` making batchCalls
// sequential echo calls to a go-sdk stdio server (bench/echoserver) against
// a minimal C client making the same round trips (bench/echoclient.c), each
// a whole process, server start and exit included. It reports each one's
// time per round as ms/mcpctl and ms/c, and their ratio; scripts/bench-batch.sh
// runs the same comparison in rotating rounds for the README's figures.
// It needs cc (skipped without one).
//
// The Go floor built with -tags libs (bench/echofloor/libs.go) runs too: the
// C client's work in plain Go, linking the four libraries of mcpctl's
// design. ms/floor-libs over ms/c is what those libraries and Go cost before
// mcpctl does anything; ratio-floor-libs is mcpctl's own share.
func BenchmarkBatchVsC(b *testing.B) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		b.Skip("no C compiler (cc) on PATH to build bench/echoclient.c")
	}
	dir := b.TempDir()
	bin := buildMcpctl(b)
	server := filepath.Join(dir, "echoserver")
	client := filepath.Join(dir, "echoclient")
	if out, err := exec.Command("go", "build", "-o", server, "./bench/echoserver").CombinedOutput(); err != nil {
		b.Fatalf("go build ./bench/echoserver: %v\n%s", err, out)
	}
	floor := filepath.Join(dir, "echofloor-libs")
	if out, err := exec.Command("go", "build", "-trimpath", "-tags", "libs", "-o", floor, "./bench/echofloor").CombinedOutput(); err != nil {
		b.Fatalf("go build -tags libs ./bench/echofloor: %v\n%s", err, out)
	}
	if out, err := exec.Command(cc, "-O2", "-o", client, "bench/echoclient.c").CombinedOutput(); err != nil {
		b.Fatalf("cc bench/echoclient.c: %v\n%s", err, out)
	}
	var calls strings.Builder
	for i := 1; i <= batchCalls; i++ {
		fmt.Fprintf(&calls, `{"tool":"echo","arguments":{"message":"hello %d"}}`+"\n", i)
	}
	input := filepath.Join(dir, "calls.ndjson")
	if err := os.WriteFile(input, []byte(calls.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	env := ownHome(b)
	commands := map[string][]string{
		"mcpctl": {bin, "call", "--era", "legacy", "--batch", input, "--server-stderr", "quiet", "--", server},
		"auto":   {bin, "call", "--batch", input, "--server-stderr", "quiet", "--", server},
		"c":      {client, fmt.Sprint(batchCalls), server},
		"floor":  {floor, fmt.Sprint(batchCalls), server},
	}
	run := func(name string) {
		argv := commands[name]
		c := exec.Command(argv[0], argv[1:]...)
		c.Env = env
		if out, err := c.Output(); err != nil {
			b.Fatalf("%s: %v\n%s", name, err, out)
		}
	}
	run("auto") // caches the era, as a second command finds it
	total := map[string]float64{}
	for b.Loop() {
		for _, name := range []string{"mcpctl", "c", "auto", "floor"} {
			start := time.Now()
			run(name)
			total[name] += float64(time.Since(start).Microseconds()) / 1e3
		}
	}
	n := float64(b.N)
	b.ReportMetric(total["mcpctl"]/n, "ms/mcpctl")
	b.ReportMetric(total["auto"]/n, "ms/mcpctl-auto")
	b.ReportMetric(total["c"]/n, "ms/c")
	b.ReportMetric(total["floor"]/n, "ms/floor-libs")
	b.ReportMetric(total["floor"]/total["c"], "floor-libs/c")
	b.ReportMetric(total["mcpctl"]/total["floor"], "ratio-floor-libs")
	b.ReportMetric(total["mcpctl"]/total["c"], "ratio")
	b.ReportMetric(total["auto"]/total["c"], "ratio-auto")
}
