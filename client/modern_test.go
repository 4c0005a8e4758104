package client

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestHeaderValue(t *testing.T) {
	// The examples of 2026-07-28 streamable-http, "Value encoding".
	tests := []struct{ in, want string }{
		{"get_weather", "get_weather"},
		{"file:///projects/myapp/config.json", "file:///projects/myapp/config.json"},
		{"a b\tc", "a b\tc"},
		{"Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="},
		{" padded ", "=?base64?IHBhZGRlZCA=?="},
		{"line1\nline2", "=?base64?bGluZTEKbGluZTI=?="},
		{"=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="},
		{"=?base64?", "=?base64?"}, // not the whole pattern: plain
	}
	for _, tt := range tests {
		if got := headerValue(tt.in); got != tt.want {
			t.Errorf("headerValue(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestModernHeaders(t *testing.T) {
	tests := []struct {
		method, params, name string
	}{
		{"tools/call", `{"name":"add","arguments":{}}`, "add"},
		{"prompts/get", `{"name":"review"}`, "review"},
		{"resources/read", `{"uri":"demo://readme"}`, "demo://readme"},
		{"tools/list", `{"cursor":"x"}`, ""},
		{"tools/call", `{"name":42}`, ""},
	}
	for _, tt := range tests {
		h := modernHeaders(tt.method, json.RawMessage(tt.params))
		if got := h.Get("Mcp-Method"); got != tt.method {
			t.Errorf("%s: Mcp-Method %q", tt.method, got)
		}
		if got := h.Get("Mcp-Name"); got != tt.name {
			t.Errorf("%s %s: Mcp-Name %q, want %q", tt.method, tt.params, got, tt.name)
		}
	}
}

func TestWithMeta(t *testing.T) {
	c := &Client{wire: ModernProtocolVersion, opts: Options{ProtocolVersion: ModernProtocolVersion, ClientInfo: Implementation{Name: "mcpctl", Version: "1"}}}
	const era = `"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcpctl","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"`
	tests := []struct{ name, in, want string }{
		{"no params", ``, `{"_meta":{` + era + `}}`},
		{"null", `null`, `{"_meta":{` + era + `}}`},
		{"empty object", `{}`, `{"_meta":{` + era + `}}`},
		// The arguments keep their bytes (spacing, key order, number
		// forms), so a signature over them still holds.
		{"arguments kept", `{"name":"add","arguments":{"b": 3, "a":2.50}}`, `{"_meta":{` + era + `},"name":"add","arguments":{"b": 3, "a":2.50}}`},
		{"caller meta merged", `{"_meta":{"progressToken":"p1"},"name":"t"}`, `{"_meta":{` + era + `,"progressToken":"p1"},"name":"t"}`},
	}
	for _, tt := range tests {
		got, err := c.withMeta(json.RawMessage(tt.in))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if string(got) != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
	if _, err := c.withMeta(json.RawMessage(`[1]`)); err == nil {
		t.Error("params that are an array: no error")
	}
}

func TestCheckResultType(t *testing.T) {
	for _, ok := range []string{`{}`, `{"resultType":"complete","content":[]}`, `"odd"`} {
		if err := checkResultType("tools/call", json.RawMessage(ok)); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	err := checkResultType("tools/call", json.RawMessage(`{"resultType":"input_required","requestState":"s"}`))
	if err == nil || !strings.Contains(err.Error(), "input_required") {
		t.Errorf("input_required: %v", err)
	}
	if err := checkResultType("tools/call", json.RawMessage(`{"resultType":"later"}`)); err == nil || !strings.Contains(err.Error(), `unknown resultType "later"`) {
		t.Errorf("unknown resultType: %v", err)
	}
}

func TestIsModern(t *testing.T) {
	for v, want := range map[string]bool{"2024-11-05": false, "2025-11-25": false, "2026-07-28": true, "2027-01-01": true} {
		if IsModern(v) != want {
			t.Errorf("IsModern(%s) != %v", v, want)
		}
	}
}

// TestWithMetaKeepsArgumentBytes checks that merging _meta into params that
// already have one does not rewrite the arguments (no HTML escaping of <,
// > and &): a signature over them must still hold.
func TestWithMetaKeepsArgumentBytes(t *testing.T) {
	c := &Client{wire: ModernProtocolVersion, opts: Options{ProtocolVersion: ModernProtocolVersion, ClientInfo: Implementation{Name: "m", Version: "1"}}}
	const args = `{"q":"a<b && c>d"}`
	got, err := c.withMeta(json.RawMessage(`{"_meta":{"progressToken":"p"},"name":"t","arguments":` + args + `}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), `"arguments":`+args) {
		t.Errorf("arguments changed: %s", got)
	}
}

func TestWithInputResponses(t *testing.T) {
	answers := map[string]json.RawMessage{"confirm": json.RawMessage(`{"action":"accept","content":{"confirmed":true}}`)}
	state := json.RawMessage(`"{\"nonce\":\"a&b<c\"}"`)
	got, err := withInputResponses(json.RawMessage(`{"name":"t","arguments":{"x":1},"requestState":"old","inputResponses":{"k":{}}}`), answers, state)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"arguments":{"x":1},"inputResponses":{"confirm":{"action":"accept","content":{"confirmed":true}}},"name":"t","requestState":"{\"nonce\":\"a&b<c\"}"}`
	if string(got) != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	// No state from the server: none sent back.
	got, err = withInputResponses(json.RawMessage(`{"name":"t","requestState":"old"}`), answers, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(got), "requestState") {
		t.Errorf("requestState kept: %s", got)
	}
}
