package schema_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/schema"
)

// nestedSchema has a nested object, a property whose name holds a dot
// beside an object named by its first part, an array of objects, a
// free-form object and a property reached through $ref.
const nestedSchema = `{
  "type": "object",
  "properties": {
    "metadata": {"type": "object", "properties": {
      "location": {"type": "string"},
      "count": {"type": "integer"},
      "geo": {"type": "object", "properties": {"lat": {"type": "number"}}}
    }},
    "a.b": {"type": "string"},
    "a": {"type": "object", "properties": {"b": {"type": "integer"}, "c": {"type": "integer"}}},
    "tags": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}},
    "free": {"type": "object"},
    "version": {"type": "string"},
    "ref": {"$ref": "#/$defs/Point"}
  },
  "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "integer"}}}}
}`

func TestParseArgsDotted(t *testing.T) {
	s, err := schema.Compile([]byte(nestedSchema))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		argsJSON string
		want     string // the arguments as JSON
		wantErr  string
	}{
		{name: "nested, typed", args: []string{"metadata.location=Paris", "metadata.count=3"}, want: `{"metadata":{"count":3,"location":"Paris"}}`},
		{name: "two levels", args: []string{"metadata.geo.lat=48.85"}, want: `{"metadata":{"geo":{"lat":48.85}}}`},
		{name: "a declared dotted name wins", args: []string{"a.b=7"}, want: `{"a.b":"7"}`},
		{name: "else the object", args: []string{"a.c=7"}, want: `{"a":{"c":7}}`},
		{name: "through $ref", args: []string{"ref.x=2"}, want: `{"ref":{"x":2}}`},
		{name: "json into a field", args: []string{"metadata.count:=4"}, want: `{"metadata":{"count":4}}`},
		{name: "whole object", args: []string{`metadata:={"location":"Lyon"}`}, want: `{"metadata":{"location":"Lyon"}}`},
		{name: "into --args", argsJSON: `{"metadata":{"location":"Nice"}}`, args: []string{"metadata.count=2"}, want: `{"metadata":{"count":2,"location":"Nice"}}`},
		{name: "free-form object", args: []string{"free.k=1"}, want: `{"free":{"k":"1"}}`},
		{name: "undeclared first part stays literal", args: []string{"zz.top=1"}, want: `{"zz.top":"1"}`},
		{name: "not an object stays literal", args: []string{"version.major=1"}, want: `{"version.major":"1"}`},
		{name: "trailing dot stays literal", args: []string{"metadata.=1"}, want: `{"metadata.":"1"}`},
		{name: "undeclared field of a declared object", args: []string{"metadata.locaton=x"}, want: `{"metadata":{"locaton":"x"}}`},
		{name: "wrong type", args: []string{"metadata.count=many"}, wantErr: `argument "metadata.count": "many" is not an integer`},
		{name: "twice", args: []string{"metadata.count=1", "metadata.count=2"}, wantErr: `argument "metadata.count": given more than once`},
		{name: "field then whole", args: []string{"metadata.count=1", "metadata:={}"}, wantErr: `argument "metadata": sets the whole object metadata.count sets a field of`},
		{name: "whole then field", args: []string{"metadata:={}", "metadata.count=1"}, wantErr: `argument "metadata.count": sets a field of metadata, given whole`},
		{name: "--args holds no object there", argsJSON: `{"metadata":"x"}`, args: []string{"metadata.count=1"}, wantErr: `metadata is a string in --args`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.ParseArgs(tt.args, schema.ArgOptions{ArgsJSON: tt.argsJSON})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(got)
			if string(b) != tt.want {
				t.Errorf("got %s, want %s", b, tt.want)
			}
		})
	}
}

