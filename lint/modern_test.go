package lint_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/lint"
)

// modern is what validate passes lint for a session of 2026-07-28.
var modern = lint.Options{Era: client.EraModern, ProtocolVersion: "2026-07-28"}

// goodDiscover declares every list capability, as a 2026-07-28 server
// answers server/discover.
const goodDiscover = `{"resultType": "complete", "ttlMs": 0, "cacheScope": "public",
	"supportedVersions": ["2026-07-28", "2025-11-25"],
	"capabilities": {"tools": {}, "resources": {}, "prompts": {}},
	"_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}}`

// modernPage is a one-page modern list result of items, with the fields
// the 2026-07-28 list results require; extra replaces resultType
// ("" leaves it out).
func modernPage(method, key, resultType string, items ...string) lint.List {
	fields := []string{`"ttlMs": 0`, `"cacheScope": "private"`, `"` + key + `": [` + strings.Join(items, ",") + `]`}
	if resultType != "" {
		fields = append(fields, `"resultType": `+resultType)
	}
	return lint.List{Method: method, Pages: []lint.Page{{Result: json.RawMessage("{" + strings.Join(fields, ", ") + "}")}}}
}

func modernTools(items ...string) lint.List {
	return modernPage("tools/list", "tools", `"complete"`, items...)
}

// modernLists are clean lists of every kind but those replaced.
func modernLists(replace ...lint.List) []lint.List {
	lists := []lint.List{
		modernTools(tool("t")),
		modernPage("resources/list", "resources", `"complete"`, `{"uri": "a:b", "name": "n"}`),
		modernPage("resources/templates/list", "resourceTemplates", `"complete"`),
		modernPage("prompts/list", "prompts", `"complete"`, `{"name": "p"}`),
	}
	for _, r := range replace {
		for i := range lists {
			if lists[i].Method == r.Method {
				lists[i] = r
			}
		}
	}
	return lists
}

// withSchema is a valid tool with the given inputSchema.
func withSchema(name, inputSchema string) string {
	return `{"name": ` + jsonString(name) + `, "description": "d", "inputSchema": ` + inputSchema + `}`
}

