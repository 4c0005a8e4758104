package schema_test

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/schema"
)

// Results a server such as the demo sends, valid at every revision.
var validResults = map[string]string{
	"initialize":               `{"protocolVersion": "%v", "capabilities": {"tools": {"listChanged": true}, "resources": {}, "prompts": {}, "logging": {}}, "serverInfo": {"name": "demo", "version": "1.0.0"}, "instructions": "Try the weather tool."}`,
	"ping":                     `{}`,
	"tools/list":               `{"tools": [{"name": "weather", "description": "Weather.", "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}], "nextCursor": "2"}`,
	"tools/call":               `{"content": [{"type": "text", "text": "Sunny"}, {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}], "isError": false}`,
	"resources/list":           `{"resources": [{"uri": "demo://readme", "name": "readme", "mimeType": "text/plain"}]}`,
	"resources/templates/list": `{"resourceTemplates": [{"uriTemplate": "demo://notes/{id}", "name": "note"}]}`,
	"resources/read":           `{"contents": [{"uri": "demo://readme", "mimeType": "text/plain", "text": "hello"}, {"uri": "demo://logo", "blob": "iVBORw0KGgo="}]}`,
	"prompts/list":             `{"prompts": [{"name": "review", "arguments": [{"name": "code", "required": true}]}]}`,
	"prompts/get":              `{"description": "Review", "messages": [{"role": "user", "content": {"type": "text", "text": "Review this"}}, {"role": "assistant", "content": {"type": "text", "text": "OK"}}]}`,
	"completion/complete":      `{"completion": {"values": ["Paris", "Parma"], "total": 2, "hasMore": false}}`,
	"logging/setLevel":         `{}`,
	"tools/unknown":            `"not even an object"`, // not checked
}

// legacyVersions are the embedded revisions of the legacy era, whose
// results carry no resultType.
func legacyVersions() []string {
	var vs []string
	for _, v := range schema.OfficialVersions() {
		if v < "2026-07-28" {
			vs = append(vs, v)
		}
	}
	return vs
}

func TestCheckResultValid(t *testing.T) {
	var c schema.Checker
	for _, version := range legacyVersions() {
		for method, result := range validResults {
			result = strings.ReplaceAll(result, "%v", version)
			vs, err := c.CheckResult(version, method, []byte(result))
			if err != nil {
				t.Errorf("%s %s: %v", version, method, err)
			}
			if len(vs) > 0 {
				t.Errorf("%s %s: unexpected violations %v", version, method, vs)
			}
		}
	}
}