func TestParseArgsDottedMismatchPath(t *testing.T) {
	s, err := schema.Compile([]byte(nestedSchema))
	if err != nil {
		t.Fatal(err)
	}
	var mm []schema.Violation
	if _, err := s.ParseArgs([]string{"metadata.count=many"}, schema.ArgOptions{Mismatches: &mm}); err != nil {
		t.Fatal(err)
	}
	want := []schema.Violation{{Path: "/metadata/count", Keyword: "type", Msg: `"many" is not an integer`}}
	if diff := cmp.Diff(want, mm); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Without a schema, dots never nest: prompt arguments are flat strings.
func TestParseArgsDottedWithoutSchema(t *testing.T) {
	got, err := schema.ParseArgs([]string{"a.b=1"}, nil, schema.ArgOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"a.b": "1"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestUnknownArgs(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		args   string
		want   []string
	}{
		{name: "misspelt", schema: `{"type":"object","properties":{"count":{"type":"integer"}}}`, args: `{"cuont":2}`,
			want: []string{`/cuont: unknown argument; did you mean "count"?`}},
		{name: "declared", schema: `{"type":"object","properties":{"count":{"type":"integer"}}}`, args: `{"count":2}`},
		{name: "far from any", schema: `{"type":"object","properties":{"count":{},"size":{}}}`, args: `{"zzzzz":1}`,
			want: []string{`/zzzzz: unknown argument (declared: count, size)`}},
		{name: "no properties at all", schema: `{"type":"object"}`, args: `{"x":1}`,
			want: []string{`/x: unknown argument (the schema declares none)`}},
		{name: "a given name is not suggested", schema: `{"type":"object","properties":{"count":{},"amount":{}}}`, args: `{"count":1,"cuont":2}`,
			want: []string{`/cuont: unknown argument (declared: amount, count)`}},
		{name: "additionalProperties true", schema: `{"type":"object","properties":{"a":{}},"additionalProperties":true}`, args: `{"b":1}`},
		{name: "additionalProperties a schema", schema: `{"type":"object","properties":{"a":{}},"additionalProperties":{"type":"string"}}`, args: `{"b":"x"}`},
		{name: "unevaluatedProperties true", schema: `{"type":"object","properties":{"a":{}},"unevaluatedProperties":true}`, args: `{"b":1}`},
		{name: "additionalProperties false: left to Validate", schema: `{"type":"object","properties":{"a":{}},"additionalProperties":false}`, args: `{"b":1}`},
		{name: "patternProperties", schema: `{"type":"object","patternProperties":{"^x_":{}}}`, args: `{"x_1":1,"y":2}`,
			want: []string{`/y: unknown argument`}},
		{name: "allOf branches declare", schema: `{"allOf":[{"properties":{"a":{}}},{"properties":{"b":{}}}]}`, args: `{"a":1,"b":2}`},
		{name: "through $ref", schema: `{"$ref":"#/$defs/A","$defs":{"A":{"type":"object","properties":{"a":{}}}}}`, args: `{"a":1,"c":2}`,
			want: []string{`/c: unknown argument (declared: a)`}},
		{name: "nested", schema: nestedSchema, args: `{"metadata":{"locaton":"x","geo":{"lta":1}}}`,
			want: []string{
				`/metadata/geo/lta: unknown argument; did you mean "metadata.geo.lat"?`,
				`/metadata/locaton: unknown argument; did you mean "metadata.location"?`,
			}},
		{name: "array items", schema: nestedSchema, args: `{"tags":[{"name":"a"},{"nmae":"b"}]}`,
			want: []string{`/tags/1/nmae: unknown argument; did you mean "tags[].name"?`}},
		{name: "free-form object not looked into", schema: nestedSchema, args: `{"free":{"anything":1}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := schema.Compile([]byte(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			var args map[string]any
			if err := json.Unmarshal([]byte(tt.args), &args); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, v := range s.UnknownArgs(args) {
				if v.Keyword != "additionalProperties" {
					t.Errorf("keyword %q", v.Keyword)
				}
				got = append(got, v.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateArgs(t *testing.T) {
	s, err := schema.Compile([]byte(`{"type":"object","properties":{"count":{"type":"integer","minimum":1}}}`))
	if err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"count": int64(0), "cuont": "2"}
	got, unknown := s.ValidateArgs(args, false)
	want := []string{"/count: must be >= 1, got 0", `/cuont: unknown argument (declared: count)`}
	var strs []string
	for _, v := range got {
		strs = append(strs, v.String())
	}
	if diff := cmp.Diff(want, strs); diff != "" || unknown != 1 {
		t.Errorf("unknown %d, (-want +got):\n%s", unknown, diff)
	}
	got, unknown = s.ValidateArgs(args, true)
	if len(got) != 1 || unknown != 0 {
		t.Errorf("allowUnknown: got %v, %d unknown", got, unknown)
	}
}
