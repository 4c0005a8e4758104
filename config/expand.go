package config

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// Expander resolves the ${…} references of a server definition:
//
//   - ${VAR} and ${env:VAR}: the environment variable VAR, an error if it
//     is unset; ${VAR:-default} gives default when VAR is unset or empty
//     (Claude Code's form);
//   - ${input:ID}: a VS Code input declared in the file: the environment
//     variable [InputEnvName](ID) when set, else asked for with Input, once
//     per ID;
//   - ${workspaceFolder}, ${workspaceFolderBasename}, ${userHome} and
//     ${pathSeparator}: VS Code's and Cursor's predefined variables.
//
// Text without "${" is kept as is, "$VAR" included: arguments may hold a
// literal dollar sign.
type Expander struct {
	// LookupEnv reads the environment (os.LookupEnv in production).
	LookupEnv func(string) (string, bool)
	// Home is ${userHome}.
	Home string
	// Cwd is ${workspaceFolder} for a definition from a user file.
	Cwd string
	// Input asks for the value of a VS Code input; nil makes ${input:…} an
	// error.
	Input func(Server, Input) (string, error)
}

// ExpandError names the server, the field and the reference that could not
// be resolved.
type ExpandError struct {
	Server string
	File   string
	Field  string // "url", "args[1]", "env.API_KEY", …
	Ref    string // "${env:TOKEN}"
	Err    error
}

func (e *ExpandError) Error() string {
	return fmt.Sprintf("server %q (%s): %s: %s: %v", e.Server, e.File, e.Field, e.Ref, e.Err)
}

func (e *ExpandError) Unwrap() error { return e.Err }

// Expand returns s with every reference resolved, in command, args, env
// values, cwd, url and header values. A relative cwd is taken relative to
// the project folder of a project file.
//
// A project entry the user has not approved (s.Trusted unset, see
// [TrustStore.Mark]) expands nothing: it is an [*UntrustedError], so that
// a repository cannot have a secret of the environment put into a URL or a
// header it chose.
func (s Server) Expand(x Expander) (Server, error) {
	if s.Scope == ScopeProject && !s.Trusted {
		return Server{}, &UntrustedError{Name: s.Name, File: s.File}
	}
	e := &expansion{x: x, s: &s, inputs: map[string]string{}}
	out := s
	out.Command = e.expand("command", s.Command)
	out.Cwd = e.expand("cwd", s.Cwd)
	out.URL = e.expand("url", s.URL)
	if s.Args != nil {
		out.Args = make([]string, len(s.Args))
		for i, a := range s.Args {
			out.Args[i] = e.expand(fmt.Sprintf("args[%d]", i), a)
		}
	}
	out.Env = e.expandMap("env", s.Env)
	out.Headers = e.expandMap("headers", s.Headers)
	if e.err != nil {
		return Server{}, e.err
	}
	if out.Cwd != "" && s.Dir != "" && !filepath.IsAbs(out.Cwd) {
		out.Cwd = filepath.Join(s.Dir, out.Cwd)
	}
	return out, nil
}

// expansion is one run of Expand; it keeps the first error and the inputs
// already answered.
type expansion struct {
	x      Expander
	s      *Server
	inputs map[string]string
	err    error
}

func (e *expansion) expandMap(field string, m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	// Sorted, so that inputs are asked for in a stable order.
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out[k] = e.expand(field+"."+k, m[k])
	}
	return out
}

func (e *expansion) expand(field, text string) string {
	if e.err != nil || !strings.Contains(text, "${") {
		return text
	}
	var b strings.Builder
	for {
		start := strings.Index(text, "${")
		if start < 0 {
			b.WriteString(text)
			return b.String()
		}
		end := strings.IndexByte(text[start:], '}')
		if end < 0 {
			// An unterminated reference is text.
			b.WriteString(text)
			return b.String()
		}
		end += start
		ref := text[start : end+1]
		v, err := e.resolve(text[start+2 : end])
		if err != nil {
			e.err = &ExpandError{Server: e.s.Name, File: e.s.File, Field: field, Ref: ref, Err: err}
			return ""
		}
		b.WriteString(text[:start])
		b.WriteString(v)
		text = text[end+1:]
	}
}

func (e *expansion) resolve(name string) (string, error) {
	switch name {
	case "workspaceFolder":
		return e.workspace(), nil
	case "workspaceFolderBasename":
		return filepath.Base(e.workspace()), nil
	case "userHome":
		return e.x.Home, nil
	case "pathSeparator", "/":
		return string(filepath.Separator), nil
	}
	if id, ok := strings.CutPrefix(name, "input:"); ok {
		return e.input(id)
	}
	name, _ = strings.CutPrefix(name, "env:")
	name, def, hasDefault := strings.Cut(name, ":-")
	v, ok := "", false
	if e.x.LookupEnv != nil {
		v, ok = e.x.LookupEnv(name)
	}
	switch {
	case hasDefault && v == "":
		return def, nil
	case !ok:
		return "", fmt.Errorf("environment variable %s is not set", name)
	}
	return v, nil
}

func (e *expansion) workspace() string {
	if e.s.Dir != "" {
		return e.s.Dir
	}
	return e.x.Cwd
}

func (e *expansion) input(id string) (string, error) {
	if v, ok := e.inputs[id]; ok {
		return v, nil
	}
	i := slices.IndexFunc(e.s.Inputs, func(in Input) bool { return in.ID == id })
	if i < 0 {
		return "", fmt.Errorf("no input %q is declared in the file's \"inputs\"", id)
	}
	if e.x.LookupEnv != nil {
		if v, ok := e.x.LookupEnv(InputEnvName(id)); ok {
			e.inputs[id] = v
			return v, nil
		}
	}
	if e.x.Input == nil {
		return "", fmt.Errorf("input %q cannot be asked for here (%s answers it)", id, InputEnvName(id))
	}
	v, err := e.x.Input(*e.s, e.s.Inputs[i])
	if err != nil {
		return "", err
	}
	e.inputs[id] = v
	return v, nil
}

// InputEnvName is the environment variable that answers the VS Code input
// id without asking, for scripts and CI: MCPCTL_INPUT_ and the id in upper
// case with every other character than a letter or digit made "_", e.g.
// MCPCTL_INPUT_API_KEY for "api-key".
func InputEnvName(id string) string {
	b := []byte(strings.ToUpper(id))
	for i, c := range b {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	return "MCPCTL_INPUT_" + string(b)
}
