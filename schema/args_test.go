package schema_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/schema"
)

// testSchema has a property for every case the typing rules distinguish.
const testSchema = `{
  "type": "object",
  "properties": {
    "s": {"type": "string"},
    "i": {"type": "integer"},
    "n": {"type": "number"},
    "b": {"type": "boolean"},
    "z": {"type": "null"},
    "arr": {"type": "array", "items": {"type": "integer"}},
    "obj": {"type": "object"},
    "is": {"type": ["integer", "string"]},
    "in": {"type": ["integer", "null"]},
    "nb": {"type": ["number", "boolean"]},
    "sn": {"type": ["string", "null"]},
    "ao": {"type": ["array", "object"]},
    "anyOf": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
    "oneOf": {"oneOf": [{"type": "boolean"}, {"type": "string"}]},
    "anyOpen": {"anyOf": [{"type": "integer"}, {"description": "anything"}]},
    "anyEnum": {"anyOf": [{"enum": ["auto"]}, {"type": "integer"}]},
    "es": {"enum": ["a", "b"]},
    "em": {"enum": [1, 2.5, "auto", true, null, [1, 2]]},
    "c": {"const": 3},
    "eo": {"enum": [{"k": 1}, {"k": [1, 2]}]},
    "ref": {"$ref": "#/$defs/Count"},
    "refDefinitions": {"$ref": "#/definitions/Mode"},
    "refAnyOf": {"anyOf": [{"$ref": "#/$defs/Count"}, {"type": "null"}]},
    "refTwice": {"$ref": "#/$defs/Alias"},
    "refEscaped": {"$ref": "#/$defs/a~1b"},
    "refIndex": {"$ref": "#/$defs/Pair/anyOf/1"},
    "refRoot": {"$ref": "#"},
    "allOf": {"allOf": [{"$ref": "#/$defs/Count"}], "description": "pydantic v1 style"},
    "trueSchema": true
  },
  "$defs": {
    "Count": {"type": "integer"},
    "Alias": {"$ref": "#/$defs/Count"},
    "a/b": {"type": "boolean"},
    "Pair": {"anyOf": [{"type": "string"}, {"type": "integer"}]}
  },
  "definitions": {"Mode": {"enum": [0, 1]}}
}`

// testFiles are written to a temporary folder; "$DIR" in arguments names it.
var testFiles = map[string]string{
	"text.txt":  "hello\n",
	"int.txt":   "42\n",
	"crlf.txt":  "7\r\n",
	"two.txt":   "7\n\n",
	"bool.txt":  "TRUE\n",
	"union.txt": "abc\n",
	"at.txt":    "@x",
	"obj.json":  "{\"a\": 2.50}\n",
	"arr.json":  "[1, \"x\"]",
	"args.json": `{"i": 1, "s": "from file"}`,
	"bad.json":  "{",
	"bin":       "\xff\xfe",
}

