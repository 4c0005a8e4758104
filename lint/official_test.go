package lint

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/internal/defectserver"
	"github.com/mcpctl/mcpctl/schema"
)

// The tests in this file check lint's verdicts against the official JSON
// Schemas of the MCP specification, embedded in mcpctl (schema.OfficialSchema;
// a test of package schema checks them against the specification's copies).

// officialViolations checks raw against the official definition def of
// version.
func officialViolations(t *testing.T, c *schema.Checker, version, def string, raw json.RawMessage) []schema.Violation {
	t.Helper()
	vs, err := c.CheckDefinition(version, def, raw)
	if err != nil {
		t.Fatalf("checking a %s of %s: %v", def, version, err)
	}
	return vs
}

// schemaRules are the rules whose findings the official schema expresses
// too, by definition; every other rule checks what the schema cannot say.
func schemaRules(def, version string) []string {
	switch def {
	case "Tool":
		rules := []string{MessageSchema, InputSchemaNotObject}
		if version >= "2025-06-18" {
			rules = append(rules, OutputSchemaNotObject)
		}
		return rules
	case "Resource":
		return []string{MessageSchema, ResourceURIInvalid} // "uri" has format "uri"
	}
	return []string{MessageSchema}
}

// TestDefectServerAgainstOfficialSchema checks, for every message the
// defect server sends at every protocol version, that lint flags it (with a
// rule the schema expresses) exactly when the official schema of that
// version rejects it; so each seeded message-schema defect is also one by
// the official definition.
func TestDefectServerAgainstOfficialSchema(t *testing.T) {
	official := new(schema.Checker)
	for _, version := range schema.OfficialVersions() {
		if client.IsModern(version) {
			// The defect server speaks the legacy era only (initialize);
			// lint of modern servers is its own work (issue 13).
			continue
		}
		t.Run(version, func(t *testing.T) {
			init, rpcErr := defectserver.Server{}.Handle("initialize", json.RawMessage(`{"protocolVersion": "`+version+`"}`))
			if rpcErr != nil {
				t.Fatal(rpcErr)
			}
			s, err := Collect(context.Background(), handlerCaller{}, init, Options{})
			if err != nil {
				t.Fatal(err)
			}
			findings := Check(s)
			flagged := func(subject string, rules []string) bool {
				return slices.ContainsFunc(findings, func(f Finding) bool {
					return f.Subject == subject && slices.Contains(rules, f.RuleID)
				})
			}
			type message struct {
				def, subject string
				raw          json.RawMessage
			}
			msgs := []message{{"InitializeResult", "initialize", s.Initialize}}
			for _, l := range s.Lists {
				key := ""
				for _, m := range client.ListMethods() {
					if m.Method == l.Method {
						key = m.Key
					}
				}
				def := itemDefs[key]
				n := 0
				for _, p := range l.Pages {
					var res map[string]json.RawMessage
					var items []json.RawMessage
					if err := json.Unmarshal(p.Result, &res); err != nil {
						t.Fatal(err)
					}
					if err := json.Unmarshal(res[key], &items); err != nil {
						t.Fatal(err)
					}
					for _, raw := range items {
						n++
						msgs = append(msgs, message{def, subjectOf(def, raw, n), raw})
					}
				}
			}
			rejected := 0
			for _, m := range msgs {
				violations := officialViolations(t, official, version, m.def, m.raw)
				officialRejects := len(violations) > 0
				if officialRejects {
					rejected++
				}
				if lintFlags := flagged(m.subject, schemaRules(m.def, version)); lintFlags != officialRejects {
					t.Errorf("%s %s: lint flags it: %v; the official schema rejects it: %v %v", m.def, m.subject, lintFlags, officialRejects, violations)
				}
			}
			t.Logf("the official schema rejects %d of %d messages, as lint does", rejected, len(msgs))
			if rejected == 0 {
				t.Error("the official schema rejected none of the defect server's messages")
			}
		})
	}
}

// itemDefs names the official definition of the items of each list.
var itemDefs = map[string]string{
	"tools":             "Tool",
	"resources":         "Resource",
	"resourceTemplates": "ResourceTemplate",
	"prompts":           "Prompt",
}

// subjectOf is the subject lint gives a list item.
func subjectOf(def string, raw json.RawMessage, index int) string {
	kind, key := map[string]string{"Tool": "tool", "Resource": "resource", "ResourceTemplate": "template", "Prompt": "prompt"}[def], "name"
	if def == "Resource" {
		key = "uri"
	}
	var m map[string]json.RawMessage
	_ = json.Unmarshal(raw, &m)
	if name := stringField(m, key); name != "" {
		return fmt.Sprintf("%s %q", kind, name)
	}
	return fmt.Sprintf("%s #%d", kind, index)
}

// handlerCaller calls the defect server's handler in-process.
type handlerCaller struct{}

