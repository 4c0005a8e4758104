//go:build windows

// Package filelock takes exclusive locks that several mcpctl processes
// share: the OAuth token store, the policy's rate-limit counts and the
// audit trail are each updated by whichever process runs, and none may
// lose another's write. On Windows the lock is LockFileEx's, which the
// system drops when its process dies, as flock's is on Unix.
package filelock

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// lockOffsetHigh places the one locked byte at 2^62, far past the end of
// any real file: Windows byte-range locks are mandatory, and a lock on the
// contents would make another process's plain read of the audit trail
// fail, where flock only excludes other lockers. Every mcpctl process
// locks this same byte, which is what makes them exclude one another.
const lockOffsetHigh = 1 << 30

func lockFile(f *os.File, flags uint32) error {
	ol := windows.Overlapped{OffsetHigh: lockOffsetHigh}
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|flags, 0, 1, 0, &ol)
}

func unlockFile(f *os.File) {
	ol := windows.Overlapped{OffsetHigh: lockOffsetHigh}
	_ = windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &ol)
}

// Path locks the file at path, creating it, trying until wait has passed;
// unlock releases the lock and closes the file.
func Path(path string, wait time.Duration) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	for {
		err = lockFile(f, windows.LOCKFILE_FAIL_IMMEDIATELY)
		if err == nil {
			return func() {
				unlockFile(f)
				f.Close()
			}, nil
		}
		if !errors.Is(err, windows.ERROR_LOCK_VIOLATION) || time.Now().After(deadline) {
			f.Close()
			return nil, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// File locks the open file f, waiting as long as it takes; unlock releases
// the lock and leaves f open.
func File(f *os.File) (unlock func(), err error) {
	if err := lockFile(f, 0); err != nil {
		return nil, err
	}
	return func() { unlockFile(f) }, nil
}
