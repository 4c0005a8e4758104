//go:build unix

package proxy

import (
	"errors"
	"os"
	"syscall"
)

// signalGroup passes sig on to the server's process group, as a terminal
// would have delivered it to the server and everything it started.
func signalGroup(p *os.Process, sig os.Signal) {
	if s, ok := sig.(syscall.Signal); ok {
		syscall.Kill(-p.Pid, s)
		return
	}
	p.Signal(sig)
}

func terminateGroup(p *os.Process) { syscall.Kill(-p.Pid, syscall.SIGTERM) }
func killGroup(p *os.Process)      { syscall.Kill(-p.Pid, syscall.SIGKILL) }

// groupAlive reports whether any process is left in the server's group;
// EPERM still means one exists.
func groupAlive(p *os.Process) bool {
	return !errors.Is(syscall.Kill(-p.Pid, 0), syscall.ESRCH)
}

// exitCode is the server's exit status as a shell reports it: its exit
// code, or 128 + the signal that killed it.
func exitCode(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// exitSignal names the signal that killed the server, "" if none did.
func exitSignal(ps *os.ProcessState) string {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal().String()
	}
	return ""
}
