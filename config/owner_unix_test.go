//go:build unix

package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeInfo is a file's metadata with the owner and mode a test needs.
type fakeInfo struct {
	mode fs.FileMode
	uid  uint32
}

func (f fakeInfo) Name() string       { return ".mcp.json" }
func (f fakeInfo) Size() int64        { return 0 }
func (f fakeInfo) Mode() fs.FileMode  { return f.mode }
func (f fakeInfo) ModTime() time.Time { return time.Time{} }
func (f fakeInfo) IsDir() bool        { return false }
func (f fakeInfo) Sys() any           { return &syscall.Stat_t{Uid: f.uid} }

func TestFileSafe(t *testing.T) {
	tests := []struct {
		name string
		info fakeInfo
		ok   bool
	}{
		{"yours, 0644", fakeInfo{0o644, 1000}, true},
		{"yours, 0600", fakeInfo{0o600, 1000}, true},
		{"another user's", fakeInfo{0o644, 1001}, false},
		{"group-writable", fakeInfo{0o664, 1000}, false},
		{"world-writable", fakeInfo{0o646, 1000}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := fileSafe(tt.info, 1000)
			var unsafe *UnsafeFileError
			if tt.ok != (err == nil) || err != nil && !errors.As(err, &unsafe) {
				t.Errorf("fileSafe = %v, want ok %v", err, tt.ok)
			}
		})
	}
}

func TestDiscoverIgnoresWritableProjectFile(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(repo, ".mcp.json")
	if err := os.WriteFile(path, []byte(`{"mcpServers": {"x": {"command": "x"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// WriteFile's mode passes through the umask; Chmod's does not.
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	cat := Discover(Host{GOOS: "linux", Home: filepath.Join(root, "home"), Cwd: repo}, nil)
	if len(cat.Servers) != 0 {
		t.Errorf("servers = %+v, want none from a world-writable file", cat.Servers)
	}
	var unsafe *UnsafeFileError
	if len(cat.Problems) != 1 || cat.Problems[0].File != path || !errors.As(cat.Problems[0], &unsafe) {
		t.Errorf("problems = %v, want the file reported as ignored", cat.Problems)
	}
	if _, _, err := cat.Find("x"); err == nil || !strings.Contains(err.Error(), "ignored as others could have written them: "+path) {
		t.Errorf("Find(x) error = %v, want it to name the ignored file", err)
	}
}
