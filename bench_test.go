package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// buildMcpctl builds the real mcpctl binary (not the test binary, which
// carries the testing packages and, under -race, the race detector).
func buildMcpctl(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "mcpctl")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// BenchmarkOneShot measures what a user waits for: one mcpctl process that
// starts, handshakes, makes one request and shuts the server down cleanly.
func BenchmarkOneShot(b *testing.B) {
	bin := buildMcpctl(b)
	server, err := exec.LookPath("testserver") // put on PATH by testscript.Main
	if err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
	}{
		{"version", []string{"version"}},
		{"demo-call", []string{"call", "--demo", "echo", "message=hi"}},
		{"stdio-call", []string{"call", "--server-stderr", "quiet", "echo", "message=hi", "--", server, "basic"}},
		{"stdio-list", []string{"list", "--server-stderr", "quiet", "--", server, "basic"}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			env := ownHome(b)
			for b.Loop() {
				cmd := exec.Command(bin, c.args...)
				cmd.Env = env
				cmd.Stderr = os.Stderr
				if out, err := cmd.Output(); err != nil {
					b.Fatalf("%v: %v\n%s", c.args, err, out)
				}
			}
		})
	}
}
