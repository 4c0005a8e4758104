//go:build !linux

package main

import "os"

// ttyKeys drives a pseudo-terminal with Linux ioctls; elsewhere the
// scripts that use it fail.
func ttyKeys(args []string) int {
	os.Stderr.WriteString("ttykeys: Linux only\n")
	return 2
}
