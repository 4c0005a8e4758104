package client

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// raw makes json.RawMessage literals in tables shorter.
func raw(s string) json.RawMessage { return json.RawMessage(s) }

type envelopeCase struct {
	name    string
	in      string
	want    envelope
	wantErr string // substring of the error; empty means success
}

// envelopeCases is shared by TestParseEnvelope and the seed corpus of
// FuzzParseEnvelope.
func envelopeCases() []envelopeCase {
	return []envelopeCase{
		{
			name: "request",
			in:   `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"c2"}}`,
			want: envelope{ID: raw(`1`), Method: "tools/list", Params: raw(`{"cursor":"c2"}`)},
		},
		{
			name: "request with string id",
			in:   `{"jsonrpc":"2.0","id":"a-1","method":"ping"}`,
			want: envelope{ID: raw(`"a-1"`), Method: "ping"},
		},
		{
			name: "request with null id",
			in:   `{"jsonrpc":"2.0","id":null,"method":"ping"}`,
			want: envelope{ID: raw(`null`), Method: "ping"},
		},
		{
			name: "notification",
			in:   `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":0.5}}`,
			want: envelope{Method: "notifications/progress", Params: raw(`{"progressToken":"t","progress":0.5}`)},
		},
		{
			name: "response with result",
			in:   `{"jsonrpc":"2.0","id":7,"result":{"tools":[]}}`,
			want: envelope{ID: raw(`7`), Result: raw(`{"tools":[]}`)},
		},
		{
			name: "response with null result",
			in:   `{"jsonrpc":"2.0","id":7,"result":null}`,
			want: envelope{ID: raw(`7`), Result: raw(`null`)},
		},
		{
			name: "response with error",
			in:   `{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"no such method","data":[1,"x"]}}`,
			want: envelope{ID: raw(`7`), Error: raw(`{"code":-32601,"message":"no such method","data":[1,"x"]}`)},
		},
		{
			name: "member order does not matter",
			in:   `{"result":{},"id":3,"jsonrpc":"2.0"}`,
			want: envelope{ID: raw(`3`), Result: raw(`{}`)},
		},
		{
			name: "empty object",
			in:   `{}`,
			want: envelope{},
		},
		{
			name: "escaped keys",
			in:   `{"jsonrpc":"2.0","\u0069d":5,"\u006dethod":"ping","par\u0061ms":{"a":1}}`,
			want: envelope{ID: raw(`5`), Method: "ping", Params: raw(`{"a":1}`)},
		},
		{
			name: "escaped method value",
			in:   `{"id":1,"method":"tools\/call"}`,
			want: envelope{ID: raw(`1`), Method: "tools/call"},
		},
		{
			name: "key that only looks like id after escaping is not id",
			in:   `{"i\"d":1,"id\\":2,"result":0}`,
			want: envelope{Result: raw(`0`)},
		},
		{
			name: "nested strings with braces, brackets, quotes and escapes",
			in:   `{"id":1,"result":{"text":"}{][\"\\\" \\","a":[{"b":"]"},"\u007d"],"c":{"d":{}}}}`,
			want: envelope{ID: raw(`1`), Result: raw(`{"text":"}{][\"\\\" \\","a":[{"b":"]"},"\u007d"],"c":{"d":{}}}`)},
		},
		{
			name: "members inside values are not top-level members",
			in:   `{"id":1,"result":{"id":2,"method":"x","error":{}}}`,
			want: envelope{ID: raw(`1`), Result: raw(`{"id":2,"method":"x","error":{}}`)},
		},
		{
			name: "whitespace everywhere",
			in:   " \r\n\t{ \"id\" :\t1 ,\n\"result\" : [ 1 , 2 ] ,\"x\":true } \n",
			want: envelope{ID: raw(`1`), Result: raw(`[ 1 , 2 ]`)},
		},
		{
			name: "literal values",
			in:   `{"id":-1.5e3,"result":false,"params":null,"x":true}`,
			want: envelope{ID: raw(`-1.5e3`), Result: raw(`false`), Params: raw(`null`)},
		},
		{
			name: "duplicate member: the last wins, as in encoding/json",
			in:   `{"id":1,"id":2,"result":{}}`,
			want: envelope{ID: raw(`2`), Result: raw(`{}`)},
		},
		{name: "batch", in: `[{"jsonrpc":"2.0","id":1,"result":{}}]`, wantErr: "batch"},
		{name: "batch after whitespace", in: "  [ ]", wantErr: "batch"},
		{name: "empty", in: ``, wantErr: "not a JSON object"},
		{name: "only whitespace", in: " \n ", wantErr: "not a JSON object"},
		{name: "string", in: `"id"`, wantErr: "not a JSON object"},
		{name: "number", in: `42`, wantErr: "not a JSON object"},
		{name: "garbage", in: `hello, world`, wantErr: "not a JSON object"},
		{name: "lone brace", in: `{`, wantErr: "member name"},
		{name: "unterminated key", in: `{"id`, wantErr: "unterminated string"},
		{name: "key ending in a backslash", in: `{"id\`, wantErr: "unterminated string"},
		{name: "unterminated string value", in: `{"id":1,"method":"ping`, wantErr: "unterminated string"},
		{name: "unterminated string in a nested value", in: `{"result":{"a":"}}`, wantErr: "unterminated string"},
		{name: "unterminated object value", in: `{"id":1,"result":{"a":[1,2]`, wantErr: "unterminated object or array"},
		{name: "unterminated top-level object", in: `{"id":1,"result":{}`, wantErr: "unexpected end"},
		{name: "unterminated after comma", in: `{"id":1,`, wantErr: "member name"},
		{name: "trailing comma", in: `{"id":1,}`, wantErr: "member name"},
		{name: "missing colon", in: `{"id" 1}`, wantErr: "expected ':'"},
		{name: "missing value at end", in: `{"id":`, wantErr: "unexpected end"},
		{name: "missing value", in: `{"id":,"method":"x"}`, wantErr: "unexpected ','"},
		{name: "missing comma", in: `{"id":1 "method":"x"}`, wantErr: "unexpected '\"'"},
		{name: "unquoted key", in: `{id:1}`, wantErr: "member name"},
		{name: "method is not a string", in: `{"id":1,"method":42}`, wantErr: "method is not a string"},
		{name: "method is an object", in: `{"id":1,"method":{"name":"x"}}`, wantErr: "method is not a string"},
		{name: "bad escape in key", in: `{"\x":1}`, wantErr: "invalid character"},
	}
}

func TestParseEnvelope(t *testing.T) {
	for _, tc := range envelopeCases() {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseEnvelope([]byte(tc.in))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("parseEnvelope(%q) error = %v, want one containing %q", tc.in, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseEnvelope(%q): %v", tc.in, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("parseEnvelope(%q) mismatch (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func TestEnvelopeKind(t *testing.T) {
	tests := []struct {
		in                              string
		request, notification, response bool
	}{
		{in: `{"id":1,"method":"ping"}`, request: true},
		{in: `{"method":"notifications/initialized"}`, notification: true},
		{in: `{"id":1,"result":{}}`, response: true},
		{in: `{"id":1,"error":{"code":1,"message":"m"}}`, response: true},
		{in: `{"id":1}`},
		{in: `{}`},
	}
	for _, tc := range tests {
		env, err := parseEnvelope([]byte(tc.in))
		if err != nil {
			t.Fatalf("parseEnvelope(%s): %v", tc.in, err)
		}
		got := [3]bool{env.isRequest(), env.isNotification(), env.isResponse()}
		want := [3]bool{tc.request, tc.notification, tc.response}
		if got != want {
			t.Errorf("%s: [request notification response] = %v, want %v", tc.in, got, want)
		}
	}
}

// FuzzParseEnvelope checks that parseEnvelope never panics and that, on valid
// JSON, it agrees with encoding/json about the top-level members.
func FuzzParseEnvelope(f *testing.F) {
	for _, tc := range envelopeCases() {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		env, err := parseEnvelope(data)
		if !json.Valid(data) {
			return
		}
		if trimmed := bytes.TrimLeft(data, " \t\r\n"); trimmed[0] != '{' {
			if err == nil {
				t.Fatalf("parseEnvelope(%q) accepted a JSON value that is not an object", data)
			}
			return
		}
		var members map[string]json.RawMessage
		if err := json.Unmarshal(data, &members); err != nil {
			t.Fatalf("encoding/json cannot decode valid object %q: %v", data, err)
		}
		if err != nil {
			// The one legitimate failure on a valid object.
			if !strings.HasPrefix(err.Error(), "method is not a string") {
				t.Fatalf("parseEnvelope(%q) rejected a valid object: %v", data, err)
			}
			return
		}
		spans := []struct {
			key  string
			span json.RawMessage
		}{
			{"id", env.ID},
			{"params", env.Params},
			{"result", env.Result},
			{"error", env.Error},
		}
		for _, s := range spans {
			want, ok := members[s.key]
			if !ok {
				if s.span != nil {
					t.Errorf("parseEnvelope(%q): %s = %q, want absent", data, s.key, s.span)
				}
				continue
			}
			if s.span == nil {
				t.Errorf("parseEnvelope(%q): %s absent, want %q", data, s.key, want)
				continue
			}
			if !json.Valid(s.span) {
				t.Errorf("parseEnvelope(%q): %s = %q, which is not valid JSON", data, s.key, s.span)
				continue
			}
			if got, want := compact(t, s.span), compact(t, want); got != want {
				t.Errorf("parseEnvelope(%q): %s = %s, encoding/json says %s", data, s.key, got, want)
			}
		}
		if m, ok := members["method"]; ok {
			var want string
			if err := json.Unmarshal(m, &want); err != nil {
				t.Fatalf("parseEnvelope(%q) accepted method %s, which is not a string: %v", data, m, err)
			}
			if env.Method != want {
				t.Errorf("parseEnvelope(%q): method = %q, encoding/json says %q", data, env.Method, want)
			}
		} else if env.Method != "" {
			t.Errorf("parseEnvelope(%q): method = %q, want none", data, env.Method)
		}
	})
}

func compact(t *testing.T, data []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, data); err != nil {
		t.Fatalf("compacting %q: %v", data, err)
	}
	return b.String()
}
