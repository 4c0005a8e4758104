//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPeakRSSArgument checks the memory of what mcpctl sends: a call with
// a 100 MiB argument file (text=@file: the fault tool ignores the argument,
// which it does not declare, so --allow-unknown sends it), from reading the
// file to writing the request, within the result's bound, 2× its size + 30 MiB. The
// argument is encoded once, and that encoding is shared by the session's
// record of the call, the client's params and the message, which the
// transport sends from its parts; the file's text is garbage once encoded.
//
// It is measured as [TestPeakRSS] measures a result: the server is a
// fault server in its own process, over HTTP, so mcpctl has no child
// whose peak the kernel would fold into its own, and rsslaunch reports
// mcpctl's ru_maxrss when it is reaped. Run it alone with
// `go test -run TestPeakRSSArgument .`.
func TestPeakRSSArgument(t *testing.T) {
	const (
		size  = 100 << 20
		bound = 2*size + 30<<20
	)
	mcpctl, launcher := memoryTest(t)
	url := startFaultServer(t, "ok", "-size", strconv.Itoa(2*size)) // -size: the body it reads
	// Lines of text, so the argument's newlines are escaped on the wire
	// as any real text file's would be.
	file := filepath.Join(t.TempDir(), "big.txt")
	line := strings.Repeat("x", 1023) + "\n"
	if err := os.WriteFile(file, bytes.Repeat([]byte(line), size/len(line)), 0o644); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(t.TempDir(), "peak")
	args := []string{"call", "fault", "--allow-unknown", "text=@" + file, "--timeout", "120s", "--url", url, "--transport", "http"}
	cmd := exec.Command(launcher, append([]string{report, mcpctl}, args...)...)
	cmd.Env = ownHome(t)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("mcpctl %v: %v\nstderr:\n%s", args[:3], err, stderr.Bytes())
	}
	if got := strings.TrimSpace(stdout.String()); got != "ok" {
		t.Fatalf("mcpctl printed %q, want the server's ok", got)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("reading the launcher's report: %v", err)
	}
	peak, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil {
		t.Fatalf("launcher report %q: %v", data, err)
	}
	t.Logf("peak RSS %d MiB for a %d MiB argument (bound %d MiB)", peak>>20, size>>20, bound>>20)
	if peak > bound {
		t.Errorf("mcpctl's peak RSS is %d MiB sending a %d MiB argument, want at most 2× + 30 MiB = %d MiB",
			peak>>20, size>>20, bound>>20)
	}
}
