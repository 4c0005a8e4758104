//go:build linux

package main

import (
	"bufio"
	"bytes"
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
// printed whole costs mcpctl at most 2× its size + 30 MiB of peak RSS.
//
// mcpctl runs as a child of the test against a fault server in another
// child, over HTTP, so mcpctl has no child of its own and the peak the
// kernel reports for it when it is reaped (wait4's ru_maxrss) is read with
// no polling to miss the last moments. The server must not run in the
// test's own process: Go starts children with vfork semantics (the child
// shares the parent's memory until exec), and at exec Linux folds the
// shared memory's high-water mark into the child's ru_maxrss, so a child
// of a test process that once held a 500 MB response would report 500 MB
// whatever it used. The test process stays small, and its own peak is
// logged as the floor of what can be measured. Run it alone with
// `go test -run TestPeakRSS .`.
func TestPeakRSS(t *testing.T) {
	const (
		size  = 100 << 20
		bound = 2*size + 30<<20
	)
	mcpctl, err := exec.LookPath("mcpctl") // testscript.Main put it on PATH
	if err != nil {
		t.Fatalf("mcpctl is not on the test binary's PATH: %v", err)
	}
	url := startFaultServer(t, "huge-result", "-size", strconv.Itoa(size))

	for _, tc := range []struct {
		name     string
		args     []string
		minBytes int64
	}{
		{"text", nil, size + 1},                // the text and a newline
		{"json", []string{"-o", "json"}, size}, // the text in a JSON document
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			f, err := os.Create(out)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			args := append([]string{"call", "fault", "--timeout", "120s", "--url", url, "--transport", "http"}, tc.args...)
			cmd := exec.Command(mcpctl, args...)
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
			ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
			if !ok {
				t.Fatalf("no resource usage for mcpctl (%T)", cmd.ProcessState.SysUsage())
			}
			peak := ru.Maxrss << 10 // KiB on Linux
			t.Logf("peak RSS %d MiB for a %d MiB result (bound %d MiB; this test process's own peak, the floor of the measure: %d MiB)",
				peak>>20, size>>20, bound>>20, selfPeak(t)>>20)
			if peak > bound {
				t.Errorf("mcpctl's peak RSS is %d MiB printing a %d MiB result (-o %s), want at most 2× + 30 MiB = %d MiB",
					peak>>20, size>>20, tc.name, bound>>20)
			}
		})
	}
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
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Logf("reading the test's own peak RSS: %v", err)
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kib << 10
		}
	}
	return 0
}
