//go:build unix && !linux

package proxy

import (
	"os/exec"
	"syscall"
)

// setProcAttrs starts the server in a process group of its own, so that
// the proxy decides which signals reach it.
func setProcAttrs(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
