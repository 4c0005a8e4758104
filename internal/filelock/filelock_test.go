//go:build unix || windows

package filelock

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestPathExcludes checks that a second lock of a held file gives up after
// its wait, and succeeds once the first is released.
func TestPathExcludes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := Path(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Path(path, 50*time.Millisecond); err == nil {
		t.Fatal("a second lock of a held file succeeded")
	}
	unlock()
	unlock2, err := Path(path, time.Second)
	if err != nil {
		t.Fatalf("locking after release: %v", err)
	}
	unlock2()
}

// TestFileExcludesPath checks that File and Path exclude one another on
// the same file.
func TestFileExcludesPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trail")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	unlock, err := File(f)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Path(path, 50*time.Millisecond); err == nil {
		t.Fatal("Path locked a file File holds")
	}
	unlock()
	unlock2, err := Path(path, time.Second)
	if err != nil {
		t.Fatalf("Path after File's release: %v", err)
	}
	unlock2()
}
