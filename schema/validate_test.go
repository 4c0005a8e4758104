package schema_test

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/schema"
)

// show lists violations as `/path: message [keyword]`, for diffs that read
// like what users see.
func show(vs []schema.Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, fmt.Sprintf("%s [%s]", v, v.Keyword))
	}
	return out
}

func mustCompile(t testing.TB, raw string) *schema.Schema {
	t.Helper()
	s, err := schema.Compile(json.RawMessage(raw))
	if err != nil {
		t.Fatalf("Compile(%s): %v", raw, err)
	}
	return s
}

// weatherSchema is a typical tool's inputSchema.
const weatherSchema = `{
  "type": "object",
  "properties": {
    "city": {"type": "string", "description": "City name", "minLength": 1},
    "days": {"type": "integer", "minimum": 1, "maximum": 14},
    "unit": {"enum": ["c", "f"]},
    "when": {"type": "string", "format": "date"},
    "scale": {"type": "number", "multipleOf": 0.01},
    "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
    "color": {"type": "string"},
    "loc": {"$ref": "#/$defs/Point"}
  },
  "required": ["city"],
  "additionalProperties": false,
  "$defs": {
    "Point": {
      "type": "object",
      "properties": {"lat": {"type": "number", "minimum": -90, "maximum": 90}, "lon": {"type": "number"}},
      "required": ["lat", "lon"]
    }
  }
}`

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		value  string // JSON
		want   []string
	}{
		// The examples of the package documentation.
		{
			name:   "typical tool call, valid",
			schema: weatherSchema,
			value:  `{"city": "Paris", "days": 3, "unit": "c", "when": "2025-06-01", "scale": 19.99, "tags": ["a", "b"], "loc": {"lat": 48.85, "lon": 2.35}}`,
		},
		{
			name:   "typical tool call, everything wrong",
			schema: weatherSchema,
			value:  `{"days": 0, "unit": "k", "colour": "red", "when": "tomorrow", "scale": 0.001, "tags": ["a", "a"], "loc": {"lat": 91}}`,
			want: []string{
				`/: additional property "colour" is not allowed; did you mean "color"? [additionalProperties]`,
				`/city: required property is missing [required]`,
				`/days: must be >= 1, got 0 [minimum]`,
				`/loc/lat: must be <= 90, got 91 [maximum]`,
				`/loc/lon: required property is missing [required]`,
				`/scale: must be a multiple of 0.01, got 0.001 [multipleOf]`,
				`/tags: items must be unique, but items 0 and 1 are equal [uniqueItems]`,
				`/unit: must be one of "c", "f", got "k" [enum]`,
				`/when: must be a date (YYYY-MM-DD), got "tomorrow" [format]`,
			},
		},

		// Types.
		{name: "string, got number", schema: `{"type": "string"}`, value: `3`, want: []string{`/: must be a string, got number 3 [type]`}},
		{name: "integer, got fraction", schema: `{"type": "integer"}`, value: `2.5`, want: []string{`/: must be an integer, got number 2.5 [type]`}},
		{name: "integer, 3.0 is one", schema: `{"type": "integer"}`, value: `3.0`},
		{name: "integer, 1e2 is one", schema: `{"type": "integer"}`, value: `1e2`},
		{name: "integer beyond int64", schema: `{"type": "integer", "maximum": 1e30}`, value: `123456789012345678901234567890`},
		{name: "number, integer is one", schema: `{"type": "number"}`, value: `7`},
		{name: "boolean, got string", schema: `{"type": "boolean"}`, value: `"true"`, want: []string{`/: must be a boolean, got string "true" [type]`}},
		{name: "null, got object", schema: `{"type": "null"}`, value: `{"a": 1}`, want: []string{`/: must be null, got object {"a":1} [type]`}},
		{name: "object, got null", schema: `{"type": "object"}`, value: `null`, want: []string{`/: must be an object, got null [type]`}},
		{name: "array, got string", schema: `{"type": "array"}`, value: `"[1]"`, want: []string{`/: must be an array, got string "[1]" [type]`}},
		{name: "type union", schema: `{"type": ["string", "null"]}`, value: `1`, want: []string{`/: must be a string or null, got number 1 [type]`}},
		{name: "type union, valid", schema: `{"type": ["string", "null"]}`, value: `null`},
		{
			name:   "long values are shortened",
			schema: `{"type": "integer"}`,
			value:  `"` + strings.Repeat("x", 100) + `"`,
			want:   []string{`/: must be an integer, got string "` + strings.Repeat("x", 60) + `"… [type]`},
		},
		{
			name:   "long arrays are shortened",
			schema: `{"type": "object"}`,
			value:  `[` + strings.Repeat(`"abc",`, 20) + `"abc"]`,
			want:   []string{`/: must be an object, got array ["abc","abc","abc","abc","abc","abc","abc","abc","abc","abc"… [type]`},
		},

		// Unions.
		{
			name:   "anyOf of kinds merges",
			schema: `{"anyOf": [{"type": "string"}, {"type": "integer"}, {"const": "auto"}, {"type": "null"}]}`,
			value:  `true`,
			want:   []string{`/: must be a string, an integer, "auto" or null, got boolean true [anyOf]`},
		},
		{
			name:   "oneOf of kinds merges",
			schema: `{"oneOf": [{"type": "boolean"}, {"enum": [1, 2]}]}`,
			value:  `"x"`,
			want:   []string{`/: must be a boolean or one of 1, 2, got string "x" [oneOf]`},
		},
		{
			name:   "anyOf: the alternative of the right kind speaks",
			schema: `{"properties": {"opt": {"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}}, {"type": "null"}]}}}`,
			value:  `{"opt": {"a": 1}}`,
			want:   []string{`/opt/a: must be a string, got number 1 [type]`},
		},
		{
			name: "oneOf discriminated by const",
			schema: `{"oneOf": [
				{"type": "object", "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}}, "required": ["kind", "r"]},
				{"type": "object", "properties": {"kind": {"const": "square"}, "side": {"type": "number"}}, "required": ["kind", "side"]}
			]}`,
			value: `{"kind": "circle", "side": 2}`,
			want:  []string{`/r: required property is missing [required]`},
		},
		{
			name:   "anyOf with no better alternative lists them",
			schema: `{"anyOf": [{"required": ["a"]}, {"required": ["b", "c"]}]}`,
			value:  `{}`,
			want: []string{
				`/: matches none of the anyOf alternatives: anyOf/0: /a: required property is missing; anyOf/1: /b: required property is missing (and 1 more) [anyOf]`,
			},
		},
		{
			name:   "long union is cut",
			schema: `{"oneOf": [{"required": ["a"]}, {"required": ["b"]}, {"required": ["c"]}, {"required": ["d"]}, {"required": ["e"]}, {"required": ["f"]}]}`,
			value:  `{}`,
			want: []string{
				`/: matches none of the oneOf alternatives: oneOf/0: /a: required property is missing; oneOf/1: /b: required property is missing; ` +
					`oneOf/2: /c: required property is missing; oneOf/3: /d: required property is missing; and 2 more alternatives [oneOf]`,
			},
		},
		{
			name:   "oneOf matching twice",
			schema: `{"oneOf": [{"type": "integer"}, {"type": "number"}]}`,
			value:  `3`,
			want:   []string{`/: must match exactly one oneOf alternative, but matches oneOf/0 and oneOf/1 [oneOf]`},
		},
		{name: "oneOf matching once", schema: `{"oneOf": [{"type": "integer"}, {"type": "string"}]}`, value: `3`},
		{
			name:   "allOf reports each part",
			schema: `{"allOf": [{"minimum": 5}, {"multipleOf": 2}]}`,
			value:  `3`,
			want:   []string{`/: must be >= 5, got 3 [minimum]`, `/: must be a multiple of 2, got 3 [multipleOf]`},
		},
		{name: "not", schema: `{"not": {"type": "string"}}`, value: `"x"`, want: []string{`/: must not match the "not" schema, got "x" [not]`}},

		// enum and const.
		{name: "enum of one", schema: `{"enum": ["only"]}`, value: `"x"`, want: []string{`/: must be "only", got "x" [enum]`}},
		{name: "enum, numbers compare by value", schema: `{"enum": [1, 2.5]}`, value: `2.50`},
		{name: "enum of objects", schema: `{"enum": [{"a": 1}, [1, 2]]}`, value: `{"a": 2}`, want: []string{`/: must be one of {"a":1}, [1,2], got {"a":2} [enum]`}},
		{
			name:   "long enum lists every value",
			schema: `{"enum": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]}`,
			value:  `13`,
			want:   []string{`/: must be one of 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, got 13 [enum]`},
		},
		{name: "const", schema: `{"const": "fixed"}`, value: `"loose"`, want: []string{`/: must be "fixed", got "loose" [const]`}},
		{name: "const null", schema: `{"const": null}`, value: `0`, want: []string{`/: must be null, got 0 [const]`}},
		{name: "const object", schema: `{"const": {"a": [1]}}`, value: `{"a": [1.0]}`},

		// Objects.
		{
			name:   "required names each missing property",
			schema: `{"type": "object", "required": ["a", "b/c", "d"]}`,
			value:  `{"d": 1}`,
			want:   []string{`/a: required property is missing [required]`, `/b~1c: required property is missing [required]`},
		},
		{
			name:   "additionalProperties false, several",
			schema: `{"properties": {"name": {}}, "additionalProperties": false}`,
			value:  `{"name": 1, "nmae": 2, "zzz": 3}`,
			want: []string{
				`/: additional property "nmae" is not allowed [additionalProperties]`,
				`/: additional property "zzz" is not allowed [additionalProperties]`,
			},
		},
		{
			name:   "additionalProperties false suggests undeclared properties only",
			schema: `{"properties": {"name": {}, "names": {}}, "additionalProperties": false}`,
			value:  `{"nam": 2}`,
			want:   []string{`/: additional property "nam" is not allowed; did you mean "name"? [additionalProperties]`},
		},
		{
			name:   "additionalProperties false with patternProperties",
			schema: `{"properties": {"a": {}}, "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": false}`,
			value:  `{"a": 1, "x-b": 2, "y": 3}`,
			want:   []string{`/: additional property "y" is not allowed [additionalProperties]`, `/x-b: must be a string, got number 2 [type]`},
		},
		{
			name:   "additionalProperties schema",
			schema: `{"properties": {"a": {}}, "additionalProperties": {"type": "integer"}}`,
			value:  `{"a": "x", "b": "y"}`,
			want:   []string{`/b: must be an integer, got string "y" [type]`},
		},
		{
			name:   "unevaluatedProperties false sees through allOf",
			schema: `{"allOf": [{"properties": {"a": {}}}], "properties": {"b": {}}, "unevaluatedProperties": false}`,
			value:  `{"a": 1, "b": 2, "c": 3}`,
			want:   []string{`/: property "c" is not allowed [unevaluatedProperties]`},
		},
		{name: "false property", schema: `{"properties": {"old": false}}`, value: `{"old": 1}`, want: []string{`/: property "old" is not allowed [properties]`}},
		{name: "false schema", schema: `false`, value: `1`, want: []string{`/: no value is allowed here [false]`}},
		{name: "true schema", schema: `true`, value: `{"anything": [1]}`},
		{name: "empty schema", schema: `{}`, value: `null`},
		{
			name:   "min and max properties",
			schema: `{"properties": {"a": {"minProperties": 2}, "b": {"maxProperties": 1}}}`,
			value:  `{"a": {"x": 1}, "b": {"x": 1, "y": 2}}`,
			want:   []string{`/a: must have at least 2 properties, got 1 [minProperties]`, `/b: must have at most 1 property, got 2 [maxProperties]`},
		},
		{
			name:   "propertyNames",
			schema: `{"propertyNames": {"pattern": "^[a-z]+$"}}`,
			value:  `{"ok": 1, "Bad": 2}`,
			want:   []string{`/: property name must match the pattern "^[a-z]+$", got "Bad" [pattern]`},
		},
		{
			name:   "dependentRequired",
			schema: `{"dependentRequired": {"card": ["cvv"]}}`,
			value:  `{"card": "4111"}`,
			want:   []string{`/cvv: required property is missing (required when "card" is present) [dependentRequired]`},
		},
		{
			name:   "property names that need escaping",
			schema: `{"properties": {"a b": {"type": "string"}, "c/d": {"type": "string"}, "e~f": {"type": "string"}, "é": {"type": "string"}}}`,
			value:  `{"a b": 1, "c/d": 2, "e~f": 3, "é": 4}`,
			want: []string{
				`/a b: must be a string, got number 1 [type]`,
				`/c~1d: must be a string, got number 2 [type]`,
				`/e~0f: must be a string, got number 3 [type]`,
				`/é: must be a string, got number 4 [type]`,
			},
		},
		{
			name:   "property named like a keyword",
			schema: `{"properties": {"anyOf": {"type": "string"}, "type": false, "propertyNames": {"minLength": 2}}}`,
			value:  `{"anyOf": 1, "type": 2, "propertyNames": "x"}`,
			want: []string{
				`/: property "type" is not allowed [properties]`,
				`/anyOf: must be a string, got number 1 [type]`,
				`/propertyNames: must be at least 2 characters long, got "x" (1) [minLength]`,
			},
		},

		// Arrays and nesting.
		{
			name: "paths into arrays of objects",
			schema: `{"type": "object", "properties": {"items": {"type": "array", "items": {
				"type": "object", "properties": {"name": {"type": "string"}, "qty": {"type": "integer", "exclusiveMinimum": 0}}, "required": ["name"]}}}}`,
			value: `{"items": [{"name": "a", "qty": 1}, {"name": 7, "qty": 0}, {"qty": 2}, {}, {}, {}, {}, {}, {}, {}, {"name": null}]}`,
			want: []string{
				`/items/1/name: must be a string, got number 7 [type]`,
				`/items/1/qty: must be > 0, got 0 [exclusiveMinimum]`,
				`/items/2/name: required property is missing [required]`,
				`/items/3/name: required property is missing [required]`,
				`/items/4/name: required property is missing [required]`,
				`/items/5/name: required property is missing [required]`,
				`/items/6/name: required property is missing [required]`,
				`/items/7/name: required property is missing [required]`,
				`/items/8/name: required property is missing [required]`,
				`/items/9/name: required property is missing [required]`,
				`/items/10/name: must be a string, got null [type]`,
			},
		},
		{
			name:   "prefixItems and items false",
			schema: `{"prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false}`,
			value:  `["a", "b", 3]`,
			want:   []string{`/1: must be an integer, got string "b" [type]`, `/2: no item is allowed at this position [items]`},
		},
		{
			name:   "min and max items",
			schema: `{"properties": {"a": {"minItems": 2}, "b": {"maxItems": 1}}}`,
			value:  `{"a": [1], "b": [1, 2]}`,
			want:   []string{`/a: must have at least 2 items, got 1 [minItems]`, `/b: must have at most 1 item, got 2 [maxItems]`},
		},
		{
			name:   "contains",
			schema: `{"contains": {"const": 5}, "maxContains": 1}`,
			value:  `[1, 2]`,
			want:   []string{`/: must contain at least 1 item matching "contains", got 0 [minContains]`},
		},
		{
			name:   "maxContains",
			schema: `{"contains": {"const": 5}, "maxContains": 1}`,
			value:  `[5, 5]`,
			want:   []string{`/: must contain at most 1 item matching "contains", got 2 [maxContains]`},
		},

		// Strings.
		{
			name:   "lengths count characters",
			schema: `{"properties": {"a": {"minLength": 3}, "b": {"maxLength": 2}}}`,
			value:  `{"a": "éé", "b": "ééé"}`,
			want: []string{
				`/a: must be at least 3 characters long, got "éé" (2) [minLength]`,
				`/b: must be at most 2 characters long, got "ééé" (3) [maxLength]`,
			},
		},
		{name: "pattern", schema: `{"pattern": "^[A-Z]{3}$"}`, value: `"abc"`, want: []string{`/: must match the pattern "^[A-Z]{3}$", got "abc" [pattern]`}},
		{name: "pattern ignores other types", schema: `{"pattern": "^x$", "minLength": 9}`, value: `12`},

		// Numbers.
		{name: "exact decimals", schema: `{"multipleOf": 0.01, "minimum": 0.1}`, value: `19.99`},
		{name: "minimum 2.5", schema: `{"minimum": 2.5}`, value: `2.49`, want: []string{`/: must be >= 2.5, got 2.49 [minimum]`}},
		{name: "exclusiveMaximum", schema: `{"exclusiveMaximum": 10}`, value: `10`, want: []string{`/: must be < 10, got 10 [exclusiveMaximum]`}},

		// References.
		{
			name:   "$defs and $ref",
			schema: `{"properties": {"a": {"$ref": "#/$defs/A"}, "list": {"type": "array", "items": {"$ref": "#/$defs/A"}}}, "$defs": {"A": {"type": "integer"}}}`,
			value:  `{"a": "x", "list": [1, "y"]}`,
			want:   []string{`/a: must be an integer, got string "x" [type]`, `/list/1: must be an integer, got string "y" [type]`},
		},
		{
			name:   "$anchor",
			schema: `{"properties": {"a": {"$ref": "#num"}}, "$defs": {"N": {"$anchor": "num", "type": "number"}}}`,
			value:  `{"a": "x"}`,
			want:   []string{`/a: must be a number, got string "x" [type]`},
		},
		{
			name:   "recursive $ref",
			schema: `{"$defs": {"node": {"type": "object", "properties": {"v": {"type": "integer"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}, "$ref": "#/$defs/node"}`,
			value:  `{"v": 1, "kids": [{"v": 2, "kids": [{"v": "three"}]}]}`,
			want:   []string{`/kids/0/kids/0/v: must be an integer, got string "three" [type]`},
		},
		{
			name:   "$ref into an escaped pointer",
			schema: `{"properties": {"a": {"$ref": "#/$defs/a~1b"}, "c": {"$ref": "#/$defs/x%20y"}}, "$defs": {"a/b": {"type": "boolean"}, "x y": {"type": "null"}}}`,
			value:  `{"a": 1, "c": 2}`,
			want:   []string{`/a: must be a boolean, got number 1 [type]`, `/c: must be null, got number 2 [type]`},
		},
		{
			name:   "$id with local $ref",
			schema: `{"$id": "https://example.com/tool.json", "properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {"type": "string"}}}`,
			value:  `{"a": 1}`,
			want:   []string{`/a: must be a string, got number 1 [type]`},
		},
		{
			name:   "$ref to a meta-schema is local",
			schema: `{"properties": {"s": {"$ref": "https://json-schema.org/draft/2020-12/schema"}}}`,
			value:  `{"s": {"type": "nope"}}`,
			want:   []string{`/s/type: must be one of "array", "boolean", "integer", "null", "number", "object", "string" or an array, got string "nope" [anyOf]`},
		},

		// Conditionals.
		{
			name:   "if/then",
			schema: `{"if": {"properties": {"country": {"const": "US"}}}, "then": {"required": ["zip"]}, "else": {"required": ["postcode"]}}`,
			value:  `{"country": "US"}`,
			want:   []string{`/zip: required property is missing [required]`},
		},
		{
			name:   "if/else",
			schema: `{"if": {"properties": {"country": {"const": "US"}}}, "then": {"required": ["zip"]}, "else": {"required": ["postcode"]}}`,
			value:  `{"country": "FR"}`,
			want:   []string{`/postcode: required property is missing [required]`},
		},

		// Formats.
		{name: "email valid", schema: `{"format": "email"}`, value: `"ada@example.com"`},
		{name: "email invalid", schema: `{"format": "email"}`, value: `"ada.example.com"`, want: []string{`/: must be an email address, got "ada.example.com" [format]`}},
		{name: "uri valid", schema: `{"format": "uri"}`, value: `"https://example.com/a?b=c#d"`},
		{name: "uri relative", schema: `{"format": "uri"}`, value: `"/a/b"`, want: []string{`/: must be an absolute URI, got "/a/b" [format]`}},
		{name: "date valid", schema: `{"format": "date"}`, value: `"2024-02-29"`},
		{name: "date invalid", schema: `{"format": "date"}`, value: `"2023-02-29"`, want: []string{`/: must be a date (YYYY-MM-DD), got "2023-02-29" [format]`}},
		{name: "date-time valid", schema: `{"format": "date-time"}`, value: `"2025-01-31T09:30:00.5+01:00"`},
		{
			name:   "date-time without zone",
			schema: `{"format": "date-time"}`,
			value:  `"2025-01-31T09:30:00"`,
			want:   []string{`/: must be an RFC 3339 date-time (2006-01-02T15:04:05Z), got "2025-01-31T09:30:00" [format]`},
		},
		{name: "format of a non-string", schema: `{"format": "email"}`, value: `42`},
		{name: "other formats are annotations", schema: `{"format": "uuid"}`, value: `"not-a-uuid"`},
		{name: "unknown formats are annotations", schema: `{"format": "x-color"}`, value: `"blue"`},

		// Dialects.
		{
			name:   "draft-07 definitions",
			schema: `{"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"a": {"$ref": "#/definitions/A"}}, "definitions": {"A": {"type": "string"}}}`,
			value:  `{"a": 1}`,
			want:   []string{`/a: must be a string, got number 1 [type]`},
		},
		{
			name:   "draft-07 ignores siblings of $ref",
			schema: `{"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"a": {"$ref": "#/definitions/A", "type": "integer"}}, "definitions": {"A": {"type": "string"}}}`,
			value:  `{"a": "x"}`,
		},
		{
			name:   "draft-07 $id anchor",
			schema: `{"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"a": {"$ref": "#A"}}, "definitions": {"A": {"$id": "#A", "type": "string"}}}`,
			value:  `{"a": 1}`,
			want:   []string{`/a: must be a string, got number 1 [type]`},
		},
		{
			name:   "draft-07 array items",
			schema: `{"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "string"}], "additionalItems": false}`,
			value:  `["a", 2]`,
			want:   []string{`/: must have at most 1 item, got 2 [additionalItems]`},
		},
		{
			name:   "draft-07 asserts formats too",
			schema: `{"$schema": "http://json-schema.org/draft-07/schema#", "format": "email"}`,
			value:  `"nope"`,
			want:   []string{`/: must be an email address, got "nope" [format]`},
		},
		{
			name:   "draft-07 dependencies",
			schema: `{"$schema": "http://json-schema.org/draft-07/schema#", "dependencies": {"a": ["b"], "c": {"required": ["d"]}}}`,
			value:  `{"a": 1, "c": 2}`,
			want: []string{
				`/b: required property is missing (required when "a" is present) [dependencies]`,
				`/d: required property is missing [required]`,
			},
		},
		{
			name:   "2019-09 $anchor and unevaluatedProperties",
			schema: `{"$schema": "https://json-schema.org/draft/2019-09/schema", "properties": {"a": {"$ref": "#s"}}, "$defs": {"S": {"$anchor": "s", "type": "string"}}, "unevaluatedProperties": false}`,
			value:  `{"a": 1, "b": 2}`,
			want:   []string{`/: property "b" is not allowed [unevaluatedProperties]`, `/a: must be a string, got number 1 [type]`},
		},
		{
			name:   "draft-06 exclusiveMinimum is a number",
			schema: `{"$schema": "http://json-schema.org/draft-06/schema#", "exclusiveMinimum": 0}`,
			value:  `0`,
			want:   []string{`/: must be > 0, got 0 [exclusiveMinimum]`},
		},
		{
			name:   "draft-04 exclusiveMinimum is a boolean",
			schema: `{"$schema": "http://json-schema.org/draft-04/schema#", "minimum": 0, "exclusiveMinimum": true}`,
			value:  `0`,
			want:   []string{`/: must be > 0, got 0 [exclusiveMinimum]`},
		},
		{
			name:   "2020-12 named explicitly, with an empty fragment",
			schema: `{"$schema": "https://json-schema.org/draft/2020-12/schema#", "prefixItems": [{"type": "string"}]}`,
			value:  `[1]`,
			want:   []string{`/0: must be a string, got number 1 [type]`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustCompile(t, tt.schema)
			got, err := s.ValidateJSON(json.RawMessage(tt.value))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, show(got)); diff != "" {
				t.Errorf("ValidateJSON(%s) mismatch (-want +got):\n%s", tt.value, diff)
			}
		})
	}
}

