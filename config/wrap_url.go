package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// HeaderEnvPrefix begins the names of the variables a wrapped URL entry
// passes its headers' values in.
const HeaderEnvPrefix = "MCPCTL_HEADER_"

// wrapURL wraps a URL entry into a stdio entry that runs the stdio-to-HTTP
// bridge: the url (or serverUrl) member becomes
//
//	"command": EXE, "args": ["proxy", "--url", URL, "--transport", T, "-H", "Name: $MCPCTL_HEADER_NAME", ...]
//
// a type member becomes "stdio", and headers becomes env, with each
// header's value, as the editor wrote it, in a variable the -H flag names.
// The values stay in env rather than args because the editor expands its
// own references there (${input:…}, ${env:…}, ${VAR}) as it does in
// headers, and a secret in args would show in every process listing; the
// flag's "$NAME" (no braces) is expanded by mcpctl, and no editor's syntax
// claims it.
func wrapURL(e editorEntry, exe string) (WrapChange, []edit) {
	skip := func(why string) (WrapChange, []edit) {
		return WrapChange{Name: e.Name, Done: "skipped", Why: why}, nil
	}
	urlM := member(e.Fields, "url")
	if urlM == nil {
		urlM = member(e.Fields, "serverUrl")
	}
	var url string
	if json.Unmarshal(e.clean[urlM.ValueStart:urlM.ValueEnd], &url) != nil || url == "" {
		return skip("its URL is not a string")
	}
	typeM := member(e.Fields, "type")
	if typeM == nil {
		typeM = member(e.Fields, "transport")
	}
	var kind string
	if typeM != nil {
		json.Unmarshal(e.clean[typeM.ValueStart:typeM.ValueEnd], &kind)
	}
	args := []string{"proxy", "--url", url}
	switch strings.ToLower(kind) {
	case "sse":
		args = append(args, "--transport", "sse")
	case "http", "streamable-http", "streamablehttp", "streamable_http":
		args = append(args, "--transport", "http")
	}
	headersM, envM := member(e.Fields, "headers"), member(e.Fields, "env")
	var edits []edit
	if headersM != nil {
		if envM != nil {
			return skip("it has both headers and env")
		}
		_, _, hs, err := scanValue(e.clean, headersM.ValueStart)
		if err != nil || e.clean[headersM.ValueStart] != '{' {
			return skip("its headers are not an object")
		}
		var env []envVar
		for _, h := range hs {
			raw := bytes.TrimSpace(e.clean[h.ValueStart:h.ValueEnd])
			if bytes.Equal(raw, []byte("null")) {
				continue
			}
			if raw[0] == '{' || raw[0] == '[' {
				return skip(fmt.Sprintf("its header %s is not a string", h.Key))
			}
			name := headerEnvName(h.Key, env)
			if raw[0] != '"' {
				// A number or boolean: the editor sends its text.
				raw = jsonText(string(raw))
			}
			env = append(env, envVar{name, raw})
			args = append(args, "-H", h.Key+": $"+name)
		}
		edits = append(edits, edit{headersM.KeyStart, headersM.ValueEnd, slices.Concat([]byte(`"env": `), envObject(env))})
	}
	edits = append(edits, edit{urlM.KeyStart, urlM.ValueEnd,
		slices.Concat([]byte(`"command": `), jsonText(exe), []byte(`, "args": `), jsonList(args))})
	if typeM != nil {
		edits = append(edits, edit{typeM.ValueStart, typeM.ValueEnd, []byte(`"stdio"`)})
	}
	return WrapChange{Name: e.Name, Done: "wrapped"}, edits
}

// envVar is one member of an env object: its name and its value's JSON.
type envVar struct {
	name  string
	value []byte
}

// headerEnvName is the variable a header's value is passed in:
// HeaderEnvPrefix and the header's name in upper case, other characters
// than letters and digits made _, numbered when two headers would share
// it.
func headerEnvName(header string, taken []envVar) string {
	name := HeaderEnvPrefix + strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		}
		return '_'
	}, header)
	used := func(n string) bool {
		return slices.ContainsFunc(taken, func(v envVar) bool { return v.name == n })
	}
	out := name
	for i := 2; used(out); i++ {
		out = fmt.Sprintf("%s_%d", name, i)
	}
	return out
}

// envObject writes an env (or headers) object on one line.
func envObject(vars []envVar) []byte {
	parts := make([][]byte, len(vars))
	for i, v := range vars {
		parts[i] = slices.Concat(jsonText(v.name), []byte(": "), v.value)
	}
	return slices.Concat([]byte("{"), bytes.Join(parts, []byte(", ")), []byte("}"))
}

// unwrapURL turns a wrapped URL entry back into one, in place, when the
// file changed since it was wrapped (otherwise the backup is restored):
// the entry's object is written again with url, type and headers where
// command, type and env were, its other members kept. The URL member is
// "url", which every editor reads.
func unwrapURL(e editorEntry) (WrapChange, []edit) {
	skip := func(why string) (WrapChange, []edit) {
		return WrapChange{Name: e.Name, Done: "skipped", Why: why}, nil
	}
	var url, kind string
	type header struct{ name, value string }
	var headers []header
	for i := 1; i < len(e.args); i += 2 {
		if i+1 >= len(e.args) {
			return skip("its mcpctl proxy flag " + e.args[i] + " has no value")
		}
		v := e.args[i+1]
		switch e.args[i] {
		case "--url":
			url = v
		case "--transport":
			kind = v
		case "-H":
			name, value, ok := strings.Cut(v, ":")
			if !ok {
				return skip("its -H " + v + " is not 'Name: value'")
			}
			headers = append(headers, header{strings.TrimSpace(name), strings.TrimSpace(value)})
		default:
			return skip("its mcpctl proxy flag " + e.args[i] + " has no place in a URL entry; unwrap it by hand")
		}
	}
	var env []envVar
	if m := member(e.Fields, "env"); m != nil && e.clean[m.ValueStart] == '{' {
		_, _, vs, _ := scanValue(e.clean, m.ValueStart)
		for _, v := range vs {
			env = append(env, envVar{v.Key, e.clean[v.ValueStart:v.ValueEnd]})
		}
	}
	var hs []envVar
	for _, h := range headers {
		value := jsonText(h.value)
		if name, ok := strings.CutPrefix(h.value, "$"); ok {
			if i := slices.IndexFunc(env, func(v envVar) bool { return v.name == name }); i >= 0 {
				value = env[i].value
				env = slices.Delete(env, i, i+1)
			}
		}
		hs = append(hs, envVar{h.name, value})
	}
	var parts [][]byte
	for _, m := range e.Fields {
		switch m.Key {
		case "command":
			parts = append(parts, slices.Concat([]byte(`"url": `), jsonText(url)))
			if len(hs) > 0 {
				parts = append(parts, slices.Concat([]byte(`"headers": `), envObject(hs)))
			}
		case "args":
		case "env":
			if len(env) > 0 {
				parts = append(parts, slices.Concat([]byte(`"env": `), envObject(env)))
			}
		case "type", "transport":
			if kind != "sse" {
				kind = "http"
			}
			parts = append(parts, slices.Concat(jsonText(m.Key), []byte(": "), jsonText(kind)))
		default:
			parts = append(parts, e.clean[m.KeyStart:m.ValueEnd])
		}
	}
	obj := slices.Concat([]byte("{"), bytes.Join(parts, []byte(", ")), []byte("}"))
	return WrapChange{Name: e.Name, Done: "unwrapped"}, []edit{{e.Value.ValueStart, e.Value.ValueEnd, obj}}
}
