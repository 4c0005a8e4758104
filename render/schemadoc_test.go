package render

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// row is a SchemaField on one line: name|type|required|default|values|description.
func row(f SchemaField) string {
	req := ""
	if f.Required {
		req = "req"
	}
	return strings.Join([]string{f.Name, f.Type, req, f.Default, f.Values, f.Description}, "|")
}

func TestDescribeSchemaFields(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   []string
	}{{
		name: "demo weather input: range, length, default",
		schema: `{"type": "object", "properties": {
			"city": {"type": "string", "title": "City", "description": "Name of the city.", "minLength": 1},
			"days": {"type": "integer", "title": "Days", "description": "Number of days to forecast.", "minimum": 1, "maximum": 7, "default": 1}
		}, "required": ["city"], "additionalProperties": false}`,
		want: []string{
			"city|string (at least 1 char)|req|||Name of the city.",
			"days|integer (1..7)||1||Number of days to forecast.",
		},
	}, {
		name: "demo weather output: array of objects expands with []",
		schema: `{"type": "object", "properties": {
			"city": {"type": "string"},
			"forecast": {"type": "array", "items": {"type": "object",
				"properties": {"day": {"type": "integer", "description": "1 is today."}, "conditions": {"type": "string"}},
				"required": ["day"]}}
		}, "required": ["city", "forecast"]}`,
		want: []string{
			"city|string|req|||",
			"forecast|array of object|req|||",
			"forecast[].day|integer|req|||1 is today.",
			"forecast[].conditions|string||||",
		},
	}, {
		name: "demo fail: string default, title as description",
		schema: `{"type":"object","properties":{"reason":{"type":"string","title":"Reason","default":"the demo tool failed on purpose"},
			"empty":{"type":"string","default":""}}}`,
		want: []string{
			"reason|string||the demo tool failed on purpose||Reason",
			`empty|string||""||`,
		},
	}, {
		name:   "no properties",
		schema: `{"type":"object"}`,
		want:   nil,
	}, {
		name: "enum, const, format, pattern, exclusive bounds",
		schema: `{"type":"object","properties":{
			"units":{"type":"string","enum":["metric","imperial"],"default":"metric"},
			"when":{"type":"string","format":"date-time"},
			"code":{"type":"string","pattern":"^[A-Z]{3}$","minLength":3,"maxLength":3},
			"ratio":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1,"multipleOf":0.01},
			"old":{"type":"number","minimum":0,"exclusiveMinimum":true,"deprecated":true},
			"kind":{"const":"fixed"},
			"level":{"enum":[1,"two",null]}
		}}`,
		want: []string{
			"units|string||metric|metric, imperial|",
			"when|string (date-time)||||",
			"code|string (exactly 3 chars, pattern ^[A-Z]{3}$)||||",
			"ratio|number (> 0, < 1, multiple of 0.01)||||",
			"old|number (> 0, deprecated)||||",
			"kind|string|||= fixed|",
			"level|integer | string | null|||1, two, null|",
		},
	}, {
		name: "$defs, $ref with sibling description, recursion",
		schema: `{"type":"object","$defs":{
			"Address":{"type":"object","properties":{"street":{"type":"string"},"zip":{"type":"string","pattern":"^[0-9]{5}$"}},"required":["street"]},
			"Node":{"type":"object","properties":{"value":{"type":"integer"},"children":{"type":"array","items":{"$ref":"#/$defs/Node"}}}}
		},"properties":{
			"home":{"$ref":"#/$defs/Address","description":"Where you live."},
			"tree":{"$ref":"#/$defs/Node"},
			"remote":{"$ref":"https://example.com/schema.json"}
		},"required":["home"]}`,
		want: []string{
			"home|object Address|req|||Where you live.",
			"home.street|string|req|||",
			"home.zip|string (pattern ^[0-9]{5}$)||||",
			"tree|object Node||||",
			"tree.value|integer||||",
			"tree.children|array of (Node (recursive))||||",
			"remote|$ref https://example.com/schema.json||||",
		},
	}, {
		name: "pydantic: Optional via anyOf null, allOf wrapper, definitions",
		schema: `{"type":"object","definitions":{"Color":{"type":"string","enum":["red","green"],"title":"Color"}},
			"properties":{
				"name":{"anyOf":[{"type":"string","maxLength":20},{"type":"null"}],"default":null,"title":"Name"},
				"color":{"allOf":[{"$ref":"#/definitions/Color"}],"description":"Pick one."},
				"id":{"oneOf":[{"type":"string"},{"type":"integer"}]},
				"tags":{"type":["array","null"],"items":{"type":"string"},"maxItems":5,"uniqueItems":true}
			}}`,
		want: []string{
			"name|string (at most 20 chars) | null||null||Name",
			"color|string|||red, green|Pick one.",
			"id|string | integer||||",
			"tags|array of string | null (at most 5 items, unique)||||",
		},
	}, {
		name: "maps, tuples, nested arrays, boolean schemas",
		schema: `{"type":"object","properties":{
			"labels":{"type":"object","additionalProperties":{"type":"string"}},
			"people":{"type":"object","additionalProperties":{"type":"object","properties":{"age":{"type":"integer","minimum":0}}}},
			"point":{"type":"array","prefixItems":[{"type":"number"},{"type":"number"}]},
			"matrix":{"type":"array","items":{"type":"array","items":{"type":"number"}}},
			"anything":true,
			"nothing":false,
			"untyped":{}
		}}`,
		want: []string{
			"labels|object of string||||",
			"people|object of object||||",
			"people.*.age|integer (>= 0)||||",
			"point|array [number, number]||||",
			"matrix|array of (array of number)||||",
			"anything|any||||",
			"nothing|nothing (false schema)||||",
			"untyped|any||||",
		},
	}, {
		name: "server-everything trigger-elicitation style nested object",
		schema: `{"type":"object","properties":{
			"config":{"type":"object","properties":{"retries":{"type":"integer","minimum":0,"maximum":10,"default":3},
				"mode":{"type":"string","enum":["fast","safe"]}},"required":["mode"]}
		},"required":["config"],"$schema":"http://json-schema.org/draft-07/schema#"}`,
		want: []string{
			"config|object|req|||",
			"config.retries|integer (0..10)||3||",
			"config.mode|string|req||fast, safe|",
		},
	}, {
		name:   "not an object schema",
		schema: `[1,2]`,
		want:   nil,
	}, {
		name:   "root $ref",
		schema: `{"$ref":"#/$defs/In","$defs":{"In":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}}}`,
		want:   []string{"q|string|req|||"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, f := range SchemaFields(json.RawMessage(tt.schema)) {
				got = append(got, row(f))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("SchemaFields (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDescribeSchemaType(t *testing.T) {
	tests := []struct{ schema, want string }{
		{``, ""},
		{`{"type":"object"}`, "object"},
		{`{"type":"array","items":{"type":"string","format":"uri"}}`, "array of (string (uri))"},
		{`{"anyOf":[{"type":"string"},{"type":"integer"}]}`, "string | integer"},
		{`{"type":"string","contentMediaType":"image/png"}`, "string (image/png)"},
		{`{"$ref":"#"}`, "# (recursive)"},
		{`"nope"`, "invalid schema"},
	}
	for _, tt := range tests {
		if got := SchemaType(json.RawMessage(tt.schema)); got != tt.want {
			t.Errorf("SchemaType(%s) = %q, want %q", tt.schema, got, tt.want)
		}
	}
}

// TestDescribeSchemaBounded checks that deep and wide schemas cost little.
func TestDescribeSchemaBounded(t *testing.T) {
	deep := `{"type":"string"}`
	for range 50 {
		deep = `{"type":"object","properties":{"x":` + deep + `}}`
	}
	if n := len(SchemaFields(json.RawMessage(deep))); n != maxSchemaDepth {
		t.Errorf("deep schema: %d fields, want %d", n, maxSchemaDepth)
	}
	var props []string
	for i := range 3000 {
		props = append(props, fmt.Sprintf(`"p%d":{"type":"integer"}`, i))
	}
	wide := `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`
	if n := len(SchemaFields(json.RawMessage(wide))); n != maxSchemaFields {
		t.Errorf("wide schema: %d fields, want %d", n, maxSchemaFields)
	}
	// Mutually recursive definitions stop.
	mutual := `{"type":"object","$defs":{"A":{"type":"object","properties":{"b":{"$ref":"#/$defs/B"}}},
		"B":{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}}}},"properties":{"a":{"$ref":"#/$defs/A"}}}`
	var got []string
	for _, f := range SchemaFields(json.RawMessage(mutual)) {
		got = append(got, row(f))
	}
	want := []string{"a|object A||||", "a.b|object B||||", "a.b.a|A (recursive)||||"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mutual recursion (-want +got):\n%s", diff)
	}
}
