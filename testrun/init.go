package testrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcpctl/mcpctl/client"
)

// InitResult is what [Init] wrote.
type InitResult struct {
	// File is the test file's YAML.
	File []byte
	// Tools is how many tools the server listed; Tests how many smoke
	// tests the file holds.
	Tools, Tests int
	// Snapshot is the snapshot file written for the tool list.
	Snapshot string
	// Notes say, one a line, what the probe changed or left out.
	Notes []string
}

// Init makes a starter test file for the server s reaches, to be written
// at path (its snapshot is written next to it now): a snapshot of the tool
// list, and one smoke test per tool whose arguments are examples made from
// its inputSchema ([ExampleArguments]). Each smoke test is run once, as
// `mcpctl test` will run it (a tool whose taskSupport is "required" as a
// task), and written so that it passes against this server as it is: a
// call that returned isError: true expects it, one that got a JSON-RPC
// error expects its code, one whose result breaks the tool's outputSchema
// has outputSchema: false, each with a comment saying so; a tool whose
// call failed otherwise (a timeout, a transport error) is left out and
// named at the end of the file. server is written as the file's server:
// section when not nil. Init refuses to replace an existing snapshot.
func Init(ctx context.Context, s Session, path string, server *Server) (*InitResult, error) {
	tools, err := s.ListTools(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing the tools: %w", err)
	}
	f := &File{Path: path, Server: server}
	f.Tests = append(f.Tests, Test{Name: "tool list", List: "tools", Expect: Expect{Snapshot: true}})
	r := &fileRun{file: f, s: s, vars: map[string]string{}, update: true, notes: &noteBox{}, tools: tools, listed: true}
	snap := r.snapshotPath(&f.Tests[0])
	if _, err := os.Stat(snap); err == nil {
		return nil, fmt.Errorf("the snapshot %s exists already; remove it or give another path", snap)
	}
	res := &InitResult{Tools: len(tools), Snapshot: snap}
	comments := map[int]string{}
	var left []string
	for i := range tools {
		t, err := smokeTest(&tools[i])
		if err != nil {
			return nil, err
		}
		note, keep := r.probe(ctx, &t, &tools[i])
		if !keep {
			left = append(left, fmt.Sprintf("%s: %s", t.Call, note))
			res.Notes = append(res.Notes, fmt.Sprintf("left out %q: %s", t.Call, note))
			continue
		}
		if note != "" {
			comments[len(f.Tests)] = note
			res.Notes = append(res.Notes, fmt.Sprintf("%s: %s", t.Name, note))
		}
		f.Tests = append(f.Tests, t)
	}
	// The tool list last: the probe lists nothing, and the snapshot is of
	// the list as the test will see it.
	if _, msg := r.step(ctx, &f.Tests[0], true); msg != "" {
		return nil, fmt.Errorf("the snapshot of the tool list: %s", msg)
	}
	res.Tests = len(f.Tests) - 1
	if res.File, err = encodeStarter(f, comments, left); err != nil {
		return nil, err
	}
	return res, nil
}

// smokeTest is a call of tool with its example arguments.
func smokeTest(tool *client.Tool) (Test, error) {
	args, err := ExampleArguments(tool.InputSchema)
	if err != nil {
		return Test{}, fmt.Errorf("tool %q: %w", tool.Name, err)
	}
	if len(args) == 0 {
		args = nil
	}
	return Test{Name: tool.Name + " smoke", Call: tool.Name, Args: args}, nil
}

// probe runs the smoke test t once and sets its expectations to what the
// server did; note says what was set, or why the test is left out (keep
// false).
func (r *fileRun) probe(ctx context.Context, t *Test, tool *client.Tool) (note string, keep bool) {
	out, err := r.do(ctx, t)
	var rpc *client.RPCError
	switch {
	case errors.As(err, &rpc):
		t.Expect.Error = &ExpectError{Code: rpc.Code}
		note = fmt.Sprintf("with these arguments the server answers JSON-RPC error %d (%s)", rpc.Code, truncate(firstLine(rpc.Message), 120))
		return note, true
	case err != nil:
		return fmt.Sprintf("calling it with example arguments failed: %s", truncate(firstLine(err.Error()), 200)), false
	}
	var notes []string
	if out.isError {
		yes := true
		t.Expect.IsError = &yes
		notes = append(notes, fmt.Sprintf("with these arguments the tool reports an error (isError: true): %q", truncate(firstLine(out.text), 120)))
	}
	if len(tool.OutputSchema) > 0 && len(r.check(t, out, true)) > 0 {
		no := false
		t.Expect.OutputSchema = &no
		notes = append(notes, "its result breaks its outputSchema, which is not checked (outputSchema: false)")
	}
	if problems := r.check(t, out, true); len(problems) > 0 {
		return "its result fails the smoke test: " + truncate(firstLine(problems[0]), 200), false
	}
	if len(notes) > 0 {
		note = strings.Join(notes, "; ") + "; edit the arguments"
	}
	return note, true
}

// encodeStarter writes f as YAML under a header, with comments[i] above
// test i and the tools left out listed at the end.
func encodeStarter(f *File, comments map[int]string, left []string) ([]byte, error) {
	var doc yaml.Node
	if err := doc.Encode(f); err != nil {
		return nil, err
	}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		if doc.Content[i].Value != "tests" {
			continue
		}
		tests := doc.Content[i+1]
		for j, c := range comments {
			if j < len(tests.Content) {
				tests.Content[j].HeadComment = c
			}
		}
	}
	var b bytes.Buffer
	b.WriteString("# Written by mcpctl test --init: a snapshot of the tool list and a smoke\n" +
		"# test per tool with example arguments made from its inputSchema, each\n" +
		"# run once and written to pass against the server as it was. Edit the\n" +
		"# arguments and add expectations (docs/testing.md); mcpctl test --update\n" +
		"# rewrites the snapshot.\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	if len(left) > 0 {
		b.WriteString("# Left out, their smoke test could not pass:\n")
		for _, l := range left {
			b.WriteString("#   " + strings.ReplaceAll(l, "\n", " ") + "\n")
		}
	}
	return b.Bytes(), nil
}

// ExampleArguments are minimal arguments valid for an inputSchema, as far
// as a simple reading of it goes: required properties only, each the
// schema's const, default, first enum value or first example, else the
// least value of its type within the declared bounds (minimum, minLength,
// minItems, format). An empty or absent schema gives none.
func ExampleArguments(inputSchema json.RawMessage) (map[string]any, error) {
	var sch map[string]any
	if len(inputSchema) > 0 {
		if err := json.Unmarshal(inputSchema, &sch); err != nil {
			return nil, fmt.Errorf("the inputSchema: %w", err)
		}
	}
	args, _ := example(sch, 0).(map[string]any)
	if args == nil {
		args = map[string]any{}
	}
	return args, nil
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
