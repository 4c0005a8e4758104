package testrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/itchyny/gojq"
	"github.com/mcpctl/mcpctl/internal/linediff"
)

// snapshotDir is the folder, next to a test file, that holds its golden
// files.
const snapshotDir = "__snapshots__"

// check returns what does not hold of t's expectations on out.
func (r *fileRun) check(t *Test, out *outcome, first bool) []string {
	e := t.Expect
	var problems []string
	add := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }

	if e.Error != nil {
		if out.rpcErr == nil {
			add("error: expected a JSON-RPC error%s, got a result:\n%s", describeError(e.Error), indent(pretty(out.raw)))
			return problems
		}
		if e.Error.Code != 0 && out.rpcErr.Code != e.Error.Code {
			add("error.code: expected %d, got %d (%s)", e.Error.Code, out.rpcErr.Code, out.rpcErr.Message)
		}
		if msg := r.expand(e.Error.Message); msg != "" && !strings.Contains(out.rpcErr.Message, msg) {
			add("error.message: expected it to contain %q, got %q", msg, out.rpcErr.Message)
		}
		return problems
	}
	if out.rpcErr != nil {
		add("expected a result, got JSON-RPC error %d: %s", out.rpcErr.Code, out.rpcErr.Message)
		return problems
	}
	wantIsError := e.IsError != nil && *e.IsError
	if out.isError != wantIsError {
		add("isError: expected %t, got %t (text: %q)", wantIsError, out.isError, truncate(out.text, 300))
	}
	if e.Text != nil {
		if want := r.expand(*e.Text); out.text != want {
			add("text: not as expected\n%s", indent(linediff.Unified("expected", want, "actual", out.text)))
		}
	}
	if e.Contains != "" {
		if want := r.expand(e.Contains); !strings.Contains(out.text, want) {
			add("contains: expected the text to contain %q, got:\n%s", want, indent(out.text))
		}
	}
	if e.Matches != "" {
		re, err := regexp.Compile(r.expand(e.Matches))
		switch {
		case err != nil:
			add("matches: %v", err)
		case !re.MatchString(out.text):
			add("matches: expected the text to match %s, got:\n%s", re, indent(out.text))
		}
	}
	if e.JQ != "" {
		if msg := checkJQ(e.JQ, out.raw); msg != "" {
			problems = append(problems, msg)
		}
	}
	if e.Schema != nil || e.SchemaFile != "" {
		if msg := r.checkSchema(e, out.raw); msg != "" {
			problems = append(problems, msg)
		}
	}
	if out.tool != nil && len(out.tool.OutputSchema) > 0 && (e.OutputSchema == nil || *e.OutputSchema) && !out.isError {
		if msg := r.validateStructured("outputSchema (the tool's)", out.tool.OutputSchema, out.raw); msg != "" {
			problems = append(problems, msg)
		}
	} else if e.OutputSchema != nil && *e.OutputSchema && (out.tool == nil || len(out.tool.OutputSchema) == 0) {
		add("outputSchema: expected the tool to declare an outputSchema; it declares none")
	}
	if e.Snapshot && first {
		if msg := r.checkSnapshot(t, out.raw); msg != "" {
			problems = append(problems, msg)
		}
	}
	return problems
}

