package schema_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/schema"
)

// FuzzParseArgs feeds ParseArgs arbitrary arguments and schemas. It checks
// that ParseArgs never panics, that every error is an *ArgError, that a
// successful parse marshals to valid JSON, and that key:=json gives back
// the JSON value it was given.
//
//	go test -run='^$' -fuzz=FuzzParseArgs -fuzztime=5s ./schema/
func FuzzParseArgs(f *testing.F) {
	seeds := []struct{ arg, schema, file string }{
		{"days=3", `{"type": "object", "properties": {"days": {"type": "integer"}}}`, ""},
		{"n:=1.50", `{}`, ""},
		{"tags:=[\"a\",\"b\"]", `{"properties": {"tags": {"type": "array"}}}`, ""},
		{"x=@f", `{"properties": {"x": {"type": ["integer", "null"]}}}`, "null\n"},
		{"x=@f", `{"properties": {"x": {"type": "string"}}}`, "\xff\xfe"},
		{"u=1", `{"properties": {"u": {"$ref": "#/$defs/U"}}, "$defs": {"U": {"enum": [1, "1", null]}}}`, ""},
		{"b=TRUE", `{"properties": {"b": {"anyOf": [{"type": "boolean"}, {"type": "string"}]}}}`, ""},
		{`s=\@x`, `{"properties": {"s": {"type": "object"}}}`, ""},
		{"o:=@f", `null`, `{"a": 1e400}`},
		{"=x", `[]`, ""},
		{"r=1", `{"properties": {"r": {"$ref": "#"}}}`, ""},
		{"big=99999999999999999999", `{"properties": {"big": {"type": "integer"}}}`, ""},
	}
	for _, s := range seeds {
		f.Add(s.arg, s.schema, s.file)
	}
	f.Fuzz(func(t *testing.T, arg, inputSchema, file string) {
		opts := schema.ArgOptions{ReadFile: func(string) ([]byte, error) { return []byte(file), nil }}
		got, err := schema.ParseArgs([]string{arg}, json.RawMessage(inputSchema), opts)
		if err != nil {
			var ae *schema.ArgError
			if !errors.As(err, &ae) {
				t.Fatalf("ParseArgs(%q) error %T %v, want an *ArgError", arg, err, err)
			}
			if got != nil {
				t.Fatalf("ParseArgs(%q) returned a value with its error", arg)
			}
			if strings.Contains(ae.Error(), "\n") && !strings.Contains(arg, "\n") && !strings.Contains(file, "\n") {
				t.Fatalf("error %q spans lines", ae)
			}
		} else {
			if got == nil {
				t.Fatal("ParseArgs returned nil without an error")
			}
			data, err := json.Marshal(got)
			if err != nil {
				t.Fatalf("ParseArgs(%q) = %#v, which does not marshal: %v", arg, got, err)
			}
			if !json.Valid(data) {
				t.Fatalf("ParseArgs(%q) marshals to invalid JSON %q", arg, data)
			}
		}

		// key:=json gives back the value, whatever the schema says.
		key, value, ok := strings.Cut(arg, ":=")
		if !ok || key == "" || strings.Contains(key, "=") || strings.HasPrefix(value, "@") || !json.Valid([]byte(value)) {
			return
		}
		got, err = schema.ParseArgs([]string{arg}, json.RawMessage(inputSchema), opts)
		if err != nil {
			t.Fatalf("ParseArgs(%q) with valid JSON: %v", arg, err)
		}
		data, err := json.Marshal(got[key])
		if err != nil {
			t.Fatalf("marshalling %q: %v", key, err)
		}
		if want, have := decode(t, []byte(value)), decode(t, data); !reflect.DeepEqual(want, have) {
			t.Fatalf("%s:=%s came back as %s", key, value, data)
		}
	})
}

// decode decodes JSON keeping numbers as written.
func decode(t *testing.T, data []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decoding %q: %v", data, err)
	}
	return v
}
