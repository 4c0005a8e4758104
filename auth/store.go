package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpctl/mcpctl/internal/filelock"
)

// StoreFile is the name of the token store's file in its directory.
const StoreFile = "auth.json"

// Store keeps tokens and client registrations on disk, in one JSON file
// (auth.json) in Dir: tokens per authorization server and resource,
// registrations per authorization server, and which authorization server
// each resource was last authorized by, so that a change of authorization
// server is noticed (and the client registers again rather than reusing
// another server's credentials).
//
// The directory is created with mode 0700 and the file written with mode
// 0600, atomically (a temporary file renamed over the old one), so a
// reader never sees half a file. A file that cannot be read as JSON is
// reported through Warn and treated as empty; the next save replaces it,
// after it is kept aside as auth.json.corrupt.
//
// A Store is safe for concurrent use by one process. Two mcpctl processes
// saving at the same moment may lose one update (the last rename wins);
// the loser's token is then obtained again when it is next needed.
type Store struct {
	// Dir is the directory, $XDG_STATE_HOME/mcpctl by default (the caller
	// chooses it).
	Dir string
	// Warn, if set, is told about a corrupt file. Never a secret.
	Warn func(msg string)

	mu sync.Mutex
}

// storeData is the file's content.
type storeData struct {
	Version       int            `json:"version"`
	Tokens        []Token        `json:"tokens,omitempty"`
	Registrations []Registration `json:"registrations,omitempty"`
	// Bindings maps a resource to the issuer that last authorized it.
	Bindings map[string]string `json:"bindings,omitempty"`
	// ClientIssuers maps a pre-registered confidential client's ID to the
	// issuer its credentials were first used with: they are sent to no
	// other (see [Authorizer]).
	ClientIssuers map[string]string `json:"client_issuers,omitempty"`
}

// StoreEntry describes one stored token without its secrets, for
// `mcpctl auth status`.
type StoreEntry struct {
	Issuer   string    `json:"issuer"`
	Resource string    `json:"resource"`
	Scopes   []string  `json:"scopes,omitempty"`
	Expiry   time.Time `json:"expiry,omitzero"`
	// TokenType is "Bearer" or "DPoP".
	TokenType string `json:"token_type"`
	// Refreshable is true when a refresh token is stored.
	Refreshable bool `json:"refreshable"`
	// Registration is the kind of client registration stored for Issuer
	// ("dynamic", "metadata-document"), or "" when none is (a
	// pre-registered client given by flags).
	Registration string `json:"registration,omitempty"`
	// ClientID is the registered client_id (not a secret), if stored.
	ClientID string `json:"client_id,omitempty"`
}

// NewStore returns a Store in dir.
func NewStore(dir string) *Store { return &Store{Dir: dir} }

func (s *Store) path() string { return filepath.Join(s.Dir, StoreFile) }

// read loads the file; a missing file is empty, a corrupt one is warned
// about, kept aside and treated as empty.
func (s *Store) read() (*storeData, error) {
	d := &storeData{}
	data, err := os.ReadFile(s.path())
	if errors.Is(err, fs.ErrNotExist) {
		return d, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the token store: %w", err)
	}
	if err := json.Unmarshal(data, d); err != nil {
		if s.Warn != nil {
			s.Warn(fmt.Sprintf("the token store %s is not valid JSON (%v); starting with an empty one and keeping the old file as %s.corrupt", s.path(), jsonErrorPosition(err), StoreFile))
		}
		_ = os.Rename(s.path(), s.path()+".corrupt")
		return &storeData{}, nil
	}
	return d, nil
}

// jsonErrorPosition describes a JSON error without quoting the file's
// content, which may hold a token.
func jsonErrorPosition(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("syntax error at byte %d", se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("unexpected %s at byte %d", te.Value, te.Offset)
	}
	return "unreadable"
}

// write replaces the file with d, atomically, mode 0600 in a 0700
// directory.
func (s *Store) write(d *storeData) error {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("creating the token store's directory: %w", err)
	}
	// MkdirAll keeps the mode of a directory that exists; a store dir
	// made by hand with 0755 is tightened.
	if fi, err := os.Stat(s.Dir); err == nil && fi.Mode().Perm()&0o077 != 0 {
		_ = os.Chmod(s.Dir, 0o700)
	}
	d.Version = 1
	data, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(s.Dir, StoreFile+".tmp*")
	if err != nil {
		return fmt.Errorf("writing the token store: %w", err)
	}
	name := tmp.Name()
	defer os.Remove(name) // after a successful rename, nothing to remove
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("writing the token store: %w", err)
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("writing the token store: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("writing the token store: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing the token store: %w", err)
	}
	if err := os.Rename(name, s.path()); err != nil {
		return fmt.Errorf("writing the token store: %w", err)
	}
	return nil
}

// lockWait bounds the wait for another process's update of the store.
const lockWait = 5 * time.Second

// update runs f on the file's content and writes it back. The read and the
// write happen under a lock on auth.json.lock, so concurrent mcpctl
// processes see each other's changes; if the lock cannot be had within
// lockWait (a process stuck holding it), the update goes ahead unlocked
// with a warning rather than hang.
func (s *Store) update(f func(d *storeData)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("creating the token store directory: %w", err)
	}
	if unlock, err := filelock.Path(s.path()+".lock", lockWait); err == nil {
		defer unlock()
	} else if s.Warn != nil {
		s.Warn(fmt.Sprintf("token store %s: not locked (%v); another mcpctl may be updating it", s.path(), err))
	}
	d, err := s.read()
	if err != nil {
		return err
	}
	f(d)
	return s.write(d)
}

// view runs f on the file's content.
func (s *Store) view(f func(d *storeData)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, err := s.read()
	if err != nil {
		return err
	}
	f(d)
	return nil
}

