package lint

import (
	"encoding/json"
	"testing"

	"github.com/mcpctl/mcpctl/client"
)

// TestParamHeadersAgreeWithClient checks that lint flags an inputSchema's
// x-mcp-header annotations exactly when the client rejects them (and so
// excludes the tool): the rules are written twice, on purpose, and must
// not drift apart.
func TestParamHeadersAgreeWithClient(t *testing.T) {
	for _, s := range headerSchemas {
		agree(t, s)
	}
}

// FuzzParamHeadersAgreeWithClient looks for an inputSchema on which lint
// and the client disagree.
func FuzzParamHeadersAgreeWithClient(f *testing.F) {
	for _, s := range headerSchemas {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { agree(t, s) })
}

// agree checks that lint flags the x-mcp-header annotations of an
// inputSchema exactly when the client rejects them.
func agree(t *testing.T, s string) {
	t.Helper()
	if !json.Valid([]byte(s)) {
		// The client refuses a tool it cannot read; lint leaves that to
		// message-schema.
		return
	}
	problems := paramHeaderProblems(json.RawMessage(s))
	_, err := client.ToolParamHeaders(json.RawMessage(s))
	if lintFlags, clientRejects := len(problems) > 0, err != nil; lintFlags != clientRejects {
		t.Errorf("%s:\nlint flags it: %v %v\nthe client rejects it: %v (%v)", s, lintFlags, problems, clientRejects, err)
	}
}

// headerSchemas are inputSchemas with x-mcp-header annotations, valid and
// not.
var headerSchemas = []string{
	`{"type": "object"}`,
	`{"type": "object", "properties": {"a": {"type": "string"}}}`,
	`{"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "A"}}}`,
	`{"type": "object", "properties": {"a": {"type": "integer", "x-mcp-header": "A"}, "b": {"type": "boolean", "x-mcp-header": "B"}}}`,
	`{"type": "object", "properties": {"o": {"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "A"}}}}}`,
	`{"type": "object", "properties": {"properties": {"type": "string", "x-mcp-header": "P"}}}`,
	`{"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "!#$%&'*+-.^_|~09az"}}}`,
	"{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"string\", \"x-mcp-header\": \"a`b\"}}}",
	`{"type": "object", "properties": {"a": {"type": "string", "default": {"x-mcp-header": 1}, "examples": [{"x-mcp-header": ""}]}}}`,
	`{"type": "object", "properties": {"a": {"const": {"x-mcp-header": "A B"}, "enum": [{"x-mcp-header": "A B"}]}}}`,
	`{"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "A B"}}}`,
	`{"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "A:B"}}}`,
	`{"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "A\r\nB"}}}`,
	`{"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "Ä"}}}`,
	`{"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": ""}}}`,
	`{"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": null}}}`,
	`{"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": ["A"]}}}`,
	`{"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "A"}, "b": {"type": "string", "x-mcp-header": "a"}}}`,
	`{"type": "object", "properties": {"a": {"type": "number", "x-mcp-header": "A"}}}`,
	`{"type": "object", "properties": {"a": {"type": "array", "x-mcp-header": "A"}}}`,
	`{"type": "object", "properties": {"a": {"type": "null", "x-mcp-header": "A"}}}`,
	`{"type": "object", "properties": {"a": {"x-mcp-header": "A"}}}`,
	`{"type": "object", "properties": {"a": {"type": ["string"], "x-mcp-header": "A"}}}`,
	`{"type": "object", "x-mcp-header": "A"}`,
	`{"type": "object", "properties": {"l": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}}`,
	`{"type": "object", "properties": {"l": {"type": "array", "prefixItems": [{"type": "string", "x-mcp-header": "A"}]}}}`,
	`{"type": "object", "oneOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}`,
	`{"type": "object", "allOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}`,
	`{"type": "object", "not": {"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}}`,
	`{"type": "object", "if": {"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}}`,
	`{"type": "object", "else": {"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}}`,
	`{"type": "object", "$defs": {"A": {"type": "string", "x-mcp-header": "A"}}}`,
	`{"type": "object", "definitions": {"A": {"type": "string", "x-mcp-header": "A"}}}`,
	`{"type": "object", "additionalProperties": {"type": "string", "x-mcp-header": "A"}}`,
	`{"type": "object", "patternProperties": {"^a": {"type": "string", "x-mcp-header": "A"}}}`,
	`{"type": "object", "properties": {"a": [{"type": "string", "x-mcp-header": "A"}]}}`,
	`{"type": "object", "properties": {"o": {"properties": {"a": {"type": "string", "x-mcp-header": "A"}}, "items": {"properties": {"b": {"type": "string", "x-mcp-header": "a"}}}}}}`,
	`{"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "A"}}, "$defs": {"B": {"type": "string", "x-mcp-header": "B"}}}`,
	`{"type": "object", "properties": 5}`,
	`not json`,
}
