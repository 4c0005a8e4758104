package cmd

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/client"
)

// TestSettingsPrecedence checks flags > MCPCTL_* environment > config file
// > built-in default for -o, --timeout and --protocol-version, through the
// same hook the real tree uses.
func TestSettingsPrecedence(t *testing.T) {
	t.Parallel()
	const configYAML = "output: yaml\ntimeout: 45\nprotocol-version: 2025-06-18\n"
	type settings struct {
		Output   string
		Timeout  time.Duration
		Protocol string
	}
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		config  string
		want    settings
		wantErr string
	}{
		{
			name: "built-in defaults",
			want: settings{"text", client.DefaultTimeout, ""},
		},
		{
			name:   "config file",
			config: configYAML,
			want:   settings{"yaml", 45 * time.Second, "2025-06-18"},
		},
		{
			name:   "environment over config file",
			config: configYAML,
			env:    map[string]string{"MCPCTL_OUTPUT": "json", "MCPCTL_TIMEOUT": "2m", "MCPCTL_PROTOCOL_VERSION": "2024-11-05"},
			want:   settings{"json", 2 * time.Minute, "2024-11-05"},
		},
		{
			name: "environment alone",
			env:  map[string]string{"MCPCTL_TIMEOUT": "10"},
			want: settings{"text", 10 * time.Second, ""},
		},
		{
			name:   "flags over environment and config file",
			args:   []string{"-o", "text", "--timeout", "3s", "--protocol-version", "2025-03-26"},
			config: configYAML,
			env:    map[string]string{"MCPCTL_OUTPUT": "json", "MCPCTL_TIMEOUT": "2m", "MCPCTL_PROTOCOL_VERSION": "2024-11-05"},
			want:   settings{"text", 3 * time.Second, "2025-03-26"},
		},
		{
			name:   "--json over a configured format",
			args:   []string{"--json"},
			config: configYAML,
			want:   settings{"json", 45 * time.Second, "2025-06-18"},
		},
		{
			name:    "bad environment value",
			env:     map[string]string{"MCPCTL_TIMEOUT": "soon"},
			wantErr: `MCPCTL_TIMEOUT: invalid timeout "soon"`,
		},
		{
			name:    "unsupported protocol version",
			env:     map[string]string{"MCPCTL_PROTOCOL_VERSION": "1999-01-01"},
			wantErr: `MCPCTL_PROTOCOL_VERSION: invalid protocol-version "1999-01-01": supported: `,
		},
		{
			name:    "bad config value",
			config:  "output: xml\n",
			wantErr: `config.yaml: invalid output "xml": expected text, json or yaml`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var env []string
			for _, k := range slices.Sorted(maps.Keys(tt.env)) {
				env = append(env, k+"="+tt.env[k])
			}
			e := newTestEnv(t, env...)
			if tt.config != "" {
				e.write(t, "~/.config/mcpctl/config.yaml", tt.config)
			}
			ios, _, _, _ := Test()
			f := e.factory(ios)
			var got *ListOptions
			root := &cobra.Command{Use: "mcpctl", SilenceErrors: true, SilenceUsage: true}
			addConfigFlags(root, f)
			root.AddCommand(NewCmdList(f, func(o *ListOptions) error { got = o; return nil }))
			root.SetArgs(append([]string{"list", "--demo"}, tt.args...))
			err := root.ExecuteContext(context.Background())
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || exitCode(err, false) != ExitUsage {
					t.Fatalf("error = %v, want a usage error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, settings{got.Output.Format, got.Server.Timeout, got.Server.ProtocolVersion}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestConfigFlag(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	path := e.write(t, "custom.yaml", "output: json\nservers:\n  mine: {command: srv}\n")
	ios, _, out, errOut := Test()
	if code := execute(e.factory(ios), "servers", "--config", path); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// output: json in the file applies to servers too.
	if !strings.Contains(out.String(), `"name": "mine"`) {
		t.Errorf("servers --config: %s", out)
	}
	ios, _, _, errOut = Test()
	missing := filepath.Join(e.cwd, "missing.yaml")
	if code := execute(e.factory(ios), "list", "--demo", "--config", missing); code != ExitUsage || !strings.Contains(errOut.String(), "missing.yaml") {
		t.Errorf("missing --config: exit %d, %s", code, errOut)
	}
	// version reads no config: a broken file does not matter.
	e.write(t, "~/.config/mcpctl/config.yaml", "output: [\n")
	ios, _, _, errOut = Test()
	if code := execute(e.factory(ios), "version"); code != 0 {
		t.Errorf("version with a broken config: exit %d, %s", code, errOut)
	}
	ios, _, _, errOut = Test()
	if code := execute(e.factory(ios), "list", "--demo"); code != ExitUsage || !strings.Contains(errOut.String(), "config file") {
		t.Errorf("list with a broken config: exit %d, %s", code, errOut)
	}
}

// A flag that only shares a setting's name is left alone.
func TestSettingsSkipUnmarkedFlags(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, "MCPCTL_OUTPUT=json", "MCPCTL_TIMEOUT=5s")
	ios, _, _, _ := Test()
	f := e.factory(ios)
	var outputs []string
	var timeout time.Duration
	root := &cobra.Command{Use: "mcpctl", SilenceErrors: true, SilenceUsage: true}
	addConfigFlags(root, f)
	other := &cobra.Command{Use: "other", RunE: func(*cobra.Command, []string) error { return nil }}
	other.Flags().StringArrayVar(&outputs, "output", nil, "")
	other.Flags().DurationVar(&timeout, "timeout", 0, "")
	root.AddCommand(other)
	root.SetArgs([]string{"other"})
	if err := root.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(outputs) != 0 || timeout != 0 {
		t.Errorf("unmarked flags filled: --output %q, --timeout %s", outputs, timeout)
	}
}
