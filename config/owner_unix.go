//go:build unix

package config

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// checkProjectFile refuses a project file that someone other than the user
// could have written: one owned by another user, or writable by its group
// or by others. A shared folder such as /tmp would otherwise let anyone
// define servers for whoever works there.
func checkProjectFile(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	return fileSafe(info, os.Getuid())
}

// fileSafe checks info against the user uid.
func fileSafe(info fs.FileInfo, uid int) error {
	if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != uid {
		return &UnsafeFileError{Reason: fmt.Sprintf("owned by uid %d, not by you (uid %d)", st.Uid, uid)}
	}
	if perm := info.Mode().Perm(); perm&0o022 != 0 {
		return &UnsafeFileError{Reason: fmt.Sprintf("writable by its group or by others (mode %04o)", perm)}
	}
	return nil
}
