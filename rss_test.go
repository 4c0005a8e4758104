//go:build linux

package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestPeakRSS checks issue 10's memory bound: a 100 MiB tools/call result
// printed whole costs mcpctl at most 2× its size + 30 MiB of peak RSS,
// whether it comes as an application/json body or as one SSE event.
//
// mcpctl runs against a fault server in another process, over HTTP, so
// mcpctl has no child of its own, and the peak the kernel reports for it
// when it is reaped (wait4's ru_maxrss) is read with no polling to miss the
// last moments. It is started by rsslaunch, a fresh small process, not by
// the test process: Linux folds the high-water mark of the starting
// process's memory into the child's ru_maxrss (see [rssLaunch]), and this
// process may have held hundreds of megabytes for other tests. Run it
// alone with `MCPCTL_E2E=1 go test -run TestPeakRSS .`.
func TestPeakRSS(t *testing.T) {
	const (
		size  = 100 << 20
		bound = 2*size + 30<<20
	)
	// The peak is the child's own (see rssLaunch), whatever runs beside
	// it, so the test runs beside the scripts (TestScript is parallel too);
	// its cases run one at a time, each a 100 MiB result.
	mcpctl, launcher := memoryTest(t)
	// The result comes as an application/json body, and (-sse) as one
	// event of a text/event-stream body, whose parser must hold the event
	// once too.
	jsonURL := startFaultServer(t, "huge-result", "-size", strconv.Itoa(size))
	sseURL := startFaultServer(t, "huge-result", "-size", strconv.Itoa(size), "-sse")

	for _, tc := range []struct {
		name     string
		url      string
		args     []string
		minBytes int64
	}{
		{"text", jsonURL, nil, size + 1},                // the text and a newline
		{"json", jsonURL, []string{"-o", "json"}, size}, // the text in a JSON document
		{"sse_text", sseURL, nil, size + 1},
		{"sse_json", sseURL, []string{"-o", "json"}, size},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			f, err := os.Create(out)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			args := append([]string{"call", "fault", "--timeout", "120s", "--url", tc.url, "--transport", "http"}, tc.args...)
			report := filepath.Join(t.TempDir(), "peak")
			cmd := exec.Command(launcher, append([]string{report, mcpctl}, args...)...)
			cmd.Env = ownHome(t)
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = f, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("mcpctl %v: %v\nstderr:\n%s", args, err, stderr.Bytes())
			}
			fi, err := f.Stat()
			if err != nil {
				t.Fatal(err)
			}
			if fi.Size() < tc.minBytes {
				t.Fatalf("mcpctl printed %d bytes, want at least %d: the result was not printed whole", fi.Size(), tc.minBytes)
			}
			data, err := os.ReadFile(report)
			if err != nil {
				t.Fatalf("reading the launcher's report: %v", err)
			}
			peak, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
			if err != nil {
				t.Fatalf("launcher report %q: %v", data, err)
			}
			t.Logf("peak RSS %d MiB for a %d MiB result (bound %d MiB; this test process's own peak, the floor of the measure: %d MiB)",
				peak>>20, size>>20, bound>>20, selfPeak(t)>>20)
			if peak > bound {
				t.Errorf("mcpctl's peak RSS is %d MiB printing a %d MiB result (%s), want at most 2× + 30 MiB = %d MiB",
					peak>>20, size>>20, tc.name, bound>>20)
			}
		})
	}
}

// rssLaunch is the rsslaunch command: it runs args[1:] and writes the
// child's peak RSS in bytes (wait4's ru_maxrss) to the file args[0], then
// exits with the child's status. It exists because of how Linux counts: a
// child started by a process shares that process's memory until exec, and
// the shared memory's high-water mark is folded into the child's
// ru_maxrss. The test process may have held hundreds of megabytes (other
// tests run in it); rsslaunch is a fresh, small process, so the peak of a
// child it starts is the child's own.
func rssLaunch(args []string) int {
	if len(args) < 2 {
		io.WriteString(os.Stderr, "usage: rsslaunch REPORT PROGRAM [ARGS...]\n")
		return 2
	}
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		io.WriteString(os.Stderr, "rsslaunch: "+err.Error()+"\n")
		return 1
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		io.WriteString(os.Stderr, "rsslaunch: no resource usage\n")
		return 1
	}
	if werr := os.WriteFile(args[0], []byte(strconv.FormatInt(ru.Maxrss<<10, 10)), 0o644); werr != nil {
		io.WriteString(os.Stderr, "rsslaunch: "+werr.Error()+"\n")
		return 1
	}
	return cmd.ProcessState.ExitCode()
}

// startFaultServer runs the fault server in mode over HTTP as a child of
// the test, stopped when the test ends, and returns its endpoint URL, read
// from the line it logs once it listens.
func startFaultServer(t *testing.T, mode string, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath("faultserver") // testscript.Main put it on PATH
	if err != nil {
		t.Fatalf("faultserver is not on the test binary's PATH: %v", err)
	}
	args = append([]string{"-http", "127.0.0.1:0", "-lifetime", "10m"}, append(args, mode)...)
	cmd := exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting faultserver: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	sc := bufio.NewScanner(stderr)
	var log strings.Builder
	for sc.Scan() {
		line := sc.Text()
		log.WriteString(line + "\n")
		if u, ok := strings.CutPrefix(line, "faultserver: listening on "); ok {
			go io.Copy(io.Discard, stderr) // keep the server from blocking on its log
			return u
		}
	}
	t.Fatalf("faultserver %v ended without listening:\n%s", args, log.String())
	return ""
}

// selfPeak returns the test process's own peak RSS (VmHWM), or 0 if it
// cannot be read.
func selfPeak(t *testing.T) int64 {
	peak, err := procPeak("self")
	if err != nil {
		t.Logf("reading the test's own peak RSS: %v", err)
	}
	return peak
}

// procPeak reads the peak RSS (VmHWM, in bytes) of /proc/PID, a process
// still running ("self" for this one).
func procPeak(pid string) (int64, error) {
	data, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kib << 10, err
		}
	}
	return 0, errors.New("no VmHWM in /proc/" + pid + "/status")
}

// memoryTest readies a test of mcpctl's peak memory and returns the paths
// of mcpctl and rsslaunch: such a test is of the end-to-end tier, skipped
// under the race detector (scripts/test.sh runs it again without), and
// runs in parallel with the package's other tests.
func memoryTest(t *testing.T) (mcpctl, launcher string) {
	t.Helper()
	if raceEnabled {
		t.Skip("the race detector multiplies memory: the figure would not be mcpctl's; run without -race")
	}
	if e2e, err := e2eTier(); err != nil {
		t.Fatal(err)
	} else if !e2e {
		t.Skipf("the end-to-end tier: set %s=1 (scripts/test.sh does)", e2eEnv)
	}
	t.Parallel()
	var err error
	if mcpctl, err = exec.LookPath("mcpctl"); err != nil { // testscript.Main put it on PATH
		t.Fatalf("mcpctl is not on the test binary's PATH: %v", err)
	}
	if launcher, err = exec.LookPath("rsslaunch"); err != nil {
		t.Fatalf("rsslaunch is not on the test binary's PATH: %v", err)
	}
	return mcpctl, launcher
}
