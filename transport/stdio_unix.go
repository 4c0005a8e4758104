//go:build unix

package transport

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// setProcessGroup puts the child in a new process group whose id is its pid,
// so that terminal signals aimed at mcpctl do not reach it and our shutdown
// signals reach everything it spawned.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// terminateGroup asks every process in the child's group to exit.
func terminateGroup(p *os.Process) {
	syscall.Kill(-p.Pid, syscall.SIGTERM)
}

// killGroup forces every process in the child's group to exit.
func killGroup(p *os.Process) {
	syscall.Kill(-p.Pid, syscall.SIGKILL)
}

// killNow kills the child's group if any of it is left: a group found
// empty is not signalled, so a group id since reused is left alone.
func killNow(p *os.Process) {
	if groupAlive(p) {
		killGroup(p)
	}
}

// groupAlive reports whether any process is left in the child's group.
// EPERM still means a process exists; only ESRCH means none does.
func groupAlive(p *os.Process) bool {
	err := syscall.Kill(-p.Pid, 0)
	return !errors.Is(err, syscall.ESRCH)
}

// exitSignal names the signal that ended the process, or returns "".
func exitSignal(ps *os.ProcessState) string {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return ""
	}
	return signalName(ws.Signal())
}

// signalNames covers the signals a server plausibly dies of; the numbering
// differs between Linux and macOS, so the table is built from the syscall
// constants rather than written as numbers. An array of constants, not a
// map, so that the linker lays it out and start-up builds nothing.
var signalNames = [...]struct {
	sig  syscall.Signal
	name string
}{
	{syscall.SIGABRT, "SIGABRT"},
	{syscall.SIGALRM, "SIGALRM"},
	{syscall.SIGBUS, "SIGBUS"},
	{syscall.SIGFPE, "SIGFPE"},
	{syscall.SIGHUP, "SIGHUP"},
	{syscall.SIGILL, "SIGILL"},
	{syscall.SIGINT, "SIGINT"},
	{syscall.SIGKILL, "SIGKILL"},
	{syscall.SIGPIPE, "SIGPIPE"},
	{syscall.SIGQUIT, "SIGQUIT"},
	{syscall.SIGSEGV, "SIGSEGV"},
	{syscall.SIGSYS, "SIGSYS"},
	{syscall.SIGTERM, "SIGTERM"},
	{syscall.SIGTRAP, "SIGTRAP"},
	{syscall.SIGUSR1, "SIGUSR1"},
	{syscall.SIGUSR2, "SIGUSR2"},
	{syscall.SIGXCPU, "SIGXCPU"},
	{syscall.SIGXFSZ, "SIGXFSZ"},
}

func signalName(s syscall.Signal) string {
	for _, n := range signalNames {
		if n.sig == s {
			return n.name
		}
	}
	return s.String()
}