// Token returns the token stored for issuer and resource, or nil.
func (s *Store) Token(issuer, resource string) (*Token, error) {
	var t *Token
	err := s.view(func(d *storeData) {
		if i := d.tokenIndex(issuer, resource); i >= 0 {
			tok := d.Tokens[i]
			t = &tok
		}
	})
	return t, err
}

// Issuer returns the issuer resource was last authorized by, or "".
func (s *Store) Issuer(resource string) (string, error) {
	var issuer string
	err := s.view(func(d *storeData) { issuer = d.Bindings[resource] })
	return issuer, err
}

// SaveToken stores t under (t.Issuer, t.Resource), replacing the token
// there, and binds t.Resource to t.Issuer.
func (s *Store) SaveToken(t *Token) error {
	if t == nil || t.Issuer == "" || t.Resource == "" {
		return errors.New("saving a token: it names no issuer or resource")
	}
	return s.update(func(d *storeData) {
		if i := d.tokenIndex(t.Issuer, t.Resource); i >= 0 {
			d.Tokens[i] = *t
		} else {
			d.Tokens = append(d.Tokens, *t)
		}
		if d.Bindings == nil {
			d.Bindings = map[string]string{}
		}
		d.Bindings[t.Resource] = t.Issuer
	})
}

// DeleteToken removes the token of issuer and resource; issuer "" removes
// every token for resource, and the resource's binding. It reports whether
// anything was removed.
func (s *Store) DeleteToken(issuer, resource string) (bool, error) {
	removed := false
	err := s.update(func(d *storeData) {
		d.Tokens = slices.DeleteFunc(d.Tokens, func(t Token) bool {
			match := t.Resource == resource && (issuer == "" || t.Issuer == issuer)
			removed = removed || match
			return match
		})
		if issuer == "" || d.Bindings[resource] == issuer {
			if _, ok := d.Bindings[resource]; ok {
				removed = true
			}
			delete(d.Bindings, resource)
		}
	})
	return removed, err
}

// ClientIssuer returns the issuer the pre-registered client clientID is
// pinned to, or "".
func (s *Store) ClientIssuer(clientID string) (string, error) {
	var issuer string
	err := s.view(func(d *storeData) { issuer = d.ClientIssuers[clientID] })
	return issuer, err
}

// PinClient pins the pre-registered client clientID to issuer, unless it
// is pinned already: the first issuer stays.
func (s *Store) PinClient(clientID, issuer string) error {
	if clientID == "" || issuer == "" {
		return errors.New("pinning a client: no client ID or issuer")
	}
	return s.update(func(d *storeData) {
		if d.ClientIssuers == nil {
			d.ClientIssuers = map[string]string{}
		}
		if d.ClientIssuers[clientID] == "" {
			d.ClientIssuers[clientID] = issuer
		}
	})
}

// UnpinClient forgets the issuer of the pre-registered client clientID,
// and reports whether there was one.
func (s *Store) UnpinClient(clientID string) (bool, error) {
	removed := false
	err := s.update(func(d *storeData) {
		_, removed = d.ClientIssuers[clientID]
		delete(d.ClientIssuers, clientID)
	})
	return removed, err
}

// Registration returns the registration stored for issuer, or nil.
func (s *Store) Registration(issuer string) (*Registration, error) {
	var r *Registration
	err := s.view(func(d *storeData) {
		if i := d.registrationIndex(issuer); i >= 0 {
			reg := d.Registrations[i]
			r = &reg
		}
	})
	return r, err
}

// SaveRegistration stores r under r.Issuer, replacing the one there.
func (s *Store) SaveRegistration(r *Registration) error {
	if r == nil || r.Issuer == "" {
		return errors.New("saving a client registration: it names no issuer")
	}
	return s.update(func(d *storeData) {
		if i := d.registrationIndex(r.Issuer); i >= 0 {
			d.Registrations[i] = *r
		} else {
			d.Registrations = append(d.Registrations, *r)
		}
	})
}

// DeleteRegistration removes the registration of issuer.
func (s *Store) DeleteRegistration(issuer string) error {
	return s.update(func(d *storeData) {
		d.Registrations = slices.DeleteFunc(d.Registrations, func(r Registration) bool { return r.Issuer == issuer })
	})
}

// List describes every stored token (no secrets), ordered by resource then
// issuer.
func (s *Store) List() ([]StoreEntry, error) {
	var out []StoreEntry
	err := s.view(func(d *storeData) {
		for _, t := range d.Tokens {
			out = append(out, d.entry(t))
		}
	})
	slices.SortFunc(out, func(a, b StoreEntry) int {
		if c := strings.Compare(a.Resource, b.Resource); c != 0 {
			return c
		}
		return strings.Compare(a.Issuer, b.Issuer)
	})
	return out, err
}

func (d *storeData) entry(t Token) StoreEntry {
	e := StoreEntry{Issuer: t.Issuer, Resource: t.Resource, Scopes: strings.Fields(t.Scope), Expiry: t.Expiry,
		TokenType: t.TokenType, Refreshable: t.RefreshToken != ""}
	if i := d.registrationIndex(t.Issuer); i >= 0 {
		e.Registration = d.Registrations[i].Kind
		e.ClientID = d.Registrations[i].ClientID
	}
	return e
}

func (d *storeData) tokenIndex(issuer, resource string) int {
	return slices.IndexFunc(d.Tokens, func(t Token) bool { return t.Issuer == issuer && t.Resource == resource })
}

func (d *storeData) registrationIndex(issuer string) int {
	return slices.IndexFunc(d.Registrations, func(r Registration) bool { return r.Issuer == issuer })
}
