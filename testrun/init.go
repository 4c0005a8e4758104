package testrun

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"go.yaml.in/yaml/v3"

	"github.com/mcpctl/mcpctl/client"
)

// Starter returns a starter test file for a server with these tools: a
// snapshot of the tool list, and one smoke test per tool whose arguments
// are examples made from its inputSchema (required fields only, the first
// enum value, a value of the declared format, within the declared range).
// server is written as the file's server: section when not nil.
func Starter(server *Server, tools []client.Tool) ([]byte, error) {
	f := File{Server: server}
	f.Tests = append(f.Tests, Test{Name: "tool list", List: "tools", Expect: Expect{Snapshot: true}})
	for _, t := range tools {
		var sch map[string]any
		if len(t.InputSchema) > 0 {
			if err := json.Unmarshal(t.InputSchema, &sch); err != nil {
				return nil, fmt.Errorf("the inputSchema of tool %q: %w", t.Name, err)
			}
		}
		args, _ := example(sch, 0).(map[string]any)
		if len(args) == 0 {
			args = nil
		}
		f.Tests = append(f.Tests, Test{Name: t.Name + " smoke", Call: t.Name, Args: args})
	}
	var b bytes.Buffer
	b.WriteString("# Written by mcpctl test --init: a smoke test per tool with example\n" +
		"# arguments made from its inputSchema. Edit the arguments and add\n" +
		"# expectations (docs/testing.md); mcpctl test --update writes the snapshot.\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(f); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// example is a value valid for the (sub)schema s, as far as a simple
// reading of it goes; depth stops runaway recursion.
func example(s map[string]any, depth int) any {
	if s == nil || depth > 8 {
		return nil
	}
	if v, ok := s["const"]; ok {
		return v
	}
	if v, ok := s["default"]; ok {
		return v
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	if ex, ok := s["examples"].([]any); ok && len(ex) > 0 {
		return ex[0]
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if alts, ok := s[k].([]any); ok && len(alts) > 0 {
			if sub, ok := alts[0].(map[string]any); ok {
				return example(sub, depth+1)
			}
		}
	}
	typ, _ := s["type"].(string)
	if ts, ok := s["type"].([]any); ok && len(ts) > 0 {
		typ, _ = ts[0].(string)
	}
	switch typ {
	case "object", "":
		if typ == "" && s["properties"] == nil {
			return "example"
		}
		out := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		req, _ := s["required"].([]any)
		names := make([]string, 0, len(req))
		for _, r := range req {
			if n, ok := r.(string); ok {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			sub, _ := props[n].(map[string]any)
			out[n] = example(sub, depth+1)
		}
		return out
	case "array":
		min, _ := s["minItems"].(float64)
		items, _ := s["items"].(map[string]any)
		out := []any{}
		for i := 0; i < int(min); i++ {
			out = append(out, example(items, depth+1))
		}
		return out
	case "integer", "number":
		v := 1.0
		if m, ok := s["minimum"].(float64); ok {
			v = m
		} else if m, ok := s["exclusiveMinimum"].(float64); ok {
			v = m + 1
		} else if m, ok := s["maximum"].(float64); ok && m < v {
			v = m
		}
		if typ == "integer" {
			return int64(v)
		}
		return v
	case "boolean":
		return true
	case "null":
		return nil
	case "string":
		return exampleString(s)
	}
	return nil
}

func exampleString(s map[string]any) string {
	v := "example"
	switch s["format"] {
	case "date-time":
		v = "2026-01-01T00:00:00Z"
	case "date":
		v = "2026-01-01"
	case "time":
		v = "12:00:00Z"
	case "email":
		v = "user@example.com"
	case "uri", "url", "iri":
		v = "https://example.com/"
	case "uuid":
		v = "00000000-0000-4000-8000-000000000000"
	case "ipv4":
		v = "127.0.0.1"
	case "ipv6":
		v = "::1"
	case "hostname":
		v = "example.com"
	}
	if min, ok := s["minLength"].(float64); ok {
		for len(v) < int(min) {
			v += "x"
		}
	}
	if max, ok := s["maxLength"].(float64); ok && len(v) > int(max) {
		v = v[:int(max)]
	}
	return v
}
