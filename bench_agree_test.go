package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// agreeCalls and agreeDelay shape the comparison of
// TestBenchAgreesOverStdio: echo calls that each wait agreeDelay in the
// server, so the figure is the server's and both clients' own costs are a
// small share of it.
const (
	agreeCalls  = 50
	agreeDelay  = "20ms"
	agreeRounds = 7
)

// TestBenchAgreesOverStdio checks the latency `mcpctl bench` reports
// against an independent measurement: the official Go SDK's client making
// the same sequential calls to the same kind of stdio server, each timed
// by the test. Two servers: the Go SDK's (testserver load-fuzz's echo with
// -delay) and server-everything (its long-running operation in one step
// of the same length). Each round runs the two at once, each client with a
// server of its own, so that the machine's load in those seconds is the
// same for both; the median over rounds of the ratio of mcpctl's median
// latency (p50) to the SDK client's must be within 10%.
//
// The reference is a Go client, as TestBenchAgreesOverHTTP's is, because
// the measurement runs beside the end-to-end scripts, on a machine whose
// cores are taken: a client's answer then waits for a core each time one
// of its threads is woken, and a Go client, whose answer passes from the
// runtime's poller to the goroutine waiting for it, is woken more often
// than a one-thread C client. The C client of the batch benchmark
// (bench/echoclient.c), the reference before, measured server-everything's
// calls 4 ms (15%) faster than mcpctl in every round of a CI run with two
// CPU-bound loops beside it, and agreed with it on a quiet machine: that
// difference is the runtimes', not bench's measurement.
func TestBenchAgreesOverStdio(t *testing.T) {
	// A measurement, run with the end-to-end tier (scripts/test.sh runs it
	// beside the memory tests): it runs servers for several seconds, and
	// the race detector would slow mcpctl's side alone.
	measurementTier(t)
	server, err := exec.LookPath("testserver") // put on PATH by testscript.Main
	if err != nil {
		t.Fatal(err)
	}
	mcpctl, err := exec.LookPath("mcpctl")
	if err != nil {
		t.Fatal(err)
	}
	env := ownHome(t)
	delay, err := time.ParseDuration(agreeDelay)
	if err != nil {
		t.Fatal(err)
	}
	// The subtests run one after the other: side by side they would load
	// each other's measurement.
	t.Run("go-sdk", func(t *testing.T) {
		compareBenchStdio(t, mcpctl, env, []string{server, "-delay", agreeDelay, "load-fuzz"},
			"echo", []string{"message=hello"}, map[string]any{"message": "hello"})
	})
	t.Run("everything", func(t *testing.T) {
		path := everythingPath(t)
		if path == "" {
			if interopRequired() {
				t.Fatal("server-everything is not installed: run bash scripts/install-tools.sh (CI requires the interop tests)")
			}
			t.Skip("server-everything is not installed (bash scripts/install-tools.sh)")
		}
		// Its echo answers too fast for either client's own cost to be a
		// small share; its long-running operation in one step waits as
		// long as the Go SDK server's echo.
		secs := strconv.FormatFloat(delay.Seconds(), 'f', -1, 64)
		compareBenchStdio(t, mcpctl, env, []string{path, "stdio"}, "trigger-long-running-operation",
			[]string{"duration=" + secs, "steps=1"}, map[string]any{"duration": delay.Seconds(), "steps": 1})
	})
}

// compareBenchStdio runs the rounds of TestBenchAgreesOverStdio against
// the stdio server serverArgs: mcpctl bench calling tool with words, the
// Go SDK's client calling it with args.
func compareBenchStdio(t *testing.T, mcpctl string, env, serverArgs []string, tool string, words []string, args map[string]any) {
	sdkP50 := func() (float64, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.Command(serverArgs[0], serverArgs[1:]...)
		cmd.Env = env
		client := mcp.NewClient(&mcp.Implementation{Name: "bench-agree", Version: "1"}, nil)
		session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			return 0, fmt.Errorf("the Go SDK client connecting to %v: %w", serverArgs, err)
		}
		defer session.Close()
		times := make([]time.Duration, agreeCalls)
		for i := range times {
			start := time.Now()
			res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
			times[i] = time.Since(start)
			if err != nil {
				return 0, fmt.Errorf("the Go SDK client calling %s: %w", tool, err)
			}
			if res.IsError {
				return 0, fmt.Errorf("the Go SDK client calling %s: the tool failed: %+v", tool, res.Content)
			}
		}
		slices.Sort(times)
		return float64(times[len(times)/2]) / float64(time.Millisecond), nil
	}
	benchP50 := func() (float64, error) {
		args := append(append([]string{"bench", tool}, words...), "-n", strconv.Itoa(agreeCalls), "-c", "1",
			"-o", "json", "--server-stderr", "quiet", "--")
		c := exec.Command(mcpctl, append(args, serverArgs...)...)
		c.Env = env
		out, err := c.Output()
		if err != nil {
			return 0, fmt.Errorf("mcpctl bench: %w\n%s", err, out)
		}
		var rep struct {
			Requests  int `json:"requests"`
			Errors    int `json:"errors"`
			LatencyMS struct {
				P50 float64 `json:"p50"`
			} `json:"latencyMs"`
		}
		if err := json.Unmarshal(out, &rep); err != nil {
			return 0, fmt.Errorf("mcpctl bench -o json: %w\n%s", err, out)
		}
		if rep.Requests != agreeCalls || rep.Errors != 0 {
			return 0, fmt.Errorf("mcpctl bench made %d requests with %d errors, want %d without", rep.Requests, rep.Errors, agreeCalls)
		}
		return rep.LatencyMS.P50, nil
	}
	agreePaired(t, "mcpctl bench's median latency", "the Go SDK client's", benchP50, sdkP50)
}

// agreePaired runs bench and own agreeRounds times and fails unless the
// median of the rounds' ratios bench/own is within 10% of 1. benchName and
// ownName say what each measures, for the log and the failure. Each round
// runs the two at once (bench on a goroutine of its own, own on the
// test's): on a loaded machine, runs made in turn fall into different
// seconds of its load, and runs side by side share them.
func agreePaired(t *testing.T, benchName, ownName string, bench, own func() (float64, error)) {
	t.Helper()
	var ratios []float64
	var detail string
	for round := range agreeRounds {
		var b float64
		var errB error
		var wg sync.WaitGroup
		wg.Go(func() { b, errB = bench() })
		o, errO := own()
		wg.Wait()
		if err := errors.Join(errB, errO); err != nil {
			t.Fatal(err)
		}
		ratios = append(ratios, b/o)
		detail += fmt.Sprintf("\n  round %d: %s %.3fms, %s %.3fms", round+1, benchName, b, ownName, o)
	}
	sort.Float64s(ratios)
	median := ratios[len(ratios)/2]
	t.Logf("median ratio %.3f%s", median, detail)
	if median < 0.9 || median > 1.1 {
		t.Errorf("%s is %.3f times %s (median of %d rounds), want within 10%%:%s", benchName, median, ownName, agreeRounds, detail)
	}
}

// measurementTier skips a measurement of mcpctl against an independent
// client outside the end-to-end tier and under the race detector, which
// would slow mcpctl's side alone; it runs beside the other measurements.
func measurementTier(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("the race detector slows mcpctl's side only: run without -race")
	}
	if e2e, err := e2eTier(); err != nil {
		t.Fatal(err)
	} else if !e2e {
		t.Skipf("the end-to-end tier: set %s=1 (scripts/test.sh does)", e2eEnv)
	}
	t.Parallel()
}