func TestViolationFields(t *testing.T) {
	s := mustCompile(t, weatherSchema)
	got := s.Validate(map[string]any{"days": int64(0), "colour": "red"})
	want := []schema.Violation{
		{Path: "", Keyword: "additionalProperties", Msg: `additional property "colour" is not allowed; did you mean "color"?`},
		{Path: "/city", Keyword: "required", Msg: "required property is missing"},
		{Path: "/days", Keyword: "minimum", Msg: "must be >= 1, got 0"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Validate mismatch (-want +got):\n%s", diff)
	}
	if got := got[0].String(); got != `/: additional property "colour" is not allowed; did you mean "color"?` {
		t.Errorf("String() = %s", got)
	}
}

// TestValidateParseArgs checks that what ParseArgs builds validates as the
// JSON it is sent as: int64 for integers, json.Number with the digits typed
// for numbers.
func TestValidateParseArgs(t *testing.T) {
	s := mustCompile(t, weatherSchema)
	tests := []struct {
		args []string
		want []string
	}{
		{args: []string{"city=Paris", "days=3", "scale=2.50", "unit=f", `tags:=["a"]`, `loc:={"lat": 1.5, "lon": -2}`}},
		{args: []string{"city=Paris", "scale=19.99"}},
		{args: []string{"city=Paris", "scale=1e-2"}},
		{args: []string{"city=", "days=15", "scale=2.555"}, want: []string{
			`/city: must be at least 1 character long, got "" (0) [minLength]`,
			`/days: must be <= 14, got 15 [maximum]`,
			`/scale: must be a multiple of 0.01, got 2.555 [multipleOf]`,
		}},
		{args: []string{"city=Paris", "cty=Lyon", "days:=2.0"}, want: []string{
			`/: additional property "cty" is not allowed [additionalProperties]`,
		}},
		{args: []string{"city=Paris", "days:=2.5", `loc:={"lat": "1"}`}, want: []string{
			`/days: must be an integer, got number 2.5 [type]`,
			`/loc/lat: must be a number, got string "1" [type]`,
			`/loc/lon: required property is missing [required]`,
		}},
	}
	for _, tt := range tests {
		args, err := schema.ParseArgs(tt.args, json.RawMessage(weatherSchema), schema.ArgOptions{})
		if err != nil {
			t.Fatalf("ParseArgs(%q): %v", tt.args, err)
		}
		if diff := cmp.Diff(tt.want, show(s.Validate(args))); diff != "" {
			t.Errorf("Validate(ParseArgs(%q)) mismatch (-want +got):\n%s", tt.args, diff)
		}
	}
}

// TestValidateGoValues checks values that did not come from decoding JSON.
func TestValidateGoValues(t *testing.T) {
	s := mustCompile(t, `{
		"type": "object",
		"properties": {
			"i": {"type": "integer", "maximum": 100},
			"n": {"type": "number"},
			"list": {"type": "array", "items": {"type": "string"}},
			"obj": {"type": "object", "additionalProperties": {"type": "integer"}}
		}
	}`)
	type point struct {
		X int `json:"x"`
	}
	tests := []struct {
		name  string
		value any
		want  []string
	}{
		{name: "Go integers", value: map[string]any{"i": 7, "n": int16(-3)}},
		{name: "unsigned", value: map[string]any{"i": uint8(7), "n": uint64(math.MaxUint64)}},
		{name: "big unsigned", value: map[string]any{"i": uint64(math.MaxUint64)}, want: []string{`/i: must be <= 100, got 18446744073709551615 [maximum]`}},
		{name: "float64 whole is an integer", value: map[string]any{"i": 3.0, "n": float32(0.5)}},
		{name: "float64 fraction", value: map[string]any{"i": 3.5}, want: []string{`/i: must be an integer, got number 3.5 [type]`}},
		{name: "json.Number", value: map[string]any{"i": json.Number("12"), "n": json.Number("-0.5e-3")}},
		{name: "typed slices and maps", value: map[string]any{"list": []string{"a", "b"}, "obj": map[string]int{"a": 1}}},
		{name: "typed slice, wrong element", value: map[string]any{"list": []int{1}}, want: []string{`/list/0: must be a string, got number 1 [type]`}},
		{name: "struct", value: map[string]any{"obj": point{X: 1}}},
		{name: "raw JSON", value: map[string]any{"obj": json.RawMessage(`{"x": "1"}`)}, want: []string{`/obj/x: must be an integer, got string "1" [type]`}},
		{name: "NaN", value: map[string]any{"n": math.NaN()}, want: []string{`/n: must be a JSON value, got NaN [type]`}},
		{name: "infinity in a list", value: map[string]any{"list": []any{"a", math.Inf(-1)}}, want: []string{`/list/1: must be a JSON value, got -Inf [type]`}},
		{name: "malformed json.Number", value: map[string]any{"n": json.Number("1,5")}, want: []string{`/n: must be a JSON value, got the malformed number "1,5" [type]`}},
		{name: "channel", value: map[string]any{"n": make(chan int)}, want: []string{`/n: must be a JSON value, got chan int (json: unsupported type: chan int) [type]`}},
		{name: "nil map", value: map[string]any(nil), want: nil},
		{name: "nil", value: nil, want: []string{`/: must be an object, got null [type]`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, show(s.Validate(tt.value))); diff != "" {
				t.Errorf("Validate mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateDoesNotChangeItsInput(t *testing.T) {
	s := mustCompile(t, `{"properties": {"a": {"type": "array"}}}`)
	in := map[string]any{"a": []any{1, int8(2), "x"}, "b": 3}
	s.Validate(in)
	want := map[string]any{"a": []any{1, int8(2), "x"}, "b": 3}
	if diff := cmp.Diff(want, in); diff != "" {
		t.Errorf("Validate changed its input (-want +got):\n%s", diff)
	}
}

func TestValidateJSONErrors(t *testing.T) {
	s := mustCompile(t, `{}`)
	for _, raw := range []string{"", "  ", "{", `{"a": 1} x`} {
		if _, err := s.ValidateJSON(json.RawMessage(raw)); err == nil {
			t.Errorf("ValidateJSON(%q) = nil error, want one", raw)
		}
	}
}

// TestValidateConcurrently shares a schema, and the compile cache, between
// goroutines; run with -race.
func TestValidateConcurrently(t *testing.T) {
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := schema.Compile(json.RawMessage(weatherSchema))
			if err != nil {
				t.Error(err)
				return
			}
			if _, err := schema.Compile(uncached(weatherSchema)); err != nil {
				t.Error(err)
			}
			for range 50 {
				got := s.Validate(map[string]any{"city": "x", "days": int64(i)})
				if (i == 0) != (len(got) == 1) {
					t.Errorf("days=%d: %v", i, got)
				}
			}
		}()
	}
	wg.Wait()
}

// bigSchema has n properties, each an object with nested arrays and a $ref,
// and an instance with one violation per property.
func bigSchema(n int) (schemaText, value string, wantErrors int) {
	var props, vals []string
	for i := range n {
		props = append(props, fmt.Sprintf(`"p%d": {"type": "object", "properties": {
			"name": {"type": "string", "maxLength": 10},
			"tags": {"type": "array", "items": {"$ref": "#/$defs/Tag"}},
			"kind": {"enum": ["a", "b", "c"]}
		}, "required": ["name"], "additionalProperties": false}`, i))
		vals = append(vals, fmt.Sprintf(`"p%d": {"name": "n", "tags": [{"id": %d}, {"id": "bad"}], "kind": "a"}`, i, i))
	}
	schemaText = `{"type": "object", "properties": {` + strings.Join(props, ",") + `},
		"$defs": {"Tag": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}}}`
	return schemaText, `{` + strings.Join(vals, ",") + `}`, n
}

func TestValidateBigSchema(t *testing.T) {
	text, value, n := bigSchema(300)
	s := mustCompile(t, text)
	got, err := s.ValidateJSON(json.RawMessage(value))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("got %d violations, want %d", len(got), n)
	}
	for i, v := range got {
		if v.Keyword != "type" || !strings.HasSuffix(v.Path, "/tags/1/id") {
			t.Errorf("violation %d = %v [%s], want a type error at /p…/tags/1/id", i, v, v.Keyword)
		}
		if i > 0 && got[i-1].Path >= v.Path {
			t.Errorf("violations not sorted: %s before %s", got[i-1].Path, v.Path)
		}
	}
}

// uncachedSeq numbers the schemas uncached makes, across benchmark runs.
var uncachedSeq atomic.Int64

// uncached makes the bytes of an object schema unique, so Compile cannot
// answer from its cache.
func uncached(schemaText string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"$comment": "%d", %s`, uncachedSeq.Add(1), strings.TrimPrefix(strings.TrimSpace(schemaText), "{")))
}

// BenchmarkCompileValidate is what one tool call costs mcpctl: compiling
// the tool's inputSchema and validating the arguments. The cache is beaten
// by making each schema's bytes unique.
func BenchmarkCompileValidate(b *testing.B) {
	args := map[string]any{"city": "Paris", "days": int64(3), "unit": "c", "scale": json.Number("2.50"), "tags": []any{"a"}}
	b.ReportAllocs()
	for b.Loop() {
		s, err := schema.Compile(uncached(weatherSchema))
		if err != nil {
			b.Fatal(err)
		}
		if v := s.Validate(args); v != nil {
			b.Fatal(v)
		}
	}
}

// BenchmarkCompile is Compile alone, uncached.
func BenchmarkCompile(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := schema.Compile(uncached(weatherSchema)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileCached is Compile of a schema it has seen.
func BenchmarkCompileCached(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := schema.Compile(json.RawMessage(weatherSchema)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidate is Validate of valid arguments.
func BenchmarkValidate(b *testing.B) {
	s := mustCompile(b, weatherSchema)
	args := map[string]any{"city": "Paris", "days": int64(3), "unit": "c", "scale": json.Number("2.50"), "tags": []any{"a"}}
	b.ReportAllocs()
	for b.Loop() {
		if v := s.Validate(args); v != nil {
			b.Fatal(v)
		}
	}
}

// BenchmarkValidateInvalid is Validate of arguments with four violations,
// messages and suggestions included.
func BenchmarkValidateInvalid(b *testing.B) {
	s := mustCompile(b, weatherSchema)
	args := map[string]any{"citi": "Paris", "days": int64(0), "unit": "k", "tags": []any{1}}
	b.ReportAllocs()
	for b.Loop() {
		if v := s.Validate(args); len(v) != 5 {
			b.Fatal(v)
		}
	}
}

// BenchmarkCompileBig compiles a 300-property schema of about 100 kB.
func BenchmarkCompileBig(b *testing.B) {
	text, _, _ := bigSchema(300)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := schema.Compile(uncached(text)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestValidateWordsFromInstance checks messages whose figures come from the
// schema and the value, not from the library's wording.
func TestValidateWordsFromInstance(t *testing.T) {
	tests := []struct {
		schema string
		value  any
		want   string
	}{
		{`{"uniqueItems": true}`, []any{"a", int64(1), json.Number("1.0")}, "/: items must be unique, but items 1 and 2 are equal"},
		{`{"uniqueItems": true}`, []any{map[string]any{"a": []any{1}}, map[string]any{"a": []any{1.0}}}, "/: items must be unique, but items 0 and 1 are equal"},
		{`{"contains": {"type": "integer"}, "minContains": 2}`, []any{int64(1), "x"}, `/: must contain at least 2 items matching "contains", got 1`},
		{`{"contains": {"type": "integer"}, "maxContains": 1}`, []any{int64(1), "x", int64(3), int64(4)}, `/: must contain at most 1 item matching "contains", got 3`},
		{`{"oneOf": [{"type": "string"}, {"minLength": 1}, {"maxLength": 5}]}`, "abc", "/: must match exactly one oneOf alternative, but matches oneOf/0 and oneOf/1"},
	}
	for _, tt := range tests {
		vs := mustCompile(t, tt.schema).Validate(tt.value)
		if len(vs) != 1 || vs[0].String() != tt.want {
			t.Errorf("%s on %v: %v, want %q", tt.schema, tt.value, vs, tt.want)
		}
	}
}