func (handlerCaller) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	res, rpcErr := defectserver.Server{}.Handle(method, p)
	if rpcErr != nil {
		return nil, &client.RPCError{Code: rpcErr.Code, Message: rpcErr.Message}
	}
	return res, nil
}

// TestMessageChecksAgainstOfficialSchema checks lint's message-schema
// verdict on single messages, and the official schema's, against the
// verdict expected.
func TestMessageChecksAgainstOfficialSchema(t *testing.T) {
	tests := []struct {
		version, def, msg string
		invalid           bool
	}{
		{"2025-11-25", "Tool", `{"name": "t", "inputSchema": {"type": "object"}}`, false},
		{"2025-11-25", "Tool", `{"name": "t"}`, true},
		{"2025-11-25", "Tool", `{"inputSchema": {"type": "object"}}`, true},
		{"2025-11-25", "Tool", `{"name": 1, "inputSchema": {"type": "object"}}`, true},
		{"2025-11-25", "Tool", `{"name": "t", "inputSchema": null}`, true},
		{"2025-11-25", "Tool", `{"name": "t", "inputSchema": {"type": "object"}, "description": 5}`, true},
		{"2025-11-25", "Tool", `{"name": "t", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": "yes"}}`, true},
		{"2025-11-25", "Tool", `{"name": "t", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "sometimes"}}`, true},
		{"2025-11-25", "Tool", `{"name": "t", "inputSchema": {"type": "object"}, "icons": [{"mimeType": "image/png"}]}`, true},
		{"2025-11-25", "Tool", `{"name": "t", "inputSchema": {"type": "object"}, "icons": [{"src": "https://x/i.png", "theme": "blue"}]}`, true},
		{"2025-11-25", "Tool", `{"name": "t", "inputSchema": {"type": "object"}, "_meta": []}`, true},
		{"2025-06-18", "Tool", `{"name": "t", "inputSchema": {"type": "object"}, "title": 1}`, true},
		{"2024-11-05", "Tool", `{"name": "t", "inputSchema": {"type": "object"}, "title": 1}`, false},
		{"2025-11-25", "Resource", `{"uri": "a:b", "name": "n", "size": 3}`, false},
		{"2025-11-25", "Resource", `{"uri": "a:b", "name": "n", "size": 1.5}`, true},
		{"2025-11-25", "Resource", `{"uri": "a:b"}`, true},
		{"2025-11-25", "Resource", `{"uri": "a:b", "name": "n", "annotations": {"priority": 2}}`, true},
		{"2025-11-25", "Resource", `{"uri": "a:b", "name": "n", "annotations": {"audience": ["model"]}}`, true},
		{"2025-11-25", "ResourceTemplate", `{"name": "t"}`, true},
		{"2025-11-25", "ResourceTemplate", `{"uriTemplate": "a:{b}", "name": "t", "mimeType": 1}`, true},
		{"2025-11-25", "Prompt", `{"name": "p", "arguments": [{"name": "a", "required": true}]}`, false},
		{"2025-11-25", "Prompt", `{"name": "p", "arguments": [{"description": "x"}]}`, true},
		{"2025-11-25", "Prompt", `{"name": "p", "arguments": [{"name": "a", "required": "yes"}]}`, true},
		{"2025-11-25", "Prompt", `{"name": "p", "arguments": {}}`, true},
		{"2025-11-25", "InitializeResult", `{"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}`, false},
		{"2025-11-25", "InitializeResult", `{"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s"}}`, true},
		{"2025-11-25", "InitializeResult", `{"protocolVersion": "2025-11-25", "serverInfo": {"name": "s", "version": "1"}}`, true},
		{"2025-11-25", "InitializeResult", `{"protocolVersion": "2025-11-25", "capabilities": {"logging": true}, "serverInfo": {"name": "s", "version": "1"}}`, true},
		{"2025-11-25", "InitializeResult", `{"protocolVersion": "2025-11-25", "capabilities": {"tools": {"listChanged": "yes"}}, "serverInfo": {"name": "s", "version": "1"}}`, true},
		{"2025-11-25", "InitializeResult", `{"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}, "instructions": 3}`, true},
	}
	official := new(schema.Checker)
	for _, tt := range tests {
		t.Run(tt.version+" "+tt.def+" "+tt.msg, func(t *testing.T) {
			c := &checker{version: tt.version, official: official}
			c.shape(json.RawMessage(tt.msg), tt.def, "x", "")
			violations := officialViolations(t, official, tt.version, tt.def, json.RawMessage(tt.msg))
			if got := len(c.findings) > 0; got != tt.invalid {
				t.Errorf("lint finds it invalid: %v, want %v (%v)", got, tt.invalid, c.findings)
			}
			if got := len(violations) > 0; got != tt.invalid {
				t.Errorf("the official schema finds it invalid: %v, want %v (%v)", got, tt.invalid, violations)
			}
		})
	}
}
