package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// BackupSuffix names the copy [WrapFile] keeps of an editor's file as it
// was before any of its servers were wrapped.
const BackupSuffix = ".mcpctl-backup"

// WrapChange says what [WrapFile] or [UnwrapFile] did to one server.
type WrapChange struct {
	Name string
	// Done is "wrapped", "unwrapped", "already wrapped", "not wrapped" or
	// "skipped".
	Done string
	// Why says why a server was skipped.
	Why string
}

// WrapReport is what [WrapFile] or [UnwrapFile] did to a file.
type WrapReport struct {
	Path    string
	Changes []WrapChange
	// Backup is the backup file written (wrap) or restored (unwrap).
	Backup string
	// Reversed reports that unwrap edited the entries back one by one: the
	// file changed since it was wrapped, so the backup was not restored.
	Reversed bool
	// Written reports that the file was changed.
	Written bool
}

// jsonMember is one member of a JSON object: byte offsets of its key and
// value in the file.
type jsonMember struct {
	Key                  string
	KeyStart             int
	ValueStart, ValueEnd int
}

// scanValue returns the end of the JSON value starting at i (after
// whitespace) in data, which must hold no comments (see stripJSONC), and
// the members when it is an object.
func scanValue(data []byte, i int) (start, end int, members []jsonMember, err error) {
	i = skipSpace(data, i)
	if i >= len(data) {
		return 0, 0, nil, errors.New("unexpected end of JSON")
	}
	start = i
	switch data[i] {
	case '{':
		i++
		for {
			i = skipSpace(data, i)
			if i < len(data) && data[i] == '}' {
				return start, i + 1, members, nil
			}
			ks, ke, _, err := scanValue(data, i)
			if err != nil || data[ks] != '"' {
				return 0, 0, nil, fmt.Errorf("offset %d: want a member name", i)
			}
			var key string
			json.Unmarshal(data[ks:ke], &key)
			i = skipSpace(data, ke)
			if i >= len(data) || data[i] != ':' {
				return 0, 0, nil, fmt.Errorf("offset %d: want :", i)
			}
			vs, ve, _, err := scanValue(data, i+1)
			if err != nil {
				return 0, 0, nil, err
			}
			members = append(members, jsonMember{Key: key, KeyStart: ks, ValueStart: vs, ValueEnd: ve})
			i = skipSpace(data, ve)
			if i < len(data) && data[i] == ',' {
				i++
			}
		}
	case '[':
		i++
		for {
			i = skipSpace(data, i)
			if i < len(data) && data[i] == ']' {
				return start, i + 1, nil, nil
			}
			_, ve, _, err := scanValue(data, i)
			if err != nil {
				return 0, 0, nil, err
			}
			i = skipSpace(data, ve)
			if i < len(data) && data[i] == ',' {
				i++
			}
		}
	case '"':
		for i++; i < len(data) && data[i] != '"'; i++ {
			if data[i] == '\\' {
				i++
			}
		}
		if i >= len(data) {
			return 0, 0, nil, errors.New("unterminated string")
		}
		return start, i + 1, nil, nil
	}
	for i < len(data) && !isJSONSpace(data[i]) && !strings.ContainsRune(",:]}", rune(data[i])) {
		i++
	}
	if i == start {
		return 0, 0, nil, fmt.Errorf("offset %d: unexpected %q", i, data[i])
	}
	return start, i, nil, nil
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && isJSONSpace(data[i]) {
		i++
	}
	return i
}

func member(ms []jsonMember, key string) *jsonMember {
	for i := range ms {
		if ms[i].Key == key {
			return &ms[i]
		}
	}
	return nil
}

// twiceGiven returns the first member name ms gives twice, "" when none
// is: an editor's JSON.parse reads the last copy, and an edit of the first
// would change nothing the editor runs.
func twiceGiven(ms []jsonMember) string {
	seen := make(map[string]bool, len(ms))
	for _, m := range ms {
		if seen[m.Key] {
			return m.Key
		}
		seen[m.Key] = true
	}
	return ""
}