func TestCheckResultViolations(t *testing.T) {
	tests := []struct {
		name, method, result string
		versions             []string // nil: every revision
		want                 []string
		wantDef              string // the definition of the first violation
	}{
		{
			name:    "image block without mimeType",
			method:  "tools/call",
			result:  `{"content": [{"type": "image", "data": "iVBORw0KGgo="}]}`,
			want:    []string{"/content/0/mimeType: required by ImageContent"},
			wantDef: "ImageContent",
		},
		{
			name:    "second block bad, first fine",
			method:  "tools/call",
			result:  `{"content": [{"type": "text", "text": "a"}, {"type": "text"}]}`,
			want:    []string{"/content/1/text: required by TextContent"},
			wantDef: "TextContent",
		},
		{
			name:    "prompt message with role system",
			method:  "prompts/get",
			result:  `{"messages": [{"role": "system", "content": {"type": "text", "text": "x"}}]}`,
			want:    []string{`/messages/0/role: must be one of "assistant", "user", got "system" (Role)`},
			wantDef: "Role",
		},
		{
			name:    "tool without inputSchema",
			method:  "tools/list",
			result:  `{"tools": [{"name": "t"}]}`,
			want:    []string{"/tools/0/inputSchema: required by Tool"},
			wantDef: "Tool",
		},
		{
			name:    "initialize without serverInfo version",
			method:  "initialize",
			result:  `{"protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "s"}}`,
			want:    []string{"/serverInfo/version: required by Implementation"},
			wantDef: "Implementation",
		},
		{
			name:    "list without its array",
			method:  "resources/list",
			result:  `{"items": []}`,
			want:    []string{"/resources: required by ListResourcesResult"},
			wantDef: "ListResourcesResult",
		},
		{
			name:    "completion values not strings",
			method:  "completion/complete",
			result:  `{"completion": {"values": [1]}}`,
			want:    []string{"/completion/values/0: must be a string, got number 1 (CompleteResult)"},
			wantDef: "CompleteResult",
		},
		{
			name:     "content block of an unknown type",
			method:   "tools/call",
			result:   `{"content": [{"type": "video", "data": "x"}]}`,
			versions: []string{"2025-06-18", "2025-11-25"},
			want:     []string{`/content/0/type: must be one of "text", "image", "audio", "resource_link", "resource", got "video" (ContentBlock)`},
			wantDef:  "ContentBlock",
		},
		{
			name:     "content block of an unknown type, 2024-11-05",
			method:   "tools/call",
			result:   `{"content": [{"type": "video", "data": "x"}]}`,
			versions: []string{"2024-11-05"},
			want:     []string{`/content/0/type: must be one of "text", "image", "resource", got "video" (CallToolResult)`},
			wantDef:  "CallToolResult",
		},
		{
			name:   "content block without a type",
			method: "tools/call",
			result: `{"content": [{"data": "x"}]}`,
		},
	}
	var c schema.Checker
	for _, tt := range tests {
		versions := tt.versions
		if versions == nil {
			versions = legacyVersions()
		}
		for _, v := range versions {
			t.Run(tt.name+" "+v, func(t *testing.T) {
				vs, err := c.CheckResult(v, tt.method, []byte(tt.result))
				if err != nil {
					t.Fatal(err)
				}
				if len(vs) == 0 {
					t.Fatal("no violation")
				}
				if tt.want == nil {
					for _, x := range vs {
						if strings.Contains(x.String(), "\n") || !strings.HasPrefix(x.String(), "/content/0") {
							t.Errorf("violation %q: want one line about /content/0", x)
						}
					}
					return
				}
				got := make([]string, len(vs))
				for i, x := range vs {
					got[i] = x.String()
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("violations (-want +got):\n%s", diff)
				}
				if vs[0].Definition != tt.wantDef {
					t.Errorf("Definition = %q, want %q", vs[0].Definition, tt.wantDef)
				}
			})
		}
	}
}

func TestCheckResultErrors(t *testing.T) {
	var c schema.Checker
	if _, err := c.CheckResult("2099-01-01", "tools/call", []byte(`{}`)); err == nil || !strings.Contains(err.Error(), "2099-01-01") {
		t.Errorf("unknown revision: err = %v, want one naming it", err)
	}
	if _, err := c.CheckResult("2025-11-25", "tools/call", []byte(`{"content": `)); err == nil {
		t.Error("a result that is not JSON: no error")
	}
	if vs, err := c.CheckResult("2025-11-25", "no/such/method", []byte(`[]`)); vs != nil || err != nil {
		t.Errorf("unknown method: %v, %v; want no check", vs, err)
	}
	// tasks/get exists from 2025-11-25 only: older revisions do not check it.
	if vs, err := c.CheckResult("2024-11-05", "tasks/get", []byte(`[]`)); vs != nil || err != nil {
		t.Errorf("method the revision lacks: %v, %v; want no check", vs, err)
	}
	var tooLarge *schema.TooLargeError
	huge := []byte(`{"content": [{"type": "text", "text": "` + strings.Repeat("x", schema.MaxCheckSize) + `"}]}`)
	if _, err := c.CheckResult("2025-11-25", "tools/call", huge); !errors.As(err, &tooLarge) || tooLarge.Definition != "CallToolResult" {
		t.Errorf("a result over MaxCheckSize: err = %v, want a *TooLargeError", err)
	}
	if _, err := c.CheckDefinition("2024-11-05", "NoSuchThing", []byte(`{}`)); err == nil {
		t.Error("CheckDefinition of a missing definition: no error")
	}
}

func TestResultDefinition(t *testing.T) {
	tests := []struct{ version, method, want string }{
		{"2025-11-25", "tools/call", "CallToolResult"},
		{"2024-11-05", "completion/complete", "CompleteResult"},
		{"2024-11-05", "tasks/list", ""},
		{"2025-11-25", "tasks/list", "ListTasksResult"},
		{"2025-11-25", "nope", ""},
		{"1999-01-01", "ping", ""},
	}
	for _, tt := range tests {
		if got := schema.ResultDefinition(tt.version, tt.method); got != tt.want {
			t.Errorf("ResultDefinition(%s, %s) = %q, want %q", tt.version, tt.method, got, tt.want)
		}
	}
}

