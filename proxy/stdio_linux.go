package proxy

import (
	"os/exec"
	"syscall"
)

// setProcAttrs starts the server in a process group of its own, so that
// the proxy decides which signals reach it, and asks the kernel to send it
// SIGTERM should the proxy die without passing one on.
func setProcAttrs(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