func TestCheckModern(t *testing.T) {
	tests := []struct {
		name     string
		discover string // default goodDiscover
		opts     *lint.Options
		lists    []lint.List
		want     []finding
		wantMsg  string
	}{
		{name: "clean", lists: modernLists(modernTools(tool("t"),
			withSchema("route", `{"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"},
				"n": {"type": "integer", "x-mcp-header": "N"}, "dry": {"type": "boolean", "x-mcp-header": "Dry-Run"},
				"tenant": {"type": "object", "properties": {"id": {"type": "string", "x-mcp-header": "Tenant-Id"}}},
				"properties": {"type": "string", "x-mcp-header": "P"},
				"odd": {"type": "string", "x-mcp-header": "!#$%&'*+-.^_|~09az"},
				"data": {"type": "object", "default": {"x-mcp-header": "not a schema"}, "enum": [{"x-mcp-header": 1}]}}}`)))},
		{name: "no lists at all", lists: nil},
		{name: "the version comes from the era when not given", opts: &lint.Options{Era: client.EraModern}, lists: modernLists()},

		// server/discover
		{name: "discover without resultType", discover: strings.Replace(goodDiscover, `"resultType": "complete", `, "", 1),
			want: []finding{e("result-type-missing", "server/discover")}, wantMsg: `must send "complete"`},
		{name: "discover input_required", discover: strings.Replace(goodDiscover, `"complete"`, `"input_required"`, 1),
			want: []finding{e("result-type-invalid", "server/discover")}, wantMsg: "server/discover must not answer"},
		{name: "discover without capabilities", discover: strings.Replace(goodDiscover, `"capabilities": {"tools": {}, "resources": {}, "prompts": {}},`, "", 1),
			lists: []lint.List{}, want: []finding{e("message-schema", "server/discover")}, wantMsg: "/capabilities: required by DiscoverResult (protocol 2026-07-28)\tschema/2026-07-28/schema.json#/$defs/DiscoverResult"},
		{name: "discover without supportedVersions", discover: strings.Replace(goodDiscover, `"supportedVersions": ["2026-07-28", "2025-11-25"],`, "", 1),
			lists: modernLists(), want: []finding{e("message-schema", "server/discover")}, wantMsg: "/supportedVersions: required"},
		{name: "discover with empty supportedVersions", discover: strings.Replace(goodDiscover, `["2026-07-28", "2025-11-25"]`, `[]`, 1),
			lists: modernLists(), want: []finding{e("discover-versions-invalid", "server/discover")}, wantMsg: "supportedVersions is empty"},
		{name: "discover without the version it answered in", discover: strings.Replace(goodDiscover, `["2026-07-28", "2025-11-25"]`, `["2025-11-25"]`, 1),
			lists: modernLists(), want: []finding{e("discover-versions-invalid", "server/discover")}, wantMsg: "supportedVersions [2025-11-25] does not list 2026-07-28"},
		{name: "discover with a version that is not a string", discover: strings.Replace(goodDiscover, `["2026-07-28", "2025-11-25"]`, `["2026-07-28", 5]`, 1),
			lists: modernLists(), want: []finding{e("message-schema", "server/discover")}},
		{name: "discover without serverInfo", discover: strings.Replace(goodDiscover, `"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}`, "", 1),
			lists: modernLists(), want: []finding{w("server-info-missing", "server/discover")}, wantMsg: `"io.modelcontextprotocol/serverInfo"`},
		{name: "discover without _meta", discover: strings.Replace(goodDiscover, `,
	"_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}`, "", 1),
			lists: modernLists(), want: []finding{w("server-info-missing", "server/discover")}},
		{name: "discover with serverInfo without a version", discover: strings.Replace(goodDiscover, `"name": "s", "version": "1"`, `"name": "s"`, 1),
			lists: modernLists(), want: []finding{e("message-schema", "server/discover")}, wantMsg: "/_meta/io.modelcontextprotocol~1serverInfo/version: required by Implementation"},
		{name: "discover not an object", discover: `[]`, lists: []lint.List{}, want: []finding{e("message-schema", "server/discover")}},
		{name: "capability undeclared names server/discover",
			discover: strings.Replace(goodDiscover, `"prompts": {}`, `"logging": {}`, 1), lists: modernLists(),
			want: []finding{e("capability-undeclared", `capability "prompts"`)}, wantMsg: `capability in server/discover`},

		// resultType on list pages
		{name: "list page without resultType", lists: modernLists(modernPage("prompts/list", "prompts", "", `{"name": "p"}`)),
			want: []finding{e("result-type-missing", "prompts/list")}},
		{name: "list page with an unknown resultType", lists: modernLists(modernPage("tools/list", "tools", `"partial"`, tool("t"))),
			want: []finding{e("result-type-invalid", "tools/list")}, wantMsg: `resultType "partial" is not one protocol 2026-07-28 defines`},
		{name: "list page with input_required", lists: modernLists(modernPage("resources/list", "resources", `"input_required"`)),
			want: []finding{e("result-type-invalid", "resources/list")}, wantMsg: "resources/list must not answer"},
		{name: "list page with resultType not a string", lists: modernLists(modernPage("tools/list", "tools", `1`, tool("t"))),
			want: []finding{e("result-type-invalid", "tools/list")}, wantMsg: "resultType is 1, not a string"},
		{name: "list page with resultType null", lists: modernLists(modernPage("tools/list", "tools", `null`, tool("t"))),
			want: []finding{e("result-type-invalid", "tools/list")}},
		{name: "every page is checked", lists: modernLists(lint.List{Method: "tools/list", Pages: []lint.Page{
			{Result: json.RawMessage(`{"resultType": "complete", "ttlMs": 0, "cacheScope": "public", "tools": [` + tool("a") + `], "nextCursor": "2"}`)},
			{Cursor: "2", Result: json.RawMessage(`{"ttlMs": 0, "cacheScope": "public", "tools": [` + tool("b") + `]}`)},
		}}), want: []finding{e("result-type-missing", "tools/list page 2")}},
		{name: "a modern list page without ttlMs", lists: modernLists(lint.List{Method: "tools/list", Pages: []lint.Page{
			{Result: json.RawMessage(`{"resultType": "complete", "cacheScope": "public", "tools": []}`)}}}),
			want: []finding{e("message-schema", "tools/list")}, wantMsg: "/ttlMs: required by ListToolsResult"},

		// x-mcp-header
		{name: "header name with a space", lists: modernLists(modernTools(withSchema("t", `{"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "A B"}}}`))),
			want: []finding{e("param-header-name-invalid", `tool "t"`)}, wantMsg: `x-mcp-header "A B" on property "a" (inputSchema/properties/a) has a space at offset 1`},
		{name: "header name with a newline", lists: modernLists(modernTools(withSchema("t", `{"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "A\nB"}}}`))),
			want: []finding{e("param-header-name-invalid", `tool "t"`)}, wantMsg: "a newline"},
		{name: "header name not ASCII", lists: modernLists(modernTools(withSchema("t", `{"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "Régión"}}}`))),
			want: []finding{e("param-header-name-invalid", `tool "t"`)}, wantMsg: `'é' at offset 1`},
		{name: "header name empty", lists: modernLists(modernTools(withSchema("t", `{"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": ""}}}`))),
			want: []finding{e("param-header-name-invalid", `tool "t"`)}, wantMsg: "is empty"},
		{name: "header name not a string", lists: modernLists(modernTools(withSchema("t", `{"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": true}}}`))),
			want: []finding{e("param-header-name-invalid", `tool "t"`)}, wantMsg: "is true, not a string"},
		{name: "header names equal ignoring case", lists: modernLists(modernTools(withSchema("t", `{"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "Region"}, "o": {"type": "object", "properties": {"b": {"type": "integer", "x-mcp-header": "REGION"}}}}}`))),
			want: []finding{e("param-header-duplicate", `tool "t"`)}, wantMsg: `x-mcp-header "REGION" on property "o.b" (inputSchema/properties/o/properties/b) repeats the one on property "a"`},
		{name: "header on a number", lists: modernLists(modernTools(withSchema("t", `{"type": "object", "properties": {"a": {"type": "number", "x-mcp-header": "A"}}}`))),
			want: []finding{e("param-header-type-invalid", `tool "t"`)}, wantMsg: `whose type is "number"`},
		{name: "header on an object", lists: modernLists(modernTools(withSchema("t", `{"type": "object", "properties": {"a": {"type": "object", "x-mcp-header": "A"}}}`))),
			want: []finding{e("param-header-type-invalid", `tool "t"`)}},
		{name: "header on a property without a type", lists: modernLists(modernTools(withSchema("t", `{"type": "object", "properties": {"a": {"x-mcp-header": "A"}}}`))),
			want: []finding{e("param-header-type-invalid", `tool "t"`)}, wantMsg: "whose type is not given"},
		{name: "header on a nullable string", lists: modernLists(modernTools(withSchema("t", `{"type": "object", "properties": {"a": {"type": ["string", "null"], "x-mcp-header": "A"}}}`))),
			want: []finding{e("param-header-type-invalid", `tool "t"`)}, wantMsg: `["string","null"]`},
		{name: "header at the root", lists: modernLists(modernTools(withSchema("t", `{"type": "object", "x-mcp-header": "A"}`))),
			want: []finding{e("param-header-unreachable", `tool "t"`)}, wantMsg: "is on the root of the inputSchema"},
		{name: "header under items", lists: modernLists(modernTools(withSchema("t", `{"type": "object", "properties": {"l": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}}`))),
			want: []finding{e("param-header-unreachable", `tool "t"`)}, wantMsg: `at inputSchema/properties/l/items is not on a property reached from the root through properties alone: the way passes through "items"`},
		{name: "header under anyOf", lists: modernLists(modernTools(withSchema("t", `{"type": "object", "anyOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}`))),
			want: []finding{e("param-header-unreachable", `tool "t"`)}, wantMsg: `passes through "anyOf"`},
		{name: "header under $defs", lists: modernLists(modernTools(withSchema("t", `{"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {"type": "string", "x-mcp-header": "A"}}}`))),
			want: []finding{e("param-header-unreachable", `tool "t"`)}, wantMsg: `passes through "$defs"`},
		{name: "header under if/then", lists: modernLists(modernTools(withSchema("t", `{"type": "object", "if": {"properties": {"a": {"const": 1}}}, "then": {"properties": {"b": {"type": "string", "x-mcp-header": "B"}}}}`))),
			want: []finding{e("param-header-unreachable", `tool "t"`)}, wantMsg: `passes through "then"`},
		{name: "every problem of a tool, and of each tool", lists: modernLists(modernTools(
			withSchema("one", `{"type": "object", "properties": {"a": {"type": "number", "x-mcp-header": "A B"}, "b": {"type": "string", "x-mcp-header": "a b"}}}`),
			withSchema("two", `{"type": "object", "properties": {"c": {"type": "array", "items": {"type": "number", "x-mcp-header": "C"}}}}`))),
			want: []finding{
				e("param-header-name-invalid", `tool "one"`), e("param-header-type-invalid", `tool "one"`),
				e("param-header-name-invalid", `tool "one"`),
				e("param-header-unreachable", `tool "two"`),
			}},
		{name: "legacy era: annotations are not checked", opts: &lint.Options{}, discover: goodInit,
			lists: []lint.List{tools(withSchema("t", `{"type": "object", "properties": {"a": {"type": "number", "x-mcp-header": "A B"}}}`))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			discover := tt.discover
			if discover == "" {
				discover = goodDiscover
			}
			opts := modern
			if tt.opts != nil {
				opts = *tt.opts
			}
			got := lint.CheckWith(official, &lint.Server{Options: opts, Initialize: json.RawMessage(discover), Lists: tt.lists})
			var gotF []finding
			for _, f := range got {
				gotF = append(gotF, finding{f.RuleID, f.Severity, f.Subject})
			}
			if diff := cmp.Diff(tt.want, gotF); diff != "" {
				t.Fatalf("findings (-want +got):\n%s\nall: %+v", diff, got)
			}
			if tt.wantMsg != "" && !strings.Contains(got[0].Message+"\t"+got[0].SpecRef, tt.wantMsg) {
				t.Errorf("message %q (spec %s) does not contain %q", got[0].Message, got[0].SpecRef, tt.wantMsg)
			}
		})
	}
}

