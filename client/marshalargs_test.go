package client

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestMarshalArgumentsLikeJSON checks that MarshalArguments writes the
// bytes json.Marshal writes, large strings (which it encodes itself)
// included, and that callToolParams sends them unchanged.
func TestMarshalArgumentsLikeJSON(t *testing.T) {
	pad := strings.Repeat("x", bigString)
	for _, s := range []string{
		pad,
		pad + "a\"b\\c\nd\re\tf<g>h&i\u2028j\u2029k é 😀",
		pad + "bad \xff\xfe utf-8 \xe2\x80",
		pad + "control \x01 \b \f",
		"small <&> \xff",
	} {
		args := map[string]any{"z": 1, "text": s, "a": []any{"<", true}, "m": map[string]any{"k": "v"}}
		want, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		got, err := MarshalArguments(args)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("MarshalArguments(%.40q…) differs from json.Marshal", s[len(s)-min(len(s), 40):])
		}
		if !isWireForm(got) {
			t.Errorf("MarshalArguments(%.40q…) is not in wire form", s[len(s)-min(len(s), 40):])
		}
		params, err := callToolParams("t", got, CallOptions{ProgressToken: "p"})
		if err != nil {
			t.Fatal(err)
		}
		wantParams, _ := json.Marshal(CallToolParams{Name: "t", Arguments: got, Meta: map[string]any{"progressToken": "p"}})
		if !bytes.Equal(params.joined(), wantParams) {
			t.Errorf("callToolParams differs from json.Marshal of CallToolParams")
		}
	}
	for _, tt := range []struct {
		in   string
		wire bool
	}{
		{`{"a":"b c"}`, true},
		{`{"a": "b"}`, false},
		{`{"a":"<"}`, false},
		{"{\"a\":\"\u2028\"}", false},
		{`{"a":"\"}"}`, true},
		{`{"a":`, false},
	} {
		if got := isWireForm([]byte(tt.in)); got != tt.wire {
			t.Errorf("isWireForm(%s) = %v, want %v", tt.in, got, tt.wire)
		}
	}
}
