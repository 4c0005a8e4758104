package cmd

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// VersionInfo is what `mcpctl version` reports: the version, and the
// commit, commit time and Go version the binary was built from, as the Go
// toolchain recorded them in the build info.
type VersionInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit,omitempty"`
	Date      string `json:"date,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

// buildVersion reads the build info: vcs.revision, vcs.time and
// vcs.modified are there when the binary was built with `go build` in a
// git checkout; `go install module@version` records the module version
// instead, which stands in for a Version not set by -ldflags.
func buildVersion() VersionInfo {
	v := VersionInfo{Version: Version, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if bi.GoVersion != "" {
		v.GoVersion = bi.GoVersion
	}
	if v.Version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.time":
			v.Date = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
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
whether the tree had uncommitted changes, and the Go version, as the Go
toolchain recorded them in the binary. -o json prints them as an object
with the keys version, commit, date, modified, goVersion and platform.`,
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
