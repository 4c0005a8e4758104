package schema_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/mcpctl/mcpctl/schema"
)

func TestCompileDialect(t *testing.T) {
	tests := []struct{ schema, want string }{
		{`{}`, "2020-12"},
		{`true`, "2020-12"},
		{`{"$schema": "https://json-schema.org/draft/2020-12/schema"}`, "2020-12"},
		{`{"$schema": "http://json-schema.org/draft/2020-12/schema#"}`, "2020-12"},
		{`{"$schema": "https://json-schema.org/schema"}`, "2020-12"},
		{`{"$schema": "https://json-schema.org/draft/2019-09/schema"}`, "2019-09"},
		{`{"$schema": "http://json-schema.org/draft-07/schema#"}`, "draft-07"},
		{`{"$schema": "http://json-schema.org/draft-07/schema"}`, "draft-07"},
		{`{"$schema": "http://json-schema.org/draft-06/schema#"}`, "draft-06"},
		{`{"$schema": "http://json-schema.org/draft-04/schema#"}`, "draft-04"},
	}
	for _, tt := range tests {
		if _, err := schema.Compile(json.RawMessage(tt.schema)); err != nil {
			t.Errorf("Compile(%s) as %s: %v", tt.schema, tt.want, err)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   string
		as     any // a pointer to the error type errors.As must find, or nil
	}{
		{name: "empty", schema: ``, want: "schema is empty"},
		{name: "not JSON", schema: `{"type": `, want: "schema is not valid JSON: unexpected end of JSON input"},
		{name: "trailing data", schema: `{} {}`, want: "schema is not valid JSON: invalid character '{' after top-level value"},
		{name: "null", schema: `null`, want: "invalid schema: /: must be an object or a boolean, got null", as: new(*schema.InvalidError)},
		{name: "number", schema: `3`, want: "invalid schema: /: must be an object or a boolean, got number 3", as: new(*schema.InvalidError)},
		{
			name:   "unknown dialect",
			schema: `{"$schema": "https://example.com/my-dialect"}`,
			want:   `unsupported JSON Schema dialect: "$schema" is "https://example.com/my-dialect" (mcpctl supports 2020-12 (the default), 2019-09, draft-07, draft-06 and draft-04)`,
			as:     new(*schema.DialectError),
		},
		{
			name:   "draft-03",
			schema: `{"$schema": "http://json-schema.org/draft-03/schema#"}`,
			want:   `unsupported JSON Schema dialect: "$schema" is "http://json-schema.org/draft-03/schema#" (mcpctl supports 2020-12 (the default), 2019-09, draft-07, draft-06 and draft-04)`,
			as:     new(*schema.DialectError),
		},
		{
			name:   "$schema not a string",
			schema: `{"$schema": 7}`,
			want:   `unsupported JSON Schema dialect: "$schema" is 7 (mcpctl supports 2020-12 (the default), 2019-09, draft-07, draft-06 and draft-04)`,
			as:     new(*schema.DialectError),
		},
		{
			name:   "misspelt type",
			schema: `{"type": "object", "properties": {"days": {"type": "integr"}}}`,
			want:   `invalid schema: /properties/days/type: must be one of "array", "boolean", "integer", "null", "number", "object", "string" or an array, got string "integr"`,
			as:     new(*schema.InvalidError),
		},
		{
			name:   "several problems",
			schema: `{"properties": {"days": {"minimum": "1"}}, "required": "days"}`,
			want:   `invalid schema: /properties/days/minimum: must be a number, got string "1" (and 1 more problem)`,
			as:     new(*schema.InvalidError),
		},
		{
			name:   "draft-07 meta-schema",
			schema: `{"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"a": {"minLength": -1}}}`,
			want:   `invalid schema: /properties/a/minLength: must be >= 0, got -1`,
			as:     new(*schema.InvalidError),
		},
		{
			name:   "patternProperties Go cannot run",
			schema: `{"patternProperties": {"^(?!x)": {}}}`,
			want:   `invalid schema: /patternProperties: property name must be a regular expression Go can run (RE2 syntax), got "^(?!x)"`,
			as:     new(*schema.InvalidError),
		},
		{name: "missing $defs entry", schema: `{"$ref": "#/$defs/Nope"}`, want: `schema refers to "#/$defs/Nope", which is not in the document`},
		{name: "missing anchor", schema: `{"$ref": "#nope"}`, want: `schema refers to "#nope", which is not in the document`},
		{name: "$ref cycle", schema: `{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}`, want: `schema has a $ref cycle that never reaches a schema: #/$ref/$ref/$ref`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := schema.Compile(json.RawMessage(tt.schema))
			if err == nil {
				t.Fatalf("Compile(%s) = %v, want an error", tt.schema, s)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("Compile(%s) error:\n got %s\nwant %s", tt.schema, got, tt.want)
			}
			if tt.as != nil && !errors.As(err, tt.as) {
				t.Errorf("Compile(%s) error is %T, want %T", tt.schema, err, tt.as)
			}
		})
	}
}

