package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"testing"
	"time"
)

// agreeCalls and agreeDelay shape the comparison of TestBenchAgreesWithC:
// echo calls that each wait agreeDelay in the server, so the figure is the
// server's and both clients' own costs are a small share of it.
const (
	agreeCalls  = 50
	agreeDelay  = "20ms"
	agreeRounds = 5
)

// TestBenchAgreesWithC checks the latency `mcpctl bench` reports against
// an independent measurement: the C client of the batch benchmark
// (bench/echoclient.c) making the same sequential calls to the same stdio
// server, timing each call itself (ECHOCLIENT_TIME). Two servers: the Go
// SDK's (testserver load-fuzz's echo with -delay) and server-everything
// (its long-running operation in one step of the same length). Each round
// runs the two in turn, the order rotating; the median over rounds of the
// ratio of mcpctl's median latency (p50) to the C client's median round
// trip must be within 10%, which a loaded machine shifts for both alike.
// Medians, not means: the scripts running beside this test can stall a
// few calls of one run, which moves its mean and not its median. Needs cc
// (skipped without one).
func TestBenchAgreesWithC(t *testing.T) {
	// A measurement, run with the end-to-end tier (scripts/test.sh runs it
	// beside the memory tests): it runs servers for several seconds, and
	// the race detector would slow mcpctl's side alone.
	measurementTier(t)
	cc, err := exec.LookPath("cc")
	if err != nil {
		if interopRequired() {
			t.Fatal("no C compiler (cc) on PATH to build bench/echoclient.c, which CI requires (gcc is on every CI machine)")
		}
		t.Skip("no C compiler (cc) on PATH to build bench/echoclient.c")
	}
	server, err := exec.LookPath("testserver") // put on PATH by testscript.Main
	if err != nil {
		t.Fatal(err)
	}
	mcpctl, err := exec.LookPath("mcpctl")
	if err != nil {
		t.Fatal(err)
	}
	client := filepath.Join(t.TempDir(), "echoclient")
	if out, err := exec.Command(cc, "-O2", "-o", client, "bench/echoclient.c").CombinedOutput(); err != nil {
		t.Fatalf("cc bench/echoclient.c: %v\n%s", err, out)
	}
	env := ownHome(t)
	delay, err := time.ParseDuration(agreeDelay)
	if err != nil {
		t.Fatal(err)
	}
	// The subtests run one after the other: side by side they would load
	// each other's measurement.
	t.Run("go-sdk", func(t *testing.T) {
		compareBenchC(t, client, mcpctl, env, []string{server, "-delay", agreeDelay, "load-fuzz"}, "echo", []string{"message=hello"}, nil)
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
		compareBenchC(t, client, mcpctl, env, []string{path, "stdio"}, "trigger-long-running-operation",
			[]string{"duration=" + secs, "steps=1"},
			[]string{"ECHOCLIENT_TOOL=trigger-long-running-operation", `ECHOCLIENT_ARGS={"duration":` + secs + `,"steps":1}`})
	})
}

// compareBenchC runs the rounds of TestBenchAgreesWithC against the stdio
// server serverArgs: mcpctl bench calling tool with words, the C client
// (built at client) calling it as clientEnv says (echo by default).
func compareBenchC(t *testing.T, client, mcpctl string, env, serverArgs []string, tool string, words, clientEnv []string) {
	timeC := func() float64 {
		c := exec.Command(client, append([]string{strconv.Itoa(agreeCalls)}, serverArgs...)...)
		c.Env = append(append(slices.Clone(env), clientEnv...), "ECHOCLIENT_TIME=1")
		var stderr bytes.Buffer
		c.Stderr = &stderr
		if out, err := c.Output(); err != nil {
			t.Fatalf("echoclient: %v\n%s%s", err, out, stderr.Bytes())
		}
		m := regexp.MustCompile(`p50_ns (\d+)`).FindSubmatch(stderr.Bytes())
		if m == nil {
			t.Fatalf("echoclient printed no p50_ns line:\n%s", stderr.Bytes())
		}
		ns, _ := strconv.ParseFloat(string(m[1]), 64)
		return ns / 1e6
	}
	benchP50 := func() float64 {
		args := append(append([]string{"bench", tool}, words...), "-n", strconv.Itoa(agreeCalls), "-c", "1",
			"-o", "json", "--server-stderr", "quiet", "--")
		c := exec.Command(mcpctl, append(args, serverArgs...)...)
		c.Env = env
		out, err := c.Output()
		if err != nil {
			t.Fatalf("mcpctl bench: %v\n%s", err, out)
		}
		var rep struct {
			Requests  int `json:"requests"`
			Errors    int `json:"errors"`
			LatencyMS struct {
				P50 float64 `json:"p50"`
			} `json:"latencyMs"`
		}
		if err := json.Unmarshal(out, &rep); err != nil {
			t.Fatalf("mcpctl bench -o json: %v\n%s", err, out)
		}
		if rep.Requests != agreeCalls || rep.Errors != 0 {
			t.Fatalf("mcpctl bench made %d requests with %d errors, want %d without", rep.Requests, rep.Errors, agreeCalls)
		}
		return rep.LatencyMS.P50
	}
	agreePaired(t, "mcpctl bench's median latency", "the C client's", benchP50, timeC)
}

// agreePaired runs bench and own in turn agreeRounds times, the order
// rotating so that load hits both alike, and fails unless the median of the
// rounds' ratios bench/own is within 10% of 1. benchName and ownName say
// what each measures, for the log and the failure.
func agreePaired(t *testing.T, benchName, ownName string, bench, own func() float64) {
	t.Helper()
	var ratios []float64
	var detail string
	for round := range agreeRounds {
		var b, o float64
		steps := []func(){
			func() { o = own() },
			func() { b = bench() },
		}
		for i := range steps {
			steps[(i+round)%len(steps)]()
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
