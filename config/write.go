package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ErrExists is returned by [AddServer] for a name the file has already.
var ErrExists = errors.New("already defined")

// InvalidError reports a server definition that cannot be written: a bad
// name, or neither or both of a command and a URL. It is the caller's
// mistake, not the file's.
type InvalidError struct{ Err error }

func (e *InvalidError) Error() string { return e.Err.Error() }
func (e *InvalidError) Unwrap() error { return e.Err }

// ErrNoServer is returned by [RemoveServer] for a name the file does not
// have.
var ErrNoServer = errors.New("not defined")

// AddServer writes s into the servers: map of the config file at path,
// creating the file and its folders as needed. Everything else in the file,
// comments included, is kept. A name already there is replaced only with
// force; otherwise the error wraps [ErrExists].
func AddServer(path string, s Server, force bool) error {
	if err := checkName(s.Name); err != nil {
		return &InvalidError{Err: err}
	}
	if _, err := transportOf(transportWord(s.Transport), s.Command, s.URL); err != nil {
		return &InvalidError{Err: fmt.Errorf("server %q %w", s.Name, err)}
	}
	if s.InheritEnv && s.Command == "" {
		return &InvalidError{Err: fmt.Errorf("server %q: inherit-env applies to a command, not to a url", s.Name)}
	}
	doc, mode, err := readDoc(path)
	if err != nil {
		return err
	}
	servers := mappingValue(doc.Content[0], "servers")
	if servers == nil || servers.Kind != yaml.MappingNode {
		if servers == nil {
			servers = &yaml.Node{Kind: yaml.MappingNode}
			root := doc.Content[0]
			root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "servers"}, servers)
		} else if servers.Kind == yaml.ScalarNode && (servers.Tag == "!!null" || servers.Value == "") {
			*servers = yaml.Node{Kind: yaml.MappingNode}
		} else {
			return fmt.Errorf("config file %s: line %d: servers: want a mapping", path, servers.Line)
		}
	}
	cs := configServer{Command: s.Command, Args: s.Args, Env: s.Env, Cwd: s.Cwd, URL: s.URL, Headers: s.Headers}
	if s.Transport != TransportStdio && s.Transport != TransportAuto {
		cs.Transport = s.Transport
	}
	if s.Timeout > 0 {
		cs.Timeout = s.Timeout.String()
	}
	if s.MaxMessageSize > 0 {
		cs.MaxMessageSize = exactSize(s.MaxMessageSize)
	}
	cs.InheritEnv = s.InheritEnv
	if err := CheckEra(s.Era); err != nil {
		return &InvalidError{Err: fmt.Errorf("server %q: %w", s.Name, err)}
	}
	if s.Era != EraAuto {
		cs.Era = s.Era
	}
	if err := s.Auth.check(); err != nil {
		return &InvalidError{Err: fmt.Errorf("server %q: %w", s.Name, err)}
	}
	if !s.Auth.IsZero() && s.Command != "" {
		return &InvalidError{Err: fmt.Errorf("server %q: the OAuth settings apply to a url, not to a command", s.Name)}
	}
	cs.Auth = s.Auth
	var def yaml.Node
	if err := def.Encode(cs); err != nil {
		return err
	}
	key := &yaml.Node{Kind: yaml.ScalarNode, Value: s.Name}
	if i := indexOfKey(servers, s.Name); i >= 0 {
		if !force {
			return fmt.Errorf("server %q is %w in %s", s.Name, ErrExists, path)
		}
		servers.Content[i+1] = &def
	} else {
		servers.Content = append(servers.Content, key, &def)
	}
	return writeDoc(path, doc, mode)
}

// RemoveServer deletes name from the servers: map of the config file at
// path. A name the file does not have is an error wrapping [ErrNoServer].
func RemoveServer(path, name string) error {
	doc, mode, err := readDoc(path)
	if err != nil {
		return err
	}
	servers := mappingValue(doc.Content[0], "servers")
	i := indexOfKey(servers, name)
	if i < 0 {
		return fmt.Errorf("server %q is %w in %s", name, ErrNoServer, path)
	}
	servers.Content = append(servers.Content[:i], servers.Content[i+2:]...)
	return writeDoc(path, doc, mode)
}

// exactSize writes n in the largest binary unit that divides it, as
// [ParseSize] reads it back: "256MiB", "1000".
func exactSize(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10)
}

// transportWord is the word a file would use for a normalized transport.
func transportWord(t string) string {
	if t == TransportStdio || t == TransportAuto {
		return ""
	}
	return t
}

func checkName(name string) error {
	if name == "" {
		return errors.New("a server needs a name")
	}
	if strings.ContainsFunc(name, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return fmt.Errorf("invalid server name %q: no spaces or control characters", name)
	}
	return nil
}

func indexOfKey(m *yaml.Node, key string) int {
	if m == nil || m.Kind != yaml.MappingNode {
		return -1
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return i
		}
	}
	return -1
}

// readDoc parses the config file for editing; a missing or empty file is
// an empty mapping. mode is the file's permissions, 0600 for a new file
// since it may hold tokens.
func readDoc(path string) (*yaml.Node, fs.FileMode, error) {
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	mode := fs.FileMode(0o600)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return doc, mode, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("reading config file: %w", err)
	}
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	var parsed yaml.Node
	if err := yaml.Unmarshal(data, &parsed); err != nil {
		return nil, 0, fmt.Errorf("config file %s: %w", path, err)
	}
	if len(parsed.Content) == 0 {
		return doc, mode, nil
	}
	if parsed.Content[0].Kind != yaml.MappingNode {
		return nil, 0, fmt.Errorf("config file %s: want a mapping at the top", path)
	}
	return &parsed, mode, nil
}

// writeDoc replaces the file at path with doc, through a temporary file in
// the same folder so that a crash never leaves half a config.
func writeDoc(path string, doc *yaml.Node, mode fs.FileMode) error {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating the config folder: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".config-*.yaml")
	if err != nil {
		return fmt.Errorf("writing config file: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		return fmt.Errorf("writing config file: %w", err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fmt.Errorf("writing config file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing config file: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing config file: %w", err)
	}
	return nil
}
