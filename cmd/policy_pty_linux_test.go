package cmd

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPolicyApprovalTTY asks for approval on a real terminal, in the shell:
// the prompt reads a cooked line between the line editor's raw reads; y lets
// the call through, Enter alone refuses it and the shell goes on.
func TestPolicyApprovalTTY(t *testing.T) {
	state := t.TempDir()
	file := filepath.Join(state, "policy.yaml")
	if err := os.WriteFile(file, []byte("echo:\n  sensitivity: high\n  requires_approval: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startPTY(t, state, 200, "shell", "--demo", "--policy", file)
	out, typ := p.out, p.typ
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
	p.wait(0, "the shell did not end at Ctrl-D")
}
