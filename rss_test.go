//go:build linux

package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/mcpctl/mcpctl/internal/faultserver"
)

// TestPeakRSS checks issue 10's memory bound: a 100 MiB tools/call result
// printed whole costs mcpctl at most 2× its size + 30 MiB of peak RSS.
//
// mcpctl runs as a child of the test against a fault server in the test's
// own process, over HTTP, so mcpctl has no child of its own: the peak the
// kernel reports for it when it is reaped (wait4's ru_maxrss, which for a
// process without children is its own VmHWM) is mcpctl's alone, with no
// polling to miss the last moments. Run it alone with
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
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h, err := faultserver.Handler(ctx, faultserver.Config{Mode: "huge-result", Size: size})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()

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
			args := append([]string{"call", "fault", "--timeout", "120s", "--url", srv.URL + "/mcp", "--transport", "http"}, tc.args...)
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
			t.Logf("peak RSS %d MiB for a %d MiB result (bound %d MiB)", peak>>20, size>>20, bound>>20)
			if peak > bound {
				t.Errorf("mcpctl's peak RSS is %d MiB printing a %d MiB result (-o %s), want at most 2× + 30 MiB = %d MiB",
					peak>>20, size>>20, tc.name, bound>>20)
			}
		})
	}
}
