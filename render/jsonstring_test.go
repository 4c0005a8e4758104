package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// jsonStringCases are string literals with the escapes that are easy to
// get wrong, each checked against encoding/json.
var jsonStringCases = []string{
	`""`,
	`"plain"`,
	`"quote \" backslash \\ slash \/ solidus /"`,
	`"\b\f\n\r\t"`,
	`"\u0041\u00e9\u65e5\uFFFD\uffff"`,
	`"pair \ud83c\udf89 end"`,             // 🎉
	`"\uD83C\uDF89"`,                      // upper-case hex
	`"lone high \ud83c end"`,              // U+FFFD
	`"lone low \udf89 end"`,               // U+FFFD
	`"high then high \ud83c\ud83c\udf89"`, // U+FFFD then 🎉
	`"high then BMP \ud83c\u0041"`,        // U+FFFD then A
	`"high then escape \ud83c\n"`,
	`"high at end \ud83c"`,
	`"\u0000 NUL and \u001b ESC"`,
	"\"raw UTF-8 日本 é 🎉\"",
	"\"raw DEL \x7f and C1 \u009b\"",
	"\"invalid \xff\xfe bytes \xe2\x80 cut\"",
	"\"\xed\xa0\x80 encoded surrogate\"",
	`"ends in newline\n"`,
	`"crlf\r\n"`,
	// Invalid literals: encoding/json refuses them too.
	`"bad escape \x"`,
	`"short \u12"`,
	`"hex \u12g4"`,
	"\"raw\nnewline\"",
	`"unescaped " quote"`,
	`"trailing backslash \"`,
	`unquoted`,
	`"`,
	``,
}

func TestWriteJSONString(t *testing.T) {
	for _, raw := range jsonStringCases {
		checkWriteJSONString(t, []byte(raw))
	}
}

func FuzzWriteJSONString(f *testing.F) {
	for _, raw := range jsonStringCases {
		f.Add([]byte(raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkWriteJSONString(t, raw) })
}

// checkWriteJSONString compares WriteJSONString with encoding/json on raw.
func checkWriteJSONString(t *testing.T, raw []byte) {
	t.Helper()
	if len(bytes.TrimSpace(raw)) != len(raw) {
		return // encoding/json allows surrounding space; we take one literal
	}
	var want string
	wantErr := json.Unmarshal(raw, &want)
	if wantErr == nil && raw[0] != '"' {
		return // null
	}
	var out bytes.Buffer
	err := WriteJSONString(&out, raw)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("WriteJSONString(%q): error %v, encoding/json's %v", raw, err, wantErr)
	}
	if err == nil && out.String() != want {
		t.Fatalf("WriteJSONString(%q) = %q, encoding/json gives %q", raw, out.String(), want)
	}
	if err != nil || wantErr != nil {
		return
	}
	// On a terminal, TextJSON is Sanitize of the decoded text.
	out.Reset()
	if err := (&Printer{Out: &out, TTY: true}).TextJSON(raw); err != nil {
		t.Fatalf("TextJSON(%q): %v", raw, err)
	}
	wantText := Sanitize(want)
	if !strings.HasSuffix(want, "\n") {
		wantText += "\n"
	}
	if out.String() != wantText {
		t.Fatalf("TextJSON(%q) on a TTY = %q, want %q", raw, out.String(), wantText)
	}
}

func TestTextJSONPiped(t *testing.T) {
	tests := []struct{ raw, want string }{
		{`"hello"`, "hello\n"},
		{`"hello\n"`, "hello\n"},
		{`""`, "\n"},
		{`"\u001b]0;t\u0007"`, "\x1b]0;t\x07\n"},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		if err := (&Printer{Out: &out}).TextJSON([]byte(tt.raw)); err != nil {
			t.Fatal(err)
		}
		if out.String() != tt.want {
			t.Errorf("TextJSON(%s) = %q, want %q", tt.raw, out.String(), tt.want)
		}
	}
}

// TestWriteJSONStringLarge checks that a large text is decoded without a
// second copy.
func TestWriteJSONStringLarge(t *testing.T) {
	raw := []byte(`"` + strings.Repeat(`0123456789abcde\n`, 1<<20) + `"`)
	var w writeCounter
	var m1, m2 runtimeMem
	m1.read()
	if err := WriteJSONString(&w, raw); err != nil {
		t.Fatal(err)
	}
	m2.read()
	if grew := m2.totalAlloc - m1.totalAlloc; grew > uint64(len(raw))/4 {
		t.Errorf("decoding a %d-byte string allocated %d bytes", len(raw), grew)
	}
	if want := 16 << 20; w.n != want {
		t.Errorf("wrote %d bytes, want %d", w.n, want)
	}
}
