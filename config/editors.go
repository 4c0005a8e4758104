package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
)

// editorServer is one entry of an editor's servers map: the union of what
// the editors write. Claude Desktop, Claude Code and Cursor use command,
// args, env and url (Claude Code and VS Code add a type); Windsurf names
// the URL serverUrl.
type editorServer struct {
	Type      string         `json:"type"`
	Transport string         `json:"transport"`
	Command   string         `json:"command"`
	Args      []any          `json:"args"`
	Env       map[string]any `json:"env"`
	Cwd       string         `json:"cwd"`
	URL       string         `json:"url"`
	ServerURL string         `json:"serverUrl"`
	Headers   map[string]any `json:"headers"`
}

// parseEditorFile reads the servers of an editor's file. A server entry
// that cannot be read becomes a problem; an error means the whole file is
// unusable.
func parseEditorFile(src Source, data []byte, h Host, problems *[]*Problem) ([]Server, error) {
	// VS Code's files are JSON with comments and trailing commas; the
	// others are plain JSON, which this leaves alone.
	data = stripJSONC(data)
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, notObjectError(data, err)
	}
	var inputs []Input
	key := "mcpServers"
	if src.format == formatVSCode {
		key = "servers"
		if raw, ok := top["inputs"]; ok {
			if err := json.Unmarshal(raw, &inputs); err != nil {
				return nil, fmt.Errorf("inputs: %w", err)
			}
		}
	}
	servers, err := parseServerMap(src, top[key], key, problems)
	if err != nil {
		return nil, err
	}
	if src.format == formatClaudeJSON {
		// Claude Code keeps each project's own servers under its path; they
		// come before the user's top-level ones, as Claude Code ranks them.
		var projects map[string]struct {
			MCPServers json.RawMessage `json:"mcpServers"`
		}
		if raw, ok := top["projects"]; ok {
			if err := json.Unmarshal(raw, &projects); err != nil {
				return nil, fmt.Errorf("projects: %w", err)
			}
		}
		var own []Server
		for _, dir := range h.ProjectDirs() {
			p, ok := projects[dir]
			if !ok {
				p, ok = projects[filepath.ToSlash(dir)]
			}
			if !ok {
				continue
			}
			s, err := parseServerMap(src, p.MCPServers, "projects["+strconv.Quote(dir)+"].mcpServers", problems)
			if err != nil {
				return nil, err
			}
			for i := range s {
				s[i].Dir = dir
			}
			own = append(own, s...)
		}
		servers = append(own, servers...)
	}
	for i := range servers {
		servers[i].Inputs = inputs
	}
	return servers, nil
}

// parseServerMap reads one name → definition map, sorted by name.
func parseServerMap(src Source, raw json.RawMessage, key string, problems *[]*Problem) ([]Server, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, fmt.Errorf("%s: want an object of names to server definitions: %w", key, err)
	}
	names := make([]string, 0, len(entries))
	for name := range entries {
		names = append(names, name)
	}
	slices.Sort(names)
	var out []Server
	for _, name := range names {
		s, err := decodeEditorServer(name, entries[name])
		if err != nil {
			*problems = append(*problems, &Problem{File: src.Path, Origin: src.Origin, Name: name, Err: err})
			continue
		}
		s.Origin, s.File, s.Dir = src.Origin, src.Path, src.Dir
		var raw bytes.Buffer
		if json.Compact(&raw, entries[name]) == nil {
			s.Raw = raw.Bytes()
		}
		out = append(out, s)
	}
	return out, nil
}

func decodeEditorServer(name string, raw json.RawMessage) (Server, error) {
	var e editorServer
	if err := json.Unmarshal(raw, &e); err != nil {
		return Server{}, err
	}
	s := Server{Name: name, Command: e.Command, Cwd: e.Cwd, URL: e.URL}
	if s.URL == "" {
		s.URL = e.ServerURL
	}
	var err error
	for i, a := range e.Args {
		v, ok := scalarString(a)
		if !ok {
			return Server{}, fmt.Errorf("args[%d]: want a string", i)
		}
		s.Args = append(s.Args, v)
	}
	if s.Env, err = stringMap("env", e.Env); err != nil {
		return Server{}, err
	}
	if s.Headers, err = stringMap("headers", e.Headers); err != nil {
		return Server{}, err
	}
	kind := e.Type
	if kind == "" {
		kind = e.Transport
	}
	s.Transport, err = transportOf(kind, s.Command, s.URL)
	return s, err
}

// stringMap reads env and headers maps, whose values editors sometimes
// write as numbers or booleans; null values are left out.
func stringMap(field string, m map[string]any) (map[string]string, error) {
	if len(m) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		if v == nil {
			continue
		}
		s, ok := scalarString(v)
		if !ok {
			return nil, fmt.Errorf("%s.%s: want a string", field, k)
		}
		out[k] = s
	}
	return out, nil
}

func scalarString(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), true
	case bool:
		return strconv.FormatBool(v), true
	}
	return "", false
}

// stripJSONC turns JSON with comments (// and /* */) and trailing commas,
// as VS Code writes it, into JSON. What it removes becomes spaces, so byte
// offsets in error messages still point into the original.
func stripJSONC(data []byte) []byte {
	if !bytes.Contains(data, []byte("/")) && !bytes.Contains(data, []byte(",")) {
		return data
	}
	out := slices.Clone(data)
	// Comments first, so that a comma before a comment before } is seen as
	// trailing by the second pass.
	scanJSON(out, func(i int) int {
		switch {
		case out[i] == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
			return i
		case out[i] == '/' && i+1 < len(out) && out[i+1] == '*':
			end := bytes.Index(out[i+2:], []byte("*/"))
			stop := len(out)
			if end >= 0 {
				stop = i + 2 + end + 2
			}
			for j := i; j < stop; j++ {
				if out[j] != '\n' {
					out[j] = ' '
				}
			}
			return stop
		}
		return i + 1
	})
	scanJSON(out, func(i int) int {
		if out[i] == ',' {
			j := i + 1
			for j < len(out) && isJSONSpace(out[j]) {
				j++
			}
			if j < len(out) && (out[j] == '}' || out[j] == ']') {
				out[i] = ' '
			}
		}
		return i + 1
	})
	return out
}

// scanJSON calls visit for each byte of data outside string literals;
// visit returns the index to continue from.
func scanJSON(data []byte, visit func(i int) int) {
	for i := 0; i < len(data); {
		if data[i] != '"' {
			i = visit(i)
			continue
		}
		for i++; i < len(data) && data[i] != '"'; i++ {
			if data[i] == '\\' {
				i++
			}
		}
		i++
	}
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
