package client

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRootFileURI(t *testing.T) {
	tests := []struct{ path, want string }{
		{"/home/user/project", "file:///home/user/project"},
		{"/home/a b", "file:///home/a%20b"},
		{"/tmp/100%/x", "file:///tmp/100%25/x"},
		{"/tmp/a#b?c", "file:///tmp/a%23b%3Fc"},
		{"/srv/café", "file:///srv/caf%C3%A9"},
		{"/", "file:///"},
	}
	for _, tt := range tests {
		if got := FileURI(tt.path); got != tt.want {
			t.Errorf("FileURI(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

func TestRootFromDir(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "my project")
	if err := os.Mkdir(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := RootFromDir(proj)
	if err != nil {
		t.Fatal(err)
	}
	if r.Name != "my project" || !strings.HasSuffix(r.URI, "/my%20project") || !strings.HasPrefix(r.URI, "file:///") {
		t.Errorf("RootFromDir = %+v", r)
	}
	for _, bad := range []struct{ dir, want string }{
		{filepath.Join(dir, "missing"), "no such file"},
		{file, "is not a directory"},
	} {
		if _, err := RootFromDir(bad.dir); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("RootFromDir(%q) error = %v, want %q", bad.dir, err, bad.want)
		}
	}
}

func TestRootsHandler(t *testing.T) {
	r := NewRoots(nil)
	if c := r.Capability(); c["listChanged"] != true {
		t.Errorf("Capability = %v, want listChanged", c)
	}
	for _, tt := range []struct {
		roots []Root
		want  string
	}{
		{nil, `{"roots":[]}`},
		{[]Root{{URI: "file:///a", Name: "a"}, {URI: "file:///b"}}, `{"roots":[{"uri":"file:///a","name":"a"},{"uri":"file:///b"}]}`},
	} {
		r.Set(tt.roots)
		res, err := r.Handler()(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res)
		if string(b) != tt.want {
			t.Errorf("roots/list = %s, want %s", b, tt.want)
		}
	}
}
