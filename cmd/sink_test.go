package cmd

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestCreatePrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix file modes on Windows")
	}
	dir := t.TempDir()
	fresh := filepath.Join(dir, "fresh.ndjson")
	old := filepath.Join(dir, "old.ndjson")
	if err := os.WriteFile(old, []byte("an earlier session\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(old, 0o644); err != nil { // whatever the umask
		t.Fatal(err)
	}
	for _, name := range []string{fresh, old} {
		f, err := createPrivate(name)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		fi, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got&0o077 != 0 {
			t.Errorf("%s has mode %#o, want no access for group and others", filepath.Base(name), got)
		}
		if fi.Size() != 0 {
			t.Errorf("%s was not truncated: %d bytes", filepath.Base(name), fi.Size())
		}
	}
}

// TestSinkFileReportsOnce: the first failure is reported, naming the flag
// and the file; later writes and Close add nothing.
func TestSinkFileReportsOnce(t *testing.T) {
	name := filepath.Join(t.TempDir(), "trace.ndjson")
	if err := os.WriteFile(name, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// A file opened for reading refuses every write.
	file, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	var warn strings.Builder
	s := &sinkFile{file: file, flag: "--trace", what: "the trace is incomplete", warn: &warn}
	for range 3 {
		if _, err := s.Write([]byte("{}\n")); err == nil {
			t.Fatal("Write to a read-only file succeeded")
		}
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v, want nil (the failure is reported)", err)
	}
	if _, err := s.Write([]byte("{}\n")); err == nil {
		t.Error("Write after Close succeeded")
	}
	lines := strings.Split(strings.TrimSuffix(warn.String(), "\n"), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "mcpctl: --trace "+name+": write failed: ") ||
		!strings.HasSuffix(lines[0], " (the trace is incomplete)") || strings.Count(lines[0], name) != 1 {
		t.Errorf("warnings:\n%s\nwant one line naming --trace and %s once", warn.String(), name)
	}
}
