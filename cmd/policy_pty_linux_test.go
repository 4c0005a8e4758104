package cmd

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestPolicyApprovalTTY asks for approval on a real terminal, in the shell:
// the prompt reads a cooked line between the line editor's raw reads; y lets
// the call through, Enter alone refuses it and the shell goes on.
func TestPolicyApprovalTTY(t *testing.T) {
	master, slave := openPTY(t)
	defer master.Close()
	out := &ptyOutput{changed: make(chan struct{})}
	go out.readFrom(master)

	state := t.TempDir()
	file := filepath.Join(state, "policy.yaml")
	if err := os.WriteFile(file, []byte("echo:\n  sensitivity: high\n  requires_approval: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ios := &IOStreams{In: slave, Out: slave, ErrOut: slave, stdinTTY: true, stdoutTTY: true, stderrTTY: true, width: 200}
	f := NewFactory(ios)
	f.Environ = func() []string { return []string{"XDG_STATE_HOME=" + state, "HOME=" + state} }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() { done <- runWith(ctx, f, []string{"shell", "--demo", "--policy", file}) }()
	typ := func(s string) {
		if _, err := master.Write([]byte(s)); err != nil {
			t.Fatalf("typing %q: %v", s, err)
		}
	}
	mark := out.expect(t, 0, "mcpctl> ")
	typ("call echo message=approved\r")
	mark = out.expect(t, mark, "sensitivity: high")
	mark = out.expect(t, mark, `arguments:   {"message":"approved"}`)
	mark = out.expect(t, mark, "Call echo? [y/N] ")
	typ("y\r")
	mark = out.expect(t, mark, "approved\r\n")
	mark = out.expect(t, mark, "mcpctl> ")

	typ("call echo message=declined\r")
	mark = out.expect(t, mark, "Call echo? [y/N] ")
	typ("\r")
	mark = out.expect(t, mark, "refused by policy: echo: requires_approval: not approved at the prompt")
	mark = out.expect(t, mark, "mcpctl> ")
	typ("call add a=2 b=3\r")
	mark = out.expect(t, mark, "5\r\n")
	out.expect(t, mark, "mcpctl> ")

	typ("\x04")
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit code %d, want 0", code)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the shell did not end at Ctrl-D")
	}
	slave.Close()
}
