package scan

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// words splits an identifier into lower-case words at _, -, ., spaces and
// lower-to-upper case changes: "deleteUser_files" is delete, user, files.
func words(name string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	prev := rune(0)
	for _, r := range name {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	return out
}

// destructiveWords are verbs that name an action that destroys or
// overwrites something.
var destructiveWords = []string{"delete", "remove", "rm", "drop", "destroy", "kill", "wipe", "erase", "truncate", "purge", "overwrite", "terminate", "uninstall", "revoke", "shred", "nuke", "reset"}

// surface reports a risky tool surface.
func (c *checker) surface(it item) {
	ws := words(it.name)
	if i := slices.IndexFunc(ws, func(w string) bool { return slices.Contains(destructiveWords, w) }); i >= 0 {
		ann, _ := it.def["annotations"].(map[string]any)
		_, d := ann["destructiveHint"]
		_, r := ann["readOnlyHint"]
		if !d && !r {
			c.add(DestructiveNoHint, "", "tool", it.name, "annotations",
				fmt.Sprintf("the name says %q, but the tool declares neither destructiveHint nor readOnlyHint, so a host cannot tell it needs confirmation", ws[i]))
		}
	}
	sqlTool := false
	for _, w := range append(ws, words(fmt.Sprint(it.def["description"]))...) {
		if w == "sql" || w == "database" || w == "sqlite" || w == "postgres" || w == "mysql" {
			sqlTool = true
		}
	}
	walkProperties("inputSchema", it.def["inputSchema"], func(path, name string, prop map[string]any) {
		pw := words(name)
		if kind := argumentKind(pw, sqlTool); kind != "" && isString(prop) && !constrained(prop) {
			c.add(Unconstrained, "", "tool", it.name, path,
				fmt.Sprintf("argument %q takes any %s: it has no enum, pattern, format, const or maxLength", name, kind))
		}
		if secretName(pw) {
			if wo, _ := prop["writeOnly"].(bool); !wo {
				c.add(PlainSecret, "", "tool", it.name, path,
					fmt.Sprintf("argument %q takes a secret as a plain argument (not writeOnly): the model sees it and logs keep it", name))
			}
		}
	})
}

// walkProperties calls visit for every property of an object schema,
// nested objects and array items included.
func walkProperties(path string, schema any, visit func(path, name string, prop map[string]any)) {
	m, ok := schema.(map[string]any)
	if !ok {
		return
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for _, name := range sortedKeys(props) {
			p := path + ".properties." + name
			if prop, ok := props[name].(map[string]any); ok {
				visit(p, name, prop)
				walkProperties(p, prop, visit)
			}
		}
	}
	walkProperties(path+".items", m["items"], visit)
}

// argumentKind says what kind of free-form value an argument named by
// words takes: a command, a path, a URL or SQL; "" for none of them.
func argumentKind(ws []string, sqlTool bool) string {
	for _, w := range ws {
		switch w {
		case "command", "cmd", "shell", "script", "exec", "commandline":
			return "command"
		case "path", "file", "filename", "filepath", "dir", "directory", "folder":
			return "path"
		case "url", "uri", "endpoint", "href", "webhook":
			return "URL"
		case "sql", "statement":
			return "SQL"
		case "query":
			if sqlTool {
				return "SQL"
			}
		}
	}
	return ""
}

func isString(prop map[string]any) bool {
	switch t := prop["type"].(type) {
	case string:
		return t == "string"
	case []any:
		return slices.Contains(t, any("string"))
	case nil:
		_, obj := prop["properties"]
		return !obj
	}
	return false
}

func constrained(prop map[string]any) bool {
	for _, k := range []string{"enum", "pattern", "format", "const", "maxLength"} {
		if _, ok := prop[k]; ok {
			return true
		}
	}
	return false
}

// secretName reports whether an argument named by words takes a secret.
func secretName(ws []string) bool {
	for _, w := range ws {
		switch w {
		case "max", "count", "limit", "num", "length", "budget", "expires", "type":
			return false
		}
	}
	for i, w := range ws {
		switch w {
		case "password", "passwd", "passphrase", "secret", "token", "apikey", "credential", "credentials":
			return true
		case "key":
			if i > 0 && slices.Contains([]string{"api", "access", "private", "secret"}, ws[i-1]) {
				return true
			}
		}
	}
	return false
}
