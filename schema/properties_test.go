package schema_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/schema"
)

func TestProperties(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   []schema.Property
	}{
		{name: "nil schema", schema: "", want: nil},
		{name: "null schema", schema: "null", want: nil},
		{name: "no properties", schema: `{"type":"object"}`, want: nil},
		{
			name: "required first, then schema order",
			schema: `{"type":"object",
				"properties":{
					"zeta":{"type":"string","description":"last letter"},
					"alpha":{"type":"integer"},
					"mid":{"type":["string","null"]},
					"beta":{"type":"boolean"}
				},
				"required":["mid","zeta"]}`,
			want: []schema.Property{
				{Name: "zeta", Type: "string", Required: true, Description: "last letter"},
				{Name: "mid", Type: "string|null", Required: true},
				{Name: "alpha", Type: "integer"},
				{Name: "beta", Type: "boolean"},
			},
		},
		{
			name: "types",
			schema: `{"properties":{
					"any":{"anyOf":[{"type":"integer"},{"type":"null"}]},
					"one":{"oneOf":[{"type":"number"},{"$ref":"#/$defs/Flag"}]},
					"enumS":{"enum":["a","b"]},
					"enumM":{"enum":[1,"a",1.5,null]},
					"const":{"const":true},
					"ref":{"$ref":"#/$defs/Flag"},
					"refDesc":{"$ref":"#/$defs/Flag","description":"own"},
					"open":{"description":"anything"},
					"bool":true,
					"union":{"type":["integer","string"]}
				},
				"$defs":{"Flag":{"type":"boolean","description":"a flag"}}}`,
			want: []schema.Property{
				{Name: "any", Type: "integer|null"},
				{Name: "one", Type: "number|boolean"},
				{Name: "enumS", Type: "string"},
				{Name: "enumM", Type: "integer|string|number|null"},
				{Name: "const", Type: "boolean"},
				{Name: "ref", Type: "boolean", Description: "a flag"},
				{Name: "refDesc", Type: "boolean", Description: "own"},
				{Name: "open", Description: "anything"},
				{Name: "bool"},
				{Name: "union", Type: "integer|string"},
			},
		},
		{
			name:   "required without a property schema",
			schema: `{"properties":{"b":{"type":"string"},"a":{}},"required":["x","a"]}`,
			want: []schema.Property{
				{Name: "a", Required: true},
				{Name: "x", Required: true},
				{Name: "b", Type: "string"},
			},
		},
		{
			name:   "a schema that does not compile lists names without types",
			schema: `{"properties":{"b":{"type":"string","description":"d"},"a":{}},"required":["x","a","x"]}`,
			want: []schema.Property{
				{Name: "a", Required: true},
				{Name: "x", Required: true},
				{Name: "b", Description: "d"},
			},
		},
		{
			name:   "repeated property keeps first place, last value",
			schema: `{"properties":{"a":{"type":"string"},"b":{},"a":{"type":"integer"}}}`,
			want: []schema.Property{
				{Name: "a", Type: "integer"},
				{Name: "b"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := schema.Properties(json.RawMessage(tt.schema))
			if err != nil {
				t.Fatalf("Properties: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Properties mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPropertiesErrors(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   string
	}{
		{name: "invalid JSON", schema: `{"properties":`, want: "input schema: invalid JSON: unexpected end of JSON input"},
		{name: "not an object", schema: `[1]`, want: "input schema: want a JSON object, got array"},
		{name: "properties not an object", schema: `{"properties":[]}`, want: `input schema: "properties": want a JSON object, got array`},
		{name: "required not strings", schema: `{"required":[1]}`, want: `input schema: "required" is not an array of strings`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := schema.Properties(json.RawMessage(tt.schema))
			if err == nil {
				t.Fatalf("Properties = %v, want an error", got)
			}
			if err.Error() != tt.want {
				t.Errorf("Properties error:\n got  %s\n want %s", err, tt.want)
			}
		})
	}
}