// editorEntry is one server entry of an editor's file, with where its
// command and args are.
type editorEntry struct {
	Name          string
	Command, Args *jsonMember
	URL           bool
	// cmd and args are their values.
	cmd  string
	args []string
	// Value is the entry's object in the file, Fields its members and
	// clean the file without comments, for the edits of URL entries.
	Value  jsonMember
	Fields []jsonMember
	clean  []byte
}

// notObjectError says where data, which should be one JSON object, is not.
func notObjectError(data []byte, err error) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return errors.New("not a JSON object: the file is empty")
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		line := 1 + bytes.Count(data[:min(int(syn.Offset), len(data))], []byte("\n"))
		return fmt.Errorf("not JSON: line %d: %v", line, err)
	}
	return errors.New("not a JSON object: an editor's MCP file is an object with mcpServers (or servers)")
}

// editorEntries finds the server entries of an editor's file: the
// mcpServers map (VS Code: servers) and Claude Code's per-project
// mcpServers maps.
func editorEntries(data []byte) ([]editorEntry, error) {
	clean := stripJSONC(data)
	// The scanner below finds members, not mistakes: a file that is not
	// one JSON object would otherwise read as one with no servers.
	if err := json.Unmarshal(clean, new(map[string]json.RawMessage)); err != nil {
		return nil, notObjectError(clean, err)
	}
	_, _, top, err := scanValue(clean, 0)
	if err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if k := twiceGiven(top); k != "" {
		return nil, fmt.Errorf("the file gives the member %q twice: an editor reads the last copy, so the file is left as it is", k)
	}
	var maps [][]jsonMember
	add := func(m *jsonMember) error {
		if m == nil || clean[m.ValueStart] != '{' {
			return nil
		}
		_, _, ms, err := scanValue(clean, m.ValueStart)
		maps = append(maps, ms)
		return err
	}
	if err := add(member(top, "mcpServers")); err != nil {
		return nil, err
	}
	if member(top, "mcpServers") == nil {
		if err := add(member(top, "servers")); err != nil {
			return nil, err
		}
	}
	if p := member(top, "projects"); p != nil && clean[p.ValueStart] == '{' {
		_, _, projects, err := scanValue(clean, p.ValueStart)
		if err != nil {
			return nil, err
		}
		for _, proj := range projects {
			if clean[proj.ValueStart] != '{' {
				continue
			}
			_, _, pm, err := scanValue(clean, proj.ValueStart)
			if err != nil {
				return nil, err
			}
			if k := twiceGiven(pm); k != "" {
				return nil, fmt.Errorf("project %q gives the member %q twice: an editor reads the last copy, so the file is left as it is", proj.Key, k)
			}
			if err := add(member(pm, "mcpServers")); err != nil {
				return nil, err
			}
		}
	}
	var out []editorEntry
	for _, ms := range maps {
		for _, m := range ms {
			if clean[m.ValueStart] != '{' {
				continue
			}
			_, _, fields, err := scanValue(clean, m.ValueStart)
			if err != nil {
				return nil, err
			}
			e := editorEntry{Name: m.Key, Command: member(fields, "command"), Args: member(fields, "args"),
				Value: m, Fields: fields, clean: clean}
			e.URL = member(fields, "url") != nil || member(fields, "serverUrl") != nil
			if e.Command != nil {
				json.Unmarshal(clean[e.Command.ValueStart:e.Command.ValueEnd], &e.cmd)
			}
			if e.Args != nil {
				json.Unmarshal(clean[e.Args.ValueStart:e.Args.ValueEnd], &e.args)
			}
			out = append(out, e)
		}
	}
	return out, nil
}

// wrapped reports whether an entry already runs through mcpctl proxy.
func (e editorEntry) wrapped() bool {
	return e.cmd != "" && strings.HasPrefix(filepath.Base(e.cmd), "mcpctl") && len(e.args) > 0 && e.args[0] == "proxy"
}

// edit is a replacement of data[start:end].
type edit struct {
	start, end int
	text       []byte
}