func TestCompileBounds(t *testing.T) {
	props := make([]string, 5001)
	for i := range props {
		props[i] = fmt.Sprintf(`"p%d": {}`, i)
	}
	many := `{"properties": {` + strings.Join(props, ", ") + `}}`
	_, err := schema.Compile(json.RawMessage(many))
	if want := "schema has more than 5000 subschemas; mcpctl does not compile schemas that large"; err == nil || err.Error() != want {
		t.Errorf("Compile of 5002 subschemas: error = %v, want %s", err, want)
	}
	mustCompile(t, `{"properties": {`+strings.Join(props[:4999], ", ")+`}}`)

	huge := `{"description": "` + strings.Repeat("x", 1<<20) + `"}`
	_, err = schema.Compile(json.RawMessage(huge))
	if want := "schema is 1048595 bytes; mcpctl compiles schemas up to 1048576"; err == nil || err.Error() != want {
		t.Errorf("Compile of a huge schema: error = %v, want %s", err, want)
	}
}

func TestInvalidErrorViolations(t *testing.T) {
	_, err := schema.Compile(json.RawMessage(`{"properties": {"days": {"minimum": "1"}}, "required": "days"}`))
	var ie *schema.InvalidError
	if !errors.As(err, &ie) {
		t.Fatalf("Compile error = %v, want an *InvalidError", err)
	}
	want := []schema.Violation{
		{Path: "/properties/days/minimum", Keyword: "type", Msg: `must be a number, got string "1"`},
		{Path: "/required", Keyword: "type", Msg: `must be an array, got string "days"`},
	}
	if diff := cmp.Diff(want, ie.Violations); diff != "" {
		t.Errorf("Violations mismatch (-want +got):\n%s", diff)
	}
}

