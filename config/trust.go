package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Trust in project files. A project file (see [Sources]) comes with the
// repository it is in: whoever wrote the repository wrote its servers. Such
// an entry is used only after the user approved it as written; the approval
// is remembered by its [Server.Fingerprint], so an edited entry needs a new
// one.

// UnsafeFileError says why a project file was ignored.
type UnsafeFileError struct {
	Reason string
}

func (e *UnsafeFileError) Error() string {
	return "ignored: " + e.Reason + "; a project file must be yours and writable only by you"
}

// UntrustedError says that a project entry was not used because the user
// has not approved it as it is written.
type UntrustedError struct {
	Name string
	File string
	// Changed says that an earlier version of the entry was approved.
	Changed bool
}

func (e *UntrustedError) Error() string {
	state := "is not trusted"
	if e.Changed {
		state = "has changed since you trusted it"
	}
	return fmt.Sprintf("server %q comes from the project file %s and %s, so it was neither started nor contacted; review it with `mcpctl servers show project:%s`, then run `mcpctl servers trust %s`",
		e.Name, e.File, state, e.Name, e.Name)
}

// Fingerprint identifies a definition as written: its file, its name and
// its entry before any ${…} is expanded. A trust decision holds for this
// fingerprint only.
func (s Server) Fingerprint() string {
	h := sha256.New()
	for _, part := range []string{s.File, s.Name, string(s.Raw)} {
		// Length-prefixed, so that no two triples hash the same text.
		fmt.Fprintf(h, "%d:%s\n", len(part), part)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// EnvRefs lists the environment variables the definition's ${…}
// references read, sorted, each once: what trusting it lets it see.
func (s Server) EnvRefs() []string {
	texts := append([]string{s.Command, s.Cwd, s.URL}, s.Args...)
	texts = append(texts, slices.Collect(maps.Values(s.Env))...)
	texts = append(texts, slices.Collect(maps.Values(s.Headers))...)
	var names []string
	for _, t := range texts {
		for {
			start := strings.Index(t, "${")
			if start < 0 {
				break
			}
			end := strings.IndexByte(t[start:], '}')
			if end < 0 {
				break
			}
			ref := t[start+2 : start+end]
			t = t[start+end+1:]
			switch ref {
			case "workspaceFolder", "workspaceFolderBasename", "userHome", "pathSeparator", "/":
				continue
			}
			if id, ok := strings.CutPrefix(ref, "input:"); ok {
				names = append(names, InputEnvName(id))
				continue
			}
			ref, _ = strings.CutPrefix(ref, "env:")
			ref, _, _ = strings.Cut(ref, ":-")
			names = append(names, ref)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// Trust states of a definition, as [TrustStore.State] reports them.
const (
	// TrustOwn is a definition of the user's own files, which needs no
	// approval.
	TrustOwn = "own"
	// TrustTrusted is a project entry approved as it is written.
	TrustTrusted = "trusted"
	// TrustUntrusted is a project entry never approved.
	TrustUntrusted = "untrusted"
	// TrustChanged is a project entry approved before it was edited.
	TrustChanged = "changed"
)

// TrustEntry is one approval: the entry's file and name, for people and
// for untrust, and the fingerprint that makes it hold.
type TrustEntry struct {
	File        string `json:"file"`
	Name        string `json:"name"`
	Fingerprint string `json:"sha256"`
	// Env are the environment variables the entry reads, for people
	// reading the file; the fingerprint already covers them.
	Env []string `json:"env,omitempty"`
}

// TrustStore is the file of approved project entries, kept in mcpctl's
// state folder.
type TrustStore struct {
	Path    string
	Entries []TrustEntry
}

// trustFile is the file's layout.
type trustFile struct {
	Trusted []TrustEntry `json:"trusted"`
}

// TrustFileName is the store's file name in mcpctl's state folder.
const TrustFileName = "trusted-servers.json"

// LoadTrust reads the store at path; a missing file is an empty store.
func LoadTrust(path string) (*TrustStore, error) {
	t := &TrustStore{Path: path}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading trusted servers: %w", err)
	}
	var f trustFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("trusted servers %s: %w", path, err)
	}
	t.Entries = f.Trusted
	return t, nil
}

// State says whether s may be used: TrustOwn outside project files, else
// TrustTrusted, TrustUntrusted or TrustChanged.
func (t *TrustStore) State(s Server) string {
	if s.Scope != ScopeProject {
		return TrustOwn
	}
	state := TrustUntrusted
	for _, e := range t.Entries {
		if e.File != s.File || e.Name != s.Name {
			continue
		}
		if e.Fingerprint == s.Fingerprint() {
			return TrustTrusted
		}
		state = TrustChanged
	}
	return state
}

// Mark returns s with Trusted set when it may be used (see [TrustStore.State]),
// and otherwise the [*UntrustedError] that says what to run.
func (t *TrustStore) Mark(s Server) (Server, error) {
	switch t.State(s) {
	case TrustOwn, TrustTrusted:
		s.Trusted = true
		return s, nil
	case TrustChanged:
		return s, &UntrustedError{Name: s.Name, File: s.File, Changed: true}
	}
	return s, &UntrustedError{Name: s.Name, File: s.File}
}

// Trust records the approval of s as it is written, replacing an earlier
// one of the same file and name. Save writes it.
func (t *TrustStore) Trust(s Server) {
	t.Untrust(s.File, s.Name)
	t.Entries = append(t.Entries, TrustEntry{File: s.File, Name: s.Name, Fingerprint: s.Fingerprint(), Env: s.EnvRefs()})
}

// Untrust forgets the approval of the entry name of file, reporting
// whether there was one. Save writes it.
func (t *TrustStore) Untrust(file, name string) bool {
	n := len(t.Entries)
	t.Entries = slices.DeleteFunc(t.Entries, func(e TrustEntry) bool { return e.File == file && e.Name == name })
	return len(t.Entries) != n
}

// Save writes the store, readable by the user only, replacing the file in
// one step so that a reader never sees half of it.
func (t *TrustStore) Save() error {
	data, err := json.MarshalIndent(trustFile{Trusted: t.Entries}, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(t.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("saving trusted servers: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".trusted-*.json")
	if err != nil {
		return fmt.Errorf("saving trusted servers: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(append(data, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), t.Path)
	}
	if err != nil {
		return fmt.Errorf("saving trusted servers: %w", err)
	}
	return nil
}