func applyEdits(data []byte, edits []edit) []byte {
	slices.SortFunc(edits, func(a, b edit) int { return b.start - a.start })
	out := slices.Clone(data)
	for _, e := range edits {
		out = slices.Concat(out[:e.start], e.text, out[e.end:])
	}
	return out
}

func jsonText(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// jsonList writes a list of strings on one line, as people write args:
// ["-y", "server"].
func jsonList(words []string) []byte {
	parts := make([][]byte, len(words))
	for i, w := range words {
		parts[i] = jsonText(w)
	}
	return slices.Concat([]byte("["), bytes.Join(parts, []byte(", ")), []byte("]"))
}

// editEntries visits each server entry of data and makes the edits visit
// returns, all at once; what visit says it did is reported unless its Done
// is empty (an entry it passes over).
func editEntries(data []byte, visit func(editorEntry) (WrapChange, []edit)) ([]byte, []WrapChange, error) {
	entries, err := editorEntries(data)
	if err != nil {
		return nil, nil, err
	}
	var edits []edit
	var changes []WrapChange
	for _, e := range entries {
		change, es := visit(e)
		edits = append(edits, es...)
		if change.Done != "" {
			changes = append(changes, change)
		}
	}
	return applyEdits(data, edits), changes, nil
}

// wrapData wraps the entries named (all when names is nil) so that each
// stdio server runs through `exe proxy -- COMMAND ARGS...`, editing only
// the command and args values, and each URL server through the bridge
// `exe proxy --url URL` (see wrapURL): the rest of the file, key order
// and unknown fields included, stays as it was.
func wrapData(data []byte, names []string, exe string) ([]byte, []WrapChange, error) {
	return editEntries(data, func(e editorEntry) (WrapChange, []edit) {
		switch {
		case names != nil && !slices.Contains(names, e.Name):
			return WrapChange{}, nil
		case twiceGiven(e.Fields) != "":
			return WrapChange{Name: e.Name, Done: "skipped", Why: fmt.Sprintf("it gives the member %q twice: the editor would run the copy left unwrapped", twiceGiven(e.Fields))}, nil
		case member(e.Fields, "url") != nil && member(e.Fields, "serverUrl") != nil:
			return WrapChange{Name: e.Name, Done: "skipped", Why: "it has both url and serverUrl: which one the editor uses is unclear"}, nil
		case e.wrapped():
			return WrapChange{Name: e.Name, Done: "already wrapped"}, nil
		case e.Command != nil && e.URL:
			return WrapChange{Name: e.Name, Done: "skipped", Why: "it has both a command and a URL: which one the editor runs is unclear"}, nil
		case e.URL:
			return wrapURL(e, exe)
		case e.Command == nil:
			return WrapChange{Name: e.Name, Done: "skipped", Why: "it has neither a command nor a URL"}, nil
		}
		args := append([]string{"proxy", "--", e.cmd}, e.args...)
		edits := []edit{{e.Command.ValueStart, e.Command.ValueEnd, jsonText(exe)}}
		if e.Args != nil {
			edits = append(edits, edit{e.Args.ValueStart, e.Args.ValueEnd, jsonList(args)})
		} else {
			edits = append(edits, edit{e.Command.ValueEnd, e.Command.ValueEnd, slices.Concat([]byte(`, "args": `), jsonList(args))})
		}
		return WrapChange{Name: e.Name, Done: "wrapped"}, edits
	})
}

// unwrapData edits every wrapped entry back to the server it wraps.
func unwrapData(data []byte) ([]byte, []WrapChange, error) {
	return editEntries(data, func(e editorEntry) (WrapChange, []edit) {
		if !e.wrapped() {
			return WrapChange{}, nil
		}
		if len(e.args) > 1 && e.args[1] == "--url" {
			return unwrapURL(e)
		}
		dash := slices.Index(e.args, "--")
		if dash < 0 || dash+1 >= len(e.args) {
			return WrapChange{Name: e.Name, Done: "skipped", Why: "its mcpctl proxy arguments name no server after --"}, nil
		}
		rest := e.args[dash+2:]
		if rest == nil {
			rest = []string{}
		}
		return WrapChange{Name: e.Name, Done: "unwrapped"}, []edit{
			{e.Command.ValueStart, e.Command.ValueEnd, jsonText(e.args[dash+1])},
			{e.Args.ValueStart, e.Args.ValueEnd, jsonList(rest)},
		}
	})
}

// wrappedNames are the entries of data that run through mcpctl proxy, and
// the mcpctl they run.
func wrappedNames(data []byte) (names []string, exe string, err error) {
	_, _, err = editEntries(data, func(e editorEntry) (WrapChange, []edit) {
		if e.wrapped() {
			names = append(names, e.Name)
			exe = e.cmd
		}
		return WrapChange{}, nil
	})
	if err != nil {
		return nil, "", err
	}
	return names, exe, nil
}

// WrapFile rewrites the editor's MCP file at path so that each server
// named (every one when names is nil) runs through `exe proxy -- ...`.
// Before the first of its servers is wrapped the file is copied to
// path+[BackupSuffix]; servers already wrapped are left, so wrapping
// twice changes nothing. URL servers run through `exe proxy --url URL`
// (see wrapURL). A name the file does not have is an error.
func WrapFile(path string, names []string, exe string) (*WrapReport, error) {
	data, mode, err := readEditorFile(path)
	if err != nil {
		return nil, err
	}
	out, changes, err := wrapData(data, names, exe)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, n := range names {
		if !slices.ContainsFunc(changes, func(c WrapChange) bool { return c.Name == n }) {
			return nil, fmt.Errorf("%s has no server %q", path, n)
		}
	}
	rep := &WrapReport{Path: path, Changes: changes}
	if bytes.Equal(out, data) {
		return rep, nil
	}
	already, _, err := wrappedNames(data)
	if err != nil {
		return nil, err
	}
	backup := path + BackupSuffix
	if _, serr := os.Stat(backup); len(already) == 0 || errors.Is(serr, fs.ErrNotExist) {
		// A file with nothing wrapped yet is the state unwrap returns to.
		if err := os.WriteFile(backup, data, mode.Perm()); err != nil {
			return nil, fmt.Errorf("backing up %s: %w", path, err)
		}
		rep.Backup = backup
	}
	if err := writeFileAtomic(path, out, mode); err != nil {
		return nil, err
	}
	rep.Written = true
	return rep, nil
}

// UnwrapFile undoes [WrapFile]: when the file is what wrapping its backup
// gives, the backup is restored byte for byte and removed; otherwise (the
// file changed since) each wrapped entry is edited back in place and the
// backup is kept.
func UnwrapFile(path string) (*WrapReport, error) {
	data, mode, err := readEditorFile(path)
	if err != nil {
		return nil, err
	}
	names, exe, err := wrappedNames(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	rep := &WrapReport{Path: path}
	backup := path + BackupSuffix
	orig, berr := os.ReadFile(backup)
	if berr == nil && len(names) > 0 {
		again, changes, err := wrapData(orig, names, exe)
		if err == nil && bytes.Equal(again, data) {
			if err := writeFileAtomic(path, orig, mode); err != nil {
				return nil, err
			}
			os.Remove(backup)
			for i := range changes {
				changes[i].Done = "unwrapped"
			}
			rep.Changes, rep.Backup, rep.Written = changes, backup, true
			return rep, nil
		}
	}
	out, changes, err := unwrapData(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	rep.Changes = changes
	if bytes.Equal(out, data) {
		return rep, nil
	}
	if err := writeFileAtomic(path, out, mode); err != nil {
		return nil, err
	}
	rep.Written, rep.Reversed = true, true
	if berr == nil {
		rep.Backup = backup
	}
	return rep, nil
}

func readEditorFile(path string) ([]byte, fs.FileMode, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, 0, err
	}
	data, err := os.ReadFile(path)
	return data, fi.Mode(), err
}

// writeFileAtomic replaces path with data through a temporary file in its
// folder, so an editor never reads half a file.
func writeFileAtomic(path string, data []byte, mode fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode.Perm()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
