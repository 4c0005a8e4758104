package schema

import (
	"encoding/json"
	"testing"
)

// The reading without compiling gives what the compiled view gives, and is
// taken for the schemas it can read.
func TestPlainPropertiesMatchCompiled(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		schema string
		plain  bool
	}{
		{`{"type":"object","properties":{"city":{"type":"string","description":"City"},"days":{"type":"integer"}},"required":["city"]}`, true},
		{`{"type":"object","properties":{"x":{"type":["string","null"]},"y":{"type":"number","enum":[1,2]}},"required":["y","z"]}`, true},
		{`{"type":"object","properties":{"a":{"type":"string","$ref":"#/$defs/A","description":"own"}},"$defs":{"A":{"type":"string"}}}`, true},
		{`{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":"integer","description":"from the ref"}}}`, false},
		{`{"type":"object","properties":{"u":{"anyOf":[{"type":"string"},{"type":"null"}]}}}`, false},
		{`{"type":"object","properties":{"e":{"enum":["a","b"]}}}`, false},
		{`{"type":"object","properties":{"odd":{"type":"strange"}}}`, false},
	} {
		sh, err := parseShape(json.RawMessage(tc.schema))
		if err != nil {
			t.Fatal(err)
		}
		plain, ok := plainProperties(sh)
		if ok != tc.plain {
			t.Errorf("%s: read without compiling = %v, want %v", tc.schema, ok, tc.plain)
		}
		if !ok {
			continue
		}
		s, err := Compile(json.RawMessage(tc.schema))
		if err != nil {
			t.Fatal(err)
		}
		v := s.view()
		for _, p := range plain {
			if p.Type != v.propertyType(p.Name).String() && sh.props[p.Name] != nil {
				t.Errorf("%s: %s type %q, compiled %q", tc.schema, p.Name, p.Type, v.propertyType(p.Name).String())
			}
			if p.Description != v.description(p.Name) && sh.props[p.Name] != nil {
				t.Errorf("%s: %s description %q, compiled %q", tc.schema, p.Name, p.Description, v.description(p.Name))
			}
		}
	}
}
