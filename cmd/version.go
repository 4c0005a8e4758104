package cmd

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// VersionInfo is what `mcpctl version` reports: the version, and the
// commit, commit time and Go version the binary was built from, as a
// release build stamped them or else as the Go toolchain recorded them in
// the build info.
type VersionInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit,omitempty"`
	Date      string `json:"date,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

// buildVersion is what this binary reports: the values stamped with
// -ldflags, and the build info for what they leave unset.
func buildVersion() VersionInfo {
	bi, _ := debug.ReadBuildInfo()
	return versionOf(stamp{Version: Version, Commit: Commit, Date: Date}, bi, runtime.Version(), runtime.GOOS+"/"+runtime.GOARCH)
}

// stamp holds the values a release build sets with -ldflags -X.
type stamp struct{ Version, Commit, Date string }

// versionOf lets a release build's stamp win and fills the rest from the
// build info: vcs.revision, vcs.time and vcs.modified are there when the
// binary was built with `go build` in a git checkout; `go install
// module@version` records the module version instead, which stands in for
// a version not stamped. A stamped commit keeps the build info's date and
// modified flag only when they describe that same commit. bi may be nil.
func versionOf(s stamp, bi *debug.BuildInfo, goVersion, platform string) VersionInfo {
	v := VersionInfo{Version: s.Version, Commit: s.Commit, Date: s.Date, GoVersion: goVersion, Platform: platform}
	if v.Version == "" {
		v.Version = "dev"
	}
	if bi == nil {
		return v
	}
	if bi.GoVersion != "" {
		v.GoVersion = bi.GoVersion
	}
	if v.Version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v.Version = bi.Main.Version
	}
	var revision, date string
	var modified bool
	for _, kv := range bi.Settings {
		switch kv.Key {
		case "vcs.revision":
			revision = kv.Value
		case "vcs.time":
			date = kv.Value
		case "vcs.modified":
			modified = kv.Value == "true"
		}
	}
	if s.Commit != "" && s.Commit != revision {
		return v
	}
	v.Commit = revision
	if v.Date == "" {
		v.Date = date
	}
	v.Modified = modified
	return v
}

// text is the one line a person reads: "mcpctl v1.2.3 (commit
// 0123456789ab, 2026-11-23T10:00:00Z, modified), go1.25.0 linux/amd64";
// the date is the commit's, the one the build info records.
func (v VersionInfo) text() string {
	line := "mcpctl " + v.Version
	var parts []string
	if v.Commit != "" {
		c := v.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		parts = append(parts, "commit "+c)
	}
	if v.Date != "" {
		parts = append(parts, v.Date)
	}
	if v.Modified {
		parts = append(parts, "modified")
	}
	if len(parts) > 0 {
		line += " (" + strings.Join(parts, ", ") + ")"
	}
	return line + ", " + v.GoVersion + " " + v.Platform
}

// NewCmdVersion prints mcpctl's version and what it was built from.
func NewCmdVersion(f *Factory) *cobra.Command {
	var out OutputOptions
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print mcpctl's version, commit, build date and Go version",
		Long: `Print mcpctl's version and what it was built from: the commit and its date,
whether the tree had uncommitted changes, and the Go version, as a release
build stamped them or else as the Go toolchain recorded them in the binary.
-o json prints them as an object with the keys version, commit, date,
modified, goVersion and platform.`,
		Args: cobra.NoArgs,
		Example: `  mcpctl version
  mcpctl version -o json --jq .commit`,
		Annotations: map[string]string{noSettingsAnnotation: "true"},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := out.validate(); err != nil {
				return err
			}
			v := buildVersion()
			if out.structured() {
				return out.write(f.printer(), v)
			}
			_, err := fmt.Fprintln(f.IOStreams.Out, v.text())
			return err
		},
	}
	addOutputFlags(cmd, &out)
	return cmd
}
