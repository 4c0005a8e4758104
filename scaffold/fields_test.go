package scaffold

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseField(t *testing.T) {
	for _, tc := range []struct {
		spec    string
		want    Field
		wantErr string
	}{
		{spec: "city:string", want: Field{Name: "city", Type: "string"}},
		{spec: "city:string:required", want: Field{Name: "city", Type: "string", Required: true}},
		{spec: "city:string:required:The city", want: Field{Name: "city", Type: "string", Required: true, Description: "The city"}},
		{spec: "city:string:optional:The city", want: Field{Name: "city", Type: "string", Description: "The city"}},
		{spec: "city:string:The city: where", want: Field{Name: "city", Type: "string", Description: "The city: where"}},
		{spec: "at:string:required:Time, as HH:MM", want: Field{Name: "at", Type: "string", Required: true, Description: "Time, as HH:MM"}},
		{spec: "tags:string[]:required", want: Field{Name: "tags", Type: "string[]", Required: true}},
		{spec: "n:integer", want: Field{Name: "n", Type: "integer"}},
		{spec: "x:number[]", want: Field{Name: "x", Type: "number[]"}},
		{spec: "ok:boolean", want: Field{Name: "ok", Type: "boolean"}},
		{spec: "max-depth:integer", want: Field{Name: "max-depth", Type: "integer"}},
		{spec: "city", wantErr: "not name:type"},
		{spec: "city:text", wantErr: `type "text"`},
		{spec: "city:object", wantErr: `type "object"`},
		{spec: "city:string[][]", wantErr: `type "string[][]"`},
		{spec: "1city:string", wantErr: "must start with a letter"},
		{spec: "ci ty:string", wantErr: "must start with a letter"},
		{spec: "_:string", wantErr: "no letter or digit"},
		{spec: "__proto__:string", wantErr: "cannot be a key"},
		{spec: "q:string:required:format=x", wantErr: "WORD="},
	} {
		got, err := ParseField(tc.spec)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseField(%q) = %v, want an error containing %q", tc.spec, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseField(%q): %v", tc.spec, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("ParseField(%q) (-want +got):\n%s", tc.spec, diff)
		}
	}
}

func TestCheckFields(t *testing.T) {
	if err := checkFields("input", []Field{{Name: "a-b", Type: "string"}, {Name: "a_b", Type: "string"}}); err == nil || !strings.Contains(err.Error(), "both be the Go field AB") {
		t.Errorf("a-b and a_b: %v", err)
	}
	if err := checkFields("input", []Field{{Name: "a", Type: "string"}, {Name: "a", Type: "integer"}}); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("a twice: %v", err)
	}
}

func TestFieldsFromSchema(t *testing.T) {
	fields, warnings, err := FieldsFromSchema([]byte(countSchema))
	if err != nil {
		t.Fatal(err)
	}
	want := []Field{
		{Name: "path", Type: "string", Required: true, Description: "Folder to count in"},
		{Name: "pattern", Type: "string", Description: "Glob of the names to count"},
		{Name: "recursive", Type: "boolean"},
		{Name: "max-depth", Type: "integer"},
	}
	if diff := cmp.Diff(want, fields); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
	wantWarnings := []string{
		`property "pattern": ignoring default (the generated types carry only type, description and required; add such checks in the handler)`,
		`property "max-depth": ignoring minimum (the generated types carry only type, description and required; add such checks in the handler)`,
	}
	if diff := cmp.Diff(wantWarnings, warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}

	fields, _, err = FieldsFromSchema([]byte(`{"properties": {"ids": {"type": "array", "items": {"type": "integer"}}}}`))
	if err != nil || len(fields) != 1 || fields[0].Type != "integer[]" {
		t.Errorf("array of integers: %v %v", fields, err)
	}

	for schema, wantErr := range map[string]string{
		`[]`:                 "not a JSON Schema object",
		`{"type": "string"}`: `a tool's input schema has type "object"`,
		`{"type": "object"}`: `no "properties"`,
		`{"properties": {"a": {"type": "object"}}}`:                             `property "a" has type object`,
		`{"properties": {"a": {"type": ["string", "null"]}}}`:                   `property "a" has type [string null]`,
		`{"properties": {"a": {"type": "array", "items": {"type": "object"}}}}`: `items have type object`,
		`{"properties": {"a": {"type": "string"}}, "required": ["b"]}`:          `"b" is required but is not among the properties`,
		`{"properties": {"a b": {"type": "string"}}}`:                           `property name "a b"`,
	} {
		if _, _, err := FieldsFromSchema([]byte(schema)); err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("FieldsFromSchema(%s) = %v, want an error containing %q", schema, err, wantErr)
		}
	}
}
