//go:build unix

// Package filelock takes exclusive advisory locks (flock) that several
// mcpctl processes share: the OAuth token store, the policy's rate-limit
// counts and the audit trail are each updated by whichever process runs,
// and none may lose another's write. The kernel drops the lock of a
// process that dies, so no stale lock blocks a file for good.
package filelock

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// Path locks the file at path, creating it, trying until wait has passed;
// unlock releases the lock and closes the file.
func Path(path string, wait time.Duration) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) || time.Now().After(deadline) {
			f.Close()
			return nil, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// File locks the open file f, waiting as long as it takes; unlock releases
// the lock and leaves f open.
func File(f *os.File) (unlock func(), err error) {
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
