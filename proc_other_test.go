//go:build !unix

package main

import (
	"os"
	"os/exec"
)

// processAlive reports whether a process with this pid exists: where
// there is no signal 0 to send, whether it can be opened.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}

// killGroupOnCancel leaves c's cancellation as it is: without process
// groups only c itself is killed.
func killGroupOnCancel(c *exec.Cmd) {}
