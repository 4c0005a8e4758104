package testrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/schema"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"no tests", "server: {name: x}\n", "no tests"},
		{"no name", "tests:\n  - call: echo\n", "test 1 has no name"},
		{"two kinds", "tests:\n  - name: a\n    call: echo\n    read: x://y\n", "exactly one of"},
		{"bad list", "tests:\n  - name: a\n    list: things\n", "none of tools"},
		{"same name", "tests:\n  - {name: a, list: tools}\n  - {name: a, list: tools}\n", "two tests are named"},
		{"unknown key", "tests:\n  - name: a\n    list: tools\n    expect: {txt: x}\n", "field txt not found"},
		{"schema twice", "tests:\n  - name: a\n    list: tools\n    expect: {schema: {}, schemaFile: f}\n", "not both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("t.mcptest.yaml", []byte(tt.yaml))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Parse: got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestParse(t *testing.T) {
	f, err := Parse("t.mcptest.yaml", []byte(`
server: {command: [python3, s.py], env: {A: b}, era: legacy}
tests:
  - name: add
    call: add
    args: {a: "2", b: 3}
    expect: {text: "5", isError: false, error: {code: -32602, message: m}, maxMs: 10}
    capture: {x: .a}
`))
	if err != nil {
		t.Fatal(err)
	}
	five, no := "5", false
	want := &File{Path: "t.mcptest.yaml",
		Server: &Server{Command: []string{"python3", "s.py"}, Env: map[string]string{"A": "b"}, Era: "legacy"},
		Tests: []Test{{Name: "add", Call: "add", Args: map[string]any{"a": "2", "b": 3},
			Expect:  Expect{Text: &five, IsError: &no, Error: &ExpectError{Code: -32602, Message: "m"}, MaxMS: 10},
			Capture: map[string]string{"x": ".a"}}}}
	if d := cmp.Diff(want, f); d != "" {
		t.Fatalf("Parse (-want +got):\n%s", d)
	}
}

func TestExample(t *testing.T) {
	tests := []struct {
		schema string
		want   any
	}{
		{`{"type":"object","properties":{"a":{"type":"integer","minimum":3},"b":{"type":"string"}},"required":["a"]}`, map[string]any{"a": int64(3)}},
		{`{"type":"string","enum":["x","y"]}`, "x"},
		{`{"type":"string","format":"email"}`, "user@example.com"},
		{`{"type":"string","format":"date-time"}`, "2026-01-01T00:00:00Z"},
		{`{"type":"string","minLength":10}`, "examplexxx"},
		{`{"type":"number","maximum":0.5}`, 0.5},
		{`{"type":"number","exclusiveMinimum":4}`, 5.0},
		{`{"type":"boolean"}`, true},
		{`{"type":"array","minItems":2,"items":{"type":"integer"}}`, []any{int64(1), int64(1)}},
		{`{"anyOf":[{"type":"boolean"},{"type":"string"}]}`, true},
		{`{"type":"integer","default":7}`, float64(7)},
	}
	for _, tt := range tests {
		var s map[string]any
		if err := json.Unmarshal([]byte(tt.schema), &s); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tt.want, example(s, 0)); d != "" {
			t.Errorf("example(%s) (-want +got):\n%s", tt.schema, d)
		}
	}
}

func TestPercentile(t *testing.T) {
	ds := []time.Duration{5, 1, 4, 2, 3, 6, 7, 8, 9, 10}
	for _, tt := range []struct {
		p    int
		want time.Duration
	}{{50, 5}, {95, 10}, {10, 1}, {100, 10}} {
		if got := percentile(ds, tt.p); got != tt.want {
			t.Errorf("percentile(%d) = %d, want %d", tt.p, got, tt.want)
		}
	}
}

func TestCheckJQ(t *testing.T) {
	raw := []byte(`{"structuredContent":{"sum":5}}`)
	for _, tt := range []struct{ expr, want string }{
		{".structuredContent.sum == 5", ""},
		{".structuredContent.sum == 6", "expected .structuredContent.sum == 6 to be truthy, got false"},
		{".nothing", "got null"},
		{".[", "invalid jq expression"},
	} {
		got := checkJQ(tt.expr, raw)
		if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
			t.Errorf("checkJQ(%q) = %q, want %q", tt.expr, got, tt.want)
		}
	}
}