func describeError(e *ExpectError) string {
	var parts []string
	if e.Code != 0 {
		parts = append(parts, fmt.Sprintf("code %d", e.Code))
	}
	if e.Message != "" {
		parts = append(parts, fmt.Sprintf("message containing %q", e.Message))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// decode reads JSON as gojq wants it: numbers as json.Number, so big
// integers stay exact.
func decode(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// runJQ returns the first value expr gives on raw.
func runJQ(expr string, raw []byte) (any, error) {
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, fmt.Errorf("invalid jq expression %q: %w", expr, err)
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return nil, fmt.Errorf("invalid jq expression %q: %w", expr, err)
	}
	in, err := decode(raw)
	if err != nil {
		return nil, fmt.Errorf("decoding the result: %w", err)
	}
	v, ok := code.Run(in).Next()
	if !ok {
		return nil, fmt.Errorf("jq %s gave no value", expr)
	}
	if err, isErr := v.(error); isErr {
		return nil, fmt.Errorf("jq %s: %w", expr, err)
	}
	return v, nil
}

func checkJQ(expr string, raw []byte) string {
	v, err := runJQ(expr, raw)
	if err != nil {
		return "jq: " + err.Error()
	}
	if v == nil || v == false {
		return fmt.Sprintf("jq: expected %s to be truthy, got %s, on the result:\n%s", expr, jqString(v), indent(pretty(raw)))
	}
	return ""
}

func jqString(v any) string {
	b, err := gojq.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// captureValue is a capture's value: a string as it is, anything else as
// JSON.
func captureValue(expr string, raw []byte) (string, error) {
	v, err := runJQ(expr, raw)
	if err != nil {
		return "", err
	}
	if s, ok := v.(string); ok {
		return s, nil
	}
	return jqString(v), nil
}

// structured returns the result's structuredContent, or nil.
func structured(raw []byte) json.RawMessage {
	var r struct {
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if json.Unmarshal(raw, &r) != nil || string(r.StructuredContent) == "null" {
		return nil
	}
	return r.StructuredContent
}

func (r *fileRun) checkSchema(e Expect, raw []byte) string {
	var doc []byte
	var err error
	where := "schema"
	if e.SchemaFile != "" {
		where = "schemaFile " + e.SchemaFile
		p := e.SchemaFile
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(r.file.Path), p)
		}
		doc, err = os.ReadFile(p)
		if err == nil && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			var v any
			if err = yamlUnmarshal(doc, &v); err == nil {
				doc, err = jsonValue(v)
			}
		}
	} else {
		doc, err = jsonValue(e.Schema)
	}
	if err != nil {
		return fmt.Sprintf("%s: %v", where, err)
	}
	return r.validateStructured(where, doc, raw)
}

func (r *fileRun) validateStructured(where string, doc, raw []byte) string {
	sch, err := r.schemas.Compile(doc)
	if err != nil {
		return fmt.Sprintf("%s: %v", where, err)
	}
	sc := structured(raw)
	if sc == nil {
		return where + ": the result has no structuredContent to validate"
	}
	violations, err := sch.ValidateJSON(sc)
	if err != nil {
		return fmt.Sprintf("%s: %v", where, err)
	}
	if len(violations) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: structuredContent breaks it:", where)
	for _, v := range violations {
		b.WriteString("\n  " + v.String())
	}
	b.WriteString("\n  structuredContent:\n" + indent(indent(pretty(sc))))
	return b.String()
}

// snapshotPath is the golden file of test t: __snapshots__/<file>/<test>.json
// next to the test file.
func (r *fileRun) snapshotPath(t *Test) string {
	base := strings.TrimSuffix(filepath.Base(r.file.Path), Suffix)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	return filepath.Join(filepath.Dir(r.file.Path), snapshotDir, base, slug(t.Name)+".json")
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func slug(name string) string {
	s := strings.Trim(unsafeChars.ReplaceAllString(name, "-"), "-")
	if s == "" {
		s = "test"
	}
	return s
}

// snapshotJSON is the snapshot form of a result: indented, keys sorted,
// without _meta (which carries timings and ids that change run to run).
func snapshotJSON(raw []byte) ([]byte, error) {
	v, err := decode(raw)
	if err != nil {
		return nil, err
	}
	if m, ok := v.(map[string]any); ok {
		delete(m, "_meta")
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

func (r *fileRun) checkSnapshot(t *Test, raw []byte) string {
	got, err := snapshotJSON(raw)
	if err != nil {
		return fmt.Sprintf("snapshot: %v", err)
	}
	p := r.snapshotPath(t)
	if r.update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Sprintf("snapshot: %v", err)
		}
		if err := os.WriteFile(p, got, 0o644); err != nil {
			return fmt.Sprintf("snapshot: %v", err)
		}
		return ""
	}
	want, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Sprintf("snapshot: %s does not exist (run mcpctl test --update to write it)", p)
	}
	if err != nil {
		return fmt.Sprintf("snapshot: %v", err)
	}
	if !bytes.Equal(want, got) {
		return fmt.Sprintf("snapshot: the result differs from %s (mcpctl test --update rewrites it)\n%s", p, indent(linediff.Unified("expected", string(want), "actual", string(got))))
	}
	return ""
}

func pretty(raw []byte) string {
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw)
	}
	return b.String()
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n  ")
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
