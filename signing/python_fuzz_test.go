package signing

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzPython holds the Python canonical form to what a signature needs of
// it: any input either fails cleanly or gives ASCII-only valid JSON that is
// its own canonical form, so signer and verifier agree however often the
// value is re-encoded.
//
//	go test -run='^$' -fuzz=FuzzPython -fuzztime=10s ./signing/
func FuzzPython(f *testing.F) {
	for _, seed := range []string{
		`{"tool":"add","params":{"a":2,"b":3},"nonce":"n","timestamp":1700000000.123}`,
		`[1, 1.0, -0, -0.0, 1e16, 1e-05, 5e-324, 12345678901234567890]`,
		`{"b":1,"a":{"z":[],"y":{}},"a":2}`,
		`"\ud83d\ude00 \ud800 é \u0000 \t"`,
		`{"é":1,"e":2,"😀":3,"\uffff":4}`,
		`[[[[[[]]]]]]`,
		`tru`, `{"a":}`, `1.5e400`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := Python(data)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("Python(%q) = %q: not valid JSON", data, out)
		}
		for _, b := range out {
			if b >= 0x80 {
				t.Fatalf("Python(%q) = %q: byte %#x is not ASCII", data, out, b)
			}
		}
		again, err := Python(out)
		if err != nil {
			t.Fatalf("Python of its own output %q: %v", out, err)
		}
		if !bytes.Equal(again, out) {
			t.Fatalf("not idempotent:\n in  %q\n out %q\n out2 %q", data, out, again)
		}
	})
}
