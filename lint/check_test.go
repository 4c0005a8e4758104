package lint_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/lint"
	"github.com/mcpctl/mcpctl/schema"
)

// goodInit declares every list capability.
const goodInit = `{"protocolVersion": "2025-11-25", "capabilities": {"tools": {}, "resources": {}, "prompts": {}}, "serverInfo": {"name": "s", "version": "1"}}`

// initAt is goodInit at another protocol version.
func initAt(version string) string {
	return strings.Replace(goodInit, "2025-11-25", version, 1)
}

// page builds a one-page list of the given items.
func page(method, key string, items ...string) lint.List {
	return lint.List{Method: method, Pages: []lint.Page{{Result: json.RawMessage(`{"` + key + `": [` + strings.Join(items, ",") + `]}`)}}}
}

func tools(items ...string) lint.List { return page("tools/list", "tools", items...) }
func resources(items ...string) lint.List {
	return page("resources/list", "resources", items...)
}
func templates(items ...string) lint.List {
	return page("resources/templates/list", "resourceTemplates", items...)
}
func prompts(items ...string) lint.List { return page("prompts/list", "prompts", items...) }

// tool is a valid tool named name, with extra fields appended.
func tool(name string, extra ...string) string {
	fields := append([]string{`"name": ` + jsonString(name), `"description": "d"`, `"inputSchema": {"type": "object"}`}, extra...)
	return "{" + strings.Join(fields, ", ") + "}"
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// finding is the part of a finding the tables compare; messages are
// checked by substring.
type finding struct {
	Rule     string
	Severity lint.Severity
	Subject  string
}

func e(rule, subject string) finding { return finding{rule, lint.SeverityError, subject} }
func w(rule, subject string) finding { return finding{rule, lint.SeverityWarning, subject} }

// official is shared by the tests, so that each official definition is
// compiled once.
var official = new(schema.Checker)

// failed is a list stopped by the error that answered page n, asked for
// with cursor.
func failed(n int, cursor string, err error) *client.PaginationError {
	return &client.PaginationError{Reason: client.PaginationRequestFailed, Page: n, Cursor: cursor, Err: err}
}

// repeated is a list stopped at page n, whose nextCursor an earlier page
// gave.
func repeated(n int, cursor string) *client.PaginationError {
	return &client.PaginationError{Reason: client.PaginationRepeatedCursor, Page: n, Cursor: cursor, NextCursor: cursor}
}

var errMethodNotFound = &client.RPCError{Code: client.CodeMethodNotFound, Message: "method not found"}

func TestCheck(t *testing.T) {
	long := strings.Repeat("a", 128)
	tests := []struct {
		name  string
		init  string // default goodInit
		lists []lint.List
		want  []finding
		// wantMsg, if set, must appear in the first finding's message.
		wantMsg string
	}{
		{
			name: "clean",
			lists: []lint.List{
				tools(tool("getUser"), tool("DATA_EXPORT_v2"), tool("admin.tools.list"), tool("a-b"), tool(long),
					tool("weather", `"title": "Weather"`, `"outputSchema": {"type": "object"}`, `"annotations": {"readOnlyHint": true}`,
						`"icons": [{"src": "https://example.com/i.png", "sizes": ["48x48"], "theme": "dark"}]`, `"execution": {"taskSupport": "optional"}`)),
				resources(`{"uri": "file:///project/src/main.rs", "name": "main.rs", "size": 12, "annotations": {"audience": ["user"], "priority": 0.5}}`,
					`{"uri": "https://example.com/a?b=c#d", "name": "web"}`, `{"uri": "git://host:9418/repo.git", "name": "git"}`,
					`{"uri": "urn:isbn:0451450523", "name": "book"}`, `{"uri": "http://[::1]:8080/x", "name": "v6"}`),
				templates(`{"uriTemplate": "file:///{path}", "name": "files"}`, `{"uriTemplate": "demo://{+path}{?q,lang}{#frag}{.ext}{/seg*}{;p:3}{&more}", "name": "all"}`),
				prompts(`{"name": "code_review", "arguments": [{"name": "code", "required": true}]}`, `{"name": "other"}`),
			},
		},
		// tool-name-invalid
		{name: "tool name with a space", lists: []lint.List{tools(tool("get weather"))}, want: []finding{e("tool-name-invalid", `tool "get weather"`)}, wantMsg: "a space at offset 3"},
		{name: "tool name with a slash", lists: []lint.List{tools(tool("files/read"))}, want: []finding{e("tool-name-invalid", `tool "files/read"`)}},
		{name: "tool name with a comma", lists: []lint.List{tools(tool("a,b"))}, want: []finding{e("tool-name-invalid", `tool "a,b"`)}},
		{name: "tool name not ASCII", lists: []lint.List{tools(tool("météo"))}, want: []finding{e("tool-name-invalid", `tool "météo"`)}},
		{name: "tool name too long", lists: []lint.List{tools(tool(long + "b"))}, want: []finding{e("tool-name-invalid", `tool "`+long+`b"`)}, wantMsg: "129 characters"},
		{name: "tool name empty", lists: []lint.List{tools(tool(""))}, want: []finding{e("tool-name-invalid", "tool #1")}, wantMsg: "is empty"},
		// tool-name-duplicate
		{
			name:  "duplicate tool names across pages",
			lists: []lint.List{{Method: "tools/list", Pages: []lint.Page{{Result: json.RawMessage(`{"tools": [` + tool("a") + `], "nextCursor": "2"}`)}, {Cursor: "2", Result: json.RawMessage(`{"tools": [` + tool("b") + "," + tool("a") + `]}`)}}}},
			want:  []finding{e("tool-name-duplicate", `tool "a"`)},
		},
		{name: "names differing in case are distinct", lists: []lint.List{tools(tool("a"), tool("A"))}},
		// input-schema-not-object, input-schema-invalid
		{name: "input schema of type array", lists: []lint.List{tools(`{"name": "t", "description": "d", "inputSchema": {"type": "array"}}`)}, want: []finding{e("input-schema-not-object", `tool "t"`)}, wantMsg: `got "type": "array"`},
		{name: "input schema without type", lists: []lint.List{tools(`{"name": "t", "description": "d", "inputSchema": {"properties": {}}}`)}, want: []finding{e("input-schema-not-object", `tool "t"`)}, wantMsg: `no "type"`},
		{name: "input schema type union", lists: []lint.List{tools(`{"name": "t", "description": "d", "inputSchema": {"type": ["object", "null"]}}`)}, want: []finding{e("input-schema-not-object", `tool "t"`)}},
		{name: "input schema that does not compile", lists: []lint.List{tools(`{"name": "t", "description": "d", "inputSchema": {"type": "object", "properties": {"n": {"minimum": "1"}}}}`)}, want: []finding{e("input-schema-invalid", `tool "t"`)}, wantMsg: "/properties/n/minimum: must be a number"},
		{name: "input schema with a remote ref", lists: []lint.List{tools(`{"name": "t", "description": "d", "inputSchema": {"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json"}}}}`)}, want: []finding{w("input-schema-invalid", `tool "t"`)}, wantMsg: "does not fetch"},
		{name: "input schema of an unknown dialect", lists: []lint.List{tools(`{"name": "t", "description": "d", "inputSchema": {"$schema": "http://json-schema.org/draft-03/schema#", "type": "object"}}`)}, want: []finding{w("input-schema-invalid", `tool "t"`)}},
		{name: "input schema of draft-07", lists: []lint.List{tools(`{"name": "t", "description": "d", "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}}`)}},
		// output-schema-not-object, output-schema-invalid
		{name: "output schema of type array", lists: []lint.List{tools(tool("t", `"outputSchema": {"type": "array"}`))}, want: []finding{e("output-schema-not-object", `tool "t"`)}},
		{name: "output schema that does not compile", lists: []lint.List{tools(tool("t", `"outputSchema": {"type": "object", "required": "a"}`))}, want: []finding{e("output-schema-invalid", `tool "t"`)}, wantMsg: "outputSchema: invalid schema: /required"},
		{name: "output schema before 2025-06-18 is not checked", init: initAt("2025-03-26"), lists: []lint.List{tools(tool("t", `"outputSchema": {"type": "array"}`))}},
		// description-missing
		{name: "no description", lists: []lint.List{tools(`{"name": "t", "inputSchema": {"type": "object"}}`)}, want: []finding{w("description-missing", `tool "t"`)}},
		{name: "blank description", lists: []lint.List{tools(`{"name": "t", "description": "  ", "inputSchema": {"type": "object"}}`)}, want: []finding{w("description-missing", `tool "t"`)}},
		// message-schema
		{name: "tool without inputSchema", lists: []lint.List{tools(`{"name": "t", "description": "d"}`)}, want: []finding{e("message-schema", `tool "t"`)}, wantMsg: `/inputSchema: required by Tool (protocol 2025-11-25)`},
		{name: "tool with a null inputSchema", lists: []lint.List{tools(`{"name": "t", "description": "d", "inputSchema": null}`)}, want: []finding{e("message-schema", `tool "t"`)}, wantMsg: `/inputSchema: must be an object, got null (Tool)`},
		{name: "tool name a number", lists: []lint.List{tools(`{"name": 7, "description": "d", "inputSchema": {"type": "object"}}`)}, want: []finding{e("message-schema", "tool #1")}, wantMsg: `/name: must be a string, got number 7 (Tool)`},
		{name: "tool not an object", lists: []lint.List{tools(`"t"`)}, want: []finding{e("message-schema", "tool #1")}, wantMsg: `/: must be an object, got string "t" (Tool)`},
		{name: "annotation hint a string", lists: []lint.List{tools(tool("t", `"annotations": {"readOnlyHint": "yes"}`))}, want: []finding{e("message-schema", `tool "t"`)}, wantMsg: `/annotations/readOnlyHint: must be a boolean, got string "yes" (ToolAnnotations)`},
		{name: "taskSupport out of its enum", lists: []lint.List{tools(tool("t", `"execution": {"taskSupport": "sometimes"}`))}, want: []finding{e("message-schema", `tool "t"`)}, wantMsg: `must be one of "forbidden", "optional", "required"`},
		{name: "icon without src", lists: []lint.List{tools(tool("t", `"icons": [{"mimeType": "image/png"}]`))}, want: []finding{e("message-schema", `tool "t"`)}, wantMsg: `/icons/0/src: required by Icon`},
		{name: "title a number in 2025-06-18", init: initAt("2025-06-18"), lists: []lint.List{tools(tool("t", `"title": 1`))}, want: []finding{e("message-schema", `tool "t"`)}, wantMsg: "schema/2025-06-18"},
		{name: "title a number in 2024-11-05, which has no title", init: initAt("2024-11-05"), lists: []lint.List{tools(tool("t", `"title": 1`))}},
		{name: "resource size not an integer", lists: []lint.List{resources(`{"uri": "a:b", "name": "n", "size": 1.5}`)}, want: []finding{e("message-schema", `resource "a:b"`)}},
		{name: "resource size integral float", lists: []lint.List{resources(`{"uri": "a:b", "name": "n", "size": 2.0}`)}},
		{name: "resource priority above 1", lists: []lint.List{resources(`{"uri": "a:b", "name": "n", "annotations": {"priority": 2}}`)}, want: []finding{e("message-schema", `resource "a:b"`)}, wantMsg: "/annotations/priority: must be <= 1, got 2 (Annotations)"},
		{name: "resource audience not a role", lists: []lint.List{resources(`{"uri": "a:b", "name": "n", "annotations": {"audience": ["model"]}}`)}, want: []finding{e("message-schema", `resource "a:b"`)}},
		{name: "resource without name", lists: []lint.List{resources(`{"uri": "a:b"}`)}, want: []finding{e("message-schema", `resource "a:b"`)}},
		{name: "template without uriTemplate", lists: []lint.List{templates(`{"name": "t"}`)}, want: []finding{e("message-schema", `template "t"`)}},
		{name: "prompt argument without name", lists: []lint.List{prompts(`{"name": "p", "arguments": [{"description": "x"}]}`)}, want: []finding{e("message-schema", `prompt "p"`)}, wantMsg: `/arguments/0/name: required by PromptArgument`},
		{name: "initialize without serverInfo", init: `{"protocolVersion": "2025-11-25", "capabilities": {}}`, want: []finding{e("message-schema", "initialize")}, wantMsg: `/serverInfo: required by InitializeResult`},
		{name: "initialize with a capability that is not an object", init: `{"protocolVersion": "2025-11-25", "capabilities": {"logging": true}, "serverInfo": {"name": "s", "version": "1"}}`, want: []finding{e("message-schema", "initialize")}, wantMsg: `/capabilities/logging: must be an object, got boolean true (ServerCapabilities)`},
		{name: "initialize with listChanged a string", init: `{"protocolVersion": "2025-11-25", "capabilities": {"tools": {"listChanged": "yes"}}, "serverInfo": {"name": "s", "version": "1"}}`, want: []finding{e("message-schema", "initialize")}},
		{name: "list result without its array", lists: []lint.List{{Method: "tools/list", Pages: []lint.Page{{Result: json.RawMessage(`{"items": []}`)}}}}, want: []finding{e("message-schema", "tools/list")}, wantMsg: `/tools: required by ListToolsResult (protocol 2025-11-25)`},
		{name: "nextCursor a number", lists: []lint.List{{Method: "prompts/list", Pages: []lint.Page{{Result: json.RawMessage(`{"prompts": [], "nextCursor": 2}`)}}}}, want: []finding{e("message-schema", "prompts/list")}},
		// pagination
		{
			name:  "repeated cursor",
			lists: []lint.List{{Method: "tools/list", Stopped: repeated(2, "x"), Pages: []lint.Page{{Result: json.RawMessage(`{"tools": [], "nextCursor": "x"}`)}, {Cursor: "x", Result: json.RawMessage(`{"tools": [], "nextCursor": "x"}`)}}}},
			want:  []finding{e("pagination-repeated-cursor", "tools/list")}, wantMsg: `page 2 gave nextCursor "x"`,
		},
		{
			name: "repeated cursor serving the same page again",
			lists: []lint.List{{Method: "tools/list", Stopped: repeated(2, "x"), Pages: []lint.Page{
				{Result: json.RawMessage(`{"tools": [` + tool("a") + `], "nextCursor": "x"}`)},
				{Cursor: "x", Result: json.RawMessage(`{"tools":[` + tool("a") + `],"nextCursor":"x"}`)},
			}}},
			want: []finding{e("pagination-repeated-cursor", "tools/list")},
		},
		{
			name: "repeated cursor with new items",
			lists: []lint.List{{Method: "tools/list", Stopped: repeated(2, "x"), Pages: []lint.Page{
				{Result: json.RawMessage(`{"tools": [` + tool("a") + `], "nextCursor": "x"}`)},
				{Cursor: "x", Result: json.RawMessage(`{"tools": [` + tool("b") + "," + tool("a") + `], "nextCursor": "x"}`)},
			}}},
			want: []finding{e("pagination-repeated-cursor", "tools/list"), e("tool-name-duplicate", `tool "a"`)},
		},
		{name: "endless pagination", lists: []lint.List{{Method: "tools/list", Stopped: &client.PaginationError{Reason: client.PaginationPageLimit, Page: client.MaxPages, Cursor: "999", NextCursor: "1000"}, Pages: []lint.Page{{Cursor: "999", Result: json.RawMessage(`{"tools": [], "nextCursor": "1000"}`)}}}}, want: []finding{e("pagination-repeated-cursor", "tools/list")}, wantMsg: "each of 1000 pages gave a new nextCursor"},
		{name: "item limit", lists: []lint.List{{Method: "tools/list", Stopped: &client.PaginationError{Reason: client.PaginationItemLimit, Page: 2, Cursor: "2", NextCursor: "3", Items: client.MaxListItems}, Pages: []lint.Page{{Result: json.RawMessage(`{"tools": [], "nextCursor": "2"}`)}, {Cursor: "2", Result: json.RawMessage(`{"tools": [], "nextCursor": "3"}`)}}}}, want: []finding{w("pagination-repeated-cursor", "tools/list")}, wantMsg: "2 pages held 100000 items, mcpctl's limit (client.MaxListItems), and page 2 still gave a nextCursor"},
		{name: "stopped at a bad page", lists: []lint.List{{Method: "tools/list", Stopped: &client.PaginationError{Reason: client.PaginationBadPage, Page: 1}, Pages: []lint.Page{{Result: json.RawMessage(`{"tools": {}, "nextCursor": "2"}`)}}}}, want: []finding{e("message-schema", "tools/list")}, wantMsg: "/tools: must be an array"},
		{
			name:  "cursor rejected",
			lists: []lint.List{{Method: "resources/list", Stopped: failed(2, "c2", &client.RPCError{Code: -32602, Message: "bad cursor"}), Pages: []lint.Page{{Result: json.RawMessage(`{"resources": [], "nextCursor": "c2"}`)}}}},
			want:  []finding{e("pagination-cursor-rejected", "resources/list page 2")}, wantMsg: `cursor "c2"`,
		},
		// capability-undeclared
		{name: "declared list fails", lists: []lint.List{{Method: "prompts/list", Stopped: failed(1, "", errMethodNotFound)}}, want: []finding{e("capability-undeclared", `capability "prompts"`)}, wantMsg: `declared "prompts", but prompts/list failed`},
		{name: "declared list times out", lists: []lint.List{{Method: "tools/list", Stopped: failed(1, "", &client.TimeoutError{Method: "tools/list"})}}, want: []finding{e("capability-undeclared", `capability "tools"`)}},
		{name: "undeclared list answers with items", init: `{"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}`, lists: []lint.List{tools(tool("t"))}, want: []finding{e("capability-undeclared", `capability "tools"`)}, wantMsg: "with 1 item but did not declare"},
		{name: "undeclared list answers empty", init: `{"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}`, lists: []lint.List{tools()}},
		{name: "undeclared list refused", init: `{"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}`, lists: []lint.List{{Method: "tools/list", Stopped: failed(1, "", errMethodNotFound)}}},
		{name: "templates answer under resources", init: `{"protocolVersion": "2025-11-25", "capabilities": {"resources": {}}, "serverInfo": {"name": "s", "version": "1"}}`, lists: []lint.List{templates(`{"uriTemplate": "a:{b}", "name": "t"}`)}},
		// resources
		{name: "resource URI without scheme", lists: []lint.List{resources(`{"uri": "notes/a.txt", "name": "n"}`)}, want: []finding{e("resource-uri-invalid", `resource "notes/a.txt"`)}, wantMsg: "has no scheme"},
		{name: "resource URI with a space", lists: []lint.List{resources(`{"uri": "file:///my notes.txt", "name": "n"}`)}, want: []finding{e("resource-uri-invalid", `resource "file:///my notes.txt"`)}, wantMsg: "%20"},
		{name: "resource URIs duplicate", lists: []lint.List{resources(`{"uri": "a:b", "name": "n"}`, `{"uri": "a:b", "name": "m"}`)}, want: []finding{e("resource-uri-duplicate", `resource "a:b"`)}},
		{name: "resource names duplicate", lists: []lint.List{resources(`{"uri": "a:b", "name": "n"}`, `{"uri": "a:c", "name": "n"}`)}, want: []finding{w("resource-name-duplicate", `resource name "n"`)}},
		{name: "template names duplicate", lists: []lint.List{templates(`{"uriTemplate": "a:{b}", "name": "n"}`, `{"uriTemplate": "a:{c}", "name": "n"}`)}, want: []finding{w("resource-name-duplicate", `template name "n"`)}},
		{name: "template unclosed", lists: []lint.List{templates(`{"uriTemplate": "a:{b", "name": "t"}`)}, want: []finding{e("resource-template-invalid", `template "t"`)}},
		{name: "template with a bad varname", lists: []lint.List{templates(`{"uriTemplate": "a:{b-c}", "name": "t"}`)}, want: []finding{e("resource-template-invalid", `template "t"`)}, wantMsg: `variable name "b-c" has '-'`},
		// prompts
		{name: "prompt names duplicate", lists: []lint.List{prompts(`{"name": "p"}`, `{"name": "p"}`)}, want: []finding{e("prompt-name-duplicate", `prompt "p"`)}},
		{name: "prompt argument unnamed", lists: []lint.List{prompts(`{"name": "p", "arguments": [{"name": "a"}, {"name": ""}]}`)}, want: []finding{e("prompt-argument-unnamed", `prompt "p" argument #2`)}},
		// ordering: errors first, then warnings, each in the order found
		{
			name:  "errors before warnings",
			lists: []lint.List{tools(`{"name": "a", "inputSchema": {"type": "object"}}`, `{"name": "b c", "description": "d", "inputSchema": {"type": "object"}}`), prompts(`{"name": "p"}`, `{"name": "p"}`)},
			want:  []finding{e("tool-name-invalid", `tool "b c"`), e("prompt-name-duplicate", `prompt "p"`), w("description-missing", `tool "a"`)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			init := tt.init
			if init == "" {
				init = goodInit
			}
			got := lint.CheckWith(official, &lint.Server{Initialize: json.RawMessage(init), Lists: tt.lists})
			var gotF []finding
			for _, f := range got {
				gotF = append(gotF, finding{f.RuleID, f.Severity, f.Subject})
			}
			if diff := cmp.Diff(tt.want, gotF); diff != "" {
				t.Fatalf("findings (-want +got):\n%s\nall: %+v", diff, got)
			}
			if tt.wantMsg != "" && !strings.Contains(got[0].Message+" "+got[0].SpecRef, tt.wantMsg) {
				t.Errorf("message %q (spec %s) does not contain %q", got[0].Message, got[0].SpecRef, tt.wantMsg)
			}
		})
	}
}

// TestRules checks that every rule is documented once, with a spec path.
func TestRules(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range lint.Rules() {
		if seen[r.ID] {
			t.Errorf("rule %s listed twice", r.ID)
		}
		seen[r.ID] = true
		if !slices.ContainsFunc([]string{"docs/specification/2025-11-25/", "schema/2025-11-25/schema.json", "docs/specification/2026-07-28/", "schema/2026-07-28/schema.json"},
			func(prefix string) bool { return strings.HasPrefix(r.SpecRef, prefix) }) {
			t.Errorf("rule %s: spec reference %q is not a path in the specification repository", r.ID, r.SpecRef)
		}
		if r.Severity != lint.SeverityError && r.Severity != lint.SeverityWarning || r.Summary == "" {
			t.Errorf("rule %s: severity %q, summary %q", r.ID, r.Severity, r.Summary)
		}
	}
}

func TestCount(t *testing.T) {
	errs, warnings := lint.Count([]lint.Finding{{Severity: lint.SeverityError}, {Severity: lint.SeverityWarning}, {Severity: lint.SeverityError}})
	if errs != 2 || warnings != 1 {
		t.Errorf("Count = %d, %d; want 2, 1", errs, warnings)
	}
}

// A finding's JSON form is part of mcpctl's output contract.
func TestFindingJSON(t *testing.T) {
	b, err := json.Marshal(lint.Finding{RuleID: "r", Severity: lint.SeverityError, Subject: "s", Message: "m", SpecRef: "x"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"ruleId":"r","severity":"error","subject":"s","message":"m","specRef":"x"}`
	if string(b) != want {
		t.Errorf("JSON = %s, want %s", b, want)
	}
}

// TestCheckStdoutNoise checks that each different line a stdio server wrote
// to stdout that is not JSON-RPC is an error, up to a bound.
func TestCheckStdoutNoise(t *testing.T) {
	init := json.RawMessage(`{"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}`)
	many := make([]string, 9)
	for i := range many {
		many[i] = fmt.Sprintf("line %d", i)
	}
	for _, tc := range []struct {
		name  string
		noise []string
		want  []string
	}{
		{"none", nil, nil},
		{"one line, repeated", []string{"hello", "hello"}, []string{"hello"}},
		{"past the bound", many, []string{"line 0", "line 1", "line 2", "line 3", "line 4", "and 4 more different lines that are not JSON-RPC"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			findings := lint.Check(&lint.Server{Initialize: init, StdoutNoise: tc.noise})
			var got []string
			for _, f := range findings {
				if f.RuleID != lint.StdoutNotJSONRPC || f.Severity != lint.SeverityError || f.Subject != "stdout" ||
					f.SpecRef != "docs/specification/2025-11-25/basic/transports.mdx#stdio" {
					t.Errorf("unexpected finding %+v", f)
					continue
				}
				got = append(got, f.Message)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckResourcesShownAlike checks that resource-name-duplicate is about
// what clients show (the title, else the name), not names as such, which
// the specification lets repeat.
func TestCheckResourcesShownAlike(t *testing.T) {
	init := json.RawMessage(`{"protocolVersion": "2025-11-25", "capabilities": {"resources": {}}, "serverInfo": {"name": "s", "version": "1"}}`)
	for _, tc := range []struct {
		name, resources string
		want            []string
	}{
		{"same name, own titles", `[{"uri": "a://1", "name": "r", "title": "One"}, {"uri": "a://2", "name": "r", "title": "Two"}]`, nil},
		{"same name, no title", `[{"uri": "a://1", "name": "r"}, {"uri": "a://2", "name": "r"}]`, []string{`resource name "r"`}},
		{"same title", `[{"uri": "a://1", "name": "a", "title": "T"}, {"uri": "a://2", "name": "b", "title": "T"}]`, []string{`resource title "T"`}},
		{"a title equal to another's name", `[{"uri": "a://1", "name": "x", "title": "r"}, {"uri": "a://2", "name": "r"}]`, []string{`resource title "r"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &lint.Server{Initialize: init, Lists: []lint.List{{Method: "resources/list", Pages: []lint.Page{{Result: json.RawMessage(`{"resources": ` + tc.resources + `}`)}}}}}
			var got []string
			for _, f := range lint.Check(s) {
				if f.RuleID == lint.ResourceNameDuplicate {
					got = append(got, f.Subject)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("subjects (-want +got):\n%s", diff)
			}
		})
	}
}
