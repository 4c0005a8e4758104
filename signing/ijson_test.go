package signing

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestCheckIJSON(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantErr string // "" when the text is I-JSON
	}{
		{"plain", `{"a":1,"b":[{"a":2},{"b":3}],"c":{"a":{"a":null}}}`, ""},
		{"same name in sibling objects", `[{"x":1},{"x":2}]`, ""},
		{"largest exact integers", `[9007199254740991,-9007199254740991,0,-0]`, ""},
		{"floats are floats", `[9007199254740993.0,1e300,-1E+400,0.1]`, ""},
		{"not an object", `"path"`, ""},
		{"duplicate at the top", `{"path":"/etc/passwd","path":"/tmp/safe"}`, `payload has duplicate key "path" at /arguments: refused (I-JSON, RFC 7493)`},
		{"duplicate after unescaping", `{"a":1,"\u0061":2}`, `duplicate key "a" at /arguments:`},
		{"duplicate empty name", `{"":1,"":2}`, `duplicate key "" at /arguments:`},
		{"duplicate deep in an array", `{"x":[{"ok":1},{"k":1,"k":2}]}`, `duplicate key "k" at /arguments/x/1:`},
		{"pointer escapes", `{"a/b":{"c~d":{"e":1,"e":2}}}`, `duplicate key "e" at /arguments/a~1b/c~0d:`},
		{"duplicate after a nested value", `{"a":{"b":[1,2]},"c":3,"a":4}`, `duplicate key "a" at /arguments:`},
		{"integer past 2^53-1", `{"n":9007199254740992}`, `payload has integer 9007199254740992 at /arguments/n, beyond ±(2^53-1): refused (I-JSON, RFC 7493)`},
		{"negative integer past", `[1,[-9007199254740993]]`, `integer -9007199254740993 at /arguments/1/0,`},
		{"long integer", `[18446744073709551616]`, `integer 18446744073709551616 at /arguments/0,`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckIJSON([]byte(tt.in), "/arguments")
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("CheckIJSON: %v", err)
			case tt.wantErr == "":
				return
			case err == nil || !strings.Contains(err.Error(), tt.wantErr):
				t.Fatalf("CheckIJSON: got %v, want %q", err, tt.wantErr)
			}
			if !errors.As(err, new(*IJSONError)) {
				t.Errorf("CheckIJSON: %T, want an *IJSONError", err)
			}
		})
	}
	if err := CheckIJSON([]byte(`{"a":`), ""); err == nil || errors.As(err, new(*IJSONError)) {
		t.Errorf("CheckIJSON of broken JSON: %v, want a syntax error", err)
	}
}

// A signature over one value does not verify text that readers may take
// for another: Python's dict keeps the last duplicate, a reader keeping the
// first acts on /etc/passwd; JCS rounds 9007199254740993 to ...992.
func TestAmbiguousPayloadsAreRefused(t *testing.T) {
	for _, form := range []string{FormJCS, FormPython} {
		t.Run(form, func(t *testing.T) {
			_, err := SignRequest(testKey, form, "", "write", json.RawMessage(`{"path":"/etc/passwd","path":"/tmp/safe"}`), testNow)
			want := `signing: payload has duplicate key "path" at /arguments: refused (I-JSON, RFC 7493)`
			if err == nil || err.Error() != want {
				t.Errorf("SignRequest: got %v, want %s", err, want)
			}
			if _, err := SignResult(testKey, form, "", "count", json.RawMessage(`{"structuredContent":{"n":9007199254740993}}`), "n1", testNow); err == nil || !strings.Contains(err.Error(), "integer 9007199254740993 at /result/structuredContent/n") {
				t.Errorf("SignResult: got %v, want the integer refused", err)
			}

			safe := `{"content":[],"structuredContent":{"path":"/tmp/safe"}}`
			signed := signedResult(t, form, "where", safe, "n1", testNow)
			stripped, sig, err := StripSignature(signed)
			if err != nil {
				t.Fatal(err)
			}
			evil, err := AttachSignature(json.RawMessage(strings.Replace(string(stripped), `{"path":`, `{"path":"/etc/passwd","path":`, 1)), *sig)
			if err != nil {
				t.Fatal(err)
			}
			err = VerifyResult(testKey, form, "where", evil, "n1", testNow, 0)
			var ve *VerifyError
			if !errors.As(err, &ve) || !errors.Is(err, ErrAmbiguousPayload) {
				t.Fatalf("VerifyResult: got %v, want an ambiguous payload", err)
			}
			if !strings.Contains(err.Error(), `duplicate key "path" at /result/structuredContent`) {
				t.Errorf("VerifyResult: %v, want the key and where", err)
			}
			args := json.RawMessage(`{"n":9007199254740992}`)
			reqSig, err := SignRequest(testKey, form, "", "count", json.RawMessage(`{"n":9007199254740991}`), testNow)
			if err != nil {
				t.Fatal(err)
			}
			if err := VerifyRequest(testKey, form, "count", args, &reqSig, testNow, 0, nil); !errors.Is(err, ErrAmbiguousPayload) {
				t.Errorf("VerifyRequest: got %v, want an ambiguous payload", err)
			}
		})
	}
}
