package pin

import (
	"encoding/json"
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

// Store is the folder of pin files, one per server, in mcpctl's state dir.
// Its methods may be called from several processes at once: each update
// of a server's file reads and writes it under that server's lock, and a
// file is always replaced whole, so readers need no lock.
type Store struct {
	// Dir is the folder; it is created, 0700, when first written.
	Dir string
	// Now returns the current time (time.Now when nil).
	Now func() time.Time
	// LockWait bounds the wait for a server's lock (10 s when zero).
	LockWait time.Duration
}

// Server is the pin file of one server.
type Server struct {
	// Key is the file's name without ".json": [Key] of Server.
	Key string `json:"-"`
	// Version is the file format's version, 1.
	Version int `json:"version"`
	// Server is the server's description as the proxy names it: its
	// command line or its URL.
	Server string `json:"server"`
	// Tools are the pinned tools by name.
	Tools map[string]*Tool `json:"tools"`
}

// ShortKey is the first [ShortKeyLen] digits of Key.
func (s *Server) ShortKey() string { return s.Key[:min(len(s.Key), ShortKeyLen)] }

// Tool is a pinned tool.
type Tool struct {
	// SHA256 is the pinned definition's digest.
	SHA256 string `json:"sha256"`
	// Definition is the pinned definition, canonical.
	Definition json.RawMessage `json:"definition"`
	// PinnedAt is when it was first seen or last accepted.
	PinnedAt time.Time `json:"pinned_at"`
	// Seen is the definition the server showed last, when it is not the
	// pinned one: a change not accepted yet. It is kept so that a person
	// can review the change while the server is not running.
	Seen *Seen `json:"seen,omitempty"`
	// MissingSince is when the server first listed its tools without
	// this one, since it last listed it. The pin stays: a tool removed and
	// shown again with another definition is still a change.
	MissingSince *time.Time `json:"missing_since,omitempty"`
}

// Seen is a definition a server showed that differs from its pin.
type Seen struct {
	SHA256     string          `json:"sha256"`
	Definition json.RawMessage `json:"definition"`
	// At is when the server first showed it.
	At time.Time `json:"at"`
}

// States of a pinned tool, as [Tool.State] reports them.
const (
	// StatePinned is a tool whose last definition is the pinned one.
	StatePinned = "pinned"
	// StateChanged is a tool whose server showed another definition that
	// no one has accepted yet.
	StateChanged = "changed"
	// StateMissing is a tool the server's last listing did not show.
	StateMissing = "missing"
)

// State says whether the tool is pinned as the server last showed it,
// changed, or missing.
func (t *Tool) State() string {
	switch {
	case t.Seen != nil:
		return StateChanged
	case t.MissingSince != nil:
		return StateMissing
	}
	return StatePinned
}

// Change is a tool whose definition differs from its pin.
type Change struct {
	Tool string `json:"tool"`
	// Old is the pinned definition, New the one the server shows.
	Old json.RawMessage `json:"pinned"`
	New json.RawMessage `json:"current"`
}

// Diff is the change as a unified diff (see [Diff]).
func (c Change) Diff() string { return Diff(c.Old, c.New) }

// Report is what one listing of a server's tools showed against the pins.
type Report struct {
	// Server is the server's description; Key its pin file's name.
	Server string `json:"server"`
	Key    string `json:"key"`
	// New are the tools seen for the first time, now pinned.
	New []string `json:"new"`
	// Unchanged are the tools shown as they are pinned.
	Unchanged []string `json:"unchanged"`
	// Changed are the tools whose definitions differ from their pins;
	// under strict pinning they are hidden until accepted.
	Changed []Change `json:"changed"`
	// Removed are pinned tools the listing did not show.
	Removed []string `json:"removed"`
	// Invalid are the definitions that could not be pinned (no name,
	// not an object), which were left out.
	Invalid []string `json:"invalid,omitempty"`
}

// IsChanged reports whether the listing showed tool with a definition
// other than its pin.
func (r *Report) IsChanged(tool string) bool {
	return slices.ContainsFunc(r.Changed, func(c Change) bool { return c.Tool == tool })
}

// NotPinnedError says that a server or a tool has no pin.
type NotPinnedError struct {
	Server string
	// Tool is "" when the server has no pins at all.
	Tool string
}

func (e *NotPinnedError) Error() string {
	if e.Tool == "" {
		return fmt.Sprintf("no tools of %s are pinned (mcpctl proxy pins lists the servers that are)", e.Server)
	}
	return fmt.Sprintf("tool %q of %s is not pinned (mcpctl proxy pins %s lists its tools)", e.Tool, e.Server, Key(e.Server)[:ShortKeyLen])
}

// UnchangedError says that there is no change to accept: the tool's last
// definition is its pin.
type UnchangedError struct {
	Server string
	Tool   string
}

func (e *UnchangedError) Error() string {
	return fmt.Sprintf("tool %q of %s is shown as it is pinned: nothing to accept", e.Tool, e.Server)
}

func (s Store) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

func (s Store) path(key string) string { return filepath.Join(s.Dir, key+".json") }

// Observe compares a listing of a server's tools (each a definition as
// tools/list gives it) with the server's pins: it pins the tools seen for
// the first time, and records for each changed one the definition seen,
// until [Store.Accept] pins it or the server shows the pinned one again.
func (s Store) Observe(server string, tools []json.RawMessage) (Report, error) {
	key := Key(server)
	rep := Report{Server: server, Key: key}
	err := s.update(server, func(srv *Server) bool {
		now := s.now()
		dirty := false
		shown := map[string]bool{}
		for _, raw := range tools {
			def, err := Canonical(raw)
			if err != nil {
				rep.Invalid = append(rep.Invalid, err.Error())
				continue
			}
			if shown[def.Name] {
				// A second definition under one name: the host sees
				// both, and the first is the one compared.
				continue
			}
			shown[def.Name] = true
			t := srv.Tools[def.Name]
			switch {
			case t == nil:
				srv.Tools[def.Name] = &Tool{SHA256: def.SHA256, Definition: def.JSON, PinnedAt: now}
				rep.New = append(rep.New, def.Name)
				dirty = true
				continue
			case t.SHA256 == def.SHA256:
				if t.Seen != nil {
					t.Seen = nil // the server went back to the pin
					dirty = true
				}
				rep.Unchanged = append(rep.Unchanged, def.Name)
			default:
				if t.Seen == nil || t.Seen.SHA256 != def.SHA256 {
					t.Seen = &Seen{SHA256: def.SHA256, Definition: def.JSON, At: now}
					dirty = true
				}
				rep.Changed = append(rep.Changed, Change{Tool: def.Name, Old: t.Definition, New: def.JSON})
			}
			if t.MissingSince != nil {
				t.MissingSince = nil
				dirty = true
			}
		}
		for name, t := range srv.Tools {
			if shown[name] {
				continue
			}
			rep.Removed = append(rep.Removed, name)
			if t.MissingSince == nil {
				t.MissingSince = &now
				dirty = true
			}
		}
		return dirty
	})
	if err != nil {
		return Report{}, err
	}
	slices.Sort(rep.New)
	slices.Sort(rep.Unchanged)
	slices.Sort(rep.Removed)
	slices.SortFunc(rep.Changed, func(a, b Change) int { return strings.Compare(a.Tool, b.Tool) })
	return rep, nil
}

// Accept pins the definition the server last showed for tool, and returns
// the diff from the old pin to it. A tool shown as pinned is an
// [*UnchangedError]; a tool or server never seen a [*NotPinnedError].
func (s Store) Accept(server, tool string) (string, error) {
	var diff string
	var result error
	err := s.update(server, func(srv *Server) bool {
		t := srv.Tools[tool]
		switch {
		case len(srv.Tools) == 0:
			result = &NotPinnedError{Server: server}
			return false
		case t == nil:
			result = &NotPinnedError{Server: server, Tool: tool}
			return false
		case t.Seen == nil:
			result = &UnchangedError{Server: server, Tool: tool}
			return false
		}
		diff = Diff(t.Definition, t.Seen.Definition)
		t.SHA256, t.Definition, t.PinnedAt, t.Seen = t.Seen.SHA256, t.Seen.Definition, s.now(), nil
		return true
	})
	if err != nil {
		return "", err
	}
	return diff, result
}

// Changed reports whether tool of server is changed and not accepted: a
// tool strict pinning hides. A tool never seen is not changed.
func (s Store) Changed(server, tool string) (bool, error) {
	srv, err := s.Load(server)
	if err != nil {
		return false, err
	}
	t := srv.Tools[tool]
	return t != nil && t.Seen != nil, nil
}

// Load reads the pins of server; a server never seen has none.
func (s Store) Load(server string) (*Server, error) {
	srv, err := s.read(Key(server))
	if errors.Is(err, fs.ErrNotExist) {
		return &Server{Key: Key(server), Version: 1, Server: server, Tools: map[string]*Tool{}}, nil
	}
	return srv, err
}

// read reads the pin file named key.
func (s Store) read(key string) (*Server, error) {
	data, err := os.ReadFile(s.path(key))
	if err != nil {
		return nil, err
	}
	srv := &Server{}
	if err := json.Unmarshal(data, srv); err != nil {
		return nil, fmt.Errorf("reading tool pins %s: %w", s.path(key), err)
	}
	srv.Key = key
	if srv.Tools == nil {
		srv.Tools = map[string]*Tool{}
	}
	return srv, nil
}

// update applies change to the pins of server under its lock, and writes
// them when change reports that it changed something.
func (s Store) update(server string, change func(*Server) bool) error {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("tool pins: creating %s: %w", s.Dir, err)
	}
	key := Key(server)
	wait := s.LockWait
	if wait == 0 {
		wait = 10 * time.Second
	}
	lock := filepath.Join(s.Dir, key+".lock")
	unlock, err := filelock.Path(lock, wait)
	if err != nil {
		return fmt.Errorf("tool pins: locking %s: %w", lock, err)
	}
	defer unlock()
	srv, err := s.Load(server)
	if err != nil {
		return err
	}
	// The description is the one given, so that a file whose name
	// collides or that was copied in cannot speak for another server.
	srv.Server = server
	if !change(srv) {
		return nil
	}
	data, err := json.MarshalIndent(srv, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(s.path(key), append(data, '\n'))
}

// writeFile replaces path whole: written to a temporary file beside it,
// then renamed, so that no reader ever sees half a file.
func writeFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("tool pins: %w", err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("tool pins: writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("tool pins: writing %s: %w", path, err)
	}
	return nil
}

// List returns the pins of every server, ordered by description.
func (s Store) List() ([]*Server, error) {
	entries, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*Server
	for _, e := range entries {
		key, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || e.IsDir() || !isKey(key) {
			continue
		}
		srv, err := s.read(key)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, srv)
	}
	slices.SortFunc(out, func(a, b *Server) int { return strings.Compare(a.Server, b.Server) })
	return out, nil
}

// Find returns the pins ref names: a server's description as the proxy
// names it, or its key or a unique start of it (at least 4 digits), as
// lists show them.
func (s Store) Find(ref string) (*Server, error) {
	if srv, err := s.read(Key(ref)); err == nil {
		return srv, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if len(ref) >= 4 && len(ref) <= len(Key("")) && isHex(ref) {
		all, err := s.List()
		if err != nil {
			return nil, err
		}
		var found []*Server
		for _, srv := range all {
			if strings.HasPrefix(srv.Key, strings.ToLower(ref)) {
				found = append(found, srv)
			}
		}
		switch len(found) {
		case 1:
			return found[0], nil
		case 0:
		default:
			return nil, fmt.Errorf("%q starts the keys of %d servers; give more of it", ref, len(found))
		}
	}
	return nil, &NotPinnedError{Server: ref}
}

func isKey(s string) bool { return len(s) == len(Key("")) && isHex(s) }

func isHex(s string) bool {
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}
