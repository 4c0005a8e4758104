package argfuzz

import (
	"encoding/json"
	"testing"

	"github.com/mcpctl/mcpctl/schema"
)

// shapeSchema exercises enums, bounds, lengths, formats, arrays, nesting
// and required/optional properties.
const shapeSchema = `{"type":"object","properties":{
	"kind":{"type":"string","enum":["circle","square"]},
	"size":{"type":"number","exclusiveMinimum":0,"maximum":10},
	"count":{"type":"integer","minimum":1,"maximum":5},
	"name":{"type":"string","minLength":2,"maxLength":8},
	"tags":{"type":"array","items":{"type":"string","minLength":1},"maxItems":3},
	"point":{"type":"object","properties":{"x":{"type":"integer"},"y":{"type":"integer"}},"required":["x","y"]},
	"at":{"type":"string","format":"date-time"},
	"ref":{"$ref":"#/$defs/id"}},
	"required":["kind"],
	"$defs":{"id":{"type":"integer","minimum":0}}}`

func compiled(t *testing.T, raw string) (*schema.Schema, any) {
	t.Helper()
	s, err := schema.Compile(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal([]byte(raw), &doc); err != nil {
		t.Fatal(err)
	}
	return s, doc
}

func TestValidArgumentsValidateAndSpreadOverTheSchema(t *testing.T) {
	s, doc := compiled(t, shapeSchema)
	g := newGenerator(doc, 7)
	seen := map[string]bool{}
	for range 300 {
		args := g.arguments()
		if v, _ := s.ValidateArgs(args, false); len(v) > 0 {
			t.Fatalf("generated %v, which breaks the schema: %v", args, v)
		}
		for k, v := range args {
			seen[k] = true
			if k == "count" && (v == 1.0 || v == 5.0) {
				seen["count at a bound"] = true
			}
			if k == "name" && (len(v.(string)) == 2 || len(v.(string)) == 8) {
				seen["name at a length bound"] = true
			}
		}
		if len(args) == 1 {
			seen["only the required"] = true
		}
	}
	for _, want := range []string{"kind", "size", "count", "name", "tags", "point", "at", "ref", "count at a bound", "name at a length bound", "only the required"} {
		if !seen[want] {
			t.Errorf("300 cases never gave %s", want)
		}
	}
}

func TestInvalidArgumentsBreakTheSchema(t *testing.T) {
	s, doc := compiled(t, shapeSchema)
	g := newGenerator(doc, 7)
	broken := 0
	for range 300 {
		if v, unknown := s.ValidateArgs(g.invalidArguments(), false); len(v) > 0 || unknown > 0 {
			broken++
		}
	}
	// An edge is sometimes no edge: a null where null is harmless, an
	// optional property made invalid then dropped. Most must break.
	if broken < 270 {
		t.Errorf("%d of 300 invalid cases break the schema, want most", broken)
	}
}

func TestSeedReproducesTheCases(t *testing.T) {
	_, doc := compiled(t, shapeSchema)
	a, b := newGenerator(doc, 42), newGenerator(doc, 42)
	for range 50 {
		x, _ := json.Marshal(a.invalidArguments())
		y, _ := json.Marshal(b.invalidArguments())
		if string(x) != string(y) {
			t.Fatalf("same seed, different cases: %s and %s", x, y)
		}
	}
}
