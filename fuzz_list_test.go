package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestFuzzTargetsListed keeps scripts/fuzz.sh, which CI runs, in step with
// the fuzz targets in the tree: a new Fuzz function that the script does
// not know would never run for more than its seeds.
func TestFuzzTargetsListed(t *testing.T) {
	script, err := os.ReadFile(filepath.Join("scripts", "fuzz.sh"))
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, m := range regexp.MustCompile(`(?m)^\s*"(\./\S+) (Fuzz\w+)"$`).FindAllStringSubmatch(string(script), -1) {
		listed = append(listed, strings.TrimPrefix(m[1], "./")+" "+m[2])
	}
	var found []string
	decl := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(f \*testing\.F\)`)
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != "." || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range decl.FindAllStringSubmatch(string(src), -1) {
			found = append(found, filepath.ToSlash(filepath.Dir(path))+" "+m[1])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(listed)
	slices.Sort(found)
	if !slices.Equal(listed, found) {
		t.Errorf("scripts/fuzz.sh lists\n  %s\nbut the tree has\n  %s", strings.Join(listed, "\n  "), strings.Join(found, "\n  "))
	}
}
