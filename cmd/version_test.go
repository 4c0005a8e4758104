package cmd

import (
	"runtime/debug"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestVersionOf(t *testing.T) {
	const rev = "0123456789abcdef0123456789abcdef01234567"
	vcs := func(revision, time, modified string) *debug.BuildInfo {
		return &debug.BuildInfo{
			GoVersion: "go1.26.8",
			Main:      debug.Module{Path: "github.com/mcpctl/mcpctl", Version: "(devel)"},
			Settings: []debug.BuildSetting{
				{Key: "vcs.revision", Value: revision},
				{Key: "vcs.time", Value: time},
				{Key: "vcs.modified", Value: modified},
			},
		}
	}
	tests := []struct {
		name  string
		stamp stamp
		bi    *debug.BuildInfo
		want  VersionInfo
	}{
		{
			name: "no build info, nothing stamped",
			want: VersionInfo{Version: "dev", GoVersion: "go0", Platform: "os/arch"},
		},
		{
			name: "go build in a checkout",
			bi:   vcs(rev, "2026-01-02T03:04:05Z", "true"),
			want: VersionInfo{Version: "dev", Commit: rev, Date: "2026-01-02T03:04:05Z", Modified: true, GoVersion: "go1.26.8", Platform: "os/arch"},
		},
		{
			name: "go install module@version",
			bi:   &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/mcpctl/mcpctl", Version: "v1.2.3"}},
			want: VersionInfo{Version: "v1.2.3", GoVersion: "go1.26.8", Platform: "os/arch"},
		},
		{
			name:  "release build: the stamp wins over the module version",
			stamp: stamp{Version: "v1.2.4", Commit: rev, Date: "2026-02-03T00:00:00Z"},
			bi:    &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}},
			want:  VersionInfo{Version: "v1.2.4", Commit: rev, Date: "2026-02-03T00:00:00Z", GoVersion: "go1.26.8", Platform: "os/arch"},
		},
		{
			name:  "release build in its checkout: the stamped date wins, modified is kept",
			stamp: stamp{Version: "v1.2.4", Commit: rev, Date: "2026-02-03T00:00:00Z"},
			bi:    vcs(rev, "2026-01-02T03:04:05Z", "true"),
			want:  VersionInfo{Version: "v1.2.4", Commit: rev, Date: "2026-02-03T00:00:00Z", Modified: true, GoVersion: "go1.26.8", Platform: "os/arch"},
		},
		{
			name:  "stamped commit differs from the checkout's: nothing of the other commit is mixed in",
			stamp: stamp{Version: "v1.2.4", Commit: "feedface"},
			bi:    vcs(rev, "2026-01-02T03:04:05Z", "true"),
			want:  VersionInfo{Version: "v1.2.4", Commit: "feedface", GoVersion: "go1.26.8", Platform: "os/arch"},
		},
		{
			name:  "only the version stamped: the checkout's commit fills in",
			stamp: stamp{Version: "v1.2.4"},
			bi:    vcs(rev, "2026-01-02T03:04:05Z", "false"),
			want:  VersionInfo{Version: "v1.2.4", Commit: rev, Date: "2026-01-02T03:04:05Z", GoVersion: "go1.26.8", Platform: "os/arch"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.stamp
			if s.Version == "" {
				s.Version = "dev"
			}
			got := versionOf(s, tt.bi, "go0", "os/arch")
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("versionOf() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
