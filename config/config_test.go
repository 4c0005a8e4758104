package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
)

func TestLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.yaml")
	if c, err := Load(missing, false, nil); err != nil || c.Exists {
		t.Errorf("Load(missing, default) = %v, %v; want an empty config", c, err)
	}
	if _, err := Load(missing, true, nil); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load(missing, --config) error = %v, want not exist", err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("output: [json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(bad, false, nil); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("Load(bad) error = %v, want it to name the file", err)
	}
	list := filepath.Join(dir, "list.yaml")
	if err := os.WriteFile(list, []byte("- a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(list, false, nil); err == nil || !strings.Contains(err.Error(), "mapping") {
		t.Errorf("Load(list) error = %v, want a mapping", err)
	}
}

// TestSetting checks the order flag > environment > config file > default
// for each setting.
func TestSetting(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(path, []byte("output: yaml\ntimeout: 45\nprotocol-version: 2025-06-18\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	type want struct{ Value, Source string }
	tests := []struct {
		name   string
		key    string
		def    string
		flag   string // given on the command line when not empty
		env    string
		config bool
		want   want
	}{
		{name: "default", key: KeyOutput, def: "text", want: want{"text", "default"}},
		{name: "config", key: KeyOutput, def: "text", config: true, want: want{"yaml", path}},
		{name: "env over config", key: KeyOutput, def: "text", env: "json", config: true, want: want{"json", "MCPCTL_OUTPUT"}},
		{name: "flag over env", key: KeyOutput, def: "text", flag: "text", env: "json", config: true, want: want{"text", "--output"}},
		{name: "timeout seconds in config", key: KeyTimeout, def: "1m0s", config: true, want: want{"45s", path}},
		{name: "timeout env", key: KeyTimeout, def: "1m0s", env: "90s", config: true, want: want{"90s", "MCPCTL_TIMEOUT"}},
		{name: "timeout env seconds", key: KeyTimeout, def: "1m0s", env: "2.5", want: want{"2.5s", "MCPCTL_TIMEOUT"}},
		{name: "protocol version config", key: KeyProtocolVersion, def: "2025-11-25", config: true, want: want{"2025-06-18", path}},
		{name: "protocol version env", key: KeyProtocolVersion, def: "2025-11-25", env: "2024-11-05", config: true, want: want{"2024-11-05", "MCPCTL_PROTOCOL_VERSION"}},
		{name: "empty env is unset", key: KeyProtocolVersion, def: "2025-11-25", env: "", config: true, want: want{"2025-06-18", path}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := func(name string) (string, bool) {
				if name == EnvName(tt.key) {
					return tt.env, true
				}
				return "", false
			}
			p := path
			if !tt.config {
				p = filepath.Join(dir, "none.yaml")
			}
			c, err := Load(p, false, env)
			if err != nil {
				t.Fatal(err)
			}
			fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
			if tt.key == KeyTimeout {
				fs.Duration(tt.key, time.Minute, "")
			} else {
				fs.String(tt.key, tt.def, "")
			}
			if tt.flag != "" {
				if err := fs.Parse([]string{"--" + tt.key + "=" + tt.flag}); err != nil {
					t.Fatal(err)
				}
			}
			value, source := c.Setting(tt.key, fs.Lookup(tt.key))
			if diff := cmp.Diff(tt.want, want{value, source}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestEnvName(t *testing.T) {
	if got := EnvName(KeyProtocolVersion); got != "MCPCTL_PROTOCOL_VERSION" {
		t.Errorf("EnvName = %q", got)
	}
}

func TestParseSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    int64
		wantErr bool
	}{
		{in: "1048576", want: 1 << 20},
		{in: "256MiB", want: 256 << 20},
		{in: "1GiB", want: 1 << 30},
		{in: "1.5 GiB", want: 3 << 29},
		{in: "512KB", want: 512000},
		{in: "512kib", want: 512 << 10},
		{in: "2mb", want: 2e6},
		{in: "7B", want: 7},
		{in: "", wantErr: true},
		{in: "0", wantErr: true},
		{in: "-1MiB", wantErr: true},
		{in: "12 parsecs", wantErr: true},
		{in: "MiB", wantErr: true},
		{in: "99999999999GiB", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseSize(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

// TestResolveSettingReadsFileLast checks that the config file is loaded
// only when neither the flag nor the environment gives the setting.
func TestResolveSettingReadsFileLast(t *testing.T) {
	t.Parallel()
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.String(KeyOutput, "text", "")
	noFile := func() (*Config, error) {
		t.Error("the config file was read")
		return nil, errors.New("no file")
	}
	env := func(name string) (string, bool) { return "json", name == "MCPCTL_OUTPUT" }
	if v, src, err := ResolveSetting(KeyOutput, fs.Lookup(KeyOutput), env, noFile); v != "json" || src != "MCPCTL_OUTPUT" || err != nil {
		t.Errorf("from the environment: %q, %q, %v", v, src, err)
	}
	if err := fs.Parse([]string{"--output=yaml"}); err != nil {
		t.Fatal(err)
	}
	if v, src, err := ResolveSetting(KeyOutput, fs.Lookup(KeyOutput), nil, noFile); v != "yaml" || src != "--output" || err != nil {
		t.Errorf("from the flag: %q, %q, %v", v, src, err)
	}
}

func TestUnknownKeys(t *testing.T) {
	tests := []struct {
		name, file string
		want       []Key
	}{
		{"all known", "output: json\ntimeout: 5\nprotocol-version: 2025-06-18\nservers: {}\npolicy: p.yaml\naudit: a.jsonl\n", nil},
		{"misspelt", "timout: 5\noutput: json\nfoo: 1\n", []Key{{"timout", 1}, {"foo", 3}}},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.yaml")
			if err := os.WriteFile(path, []byte(tt.file), 0o600); err != nil {
				t.Fatal(err)
			}
			c, err := Load(path, true, nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, c.UnknownKeys()); diff != "" {
				t.Errorf("UnknownKeys() (-want +got):\n%s", diff)
			}
		})
	}
}
