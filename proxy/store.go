package proxy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpctl/mcpctl/internal/filelock"
)

// Store is the folder of a user's proxy sessions, in mcpctl's state dir:
// one session log per session, named by its ID (the start time and the
// proxy's pid), created 0600 in a 0700 folder. A running proxy holds a
// lock on its log, which is how [Store.List] tells running sessions from
// ended ones, and how a watcher started before or after the proxy finds
// it.
type Store struct {
	// Dir is the folder.
	Dir string
}

// SessionFile is the log of the session a proxy is running.
type SessionFile struct {
	ID   string
	Path string
	*os.File
	unlock func()
}

// Close releases the lock and closes the log.
func (s *SessionFile) Close() error {
	s.unlock()
	return s.File.Close()
}

// logExt is the extension of session logs.
const logExt = ".ndjson"

// Create starts the log of a new session and locks it for as long as it
// is open.
func (s Store) Create(now time.Time, pid int) (*SessionFile, error) {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating the proxy session folder: %w", err)
	}
	id := fmt.Sprintf("%s-%d", now.UTC().Format("20060102T150405.000Z"), pid)
	id = strings.Replace(id, ".", "", 1)
	path := filepath.Join(s.Dir, id+logExt)
	// The log is locked under a name List skips and then renamed, so that
	// a watcher never sees the new session unlocked, as if it had ended.
	starting := path + ".starting"
	f, err := os.OpenFile(starting, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("creating the session log: %w", err)
	}
	unlock, err := filelock.File(f)
	if err == nil {
		if _, serr := os.Stat(path); serr == nil {
			err = fmt.Errorf("%s exists", path)
		} else {
			err = os.Rename(starting, path)
		}
	}
	if err != nil {
		if unlock != nil {
			unlock()
		}
		f.Close()
		os.Remove(starting)
		return nil, fmt.Errorf("creating the session log: %w", err)
	}
	return &SessionFile{ID: id, Path: path, File: f, unlock: unlock}, nil
}

// SessionInfo describes a stored session.
type SessionInfo struct {
	ID      string    `json:"id"`
	Path    string    `json:"path"`
	Running bool      `json:"running"`
	Start   time.Time `json:"start"`
	// Updated is when the log was last written.
	Updated time.Time `json:"updated"`
	Size    int64     `json:"size"`
}

// List returns the stored sessions, newest first.
func (s Store) List() ([]SessionInfo, error) {
	entries, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []SessionInfo
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), logExt)
		if !ok || e.IsDir() {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		info := SessionInfo{ID: id, Path: filepath.Join(s.Dir, e.Name()), Updated: fi.ModTime(), Size: fi.Size()}
		if at, _, ok := strings.Cut(id, "-"); ok {
			info.Start, _ = time.Parse("20060102T150405000Z", at)
		}
		info.Running = locked(info.Path)
		out = append(out, info)
	}
	slices.SortFunc(out, func(a, b SessionInfo) int { return strings.Compare(b.ID, a.ID) })
	return out, nil
}

// locked reports whether a running proxy holds the log at path.
func locked(path string) bool {
	unlock, err := filelock.Path(path, 0)
	if err != nil {
		return true
	}
	unlock()
	return false
}

// Find returns the session ref names: "latest" (the newest), an ID, or a
// unique prefix of one.
func (s Store) Find(ref string) (SessionInfo, error) {
	all, err := s.List()
	if err != nil {
		return SessionInfo{}, err
	}
	if len(all) == 0 {
		return SessionInfo{}, fmt.Errorf("no proxy sessions in %s (start one with mcpctl proxy -- SERVER)", s.Dir)
	}
	if ref == "" || ref == "latest" {
		return all[0], nil
	}
	var found []SessionInfo
	for _, si := range all {
		if si.ID == ref {
			return si, nil
		}
		if strings.HasPrefix(si.ID, ref) {
			found = append(found, si)
		}
	}
	switch len(found) {
	case 0:
		return SessionInfo{}, fmt.Errorf("no proxy session %q (mcpctl proxy ls lists them)", ref)
	case 1:
		return found[0], nil
	}
	return SessionInfo{}, fmt.Errorf("%q names %d proxy sessions; give more of the id", ref, len(found))
}

// Prune removes ended sessions beyond the newest keep and those last
// written before olderThan (zero: no age limit); running ones stay. It
// returns the IDs removed.
func (s Store) Prune(keep int, olderThan time.Time) ([]string, error) {
	all, err := s.List()
	if err != nil {
		return nil, err
	}
	var removed []string
	kept := 0
	for _, si := range all {
		if si.Running {
			continue
		}
		if kept < keep && (olderThan.IsZero() || !si.Updated.Before(olderThan)) {
			kept++
			continue
		}
		if err := os.Remove(si.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, err
		}
		removed = append(removed, si.ID)
	}
	return removed, nil
}
