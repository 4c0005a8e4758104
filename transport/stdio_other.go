//go:build !unix

package transport

import (
	"os"
	"os/exec"
)

// On systems without process groups and POSIX signals (Windows) the
// shutdown sequence degrades to: close stdin, wait the grace period, kill
// the child itself. Processes the server started itself are not reached.

func setProcessGroup(cmd *exec.Cmd) {}

// terminateGroup kills the child: there is no SIGTERM to ask it with, and
// waiting a second grace period for a request never sent would only delay
// the kill.
func terminateGroup(p *os.Process) { p.Kill() }

func killGroup(p *os.Process) { p.Kill() }

// killNow kills the child. os.Process knows once it has been reaped and
// then signals nothing, so no other process can be hit.
func killNow(p *os.Process) { p.Kill() }

// groupAlive reports false: without a group there is nothing to look for
// beyond the child, which shutdown has already waited for.
func groupAlive(p *os.Process) bool { return false }

func exitSignal(ps *os.ProcessState) string { return "" }
