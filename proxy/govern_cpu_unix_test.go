//go:build unix

package proxy

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used, user and system: on a
// machine others load, a benchmark's CPU time per call varies far less
// than its wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