func TestCheckNotificationAndRequest(t *testing.T) {
	var c schema.Checker
	for _, v := range schema.OfficialVersions() {
		vs, err := c.CheckNotification(v, "notifications/message", []byte(`{"level": "loud", "data": "x"}`))
		if err != nil {
			t.Fatal(err)
		}
		if len(vs) != 1 || vs[0].Path != "/params/level" || vs[0].Definition != "LoggingLevel" {
			t.Errorf("%s: log level loud: %v, want one violation at /params/level (LoggingLevel)", v, vs)
		}
		if vs, err := c.CheckNotification(v, "notifications/progress", []byte(`{"progressToken": "t", "progress": 1}`)); err != nil || vs != nil {
			t.Errorf("%s: valid progress: %v, %v", v, vs, err)
		}
		vs, err = c.CheckRequest(v, "sampling/createMessage", []byte(`{"maxTokens": 10}`))
		if err != nil {
			t.Fatal(err)
		}
		if len(vs) != 1 || !strings.HasPrefix(vs[0].String(), "/params/messages: required by CreateMessageRequest") {
			t.Errorf("%s: createMessage without messages: %v", v, vs)
		}
	}
}

// TestCheckResultModern checks results of the modern era: resultType is
// required everywhere, and cacheable results carry ttlMs and cacheScope.
func TestCheckResultModern(t *testing.T) {
	const v = "2026-07-28"
	var c schema.Checker
	valid := map[string]string{
		"server/discover": `{"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}, "ttlMs": 0, "cacheScope": "private", "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}}`,
		"tools/list":      `{"resultType": "complete", "tools": [{"name": "t", "inputSchema": {"type": "object"}}], "ttlMs": 0, "cacheScope": "private"}`,
		"tools/call":      `{"resultType": "complete", "content": [{"type": "text", "text": "test"}]}`,
	}
	for method, result := range valid {
		if vs, err := c.CheckResult(v, method, []byte(result)); err != nil || len(vs) > 0 {
			t.Errorf("%s: %v, %v; want no violations", method, vs, err)
		}
	}
	vs, err := c.CheckResult(v, "tools/call", []byte(`{"content": [{"type": "image", "data": "AA==", "mimeType": "image/png"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 1 || vs[0].String() != "/resultType: required by CallToolResult" {
		t.Errorf("tools/call without resultType: %v", vs)
	}
}

// TestCheckerConcurrent checks one Checker from many goroutines, each
// definition compiled once (under -race).
func TestCheckerConcurrent(t *testing.T) {
	var c schema.Checker
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := schema.OfficialVersions()[i%4]
			if _, err := c.CheckResult(v, "tools/call", []byte(`{"content": [{"type": "image", "data": "AA==", "mimeType": "image/png"}]}`)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
}

// TestCheckerCompilesLazily checks that a Checker compiles only the
// definitions it is asked for, once each.
func TestCheckerCompilesLazily(t *testing.T) {
	var c schema.Checker
	if got := c.Compiled(); len(got) != 0 {
		t.Fatalf("a new Checker has compiled %v", got)
	}
	for range 3 {
		if _, err := c.CheckResult("2025-06-18", "tools/call", []byte(`{"content": [{"type": "image", "data": "AA==", "mimeType": "image/png"}]}`)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.CheckResult("2025-06-18", "no/such", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"2025-06-18#CallToolResult"}, c.Compiled()); diff != "" {
		t.Errorf("compiled (-want +got):\n%s", diff)
	}
}

func BenchmarkCheckerFirstCheck(b *testing.B) {
	for range b.N {
		var c schema.Checker
		if _, err := c.CheckResult("2025-11-25", "tools/call", []byte(validResults["tools/call"])); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPrepareOneShot is what a one-shot command compiles while its
// server starts: the definitions of the results of initialize, tools/list
// and tools/call.
func BenchmarkPrepareOneShot(b *testing.B) {
	for range b.N {
		var c schema.Checker
		c.Prepare("2025-11-25", "initialize", "tools/list", "tools/call")
	}
}