func writeTestFiles(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range testFiles {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func expand(dir string, list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = strings.ReplaceAll(s, "$DIR", dir)
	}
	return out
}

type num = json.Number

func TestParseArgs(t *testing.T) {
	dir := writeTestFiles(t)
	tests := []struct {
		name     string
		schema   string // testSchema when empty; "none" for a nil schema
		args     []string
		argsJSON string
		stdin    string
		want     map[string]any
	}{
		{name: "no arguments", want: map[string]any{}},
		{name: "string", args: []string{"s=hello world"}, want: map[string]any{"s": "hello world"}},
		{name: "string of digits", args: []string{"s=42"}, want: map[string]any{"s": "42"}},
		{name: "empty string", args: []string{"s="}, want: map[string]any{"s": ""}},
		{name: "value with = and :=", args: []string{"s=a=b:=c"}, want: map[string]any{"s": "a=b:=c"}},
		{name: "key with colon", args: []string{"a:b=c"}, want: map[string]any{"a:b": "c"}},
		{name: "key with colon, raw JSON", args: []string{"a::=1"}, want: map[string]any{"a:": num("1")}},
		{name: "integer", args: []string{"i=42"}, want: map[string]any{"i": int64(42)}},
		{name: "negative integer", args: []string{"i=-7"}, want: map[string]any{"i": int64(-7)}},
		{name: "integer zero", args: []string{"i=0"}, want: map[string]any{"i": int64(0)}},
		{name: "number keeps digits", args: []string{"n=2.50"}, want: map[string]any{"n": num("2.50")}},
		{name: "number integer", args: []string{"n=3"}, want: map[string]any{"n": num("3")}},
		{name: "number exponent", args: []string{"n=-1.5e3"}, want: map[string]any{"n": num("-1.5e3")}},
		{name: "boolean true", args: []string{"b=true"}, want: map[string]any{"b": true}},
		{name: "boolean TRUE", args: []string{"b=TRUE"}, want: map[string]any{"b": true}},
		{name: "boolean 1", args: []string{"b=1"}, want: map[string]any{"b": true}},
		{name: "boolean False", args: []string{"b=False"}, want: map[string]any{"b": false}},
		{name: "boolean 0", args: []string{"b=0"}, want: map[string]any{"b": false}},
		{name: "null", args: []string{"z=null"}, want: map[string]any{"z": nil}},
		{name: "array", args: []string{`arr=[1, "x"]`}, want: map[string]any{"arr": []any{num("1"), "x"}}},
		{name: "object", args: []string{`obj={"a": {"b": 2.0}}`}, want: map[string]any{"obj": map[string]any{"a": map[string]any{"b": num("2.0")}}}},

		{name: "union integer|string, integer", args: []string{"is=5"}, want: map[string]any{"is": int64(5)}},
		{name: "union integer|string, text", args: []string{"is=abc"}, want: map[string]any{"is": "abc"}},
		{name: "union integer|string, fraction", args: []string{"is=1.5"}, want: map[string]any{"is": "1.5"}},
		{name: "union integer|string, leading zero", args: []string{"is=007"}, want: map[string]any{"is": "007"}},
		{name: "union integer|null, null", args: []string{"in=null"}, want: map[string]any{"in": nil}},
		{name: "union integer|null, integer", args: []string{"in=3"}, want: map[string]any{"in": int64(3)}},
		{name: "union number|boolean, number", args: []string{"nb=2.5"}, want: map[string]any{"nb": num("2.5")}},
		{name: "union number|boolean, boolean", args: []string{"nb=true"}, want: map[string]any{"nb": true}},
		{name: "union number|boolean, 1 is a number", args: []string{"nb=1"}, want: map[string]any{"nb": num("1")}},
		{name: "union string|null, null", args: []string{"sn=null"}, want: map[string]any{"sn": nil}},
		{name: "union string|null, text", args: []string{"sn=x"}, want: map[string]any{"sn": "x"}},
		{name: "union array|object", args: []string{`ao={"k":[]}`}, want: map[string]any{"ao": map[string]any{"k": []any{}}}},
		{name: "anyOf integer", args: []string{"anyOf=4"}, want: map[string]any{"anyOf": int64(4)}},
		{name: "anyOf null", args: []string{"anyOf=null"}, want: map[string]any{"anyOf": nil}},
		{name: "oneOf boolean before string", args: []string{"oneOf=1"}, want: map[string]any{"oneOf": true}},
		{name: "oneOf string", args: []string{"oneOf=maybe"}, want: map[string]any{"oneOf": "maybe"}},
		{name: "anyOf with an open branch stays text", args: []string{"anyOpen=4"}, want: map[string]any{"anyOpen": "4"}},
		{name: "anyOf with enum branch, text", args: []string{"anyEnum=auto"}, want: map[string]any{"anyEnum": "auto"}},
		{name: "anyOf with enum branch, integer", args: []string{"anyEnum=8"}, want: map[string]any{"anyEnum": int64(8)}},

		{name: "enum of strings keeps text", args: []string{"es=zzz"}, want: map[string]any{"es": "zzz"}},
		{name: "mixed enum, integer", args: []string{"em=1"}, want: map[string]any{"em": num("1")}},
		{name: "mixed enum, number by value", args: []string{"em=2.50"}, want: map[string]any{"em": num("2.5")}},
		{name: "mixed enum, string", args: []string{"em=auto"}, want: map[string]any{"em": "auto"}},
		{name: "mixed enum, boolean", args: []string{"em=true"}, want: map[string]any{"em": true}},
		{name: "mixed enum, null", args: []string{"em=null"}, want: map[string]any{"em": nil}},
		{name: "mixed enum, array", args: []string{"em=[1,2]"}, want: map[string]any{"em": []any{num("1"), num("2")}}},
		{name: "enum of objects", args: []string{`eo={"k": [1, 2.0]}`}, want: map[string]any{"eo": map[string]any{"k": []any{num("1"), num("2")}}}},
		{name: "const", args: []string{"c=3.0"}, want: map[string]any{"c": num("3")}},

		{name: "$ref to $defs", args: []string{"ref=5"}, want: map[string]any{"ref": int64(5)}},
		{name: "$ref to definitions", args: []string{"refDefinitions=1"}, want: map[string]any{"refDefinitions": num("1")}},
		{name: "$ref in anyOf", args: []string{"refAnyOf=5", "anyOf=null"}, want: map[string]any{"refAnyOf": int64(5), "anyOf": nil}},
		{name: "$ref to a $ref", args: []string{"refTwice=5"}, want: map[string]any{"refTwice": int64(5)}},
		{name: "$ref escaped pointer", args: []string{"refEscaped=1"}, want: map[string]any{"refEscaped": true}},
		{name: "$ref into an array", args: []string{"refIndex=5"}, want: map[string]any{"refIndex": int64(5)}},
		{name: "$ref to the root", args: []string{`refRoot={}`}, want: map[string]any{"refRoot": map[string]any{}}},
		{name: "allOf of one $ref", args: []string{"allOf=5"}, want: map[string]any{"allOf": int64(5)}},
		{name: "boolean schema", args: []string{"trueSchema=5"}, want: map[string]any{"trueSchema": "5"}},
		{name: "unknown property", args: []string{"other=5"}, want: map[string]any{"other": "5"}},
		{name: "nil schema", schema: "none", args: []string{"i=5", "b=true"}, want: map[string]any{"i": "5", "b": "true"}},
		{name: "schema not an object", schema: `[1]`, args: []string{"i=5"}, want: map[string]any{"i": "5"}},
		{name: "schema with bad properties", schema: `{"properties": 3}`, args: []string{"i=5"}, want: map[string]any{"i": "5"}},
		{name: "schema with null properties", schema: `{"type":"object","properties":null}`, args: []string{"i=5"}, want: map[string]any{"i": "5"}},

		{name: "raw JSON is not retyped", args: []string{"i:=1.5", "s:=5"}, want: map[string]any{"i": num("1.5"), "s": num("5")}},
		{name: "raw JSON string", args: []string{`x:="str"`}, want: map[string]any{"x": "str"}},
		{name: "raw JSON null", args: []string{"x:=null"}, want: map[string]any{"x": nil}},
		{name: "raw JSON object", args: []string{`x:= {"a": [true]} `}, want: map[string]any{"x": map[string]any{"a": []any{true}}}},

		{name: "escaped @", args: []string{`s=\@home`}, want: map[string]any{"s": "@home"}},
		{name: "escaped backslash and @", args: []string{`s=\\@x`}, want: map[string]any{"s": `\@x`}},
		{name: "backslash without @ is kept", args: []string{`s=\x`}, want: map[string]any{"s": `\x`}},
		{name: "@ inside a value is text", args: []string{"s=a@b"}, want: map[string]any{"s": "a@b"}},

		{name: "file as string keeps newline", args: []string{"s=@$DIR/text.txt"}, want: map[string]any{"s": "hello\n"}},
		{name: "file for unknown property", args: []string{"other=@$DIR/at.txt"}, want: map[string]any{"other": "@x"}},
		{name: "file as integer", args: []string{"i=@$DIR/int.txt"}, want: map[string]any{"i": int64(42)}},
		{name: "file as integer, CRLF", args: []string{"i=@$DIR/crlf.txt"}, want: map[string]any{"i": int64(7)}},
		{name: "file as boolean", args: []string{"b=@$DIR/bool.txt"}, want: map[string]any{"b": true}},
		{name: "file as object", args: []string{"obj=@$DIR/obj.json"}, want: map[string]any{"obj": map[string]any{"a": num("2.50")}}},
		{name: "file as array", args: []string{"arr=@$DIR/arr.json"}, want: map[string]any{"arr": []any{num("1"), "x"}}},
		{name: "file in union, integer", args: []string{"is=@$DIR/int.txt"}, want: map[string]any{"is": int64(42)}},
		{name: "file in union, exact text", args: []string{"is=@$DIR/union.txt"}, want: map[string]any{"is": "abc\n"}},
		{name: "raw JSON from file", args: []string{"x:=@$DIR/obj.json"}, want: map[string]any{"x": map[string]any{"a": num("2.50")}}},

		{name: "--args literal", argsJSON: `{"i": 1, "x": {"y": 2.50}}`, want: map[string]any{"i": num("1"), "x": map[string]any{"y": num("2.50")}}},
		{name: "--args empty object", argsJSON: `{}`, want: map[string]any{}},
		{name: "--args from file", argsJSON: "@$DIR/args.json", want: map[string]any{"i": num("1"), "s": "from file"}},
		{name: "--args from stdin", argsJSON: "-", stdin: "{\"s\": \"piped\"}\n", want: map[string]any{"s": "piped"}},
		{
			name:     "arguments merged over --args",
			argsJSON: `{"i": "kept as given", "s": "old", "keep": true}`,
			args:     []string{"s=new", "i=5"},
			want:     map[string]any{"i": int64(5), "s": "new", "keep": true},
		},
		{name: "several arguments", args: []string{"s=x", "i=1", "b=0", "tags:=[]"}, want: map[string]any{"s": "x", "i": int64(1), "b": false, "tags": []any{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inputSchema := json.RawMessage(testSchema)
			switch tt.schema {
			case "":
			case "none":
				inputSchema = nil
			default:
				inputSchema = json.RawMessage(tt.schema)
			}
			opts := schema.ArgOptions{
				ArgsJSON: strings.ReplaceAll(tt.argsJSON, "$DIR", dir),
				Stdin:    strings.NewReader(tt.stdin),
			}
			got, err := schema.ParseArgs(expand(dir, tt.args), inputSchema, opts)
			if err != nil {
				t.Fatalf("ParseArgs: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseArgs mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseArgsUncompiled checks that a schema that does not compile types
// nothing: typing and validation read the same compiled schema.
func TestParseArgsUncompiled(t *testing.T) {
	for _, text := range []string{
		`{"properties": {"n": {"type": "integer"}, "r": {"$ref": "#/$defs/Nope"}}}`,
		`{"properties": {"n": {"type": "integer"}, "r": {"$ref": "https://example.com/schema.json"}}}`,
		`{"properties": {"n": {"type": "integer"}, "f": {"type": "file"}}}`,
		`{"$schema": "https://example.com/dialect", "properties": {"n": {"type": "integer"}}}`,
		`[]`,
	} {
		got, err := schema.ParseArgs([]string{"n=5"}, json.RawMessage(text), schema.ArgOptions{})
		if err != nil {
			t.Errorf("ParseArgs with %s: %v", text, err)
			continue
		}
		if diff := cmp.Diff(map[string]any{"n": "5"}, got); diff != "" {
			t.Errorf("ParseArgs with %s (-want +got):\n%s", text, diff)
		}
	}
}

// TestSchemaParseArgs checks the method, which types by a schema compiled
// once, against the function.
func TestSchemaParseArgs(t *testing.T) {
	s := mustCompile(t, testSchema)
	args := []string{"i=5", "ref=6", "refTwice=7", "s=x", "anyOf=null"}
	want, err := schema.ParseArgs(args, json.RawMessage(testSchema), schema.ArgOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.ParseArgs(args, schema.ArgOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Schema.ParseArgs and ParseArgs differ (-func +method):\n%s", diff)
	}
}

func TestParseArgsErrors(t *testing.T) {
	dir := writeTestFiles(t)
	long := strings.Repeat("x", 70)
	tests := []struct {
		name     string
		args     []string
		argsJSON string
		stdin    *string // nil: no stdin
		wantArg  string
		wantErr  string
		prefix   bool // wantErr is a prefix: the rest is encoding/json's wording
		notExist bool // errors.Is(err, fs.ErrNotExist)
	}{
		{name: "no separator", args: []string{"foo"}, wantArg: "foo", wantErr: `argument "foo": expected key=value, key:=json or key=@file`},
		{name: "empty key", args: []string{"=x"}, wantArg: "=x", wantErr: `argument "=x": expected key=value, key:=json or key=@file`},
		{name: "empty key, raw JSON", args: []string{":=1"}, wantArg: ":=1", wantErr: `argument ":=1": expected key=value, key:=json or key=@file`},
		{name: "duplicate key", args: []string{"x=1", "y=2", "x:=3"}, wantArg: "x", wantErr: `argument "x": given more than once`},
		{name: "integer with fraction", args: []string{"i=1.5"}, wantArg: "i", wantErr: `argument "i": "1.5" is not an integer`},
		{name: "integer text", args: []string{"i=abc"}, wantArg: "i", wantErr: `argument "i": "abc" is not an integer`},
		{name: "integer with plus", args: []string{"i=+5"}, wantArg: "i", wantErr: `argument "i": "+5" is not an integer`},
		{name: "integer with exponent", args: []string{"i=1e3"}, wantArg: "i", wantErr: `argument "i": "1e3" is not an integer`},
		{name: "integer out of range", args: []string{"i=99999999999999999999"}, wantArg: "i", wantErr: `argument "i": "99999999999999999999" is out of range for a 64-bit integer`},
		{name: "integer via $ref", args: []string{"ref=x"}, wantArg: "ref", wantErr: `argument "ref": "x" is not an integer`},
		{name: "number text", args: []string{"n=abc"}, wantArg: "n", wantErr: `argument "n": "abc" is not a number`},
		{name: "number without leading digit", args: []string{"n=.5"}, wantArg: "n", wantErr: `argument "n": ".5" is not a number`},
		{name: "number NaN", args: []string{"n=NaN"}, wantArg: "n", wantErr: `argument "n": "NaN" is not a number`},
		{name: "boolean yes", args: []string{"b=yes"}, wantArg: "b", wantErr: `argument "b": "yes" is not a boolean (use true, false, 1 or 0)`},
		{name: "null", args: []string{"z=nil"}, wantArg: "z", wantErr: `argument "z": "nil" is not null`},
		{name: "array of wrong kind", args: []string{"arr={}"}, wantArg: "arr", wantErr: `argument "arr": "{}" is not a JSON array (got a JSON object)`},
		{name: "array invalid", args: []string{"arr=[1,"}, wantArg: "arr", wantErr: `argument "arr": "[1," is not a JSON array: `, prefix: true},
		{name: "object of wrong kind", args: []string{"obj=3"}, wantArg: "obj", wantErr: `argument "obj": "3" is not a JSON object (got an integer)`},
		{name: "union without string", args: []string{"nb=yes"}, wantArg: "nb", wantErr: `argument "nb": "yes" is not a number or a boolean`},
		{name: "anyOf without string", args: []string{"anyOf=x"}, wantArg: "anyOf", wantErr: `argument "anyOf": "x" is not an integer or null`},
		{name: "enum miss", args: []string{"em=3"}, wantArg: "em", wantErr: `argument "em": "3" is not one of 1, 2.5, "auto", true, null, [1,2]`},
		{name: "enum of objects miss", args: []string{`eo={"k":[1,3]}`}, wantArg: "eo", wantErr: `argument "eo": "{\"k\":[1,3]}" is not one of {"k":1}, {"k":[1,2]}`},
		{name: "const miss", args: []string{"c=4"}, wantArg: "c", wantErr: `argument "c": "4" is not one of 3`},
		{name: "long value shortened", args: []string{"i=" + long}, wantArg: "i", wantErr: `argument "i": "` + long[:60] + `"… is not an integer`},
		{name: "raw JSON invalid", args: []string{"x:=abc"}, wantArg: "x", wantErr: `argument "x": invalid JSON: invalid character 'a' looking for beginning of value (for a string, write x=…)`},
		{name: "raw JSON empty", args: []string{"x:="}, wantArg: "x", wantErr: `argument "x": invalid JSON: unexpected end of JSON input (for a string, write x=…)`},
		{name: "raw JSON trailing data", args: []string{"x:=1 2"}, wantArg: "x", wantErr: `argument "x": invalid JSON: `, prefix: true},
		{name: "missing file", args: []string{"s=@$DIR/nope"}, wantArg: "s", wantErr: `argument "s": reading file "$DIR/nope": no such file or directory`, notExist: true},
		{name: "missing file name", args: []string{"s=@"}, wantArg: "s", wantErr: `argument "s": missing file name after @`},
		{name: "file of wrong type", args: []string{"i=@$DIR/text.txt"}, wantArg: "i", wantErr: `argument "i": file "$DIR/text.txt": "hello" is not an integer`},
		{name: "file with two newlines", args: []string{"i=@$DIR/two.txt"}, wantArg: "i", wantErr: `argument "i": file "$DIR/two.txt": "7\n" is not an integer`},
		{name: "file not UTF-8", args: []string{"s=@$DIR/bin"}, wantArg: "s", wantErr: `argument "s": file "$DIR/bin" is not UTF-8 text; a JSON string cannot hold it`},
		{name: "value not UTF-8", args: []string{"s=\xff"}, wantArg: "s", wantErr: `argument "s": value is not UTF-8 text; a JSON string cannot hold it`},
		{name: "raw JSON file invalid", args: []string{"x:=@$DIR/bad.json"}, wantArg: "x", wantErr: `argument "x": invalid JSON in file "$DIR/bad.json": unexpected end of JSON input`},
		{name: "raw JSON file missing", args: []string{"x:=@$DIR/nope"}, wantArg: "x", wantErr: `argument "x": reading file "$DIR/nope": no such file or directory`, notExist: true},
		{name: "--args not an object", argsJSON: `[1]`, wantArg: "--args", wantErr: `--args: want a JSON object, got array`},
		{name: "--args invalid", argsJSON: `{`, wantArg: "--args", wantErr: `--args: invalid JSON: unexpected end of JSON input`},
		{name: "--args file missing", argsJSON: "@$DIR/nope", wantArg: "--args", wantErr: `--args: reading file "$DIR/nope": no such file or directory`, notExist: true},
		{name: "--args file not an object", argsJSON: "@$DIR/arr.json", wantArg: "--args", wantErr: `--args: want a JSON object in file "$DIR/arr.json", got array`},
		{name: "--args file name missing", argsJSON: "@", wantArg: "--args", wantErr: `--args: missing file name after @`},
		{name: "--args stdin missing", argsJSON: "-", wantArg: "--args", wantErr: `--args: no standard input to read`},
		{name: "--args stdin empty", argsJSON: "-", stdin: new(""), wantArg: "--args", wantErr: `--args: invalid JSON on standard input: unexpected end of JSON input`},
		{name: "--args stdin null", argsJSON: "-", stdin: new("null"), wantArg: "--args", wantErr: `--args: want a JSON object on standard input, got null`},
		{name: "--args checked before arguments", argsJSON: "3", args: []string{"i=x"}, wantArg: "--args", wantErr: `--args: want a JSON object, got integer`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := schema.ArgOptions{ArgsJSON: strings.ReplaceAll(tt.argsJSON, "$DIR", dir)}
			if tt.stdin != nil {
				opts.Stdin = strings.NewReader(*tt.stdin)
			}
			got, err := schema.ParseArgs(expand(dir, tt.args), json.RawMessage(testSchema), opts)
			if err == nil {
				t.Fatalf("ParseArgs = %v, want an error", got)
			}
			var argErr *schema.ArgError
			if !errors.As(err, &argErr) {
				t.Fatalf("ParseArgs error %T (%v), want *schema.ArgError", err, err)
			}
			if argErr.Arg != tt.wantArg {
				t.Errorf("ArgError.Arg = %q, want %q", argErr.Arg, tt.wantArg)
			}
			wantErr := strings.ReplaceAll(tt.wantErr, "$DIR", dir)
			if tt.prefix && !strings.HasPrefix(err.Error(), wantErr) || !tt.prefix && err.Error() != wantErr {
				t.Errorf("ParseArgs error:\n got  %s\n want %s", err, wantErr)
			}
			if got := errors.Is(err, fs.ErrNotExist); got != tt.notExist {
				t.Errorf("errors.Is(err, fs.ErrNotExist) = %v, want %v", got, tt.notExist)
			}
		})
	}
}

// TestParseArgsWire checks the bytes that go on the wire: numbers keep the
// digits the user wrote.
func TestParseArgsWire(t *testing.T) {
	inputSchema := json.RawMessage(`{"type":"object","properties":{
		"a": {"type": "number"}, "b": {"type": "integer"}, "c": {"type": "number"},
		"d": {"type": ["number", "string"]}, "e": {"type": "array"}}}`)
	tests := []struct {
		name     string
		args     []string
		argsJSON string
		want     string
	}{
		{name: "number and integer", args: []string{"a=2.50", "b=3"}, want: `{"a":2.50,"b":3}`},
		{name: "number written as integer", args: []string{"c=3"}, want: `{"c":3}`},
		{name: "exponent", args: []string{"a=1E+2"}, want: `{"a":1E+2}`},
		{name: "union number", args: []string{"d=0.10"}, want: `{"d":0.10}`},
		{name: "array elements", args: []string{"e=[1.0, 2.50, 1e400]"}, want: `{"e":[1.0,2.50,1e400]}`},
		{name: "raw JSON", args: []string{"x:=12345678901234567890.000"}, want: `{"x":12345678901234567890.000}`},
		{name: "--args", argsJSON: `{"big": 9007199254740993, "f": 1.10}`, want: `{"big":9007199254740993,"f":1.10}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := schema.ParseArgs(tt.args, inputSchema, schema.ArgOptions{ArgsJSON: tt.argsJSON})
			if err != nil {
				t.Fatalf("ParseArgs: %v", err)
			}
			b, err := json.Marshal(got)
			if err != nil {
				t.Fatalf("json.Marshal: %v", err)
			}
			if diff := cmp.Diff(tt.want, string(b)); diff != "" {
				t.Errorf("wire JSON mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseArgsReadFile checks that every @path goes through
// ArgOptions.ReadFile.
func TestParseArgsReadFile(t *testing.T) {
	files := map[string]string{
		"args.json":  `{"from": "args"}`,
		"value.txt":  "5\n",
		"value.json": `[true]`,
	}
	var read []string
	opts := schema.ArgOptions{
		ArgsJSON: "@args.json",
		ReadFile: func(name string) ([]byte, error) {
			read = append(read, name)
			content, ok := files[name]
			if !ok {
				return nil, fs.ErrNotExist
			}
			return []byte(content), nil
		},
	}
	got, err := schema.ParseArgs([]string{"n=@value.txt", "j:=@value.json"}, json.RawMessage(`{"properties":{"n":{"type":"integer"}}}`), opts)
	if err != nil {
		t.Fatalf("ParseArgs: %v", err)
	}
	want := map[string]any{"from": "args", "n": int64(5), "j": []any{true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseArgs mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"args.json", "value.txt", "value.json"}, read); diff != "" {
		t.Errorf("files read mismatch (-want +got):\n%s", diff)
	}

	_, err = schema.ParseArgs([]string{"n=@gone"}, nil, opts)
	if want := `argument "n": reading file "gone": file does not exist`; err == nil || err.Error() != want {
		t.Errorf("ParseArgs error = %v, want %s", err, want)
	}
}

func TestArgErrorError(t *testing.T) {
	tests := []struct {
		err  *schema.ArgError
		want string
	}{
		{&schema.ArgError{Arg: "days", Msg: `"1.5" is not an integer`}, `argument "days": "1.5" is not an integer`},
		{&schema.ArgError{Arg: `we"ird`, Msg: "given more than once"}, `argument "we\"ird": given more than once`},
		{&schema.ArgError{Arg: "--args", Msg: "want a JSON object, got array"}, `--args: want a JSON object, got array`},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %s, want %s", got, tt.want)
		}
	}
}

func TestParseArgsMismatches(t *testing.T) {
	sch, err := schema.Compile([]byte(`{
  "type": "object",
  "properties": {
    "a": {"type": "number"},
    "b": {"type": "integer", "minimum": 1},
    "c": {"type": "boolean"},
    "s": {"type": "string", "enum": ["x", "y"]}
  },
  "required": ["a", "b", "d"]
}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		wantArgs map[string]any
		want     []string
	}{
		{
			name:     "every wrong type kept as text and listed with the rest",
			args:     []string{"a=x", "b=0", "c=maybe", "s=z"},
			wantArgs: map[string]any{"a": "x", "b": int64(0), "c": "maybe", "s": "z"},
			want: []string{
				`/a: "x" is not a number`,
				`/b: must be >= 1, got 0`,
				`/c: "maybe" is not a boolean (use true, false, 1 or 0)`,
				`/d: required property is missing`,
				`/s: must be one of "x", "y", got "z"`,
			},
		},
		{name: "all fit", args: []string{"a=1.5", "b=2", "d=1"}, wantArgs: map[string]any{"a": json.Number("1.5"), "b": int64(2), "d": "1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mism []schema.Violation
			got, err := sch.ParseArgs(tt.args, schema.ArgOptions{Mismatches: &mism})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantArgs, got); diff != "" {
				t.Errorf("arguments (-want +got):\n%s", diff)
			}
			var msgs []string
			for _, v := range schema.MergeViolations(mism, sch.Validate(got)) {
				msgs = append(msgs, v.String())
			}
			if diff := cmp.Diff(tt.want, msgs); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSplitFormat(t *testing.T) {
	sch, err := schema.Compile([]byte(`{"type":"object","properties":{"u":{"type":"string","format":"uri"},"n":{"type":"integer"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	others, format := schema.SplitFormat(sch.Validate(map[string]any{"u": "README.md", "n": "x"}))
	if len(others) != 1 || others[0].Path != "/n" || len(format) != 1 || format[0].Path != "/u" {
		t.Errorf("SplitFormat = %v, %v; want /n among the others and /u among the formats", others, format)
	}
}

// TestParseArgsMaxSize checks that files and standard input over
// ArgOptions.MaxSize are refused with an error naming the limit's flag,
// and that a file at the limit is read whole.
func TestParseArgsMaxSize(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	at := write("at.txt", strings.Repeat("a", 16))
	over := write("over.txt", strings.Repeat("a", 17))
	overJSON := write("over.json", `{"a":"0123456789"}`)
	tests := []struct {
		name  string
		args  []string
		opts  schema.ArgOptions
		want  string // error text; empty for success
		check bool   // CheckFileSizes fails too
	}{
		{name: "at the limit", args: []string{"s=@" + at}},
		{name: "text file", args: []string{"s=@" + over}, want: `argument "s": file "` + over + `" is 17 bytes, over the message-size limit of 16 bytes (--max-message-size)`, check: true},
		{name: "JSON file", args: []string{"s:=@" + overJSON}, want: `argument "s": file "` + overJSON + `" is 18 bytes, over the message-size limit of 16 bytes (--max-message-size)`, check: true},
		{name: "--args file", opts: schema.ArgOptions{ArgsJSON: "@" + overJSON}, want: `--args: file "` + overJSON + `" is 18 bytes, over the message-size limit of 16 bytes (--max-message-size)`, check: true},
		{name: "--args stdin", opts: schema.ArgOptions{ArgsJSON: "-", Stdin: strings.NewReader(`{"a":"0123456789"}`)}, want: `--args: standard input is more than 16 bytes, over the message-size limit of 16 bytes (--max-message-size)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.MaxSize = 16
			err := schema.CheckFileSizes(tt.args, tt.opts)
			if (err != nil) != tt.check {
				t.Errorf("CheckFileSizes error = %v, want an error: %v", err, tt.check)
			}
			got, err := schema.ParseArgs(tt.args, json.RawMessage(`{"properties":{"s":{"type":"string"}}}`), tt.opts)
			if tt.want == "" {
				if err != nil || got["s"] != strings.Repeat("a", 16) {
					t.Fatalf("ParseArgs = %v, %v; want the whole file", got, err)
				}
				return
			}
			var fe *schema.FileTooLargeError
			if err == nil || err.Error() != tt.want || !errors.As(err, &fe) {
				t.Errorf("ParseArgs error = %v, want %s (a *FileTooLargeError)", err, tt.want)
			}
		})
	}
}
