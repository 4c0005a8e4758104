//go:build unix

package audit

import (
	"os"
	"syscall"
)

// lock takes an exclusive advisory lock (flock) on f, waiting for it: the
// kernel drops the lock of a process that dies, so no stale lock can block
// the trail for good.
func lock(f *os.File) (unlock func(), err error) {
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }, nil
}
