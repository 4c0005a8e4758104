package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// ParamHeader is one x-mcp-header annotation of a tool's inputSchema
// (2026-07-28 server/tools, transports/streamable-http "Custom Headers
// from Tool Parameters"): the argument at Path (a chain of properties
// keys) is mirrored into the HTTP header "Mcp-Param-" + Name on every call.
type ParamHeader struct {
	Path []string
	Name string
}

// maxSafeInteger is the largest integer JavaScript represents exactly; an
// annotated integer beyond ±(2^53-1) is not mirrored.
const maxSafeInteger = 1<<53 - 1

// ToolParamHeaders reads the x-mcp-header annotations of an inputSchema.
// An annotation that breaks the revision's constraints — an empty name or
// one that is not an HTTP token, the same name twice (ignoring case), a
// property whose type is not string, integer or boolean, or a property
// reachable from the root other than through properties keys alone (under
// items, a composition or conditional keyword, $ref or $defs) — makes the
// tool definition invalid: the error says which and where, and the tool
// must not be used.
func ToolParamHeaders(inputSchema json.RawMessage) ([]ParamHeader, error) {
	if len(bytes.TrimSpace(inputSchema)) == 0 || !bytes.Contains(inputSchema, []byte("x-mcp-header")) {
		return nil, nil
	}
	var root any
	if err := json.Unmarshal(inputSchema, &root); err != nil {
		return nil, fmt.Errorf("inputSchema is not JSON: %w", err)
	}
	var out []ParamHeader
	seen := map[string]string{} // lower-case name → pointer where declared
	var walk func(node any, ptr string, path []string, reachable bool) error
	walk = func(node any, ptr string, path []string, reachable bool) error {
		switch n := node.(type) {
		case []any:
			for i, v := range n {
				if err := walk(v, ptr+"/"+strconv.Itoa(i), path, false); err != nil {
					return err
				}
			}
		case map[string]any:
			if v, ok := n["x-mcp-header"]; ok {
				h, err := paramHeaderAt(n, v, ptr, path, reachable)
				if err != nil {
					return err
				}
				key := strings.ToLower(h.Name)
				if first, dup := seen[key]; dup {
					return fmt.Errorf("x-mcp-header %q at %s repeats the one at %s (names must differ, ignoring case)", h.Name, ptrOrRoot(ptr), ptrOrRoot(first))
				}
				seen[key] = ptr
				out = append(out, h)
			}
			keys := make([]string, 0, len(n))
			for k := range n {
				keys = append(keys, k)
			}
			sort.Strings(keys) // a stable error when several are invalid
			for _, k := range keys {
				v := n[k]
				switch k {
				case "x-mcp-header", "enum", "const", "default", "examples":
					// Values, not schemas: an object in them that happens
					// to have an x-mcp-header key is data.
					continue
				case "properties":
					props, ok := v.(map[string]any)
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
						if err := walk(props[name], ptr+"/properties/"+escapePointer(name), child, reachable); err != nil {
							return err
						}
					}
				default:
					if err := walk(v, ptr+"/"+escapePointer(k), path, false); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	if err := walk(root, "", nil, true); err != nil {
		return nil, err
	}
	return out, nil
}

// paramHeaderAt checks one annotation, on the schema node n at ptr.
func paramHeaderAt(n map[string]any, v any, ptr string, path []string, reachable bool) (ParamHeader, error) {
	name, ok := v.(string)
	where := ptrOrRoot(ptr)
	switch {
	case !ok:
		return ParamHeader{}, fmt.Errorf("x-mcp-header at %s is not a string", where)
	case name == "":
		return ParamHeader{}, fmt.Errorf("x-mcp-header at %s is empty", where)
	case !isToken(name):
		return ParamHeader{}, fmt.Errorf("x-mcp-header %q at %s is not an HTTP field name (letters, digits and !#$%%&'*+-.^_`|~ only)", name, where)
	case !reachable || len(path) == 0:
		return ParamHeader{}, fmt.Errorf("x-mcp-header %q at %s is not on a property reached from the root through properties alone", name, where)
	}
	switch t, _ := n["type"].(string); t {
	case "string", "integer", "boolean":
	default:
		return ParamHeader{}, fmt.Errorf("x-mcp-header %q at %s is on a property of type %s; only string, integer and boolean may be mirrored", name, where, describeType(n["type"]))
	}
	return ParamHeader{Path: path, Name: name}, nil
}

func describeType(t any) string {
	if t == nil {
		return "(none)"
	}
	b, _ := json.Marshal(t)
	return string(b)
}

func ptrOrRoot(ptr string) string {
	if ptr == "" {
		return "the root"
	}
	return ptr
}

// escapePointer escapes a JSON Pointer reference token (RFC 6901).
func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// isToken reports whether s is an RFC 9110 token (1*tchar).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// ParamHeaderValues returns the Mcp-Param-* headers for a call's encoded
// arguments: for each annotation whose path holds a string, an integer in
// the safe range or a boolean, its value (strings as they are, integers in
// decimal, booleans as true or false), Base64-encoded where a header
// cannot carry it. An absent value, or one of another type, sends no
// header: the server validates the arguments themselves.
func ParamHeaderValues(hs []ParamHeader, arguments json.RawMessage) http.Header {
	if len(hs) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(arguments))
	dec.UseNumber()
	var args map[string]any
	if dec.Decode(&args) != nil {
		return nil
	}
	out := http.Header{}
	for _, h := range hs {
		var v any = args
		for _, k := range h.Path {
			m, ok := v.(map[string]any)
			if !ok {
				v = nil
				break
			}
			v = m[k]
		}
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case bool:
			s = strconv.FormatBool(x)
		case json.Number:
			i, err := x.Int64()
			if err != nil || i > maxSafeInteger || i < -maxSafeInteger {
				continue
			}
			s = strconv.FormatInt(i, 10)
		default:
			continue
		}
		// Header names are canonicalised by net/http; the server matches
		// them case-insensitively.
		out.Set("Mcp-Param-"+h.Name, headerValue(s))
	}
	return out
}

// callToolsList is the call of a modern tools/list page: tools whose
// x-mcp-header annotations are invalid are taken out of the page (the
// revision says a client must exclude them, so that one malformed tool
// does not make the others unusable), each with a protocol warning naming
// it and why; the annotations of the others are kept for their calls. A
// page with nothing to exclude is passed on byte for byte.
func (c *Client) callToolsList(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	raw, err := c.call(ctx, method, oneParams(params), requestOptions{})
	if err != nil {
		return raw, err
	}
	var page map[string]json.RawMessage
	var tools []json.RawMessage
	if json.Unmarshal(raw, &page) != nil || json.Unmarshal(page["tools"], &tools) != nil {
		return raw, nil // the paginator reports a malformed page
	}
	kept := tools[:0:0]
	c.mu.Lock()
	if c.toolHeaders == nil {
		c.toolHeaders, c.toolExcluded = map[string][]ParamHeader{}, map[string]string{}
	}
	c.mu.Unlock()
	for _, t := range tools {
		var tool struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		_ = json.Unmarshal(t, &tool)
		hs, herr := ToolParamHeaders(tool.InputSchema)
		c.mu.Lock()
		if herr != nil {
			c.toolExcluded[tool.Name] = herr.Error()
			delete(c.toolHeaders, tool.Name)
		} else {
			c.toolHeaders[tool.Name] = hs
			delete(c.toolExcluded, tool.Name)
		}
		c.mu.Unlock()
		if herr != nil {
			c.warn(fmt.Sprintf("tool %q excluded: %v", tool.Name, herr))
			continue
		}
		kept = append(kept, t)
	}
	if len(kept) == len(tools) {
		return raw, nil
	}
	list, err := json.Marshal(kept)
	if err != nil {
		return nil, err
	}
	page["tools"] = list
	return json.Marshal(page)
}

// paramHeaders returns the x-mcp-header annotations of tool name, listing
// the tools first if that has not been done: a call must mirror them. A
// tool excluded for invalid annotations is an error.
func (c *Client) paramHeaders(ctx context.Context, name string) ([]ParamHeader, error) {
	c.mu.Lock()
	listed := c.toolHeaders != nil
	c.mu.Unlock()
	if !listed {
		if _, err := c.ListAll(ctx, "tools/list", "tools"); err != nil {
			return nil, fmt.Errorf("listing tools for their x-mcp-header annotations: %w", err)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if reason, ok := c.toolExcluded[name]; ok {
		return nil, &ProtocolError{Method: "tools/call", Msg: fmt.Sprintf("tool %q is excluded: %s", name, reason)}
	}
	return c.toolHeaders[name], nil
}
