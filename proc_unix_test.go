//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// processAlive reports whether a process with this pid exists.
func processAlive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// killGroupOnCancel starts c in a process group of its own and has its
// cancellation kill the whole group, so an example's background server
// goes with it.
func killGroupOnCancel(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
}
