package lint

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The param-header-* rules check the x-mcp-header annotations of a tool's
// inputSchema (2026-07-28 basic/transports/streamable-http.mdx, "Schema
// Extension", SEP-2243): a client mirrors each annotated argument into an
// Mcp-Param-{name} header, and excludes from tools/list every tool with an
// annotation that breaks a constraint. They are the constraints
// client.ToolParamHeaders enforces, written again here rather than
// imported: the client stops at the first problem to exclude the tool,
// while lint reports every one, each with its own rule (a test checks that
// the two agree on which tools are invalid).

// headerProblem is one broken constraint of an x-mcp-header annotation.
type headerProblem struct {
	rule string
	msg  string
}

// paramHeaderProblems returns every problem of the x-mcp-header
// annotations of inputSchema, in a stable order (by JSON pointer); none
// when it has no annotation or is not JSON (message-schema reports that).
func paramHeaderProblems(inputSchema json.RawMessage) []headerProblem {
	if !strings.Contains(string(inputSchema), "x-mcp-header") {
		return nil
	}
	var root any
	if json.Unmarshal(inputSchema, &root) != nil {
		return nil
	}
	w := &headerWalk{first: map[string]string{}}
	w.walk(root, "", nil, "")
	return w.problems
}

// headerWalk visits every schema node of an inputSchema.
type headerWalk struct {
	problems []headerProblem
	// first maps each annotation name, lower-cased, to where it was
	// first declared.
	first map[string]string
}

func (w *headerWalk) add(rule, format string, args ...any) {
	w.problems = append(w.problems, headerProblem{rule: rule, msg: fmt.Sprintf(format, args...)})
}

// walk visits node at ptr; path is the chain of properties keys that led
// to it and via the first keyword on the way that was not "properties"
// (quoted, or "an array"; "" while the node is reached through properties
// alone).
func (w *headerWalk) walk(node any, ptr string, path []string, via string) {
	switch n := node.(type) {
	case []any:
		for i, v := range n {
			w.walk(v, ptr+"/"+strconv.Itoa(i), path, firstOf(via, "an array"))
		}
	case map[string]any:
		if v, ok := n["x-mcp-header"]; ok {
			w.annotation(n, v, ptr, path, via)
		}
		keys := make([]string, 0, len(n))
		for k := range n {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			switch k {
			case "x-mcp-header", "enum", "const", "default", "examples":
				// Values, not schemas: an object in them with an
				// x-mcp-header key is data.
			case "properties":
				props, ok := n[k].(map[string]any)
				if !ok {
					continue
				}
				names := make([]string, 0, len(props))
				for name := range props {
					names = append(names, name)
				}
				sort.Strings(names)
				for _, name := range names {
					child := append(append([]string(nil), path...), name)
					w.walk(props[name], ptr+"/properties/"+escapePointer(name), child, via)
				}
			default:
				w.walk(n[k], ptr+"/"+escapePointer(k), path, firstOf(via, strconv.Quote(k)))
			}
		}
	}
}

// annotation checks the annotation v of the schema node n at ptr.
func (w *headerWalk) annotation(n map[string]any, v any, ptr string, path []string, via string) {
	where := "inputSchema" + ptr
	if len(path) > 0 && via == "" {
		where = fmt.Sprintf("property %q (%s)", strings.Join(path, "."), where)
	}
	name, isString := v.(string)
	label := "x-mcp-header"
	if isString {
		label = fmt.Sprintf("x-mcp-header %q", name)
	}
	switch {
	case !isString:
		w.add(ParamHeaderNameInvalid, "x-mcp-header on %s is %s, not a string", where, describeJSON(v))
	case name == "":
		w.add(ParamHeaderNameInvalid, "x-mcp-header on %s is empty; it names the header Mcp-Param-{name}", where)
	default:
		if msg := tokenProblem(name); msg != "" {
			w.add(ParamHeaderNameInvalid, "%s on %s %s, so Mcp-Param-%s is no HTTP field name", label, where, msg, name)
		} else if first, dup := w.first[strings.ToLower(name)]; dup {
			w.add(ParamHeaderDuplicate, "%s on %s repeats the one on %s; names must differ, ignoring case", label, where, first)
		} else {
			w.first[strings.ToLower(name)] = where
		}
	}
	switch {
	case len(path) == 0 && via == "":
		w.add(ParamHeaderUnreachable, "%s is on the root of the inputSchema, not on a property", label)
		return
	case via != "":
		w.add(ParamHeaderUnreachable, "%s at %s is not on a property reached from the root through properties alone: the way passes through %s", label, where, via)
		return
	}
	switch t, _ := n["type"].(string); t {
	case "string", "integer", "boolean":
	default:
		w.add(ParamHeaderTypeInvalid, "%s is on %s, whose type is %s; only string, integer and boolean arguments are mirrored", label, where, describeType(n["type"]))
	}
}

// tokenProblem says why s is not an RFC 9110 token (1*tchar), or "".
func tokenProblem(s string) string {
	for i, r := range s {
		if r < utf8.RuneSelf && (isAlpha(byte(r)) || isDigit(byte(r)) || strings.IndexByte("!#$%&'*+-.^_`|~", byte(r)) >= 0) {
			continue
		}
		return fmt.Sprintf("has %s at offset %d (a token has letters, digits and !#$%%&'*+-.^_`|~ only)", describeRune(r), i)
	}
	return ""
}

func describeType(t any) string {
	if t == nil {
		return "not given"
	}
	return describeJSON(t)
}

func describeJSON(v any) string {
	b, _ := json.Marshal(v) // decoded from JSON, so it encodes
	return string(b)
}

// firstOf returns via, or k when via is empty.
func firstOf(via, k string) string {
	if via != "" {
		return via
	}
	return k
}

// escapePointer escapes a JSON Pointer reference token (RFC 6901).
func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
