package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestReleaseConfig checks .goreleaser.yaml in every test run, where
// GoReleaser itself (too slow to build in CI) cannot: version 2, a static
// build of this module's main package for the six targets, the version,
// commit and date stamped into the variables `mcpctl version` prints
// (cmd/version.go), and scripts/release-check.sh's plain build loop, which
// CI runs instead, building the same targets with the same stamps.
func TestReleaseConfig(t *testing.T) {
	data, err := os.ReadFile(".goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Version int `yaml:"version"`
		Builds  []struct {
			Main    string   `yaml:"main"`
			Binary  string   `yaml:"binary"`
			Env     []string `yaml:"env"`
			GOOS    []string `yaml:"goos"`
			GOARCH  []string `yaml:"goarch"`
			Flags   []string `yaml:"flags"`
			LDFlags []string `yaml:"ldflags"`
		} `yaml:"builds"`
	}
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(false)
	if err := dec.Decode(&cfg); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	if cfg.Version != 2 || len(cfg.Builds) != 1 {
		t.Fatalf(".goreleaser.yaml: version %d with %d builds, want version 2 with one build", cfg.Version, len(cfg.Builds))
	}
	b := cfg.Builds[0]
	if b.Main != "." || b.Binary != "mcpctl" || !slices.Contains(b.Env, "CGO_ENABLED=0") || !slices.Contains(b.Flags, "-trimpath") {
		t.Errorf("the build is %+v: want main ., binary mcpctl, CGO_ENABLED=0 and -trimpath", b)
	}
	wantOS, wantArch := []string{"linux", "darwin", "windows"}, []string{"amd64", "arm64"}
	if !slices.Equal(b.GOOS, wantOS) || !slices.Equal(b.GOARCH, wantArch) {
		t.Errorf("targets %v × %v, want %v × %v", b.GOOS, b.GOARCH, wantOS, wantArch)
	}
	ld := strings.Join(b.LDFlags, " ")
	script, err := os.ReadFile("scripts/release-check.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"Version", "Commit", "Date"} {
		stamp := "-X github.com/mcpctl/mcpctl/cmd." + v + "="
		if !strings.Contains(ld, stamp) {
			t.Errorf(".goreleaser.yaml's ldflags do not stamp cmd.%s", v)
		}
		if !regexp.MustCompile(`-X \$pkg\.` + v + `=`).Match(script) {
			t.Errorf("scripts/release-check.sh's build loop does not stamp cmd.%s as .goreleaser.yaml does", v)
		}
	}
	for _, goos := range wantOS {
		for _, arch := range wantArch {
			if !strings.Contains(string(script), goos+"/"+arch) {
				t.Errorf("scripts/release-check.sh does not build %s/%s", goos, arch)
			}
		}
	}
}
