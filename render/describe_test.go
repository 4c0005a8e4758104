package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/client"
)

func decodeTool(t *testing.T, s string) *client.Tool {
	t.Helper()
	var tool client.Tool
	if err := json.Unmarshal([]byte(s), &tool); err != nil {
		t.Fatal(err)
	}
	return &tool
}

const weatherTool = `{"name":"weather","title":"Weather forecast","description":"Made-up weather.",
	"inputSchema":{"type":"object","properties":{
		"city":{"type":"string","description":"Name of the city.","minLength":1},
		"days":{"type":"integer","description":"Number of days to forecast.","minimum":1,"maximum":7,"default":1}},
		"required":["city"]},
	"outputSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},
	"annotations":{"readOnlyHint":true,"idempotentHint":true,"openWorldHint":false},
	"execution":{"taskSupport":"optional"}}`

func TestDescribeToolPiped(t *testing.T) {
	var out bytes.Buffer
	p := &Printer{Out: &out}
	if err := p.DescribeTool(decodeTool(t, weatherTool)); err != nil {
		t.Fatal(err)
	}
	want := `Name:         weather
Title:        Weather forecast
Description:  Made-up weather.
Annotations:  read-only, idempotent, closed world
Task support: optional (mcpctl call --task runs it as a task)
Arguments
city	string (at least 1 char)	yes			Name of the city.
days	integer (1..7)		1		Number of days to forecast.
Output (structuredContent)
city	string	yes			
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("DescribeTool piped (-want +got):\n%s", diff)
	}
}

func TestDescribeToolTTY(t *testing.T) {
	var out bytes.Buffer
	p := &Printer{Out: &out, TTY: true, Width: 100}
	tool := decodeTool(t, `{"name":"evil","description":"bad \u001b[31mred","inputSchema":{"type":"object","properties":{
		"x":{"type":"string","description":"\u001b]0;title\u0007"}}}}`)
	if err := p.DescribeTool(tool); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if strings.Contains(got, "\x1b") || strings.Contains(got, "\a") {
		t.Errorf("server text reached the terminal unsanitised:\n%q", got)
	}
	// No default or values anywhere: those columns are left out.
	if !strings.Contains(got, "NAME  TYPE    REQUIRED  DESCRIPTION") {
		t.Errorf("want a header without DEFAULT and VALUES, got:\n%s", got)
	}
}

func TestDescribeToolNoArgumentsOutputType(t *testing.T) {
	var out bytes.Buffer
	p := &Printer{Out: &out}
	tool := decodeTool(t, `{"name":"list","inputSchema":{"type":"object"},"outputSchema":{"type":"array","items":{"type":"string"}},
		"annotations":{"readOnlyHint":false,"destructiveHint":false}}`)
	if err := p.DescribeTool(tool); err != nil {
		t.Fatal(err)
	}
	want := `Name:        list
Annotations: may modify its environment, additive only (not destructive)
Arguments:   none
Output:      structuredContent: array of string
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestDescribePrompt(t *testing.T) {
	var out bytes.Buffer
	p := &Printer{Out: &out}
	pr := &client.Prompt{Name: "review_code", Description: "Review code.", Arguments: []client.PromptArgument{
		{Name: "code", Required: true, Description: "The code."}, {Name: "language", Title: "Language"}}}
	if err := p.DescribePrompt(pr); err != nil {
		t.Fatal(err)
	}
	want := "Name:        review_code\nDescription: Review code.\nArguments\ncode\tyes\tThe code.\nlanguage\t\tLanguage\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestDescribeResourceAndTemplate(t *testing.T) {
	var r client.Resource
	if err := json.Unmarshal([]byte(`{"uri":"demo://logo.png","name":"logo.png","mimeType":"image/png","size":1536,
		"annotations":{"audience":["user","assistant"],"priority":0.5}}`), &r); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	p := &Printer{Out: &out}
	if err := p.DescribeResource(&r); err != nil {
		t.Fatal(err)
	}
	want := `URI:         demo://logo.png
Name:        logo.png
MIME type:   image/png
Size:        1536 bytes (1.5 KiB)
Annotations: for user and assistant; priority 0.5 (0 optional … 1 required)
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("resource (-want +got):\n%s", diff)
	}
	out.Reset()
	if err := p.DescribeTemplate(&client.ResourceTemplate{URITemplate: "demo://greeting/{name}", Name: "greeting"}); err != nil {
		t.Fatal(err)
	}
	want = "URI template: demo://greeting/{name}\nVariables:    name\nName:         greeting\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("template (-want +got):\n%s", diff)
	}
}

func TestDescribeTemplateVariables(t *testing.T) {
	tests := []struct {
		tmpl string
		want []string
	}{
		{"file:///{path}", []string{"path"}},
		{"repo://{owner}/{repo}{/path*}{?ref,depth}", []string{"owner", "repo", "path (path segment, list)", "ref (query)", "depth (query)"}},
		{"x://{+base}/{id:3}/{id}", []string{"base (may contain reserved characters)", "id (first 3 characters)"}},
		{"plain://no/vars", nil},
		{"broken://{open", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, TemplateVariables(tt.tmpl)); diff != "" {
			t.Errorf("TemplateVariables(%q) (-want +got):\n%s", tt.tmpl, diff)
		}
	}
}

func TestDescribeSizeWords(t *testing.T) {
	for n, want := range map[int64]string{0: "0 bytes", 1: "1 byte", 1023: "1023 bytes", 1024: "1024 bytes (1.0 KiB)",
		5 << 20: "5242880 bytes (5.0 MiB)"} {
		if got := SizeWords(n); got != want {
			t.Errorf("SizeWords(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestTitleRestatesName(t *testing.T) {
	tests := []struct {
		title, name string
		want        bool
	}{
		{"Toggle Simulated Logging", "toggle-simulated-logging", true},
		{"get_tiny_image", "get_tiny_image", true},
		{"Echo", "echo", true},
		{"", "echo", false},
		{"Add two numbers", "add", false},
		{"Print env", "printEnv", true},
		{"Weather forecast", "weather", false},
	}
	for _, tt := range tests {
		if got := TitleRestatesName(tt.title, tt.name); got != tt.want {
			t.Errorf("TitleRestatesName(%q, %q) = %v, want %v", tt.title, tt.name, got, tt.want)
		}
	}
}
