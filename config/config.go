// Package config holds mcpctl's settings and finds named MCP servers.
//
// Settings (the output format, the request timeout, the protocol version)
// come, most important first, from command-line flags, MCPCTL_* environment
// variables, mcpctl's config file and built-in defaults; [Config.Setting]
// resolves one with a viper instance made for the command run, never a
// global one.
//
// Named servers come from mcpctl's own config file (a "servers:" map) and
// from the mcpServers-style files editors keep: Claude Desktop, Claude
// Code, Cursor, VS Code and Windsurf. [Discover] reads them in a fixed
// order of precedence (see [Sources]) and [Catalog.Find] picks the first
// definition of a name. Definitions keep ${VAR}, ${env:VAR} and VS Code's
// ${input:ID} references as written; [Server.Expand] resolves them when a
// server is used.
//
// The package reads and writes files, never prompts: the caller supplies
// whatever talks to the user (see [Expander]).
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"
)

// Keys of the settings that the config file and the environment can give.
// Each is also the name of the flag it defaults.
const (
	KeyOutput          = "output"
	KeyTimeout         = "timeout"
	KeyProtocolVersion = "protocol-version"
	// KeyAudit is the audit trail every call, read and prompt is
	// appended to (--audit FILE).
	KeyAudit = "audit"
)

// SettingKeys lists the keys of the settings, in the order help shows them.
func SettingKeys() []string { return []string{KeyOutput, KeyTimeout, KeyProtocolVersion, KeyAudit} }

// EnvName is the environment variable that gives the setting key, e.g.
// MCPCTL_PROTOCOL_VERSION for protocol-version.
func EnvName(key string) string {
	return "MCPCTL_" + strings.ToUpper(strings.ReplaceAll(key, "-", "_"))
}

// LookupEnv reads one environment variable, as [os.LookupEnv] does. mcpctl
// passes its own, so that tests give each run its own environment.
type LookupEnv func(name string) (string, bool)

// Config is mcpctl's config file, loaded for one command run.
type Config struct {
	// Path is where the file is, or would be.
	Path string
	// Exists reports whether the file was there.
	Exists bool

	lookupEnv LookupEnv
	v         *viper.Viper
	doc       yaml.Node // the parsed file; zero when it does not exist
}

// DefaultPath is where mcpctl's config file lives unless --config says
// otherwise: $XDG_CONFIG_HOME/mcpctl/config.yaml, or
// ~/.config/mcpctl/config.yaml when XDG_CONFIG_HOME is unset, on every
// operating system (as gh does), so that one dotfile serves everywhere.
//
// It is "" when neither XDG_CONFIG_HOME nor a home directory is known.
func DefaultPath(h Host) string {
	dir := h.XDGConfigHome
	if dir == "" {
		if h.Home == "" {
			return ""
		}
		dir = h.join(h.Home, ".config")
	}
	return h.join(dir, "mcpctl", "config.yaml")
}

// Load reads the config file at path. A missing file is an empty config,
// unless explicit says that the user named the file (--config), when it is
// an error. lookupEnv is the environment the MCPCTL_* settings are read
// from; nil means none.
func Load(path string, explicit bool, lookupEnv LookupEnv) (*Config, error) {
	// viper reads the file only: its own environment lookup would read the
	// process's, not lookupEnv.
	c := &Config{Path: path, lookupEnv: lookupEnv, v: viper.New()}
	c.v.SetConfigType("yaml")

	if path == "" {
		return c, nil
	}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !explicit:
		return c, nil
	case err != nil:
		return nil, fmt.Errorf("reading config file: %w", err)
	}
	c.Exists = true
	if err := yaml.Unmarshal(data, &c.doc); err != nil {
		return nil, fmt.Errorf("config file %s: %w", path, err)
	}
	if root := c.root(); root != nil && root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("config file %s: want a mapping of settings (output:, timeout:, servers:, …) at the top", path)
	}
	if err := c.v.ReadConfig(bytes.NewReader(data)); err != nil {
		return nil, fmt.Errorf("config file %s: %w", path, err)
	}
	return c, nil
}

// FileKeys lists the keys mcpctl's config file may hold at the top: the
// settings, servers, and the policy and audit sections.
func FileKeys() []string {
	return append(SettingKeys(), "servers", "policy", "audit")
}

// Key is a key at the top of the config file, with its line.
type Key struct {
	Name string
	Line int
}

// UnknownKeys lists the keys at the top of the file that are not among
// [FileKeys], in file order: a misspelt setting is otherwise silently
// ignored.
func (c *Config) UnknownKeys() []Key {
	root := c.root()
	if root == nil || root.Kind != yaml.MappingNode {
		return nil
	}
	known := FileKeys()
	var out []Key
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := root.Content[i]
		if !slices.Contains(known, k.Value) {
			out = append(out, Key{Name: k.Value, Line: k.Line})
		}
	}
	return out
}

// root is the top-level mapping of the file, or nil for an empty file.
func (c *Config) root() *yaml.Node {
	if c.doc.Kind != yaml.DocumentNode || len(c.doc.Content) == 0 {
		return nil
	}
	return c.doc.Content[0]
}

