package main

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// refDir is the committed reference, from this package's folder.
const refDir = "../../docs/reference"

// The committed reference is what mcpctl's help says now. With
// MCPCTL_UPDATE=1 the test writes it instead.
func TestReferenceIsCurrent(t *testing.T) {
	if os.Getenv("MCPCTL_UPDATE") == "1" {
		if err := writeMarkdown(refDir); err != nil {
			t.Fatal(err)
		}
		return
	}
	dir := t.TempDir()
	if err := writeMarkdown(dir); err != nil {
		t.Fatal(err)
	}
	want, got := pages(t, dir), pages(t, refDir)
	for name, w := range want {
		if g, ok := got[name]; !ok {
			t.Errorf("docs/reference/%s is missing", name)
		} else if !bytes.Equal(g, w) {
			t.Errorf("docs/reference/%s is stale", name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("docs/reference/%s documents nothing mcpctl has", name)
		}
	}
	if t.Failed() {
		t.Log("regenerate it: MCPCTL_UPDATE=1 go test ./internal/gendocs -run TestReferenceIsCurrent (or go run ./internal/gendocs)")
	}
}

// Generating twice gives the same pages: no date, nothing of the machine.
func TestReferenceIsDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, d := range []string{a, b} {
		if err := writeMarkdown(d); err != nil {
			t.Fatal(err)
		}
		if err := writeMan(d); err != nil {
			t.Fatal(err)
		}
	}
	pa, pb := pages(t, a), pages(t, b)
	for name, p := range pa {
		if !bytes.Equal(p, pb[name]) {
			t.Errorf("%s differs between two runs", name)
		}
		if bytes.Contains(p, []byte("Auto generated")) {
			t.Errorf("%s has cobra's dated tag", name)
		}
	}
	for _, want := range []string{"mcpctl.1", "mcpctl-call.1", "mcpctl-auth-login.1", "mcpctl-help-exit-codes.1", "mcpctl_help_auth.md", "mcpctl_call.md"} {
		if _, ok := pa[want]; !ok {
			t.Errorf("no %s among %v", want, slices.Sorted(maps.Keys(pa)))
		}
	}
}

// pages reads the files of dir by name.
func pages(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = data
	}
	return out
}
