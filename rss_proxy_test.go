//go:build linux

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPeakRSSProxy checks issue 33's memory bound for the stdio shim: a
// 100 MiB tools/call result passes through mcpctl proxy (its session log
// written) with the proxy's peak RSS under 2× the message + 30 MiB.
//
// The test is the host: it speaks to the proxy over pipes, reads the
// result as it streams without keeping it, and reads the proxy's
// high-water mark (VmHWM) while the proxy still runs, so the server's own
// memory (the proxy's child) is not counted.
func TestPeakRSSProxy(t *testing.T) {
	const (
		size  = 100 << 20
		bound = 2*size + 30<<20
	)
	mcpctl, _ := memoryTest(t)
	server, err := exec.LookPath("faultserver")
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "session.ndjson")
	cmd := exec.Command(mcpctl, "proxy", "--log", log, "--", server, "-size", strconv.Itoa(size), "huge-result")
	cmd.Env = ownHome(t)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	r := bufio.NewReaderSize(stdout, 64<<10)
	// readLine reads one line, keeping at most its first 200 bytes.
	readLine := func() (head string, n int64) {
		for {
			chunk, err := r.ReadSlice('\n')
			if len(head) < 200 {
				head += string(chunk[:min(len(chunk), 200-len(head))])
			}
			n += int64(len(chunk))
			if err == nil {
				return head, n
			}
			if err != bufio.ErrBufferFull {
				t.Fatalf("reading from the proxy: %v\nstderr:\n%s", err, stderr.Bytes())
			}
		}
	}
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"rss","version":"1"}}}`)
	readLine()
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fault","arguments":{}}}`)
	for {
		head, n := readLine()
		if strings.Contains(head, `"id":2`) {
			if n < size {
				t.Fatalf("the result has %d bytes, want at least %d", n, size)
			}
			break
		}
	}
	peak, err := procPeak(strconv.Itoa(cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	stdin.Close()
	io.Copy(io.Discard, r)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("mcpctl proxy: %v\nstderr:\n%s", err, stderr.Bytes())
	}
	fi, err := os.Stat(log)
	if err != nil || fi.Size() < size {
		t.Errorf("the session log has %v bytes (%v), want the whole result in it", fi.Size(), err)
	}
	t.Logf("the proxy's peak RSS is %d MiB relaying a %d MiB result (bound %d MiB)", peak>>20, size>>20, bound>>20)
	if peak > bound {
		t.Errorf("mcpctl proxy's peak RSS is %d MiB relaying a %d MiB result, want at most 2× + 30 MiB = %d MiB", peak>>20, size>>20, bound>>20)
	}
}
