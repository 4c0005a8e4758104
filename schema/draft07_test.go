package schema

import (
	"encoding/json"
	"testing"
)

// Every definition of every embedded schema means the same under draft-07
// (see draft07Equivalent), so each is compiled with draft-07's cheaper
// meta-schema check. A new revision that uses a 2020-12 keyword still
// works, compiled as it declares; this test says so, to decide knowingly.
func TestOfficialDefinitionsDraft07Equivalent(t *testing.T) {
	t.Parallel()
	for _, version := range OfficialVersions() {
		d, err := officialDefinitions(version)
		if err != nil {
			t.Fatal(err)
		}
		for name, raw := range d.raw {
			var v any
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatal(err)
			}
			if !draft07Equivalent(v) {
				t.Errorf("%s: %s is not the same under draft-07: it is compiled as %s", version, name, d.schema)
			}
		}
	}
}

func TestDraft07Equivalent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		schema string
		want   bool
	}{
		{`{"type":"object","properties":{"items":{"type":"array","items":{"$ref":"#/$defs/X"}}}}`, true},
		{`{"$ref":"#/$defs/X","description":"d"}`, true},
		{`{"$ref":"#/$defs/X","required":["a"]}`, false},
		{`{"prefixItems":[{"type":"string"}]}`, false},
		{`{"items":[{"type":"string"}]}`, false},
		{`{"anyOf":[{"unevaluatedProperties":false}]}`, false},
		{`{"properties":{"prefixItems":{"type":"string"}}}`, true},
	} {
		var v any
		if err := json.Unmarshal([]byte(tc.schema), &v); err != nil {
			t.Fatal(err)
		}
		if got := draft07Equivalent(v); got != tc.want {
			t.Errorf("draft07Equivalent(%s) = %v, want %v", tc.schema, got, tc.want)
		}
	}
}

// The splitter of the embedded schemas reads them as encoding/json does:
// the same members, the same values.
func TestOfficialMembers(t *testing.T) {
	t.Parallel()
	for _, version := range OfficialVersions() {
		data, err := OfficialSchema(version)
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(data) {
			t.Fatalf("%s: the embedded schema is not valid JSON", version)
		}
		var want map[string]json.RawMessage
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatal(err)
		}
		got, err := objectMembers(data)
		if err != nil {
			t.Fatalf("%s: %v", version, err)
		}
		d, err := officialDefinitions(version)
		if err != nil {
			t.Fatal(err)
		}
		var wantDefs map[string]json.RawMessage
		if err := json.Unmarshal(want[d.key], &wantDefs); err != nil {
			t.Fatal(err)
		}
		for _, pair := range []struct {
			got, want map[string]json.RawMessage
		}{{got, want}, {d.raw, wantDefs}} {
			if len(pair.got) != len(pair.want) {
				t.Errorf("%s: %d members, encoding/json reads %d", version, len(pair.got), len(pair.want))
			}
			for k, w := range pair.want {
				if string(pair.got[k]) != string(w) {
					t.Errorf("%s: member %q differs from encoding/json's reading", version, k)
				}
			}
		}
	}
	for _, bad := range []string{``, `[]`, `{"a":1`, `{"a" 1}`, `{"a\"b":1}`, `{"a":1 "b":2}`} {
		if _, err := objectMembers([]byte(bad)); err == nil {
			t.Errorf("objectMembers(%q): no error", bad)
		}
	}
	m, err := objectMembers([]byte(` { "a" : [1, {"x": "}"}] , "b":"s\"t", "c": -1.5e3 ,"d":{} } `))
	if err != nil || string(m["a"]) != `[1, {"x": "}"}]` || string(m["b"]) != `"s\"t"` || string(m["c"]) != `-1.5e3` || string(m["d"]) != `{}` {
		t.Errorf("objectMembers: %q, %v", m, err)
	}
}
