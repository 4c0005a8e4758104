package client

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestToolParamHeaders(t *testing.T) {
	tests := []struct {
		name, schema string
		want         []ParamHeader
		wantErr      string // substring; "" for valid
	}{
		{"none", `{"type":"object","properties":{"q":{"type":"string"}}}`, nil, ""},
		{"one", `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"q":{"type":"string"}}}`,
			[]ParamHeader{{Path: []string{"region"}, Name: "Region"}}, ""},
		{"nested through properties", `{"type":"object","properties":{"loc":{"type":"object","properties":{"zone":{"type":"integer","x-mcp-header":"Zone"}}},"on":{"type":"boolean","x-mcp-header":"On"}}}`,
			[]ParamHeader{{Path: []string{"loc", "zone"}, Name: "Zone"}, {Path: []string{"on"}, Name: "On"}}, ""},
		{"in a default value is data", `{"type":"object","properties":{"o":{"type":"object","default":{"x-mcp-header":"X"}}}}`, nil, ""},
		{"empty", `{"properties":{"a":{"type":"string","x-mcp-header":""}}}`, nil, "is empty"},
		{"space", `{"properties":{"a":{"type":"string","x-mcp-header":"My Header"}}}`, nil, "not an HTTP field name"},
		{"colon", `{"properties":{"a":{"type":"string","x-mcp-header":"A:B"}}}`, nil, "not an HTTP field name"},
		{"non-ASCII", `{"properties":{"a":{"type":"string","x-mcp-header":"Région"}}}`, nil, "not an HTTP field name"},
		{"not a string", `{"properties":{"a":{"type":"string","x-mcp-header":7}}}`, nil, "not a string"},
		{"duplicate ignoring case", `{"properties":{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"region"}}}`, nil, "repeats"},
		{"number type", `{"properties":{"a":{"type":"number","x-mcp-header":"Score"}}}`, nil, `type "number"`},
		{"object type", `{"properties":{"a":{"type":"object","x-mcp-header":"O"}}}`, nil, `type "object"`},
		{"no type", `{"properties":{"a":{"x-mcp-header":"A"}}}`, nil, "type (none)"},
		{"under items", `{"properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}}`, nil, "/properties/a/items"},
		{"under anyOf", `{"anyOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}`, nil, "/anyOf/0/properties/a"},
		{"under $defs", `{"$defs":{"d":{"type":"string","x-mcp-header":"D"}},"properties":{"a":{"$ref":"#/$defs/d"}}}`, nil, "/$defs/d"},
		{"at the root", `{"type":"string","x-mcp-header":"Root"}`, nil, "the root"},
	}
	for _, tt := range tests {
		got, err := ToolParamHeaders(json.RawMessage(tt.schema))
		if tt.wantErr == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			} else if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.name, diff)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.wantErr)
		}
	}
}

func TestParamHeaderValues(t *testing.T) {
	hs := []ParamHeader{
		{Path: []string{"region"}, Name: "Region"},
		{Path: []string{"priority"}, Name: "Priority"},
		{Path: []string{"verbose"}, Name: "Verbose"},
		{Path: []string{"greeting"}, Name: "Greeting"},
		{Path: []string{"loc", "zone"}, Name: "Zone"},
		{Path: []string{"absent"}, Name: "Absent"},
		{Path: []string{"nothing"}, Name: "Nothing"},
		{Path: []string{"huge"}, Name: "Huge"},
		{Path: []string{"frac"}, Name: "Frac"},
	}
	args := `{"region":"us-west1","priority":42,"verbose":false,"greeting":"Hello, 世界","loc":{"zone":-7},"nothing":null,"huge":9007199254740993,"frac":1.5}`
	got := ParamHeaderValues(hs, json.RawMessage(args))
	want := http.Header{
		"Mcp-Param-Region":   {"us-west1"},
		"Mcp-Param-Priority": {"42"},
		"Mcp-Param-Verbose":  {"false"},
		"Mcp-Param-Greeting": {"=?base64?SGVsbG8sIOS4lueVjA==?="},
		"Mcp-Param-Zone":     {"-7"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if h := ParamHeaderValues(nil, json.RawMessage(args)); h != nil {
		t.Errorf("no annotations: %v", h)
	}
}
