package signing

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const jcsDir = "../testdata/signing/jcs"

// TestJCSFiles runs every NAME.input.json / NAME.output.json pair: RFC 8785's
// examples (rfc-*) and our own.
func TestJCSFiles(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join(jcsDir, "*.input.json"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no JCS vectors in %s (err %v)", jcsDir, err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".input.json")
		t.Run(name, func(t *testing.T) {
			input, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join(jcsDir, name+".output.json"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := JCS(input)
			if err != nil {
				t.Fatalf("JCS: %v", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("JCS output mismatch (-want +got):\n%s", diff)
			}
			// Canonical output is a fixed point.
			again, err := JCS(got)
			if err != nil || string(again) != string(got) {
				t.Errorf("JCS(JCS(x)) = %q, %v; want %q", again, err, got)
			}
		})
	}
}

// TestJCSNumbersRFC checks RFC 8785 Appendix B: each double, written as JSON
// with enough digits to round-trip, must come out as the RFC prints it.
func TestJCSNumbersRFC(t *testing.T) {
	f, err := os.Open(filepath.Join(jcsDir, "rfc-numbers.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		hexBits, want, ok := strings.Cut(line, " ")
		if !ok {
			t.Fatalf("bad line %q", line)
		}
		raw, err := hex.DecodeString(hexBits)
		if err != nil {
			t.Fatalf("bad hex in %q: %v", line, err)
		}
		v := math.Float64frombits(binary.BigEndian.Uint64(raw))
		n++
		t.Run(hexBits, func(t *testing.T) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				if want != "error" {
					t.Fatalf("non-finite value must be marked error, got %q", want)
				}
				// Neither has a JSON spelling; the closest a peer can send.
				for _, in := range []string{"NaN", "Infinity", "1e400", "-1e400"} {
					if out, err := JCS([]byte(in)); err == nil {
						t.Errorf("JCS(%s) = %q, want an error", in, out)
					}
				}
				return
			}
			in := strconv.FormatFloat(v, 'g', -1, 64)
			got, err := JCS([]byte(in))
			if err != nil {
				t.Fatalf("JCS(%s): %v", in, err)
			}
			if string(got) != want {
				t.Errorf("JCS(%s) = %s, want %s", in, got, want)
			}
		})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 20 {
		t.Fatalf("only %d numbers read from rfc-numbers.txt", n)
	}
}

func TestJCSRejects(t *testing.T) {
	tests := []struct {
		name, input string
	}{
		{"duplicate member", `{"a":1,"a":2}`},
		{"duplicate member after unescaping", `{"a":1,"\u0061":2}`},
		{"lone high surrogate", `"\ud800"`},
		{"lone low surrogate", `"\udc00"`},
		{"invalid utf-8", "\"\xff\""},
		{"NaN", `[NaN]`},
		{"overflow", `1e309`},
		{"trailing data", `{} x`},
		{"empty", ``},
		{"leading zero", `[01]`},
		{"control character", "\"a\x01b\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := JCS([]byte(tt.input)); err == nil {
				t.Errorf("JCS(%q) = %q, want an error", tt.input, got)
			}
		})
	}
}

func TestCanonical(t *testing.T) {
	in := []byte(`{"b": 1.0, "a": "é"}`)
	tests := []struct {
		form    string
		want    string
		wantErr string
	}{
		{form: "", want: `{"a":"é","b":1}`},
		{form: FormJCS, want: `{"a":"é","b":1}`},
		{form: FormPython, want: `{"a": "\u00e9", "b": 1.0}`},
		{form: "JCS", wantErr: `unknown canonical form "JCS": use "jcs" or "python"`},
	}
	for _, tt := range tests {
		t.Run(tt.form, func(t *testing.T) {
			got, err := Canonical(tt.form, in)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Canonical(%q) error = %v, want %q", tt.form, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("Canonical(%q) mismatch (-want +got):\n%s", tt.form, diff)
			}
		})
	}
}