// TestCompileNeverFetches proves that no reference outside the document is
// loaded: not over the network (a live test server counts requests), not
// from disk (an existing file), not through the library's global loader.
func TestCompileNeverFetches(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, `{"type": "string"}`)
	}))
	defer srv.Close()
	file := filepath.Join(t.TempDir(), "defs.json")
	if err := os.WriteFile(file, []byte(`{"type": "string"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	fileURL := "file://" + filepath.ToSlash(file)

	globalLoads := 0
	saved := jsonschema.LoadURL
	jsonschema.LoadURL = func(url string) (io.ReadCloser, error) {
		globalLoads++
		return saved(url)
	}
	defer func() { jsonschema.LoadURL = saved }()

	tests := []struct {
		name, schema, ref string
		wantLoads         []string
	}{
		{
			// References in $defs are compiled only when something uses them,
			// so each test's reference is reached from the root.
			name:      "https",
			schema:    `{"properties": {"a": {"$ref": "https://example.com/x.json"}}}`,
			ref:       "https://example.com/x.json",
			wantLoads: []string{"https://example.com/x.json"},
		},
		{
			name:      "live server",
			schema:    `{"$ref": "` + srv.URL + `/s.json#/a"}`,
			ref:       srv.URL + "/s.json",
			wantLoads: []string{srv.URL + "/s.json"},
		},
		{
			name:      "existing file",
			schema:    `{"$ref": "` + fileURL + `"}`,
			ref:       fileURL,
			wantLoads: []string{fileURL},
		},
		{
			name:      "relative",
			schema:    `{"$defs": {"a": {"$ref": "other.json#/$defs/b"}}, "items": {"$ref": "#/$defs/a"}}`,
			ref:       "other.json",
			wantLoads: []string{"mcpctl:///other.json"},
		},
		{
			name:      "relative to $id",
			schema:    `{"$id": "` + srv.URL + `/tool.json", "properties": {"a": {"$ref": "defs.json"}}}`,
			ref:       srv.URL + "/defs.json",
			wantLoads: []string{srv.URL + "/defs.json"},
		},
		{
			name:      "urn",
			schema:    `{"$ref": "urn:example:thing"}`,
			ref:       "urn:example:thing",
			wantLoads: []string{"urn:example:thing"},
		},
		{
			name:      "draft-07",
			schema:    `{"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"a": {"$ref": "https://example.com/d7.json"}}, "items": {"$ref": "#/definitions/a"}}`,
			ref:       "https://example.com/d7.json",
			wantLoads: []string{"https://example.com/d7.json"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var loads []string
			_, err := schema.CompileObserved(json.RawMessage(tt.schema), func(url string) { loads = append(loads, url) })
			var re *schema.RemoteRefError
			if !errors.As(err, &re) {
				t.Fatalf("Compile error = %v, want a *RemoteRefError", err)
			}
			if re.Ref != tt.ref {
				t.Errorf("RemoteRefError.Ref = %q, want %q", re.Ref, tt.ref)
			}
			if want := fmt.Sprintf("schema refers to %q, which mcpctl does not fetch", tt.ref); err.Error() != want {
				t.Errorf("error = %s, want %s", err, want)
			}
			if diff := cmp.Diff(tt.wantLoads, loads); diff != "" {
				t.Errorf("load attempts mismatch (-want +got):\n%s", diff)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the test server was asked %d times", n)
	}
	if globalLoads != 0 {
		t.Errorf("the library's global LoadURL was called %d times", globalLoads)
	}
}

// TestCompileLoadsNothingLocal checks that local references, meta-schema
// references and $schema load nothing.
func TestCompileLoadsNothingLocal(t *testing.T) {
	for _, text := range []string{
		`{"$schema": "https://json-schema.org/draft/2020-12/schema", "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"$ref": "#b"}}, "$defs": {"A": {}, "B": {"$anchor": "b"}}}`,
		`{"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"a": {"$ref": "#/definitions/A"}}, "definitions": {"A": {"$id": "#A"}}}`,
		`{"$id": "https://example.com/root.json", "properties": {"a": {"$ref": "https://example.com/root.json#/$defs/A"}, "b": {"$ref": "sub.json"}}, "$defs": {"A": {}, "S": {"$id": "sub.json"}}}`,
		`{"properties": {"s": {"$ref": "https://json-schema.org/draft/2020-12/schema"}, "t": {"$ref": "http://json-schema.org/draft-07/schema#"}}}`,
		`{"$schema": "https://json-schema.org/draft/2019-09/schema", "$recursiveAnchor": true, "properties": {"kids": {"items": {"$recursiveRef": "#"}}}}`,
		`{"$dynamicAnchor": "node", "properties": {"kids": {"items": {"$dynamicRef": "#node"}}}}`,
		// The library reads $schema only at the root; an embedded resource's
		// is ignored, not fetched.
		`{"$defs": {"a": {"$id": "https://example.com/a.json", "$schema": "https://example.com/meta.json"}}, "$ref": "https://example.com/a.json"}`,
	} {
		var loads []string
		if _, err := schema.CompileObserved(json.RawMessage(text), func(url string) { loads = append(loads, url) }); err != nil {
			t.Errorf("Compile(%s): %v", text, err)
		}
		if len(loads) != 0 {
			t.Errorf("Compile(%s) tried to load %q", text, loads)
		}
	}
}

func TestCompileUnrunnablePattern(t *testing.T) {
	s := mustCompile(t, `{
		"properties": {
			"password": {"type": "string", "minLength": 8, "pattern": "^(?=.*\\d).+$"},
			"code": {"type": "string", "pattern": "^[A-Z]+$"},
			"tag": {"type": "array", "items": {"pattern": "(a)\\1"}}
		},
		"default": {"pattern": "(?=kept)"}
	}`)
	want := []string{
		`/properties/password/pattern: "^(?=.*\\d).+$" is not a regular expression Go can run (invalid or unsupported Perl syntax); it is not checked`,
		`/properties/tag/items/pattern: "(a)\\1" is not a regular expression Go can run (invalid escape sequence); it is not checked`,
	}
	if diff := cmp.Diff(want, s.Warnings()); diff != "" {
		t.Errorf("Warnings mismatch (-want +got):\n%s", diff)
	}
	got, err := s.ValidateJSON(json.RawMessage(`{"password": "short", "code": "abc", "tag": ["x"]}`))
	if err != nil {
		t.Fatal(err)
	}
	wantV := []string{
		`/code: must match the pattern "^[A-Z]+$", got "abc" [pattern]`,
		`/password: must be at least 8 characters long, got "short" (5) [minLength]`,
	}
	if diff := cmp.Diff(wantV, show(got)); diff != "" {
		t.Errorf("Validate mismatch (-want +got):\n%s", diff)
	}
}
