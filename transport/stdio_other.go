//go:build !unix

package transport

import (
	"os"
	"os/exec"
)

// On systems without process groups and POSIX signals the shutdown sequence
// degrades to: close stdin, wait, kill the child itself. mcpctl is supported
// on Linux and macOS; this file only keeps other builds compiling.

func setProcessGroup(cmd *exec.Cmd) {}

func terminateGroup(p *os.Process) {}

func killGroup(p *os.Process) { p.Kill() }

func groupAlive(p *os.Process) bool { return false }

func exitSignal(ps *os.ProcessState) string { return "" }