// TestCollectRefusedResult checks that a result the client refuses (an
// unknown resultType: a ProtocolError carrying the result) is collected as
// the page it is, and reported.
func TestCollectRefusedResult(t *testing.T) {
	refused := `{"resultType": "later", "ttlMs": 0, "cacheScope": "public", "tools": [` + tool("t") + `]}`
	c := &scripted{answer: onlyTools(func(string) (string, error) {
		return "", &client.ProtocolError{Method: "tools/list", Msg: `unknown resultType "later"`, Result: json.RawMessage(refused)}
	})}
	init := strings.Replace(goodDiscover, `, "resources": {}, "prompts": {}`, "", 1)
	findings, err := lint.Lint(context.Background(), c, json.RawMessage(init), modern)
	if err != nil {
		t.Fatal(err)
	}
	var got []finding
	for _, f := range findings {
		got = append(got, finding{f.RuleID, f.Severity, f.Subject})
	}
	if diff := cmp.Diff([]finding{e("result-type-invalid", "tools/list")}, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}

	// Any other protocol error ends the lint, as before.
	c = &scripted{answer: onlyTools(func(string) (string, error) {
		return "", &client.ProtocolError{Method: "tools/list", Msg: "broken"}
	})}
	if _, err := lint.Lint(context.Background(), c, json.RawMessage(init), modern); err == nil || !strings.Contains(err.Error(), "broken") {
		t.Errorf("Lint = %v, want the protocol error", err)
	}
}
