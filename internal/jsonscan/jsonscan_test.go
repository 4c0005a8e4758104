package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// seeds are texts the tests and the fuzz target start from: valid and
// broken, with escapes, nesting and white space in every place.
var seeds = []string{
	`{}`, ` { } `, `[]`, `[ ]`, `{"a":1}`, `{"a" : [1, {"b":"}"}] , "c":null}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"m":"a\"b\\"}}}`,
	`{"\u006dethod":"x","method":"y"}`, `{"a\\":"\\\\","b":"\\\""}`, `{"é":"ü","\ud83d\ude00":1}`,
	`[1,"two",{"three":[3]},null,true,false,-1.5e3]`, `"just a string"`, `42`, `null`,
	`{"a":1`, `{"a":}`, `{"a" 1}`, `{a:1}`, `{"a":1,}`, `[1,]`, `[1 2]`, `{"a":"unterminated}`,
	`{"a":1} trailing`, `[` + `[[[[` + `]]]]` + `]`, `{"x":{"y":{"z":[{}]}}}`, "{\"a\":\"tab\there\"}",
	"{\"bad\":\"\xff\"}", `{"a":1}{"b":2}`, `{"a":tru}`, `[,]`, `{,}`, `}`, `]`, `{"a":]}`,
}

func TestMembersAgreeWithTheDecoder(t *testing.T) {
	for _, s := range seeds {
		membersAgree(t, []byte(s))
	}
}

func TestElementsAgreeWithTheDecoder(t *testing.T) {
	for _, s := range seeds {
		elementsAgree(t, []byte(s))
	}
}

func FuzzMembers(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		membersAgree(t, data)
		elementsAgree(t, data)
		for i := range data {
			// Never a panic, never an offset outside the text.
			if e := ValueEnd(data, i); e > len(data) || (e >= 0 && e <= i) {
				t.Fatalf("ValueEnd(%q, %d) = %d", data, i, e)
			}
			if data[i] == '"' {
				if e := StringEnd(data, i); e > len(data) || (e >= 0 && e <= i+1) {
					t.Fatalf("StringEnd(%q, %d) = %d", data, i, e)
				}
			}
		}
	})
}

// membersAgree checks Members against json.Unmarshal into a map of raw
// values on any valid object, and that it never panics on anything else.
func membersAgree(t *testing.T, data []byte) {
	t.Helper()
	got := map[string]json.RawMessage{}
	var keysOK = true
	err := Members(data, func(m Member) bool {
		k, ok := m.Key()
		keysOK = keysOK && ok
		got[k] = m.Value
		if ok && !m.Is(k) {
			t.Errorf("%q: member %s is not Is(%q)", data, m.Name, k)
		}
		return true
	})
	var want map[string]json.RawMessage
	if !json.Valid(data) || json.Unmarshal(data, &want) != nil || want == nil {
		if json.Valid(data) && err == nil {
			t.Errorf("%q: Members read a valid non-object without an error", data)
		}
		return
	}
	if err != nil || !keysOK {
		t.Fatalf("%q: Members failed on a valid object: %v (names decoded: %v)", data, err, keysOK)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%q: members (-decoder +Members):\n%s", data, diff)
	}
	for k, v := range want {
		if f := Find(data, k); !bytes.Equal(f, v) {
			t.Errorf("%q: Find(%q) = %s, want %s", data, k, f, v)
		}
		if s, ok := String(v); ok {
			var d string
			if json.Unmarshal(v, &d) != nil || d != s {
				t.Errorf("%q: String(%s) = %q, the decoder reads %q", data, v, s, d)
			}
		} else if IsString(v) {
			t.Errorf("%q: String(%s) failed on a valid string", data, v)
		}
	}
}

// elementsAgree is membersAgree for arrays.
func elementsAgree(t *testing.T, data []byte) {
	t.Helper()
	var got []json.RawMessage
	err := Elements(data, func(e []byte) bool {
		got = append(got, e)
		return true
	})
	var want []json.RawMessage
	if !json.Valid(data) || json.Unmarshal(data, &want) != nil || want == nil {
		return
	}
	if err != nil {
		t.Fatalf("%q: Elements failed on a valid array: %v", data, err)
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("%q: elements (-decoder +Elements):\n%s", data, diff)
	}
}

func TestMembersReportsWhereTheStructureBreaks(t *testing.T) {
	for _, tc := range []struct {
		in, what string
		offset   int
	}{
		{`[1]`, "not a JSON object", 0},
		{`{"a" 1}`, "expected ':'", 5},
		{`{"a":}`, "unexpected '}'", 5},
		{`{"a":`, "unexpected end", 5},
		{`{"a":"x}`, "unterminated string", 5},
		{`{"a":{"b":"}}`, "unterminated string", 10},
		{`{"a":[1,{}`, "unterminated object or array", 5},
		{`{"a":1,}`, "expected a member name", 7},
		{`{"a":1`, "unexpected end", 6},
		{`{"a":1} x`, "text after the end", 8},
		{`{"a:1}`, "unterminated string", 1},
	} {
		err := Members([]byte(tc.in), func(Member) bool { return true })
		var se *SyntaxError
		if !errors.As(err, &se) || se.What != tc.what || se.Offset != tc.offset {
			t.Errorf("Members(%q) = %v, want %q at offset %d", tc.in, err, tc.what, tc.offset)
		}
	}
}

func TestMembersStopsWhenAsked(t *testing.T) {
	n := 0
	err := Members([]byte(`{"a":1,"b":2,"c":3`), func(Member) bool { n++; return n < 2 })
	if err != nil || n != 2 {
		t.Errorf("saw %d members and %v, want 2 and no error (the broken end is never reached)", n, err)
	}
}

func TestIsComparesTheDecodedName(t *testing.T) {
	for _, tc := range []struct {
		name string
		is   string
		want bool
	}{
		{`"method"`, "method", true},
		{`"\u006dethod"`, "method", true},
		{`"Method"`, "method", false}, // exact, unlike encoding/json's struct fields
		{`"méthode"`, "méthode", true},
		{`"a\"b"`, `a"b`, true},
		{`"x"`, "xy", false},
	} {
		if got := (Member{Name: []byte(tc.name)}).Is(tc.is); got != tc.want {
			t.Errorf("Member %s Is(%q) = %v, want %v", tc.name, tc.is, got, tc.want)
		}
	}
}

func BenchmarkMembersEnvelope(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"hello 12"}]}}`)
	b.Run("jsonscan", func(b *testing.B) {
		for b.Loop() {
			var id, result []byte
			Members(msg, func(m Member) bool {
				switch {
				case m.Is("id"):
					id = m.Value
				case m.Is("result"):
					result = m.Value
				}
				return true
			})
			if id == nil || result == nil {
				b.Fatal("not found")
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Result json.RawMessage `json:"result"`
			}
			if json.Unmarshal(msg, &m) != nil {
				b.Fatal("not decoded")
			}
		}
	})
}
