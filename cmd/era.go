package cmd

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/config"
)

// eraCacheFile is the file, in the state directory, where the era detected
// for each server is kept.
const eraCacheFile = "eras.json"

// eraCacheTTL is how long a detected era is trusted without probing again.
// A cached era that fails sooner is probed again at once (see
// client.Options.KnownEra); the limit catches a legacy server upgraded to
// serve both eras, which would otherwise stay legacy.
const eraCacheTTL = 24 * time.Hour

// eraEntry is what the cache holds for one server.
type eraEntry struct {
	Era string `json:"era"`
	// Server is the server's name and version as it gave them, for people
	// reading the file; the key is a digest and says nothing.
	Server string    `json:"server,omitempty"`
	At     time.Time `json:"detected"`
}

// eraCache is the file of detected eras, keyed by [ServerOptions.eraKey].
type eraCache struct {
	Servers map[string]eraEntry `json:"servers"`
}

// era settles the era a session runs in from the options: --era (or a
// named server's era) when it pins one; else a protocol version, which
// belongs to one era; else legacy HTTP+SSE, which carries only the legacy
// era; else auto.
func (o *ServerOptions) era() string {
	switch {
	case o.Era == config.EraLegacy || o.Era == config.EraModern:
		return o.Era
	case o.ProtocolVersion != "" && client.IsModern(o.ProtocolVersion):
		return config.EraModern
	case o.ProtocolVersion != "":
		return config.EraLegacy
	case o.URL != "" && o.Transport == "sse":
		return config.EraLegacy
	}
	return config.EraAuto
}

// checkEra rejects an era and a protocol version or transport that
// contradict each other.
func (o *ServerOptions) checkEra() error {
	if err := config.CheckEra(o.Era); err != nil {
		return flagErrorf("invalid --era %q: expected auto, legacy or modern", o.Era)
	}
	v := o.ProtocolVersion
	switch {
	case o.Era == config.EraLegacy && v != "" && client.IsModern(v):
		return flagErrorf("--protocol-version %s is a modern revision, and --era legacy asks for the legacy era: drop one", v)
	case o.Era == config.EraModern && v != "" && !client.IsModern(v):
		return flagErrorf("--protocol-version %s is a legacy revision, and --era modern asks for the modern era: drop one", v)
	case o.URL != "" && o.Transport == "sse" && (o.Era == config.EraModern || v != "" && client.IsModern(v)):
		return flagErrorf("the legacy HTTP+SSE transport (--transport sse) carries only the legacy era: drop --transport sse or the modern --era/--protocol-version")
	}
	return nil
}

// eraKey identifies the server o reaches, for the era cache: a digest of
// the stdio command line and folder, or of the URL. The demo server has
// no key: it is part of mcpctl.
func (o *ServerOptions) eraKey() string {
	var id string
	switch {
	case o.Demo:
		return ""
	case o.URL != "":
		id = "url\x00" + o.URL
	case len(o.Command) > 0:
		id = "stdio\x00" + o.Cwd + "\x00" + strings.Join(o.Command, "\x00")
	default:
		return ""
	}
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:16])
}

// knownEra returns the era cached for key, or "" when there is none, it is
// older than [eraCacheTTL], or the cache cannot be read (a cache is only
// a shortcut).
func (f *Factory) knownEra(key string) string {
	if key == "" {
		return ""
	}
	c, _, err := f.readEraCache()
	if err != nil {
		return ""
	}
	e, ok := c.Servers[key]
	if !ok || f.now().Sub(e.At) > eraCacheTTL || f.now().Before(e.At) {
		return ""
	}
	return e.Era
}

// rememberEra writes era for key to the cache. Failing to is not an error
// of the command: the next one probes again. It reports what went wrong
// for -v.
func (f *Factory) rememberEra(key, era, server string) error {
	if key == "" || era == "" {
		return nil
	}
	c, path, err := f.readEraCache()
	if err != nil && path == "" {
		return err
	}
	if c.Servers == nil {
		c.Servers = map[string]eraEntry{}
	}
	if old, ok := c.Servers[key]; ok && old.Era == era && old.Server == server && f.now().Sub(old.At) < eraCacheTTL/2 {
		return nil // fresh enough: spare the write
	}
	c.Servers[key] = eraEntry{Era: era, Server: server, At: f.now().UTC().Truncate(time.Second)}
	for k, e := range c.Servers {
		if f.now().Sub(e.At) > eraCacheTTL {
			delete(c.Servers, k)
		}
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	// A whole file or none: written aside, then renamed over the old one,
	// so a concurrent mcpctl never reads half of it.
	tmp, err := os.CreateTemp(filepath.Dir(path), eraCacheFile+".*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// readEraCache reads the cache file; a missing file is an empty cache.
// path is "" when there is no state directory.
func (f *Factory) readEraCache() (c eraCache, path string, err error) {
	dir, err := f.stateDir()
	if err != nil {
		return c, "", err
	}
	path = filepath.Join(dir, eraCacheFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return c, path, nil
	}
	if err != nil {
		return c, path, err
	}
	if err := json.Unmarshal(data, &c); err != nil {
		// A damaged cache is rewritten from scratch.
		return eraCache{}, path, fmt.Errorf("%s: %w", path, err)
	}
	return c, path, nil
}

// now is the time the era cache is read and written at.
func (f *Factory) now() time.Time { return time.Now() }