func TestReports(t *testing.T) {
	results := []FileResult{
		{Path: "a.mcptest.yaml", Tests: []TestResult{
			{Name: "ok", Passed: true, Durations: []time.Duration{time.Millisecond}, MS: 1},
			{Name: "bad", Failure: "text: not as expected\n-x\n+y", Durations: []time.Duration{time.Millisecond}, MS: 1},
			{Name: "off", Passed: true, Skipped: true},
		}},
		{Path: "b.mcptest.yaml", Err: errors.New("connecting: no"), Error: "connecting: no"},
	}
	if s := Summarize(results); s != (Summary{Passed: 1, Failed: 1, Skipped: 1, Broken: 1}) {
		t.Errorf("Summarize = %+v", s)
	}
	var b bytes.Buffer
	if err := WriteJUnit(&b, results); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<testsuites tests="4" failures="1" errors="1">`, `<failure message="text: not as expected"`, `<skipped></skipped>`, `<testsuite name="b.mcptest.yaml"`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("JUnit lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := WriteText(&b, results, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"PASS\ta.mcptest.yaml\tok\t1ms\n", "FAIL\ta.mcptest.yaml\tbad\t", "SKIP\ta.mcptest.yaml\toff\t", "1 passed, 1 failed, 1 skipped, 1 file could not run\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := WriteText(&b, results, TextOptions{TTY: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "  ✓ ok (1ms)\n") || !strings.Contains(b.String(), "  ✗ bad (1ms)\n") {
		t.Errorf("TTY text:\n%s", b.String())
	}
	b.Reset()
	if err := WriteMarkdown(&b, results); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| ❌ | a.mcptest.yaml | bad |") {
		t.Errorf("Markdown:\n%s", b.String())
	}
	b.Reset()
	if err := WriteJSON(&b, results); err != nil {
		t.Fatal(err)
	}
	var doc JSONReport
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil || doc.Failed != 1 || doc.Files[1].Error != "connecting: no" {
		t.Errorf("JSON: %v\n%s", err, b.String())
	}
}

// TestFormatSchema checks that docs/mcptest.schema.json accepts what Parse
// accepts and rejects what it rejects.
func TestFormatSchema(t *testing.T) {
	doc, err := os.ReadFile("../docs/mcptest.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	sch, err := schema.Compile(doc)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		yaml string
		ok   bool
	}{
		{"server: {command: [a], era: legacy}\ntests:\n  - {name: a, call: add, args: {a: 1}, expect: {text: '3', jq: '.', maxMs: 5, error: {code: 1}}, capture: {x: .a}}\n", true},
		{"tests:\n  - {name: a, list: tools, expect: {snapshot: true, outputSchema: false}}\n", true},
		{"tests:\n  - {name: a, call: s, expect: {notifications: {progress: true, log: {level: info, contains: x}}}}\n", true},
		{"tests:\n  - {name: a, call: s, expect: {notifications: {log: {level: loud}}}}\n", false},
		{"tests:\n  - {name: a, call: x, list: tools}\n", false},
		{"tests:\n  - {name: a, list: things}\n", false},
		{"tests:\n  - {name: a, list: tools, expect: {txt: x}}\n", false},
	}
	for _, tt := range tests {
		var v any
		if err := yaml.Unmarshal([]byte(tt.yaml), &v); err != nil {
			t.Fatal(err)
		}
		_, parseErr := Parse("t", []byte(tt.yaml))
		violations := sch.Validate(v)
		if (parseErr == nil) != tt.ok || (len(violations) == 0) != tt.ok {
			t.Errorf("%q: Parse error %v, schema violations %v; want ok=%t", tt.yaml, parseErr, violations, tt.ok)
		}
	}
}

func TestCheckNotifications(t *testing.T) {
	notes := []client.Notification{
		{Method: "notifications/progress", Progress: &client.Progress{}},
		{Method: "notifications/message", Log: &client.LoggingMessage{Level: "info", Data: json.RawMessage(`"hello there"`)}},
	}
	for _, tt := range []struct {
		e    ExpectNotifications
		want string
	}{
		{ExpectNotifications{Progress: true}, ""},
		{ExpectNotifications{Log: &ExpectLog{Contains: "hello"}}, ""},
		{ExpectNotifications{Log: &ExpectLog{Level: "info", Contains: "there"}}, ""},
		{ExpectNotifications{Log: &ExpectLog{Level: "warning"}}, "at warning or above, got none"},
		{ExpectNotifications{Log: &ExpectLog{Contains: "bye"}}, "containing \"bye\", got:\n  info: hello there"},
	} {
		got := strings.Join(checkNotifications(&tt.e, notes), "\n")
		if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
			t.Errorf("checkNotifications(%+v) = %q, want %q", tt.e, got, tt.want)
		}
	}
	if got := checkNotifications(&ExpectNotifications{Progress: true}, nil); len(got) != 1 {
		t.Errorf("no progress: %q", got)
	}
}
