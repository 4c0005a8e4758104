//go:build !linux

package main

import "os"

// ttyRun opens its pseudo-terminal with Linux ioctls; elsewhere the
// scripts that use it fail.
func ttyRun(args []string) int {
	os.Stderr.WriteString("ttyrun: Linux only\n")
	return 2
}