// Setting resolves the setting key for a command whose flag of the same name
// is flag (nil when the command has none), as [ResolveSetting] does with the
// environment c was loaded with and c as the file.
func (c *Config) Setting(key string, flag *pflag.Flag) (value, source string) {
	value, source, _ = ResolveSetting(key, flag, c.lookupEnv, func() (*Config, error) { return c, nil })
	return value, source
}

// ResolveSetting resolves the setting key for a command whose flag of the
// same name is flag (nil when the command has none): the flag when it was
// given on the command line, else the environment variable [EnvName](key)
// when it is not empty, else the config file, else the flag's default.
// file loads the config file; it is called only when the flag and the
// environment leave the setting open, so a command line that gives every
// setting reads no file. source names where the value came from for error
// messages: "--timeout", "MCPCTL_TIMEOUT", the config file's path, or
// "default". A timeout given as a bare number means seconds. The error is
// file's.
func ResolveSetting(key string, flag *pflag.Flag, lookupEnv LookupEnv, file func() (*Config, error)) (value, source string, err error) {
	env := ""
	if lookupEnv != nil {
		env, _ = lookupEnv(EnvName(key))
	}
	switch {
	case flag != nil && flag.Changed:
		return flag.Value.String(), "--" + key, nil
	case env != "": // an empty variable is unset, as viper has it
		value, source = env, EnvName(key)
	default:
		c, err := file()
		if err != nil {
			return "", "", err
		}
		if c != nil && c.v.InConfig(key) {
			value, source = c.v.GetString(key), c.Path
			// The text as written: YAML would read 2025-06-18 as a date.
			if n := mappingValue(c.root(), key); n != nil && n.Kind == yaml.ScalarNode {
				value = n.Value
			}
		} else {
			source = "default"
			if flag != nil {
				value = flag.Value.String()
			}
		}
	}
	if key == KeyTimeout && source != "default" {
		if n, err := strconv.ParseFloat(value, 64); err == nil {
			value = strconv.FormatFloat(n, 'f', -1, 64) + "s"
		}
	}
	return value, source, nil
}

// ParseSize reads a size in bytes: a plain number of bytes ("1048576"), or
// a number with a unit, binary (KiB, MiB, GiB) or decimal (KB, MB, GB), in
// any case and with or without a space: "256MiB", "1.5 GiB", "512KB". The
// size must be positive.
func ParseSize(s string) (int64, error) {
	text := strings.TrimSpace(s)
	i := strings.IndexFunc(text, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := text, ""
	if i >= 0 {
		num, unit = text[:i], strings.TrimSpace(text[i:])
	}
	mult := map[string]float64{
		"": 1, "b": 1,
		"k": 1 << 10, "ki": 1 << 10, "kib": 1 << 10, "kb": 1e3,
		"m": 1 << 20, "mi": 1 << 20, "mib": 1 << 20, "mb": 1e6,
		"g": 1 << 30, "gi": 1 << 30, "gib": 1 << 30, "gb": 1e9,
	}[strings.ToLower(unit)]
	n, err := strconv.ParseFloat(num, 64)
	switch {
	case err != nil || mult == 0:
		return 0, fmt.Errorf("invalid size %q: want bytes, or a number with KiB, MiB, GiB, KB, MB or GB, e.g. 256MiB", s)
	case n*mult < 1:
		return 0, fmt.Errorf("invalid size %q: must be at least 1 byte", s)
	case n*mult > math.MaxInt64/2:
		return 0, fmt.Errorf("invalid size %q: too large", s)
	}
	return int64(n * mult), nil
}

// Host describes the machine files are looked for on: the operating system,
// the user's directories and the working directory. Only the fields the
// operating system uses matter: AppData on Windows, XDGConfigHome elsewhere.
type Host struct {
	// GOOS is runtime.GOOS, or another value to compute another system's
	// paths.
	GOOS string
	// Home is the user's home directory (HOME, or USERPROFILE on Windows).
	Home string
	// XDGConfigHome is XDG_CONFIG_HOME, empty when unset.
	XDGConfigHome string
	// AppData is %APPDATA% on Windows.
	AppData string
	// Cwd is the working directory, where project files are looked for.
	Cwd string
}

// HostFrom builds a Host from an environment in os.Environ form.
func HostFrom(environ []string, cwd, goos string) Host {
	env := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	h := Host{GOOS: goos, Home: env["HOME"], XDGConfigHome: env["XDG_CONFIG_HOME"], AppData: env["APPDATA"], Cwd: cwd}
	if goos == "windows" {
		if p := env["USERPROFILE"]; p != "" {
			h.Home = p
		}
	}
	return h
}

// join joins path elements with the host's separator, so that Windows paths
// can be computed (and tested) elsewhere.
func (h Host) join(elem ...string) string {
	if h.GOOS != "windows" {
		return filepath.Join(elem...)
	}
	parts := make([]string, 0, len(elem))
	for _, e := range elem {
		if e = strings.TrimRight(e, `\/`); e != "" {
			parts = append(parts, e)
		}
	}
	return strings.ReplaceAll(strings.Join(parts, `\`), "/", `\`)
}
