//go:build !linux

package main

import "os"

// rssLaunch needs Linux's ru_maxrss; elsewhere TestPeakRSS does not run.
func rssLaunch(args []string) int {
	os.Stderr.WriteString("rsslaunch: Linux only\n")
	return 2
}
