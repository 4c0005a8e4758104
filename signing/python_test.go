package signing

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const pythonVectorsPath = "../testdata/signing/python-vectors.json"

type pythonVector struct {
	Name      string `json:"name"`
	Input     string `json:"input"`
	Canonical string `json:"canonical"`
	Key       string `json:"key"`
	HMAC      string `json:"hmac"`
}

func loadPythonVectors(t *testing.T) []pythonVector {
	t.Helper()
	b, err := os.ReadFile(pythonVectorsPath)
	if err != nil {
		t.Fatal(err)
	}
	var vs []pythonVector
	if err := json.Unmarshal(b, &vs); err != nil {
		t.Fatal(err)
	}
	if len(vs) < 30 {
		t.Fatalf("only %d vectors in %s", len(vs), pythonVectorsPath)
	}
	return vs
}

// TestPythonVectors reproduces every vector Python wrote, byte for byte, and
// its HMAC.
func TestPythonVectors(t *testing.T) {
	for _, v := range loadPythonVectors(t) {
		t.Run(v.Name, func(t *testing.T) {
			got, err := Python([]byte(v.Input))
			if err != nil {
				t.Fatalf("Python(%q): %v", v.Input, err)
			}
			if diff := cmp.Diff(v.Canonical, string(got)); diff != "" {
				t.Errorf("canonical mismatch (-python +go):\n%s", diff)
			}
			if mac := Sign([]byte(v.Key), got); mac != v.HMAC {
				t.Errorf("HMAC = %s, want %s", mac, v.HMAC)
			}
			again, err := Python(got)
			if err != nil || !bytes.Equal(again, got) {
				t.Errorf("Python(Python(x)) = %q, %v; want %q", again, err, got)
			}
		})
	}
}

// TestPythonVectorPayloads rebuilds the signed tools/call payload vectors
// through RequestPayload and ResultPayload.
func TestPythonVectorPayloads(t *testing.T) {
	found := 0
	for _, v := range loadPythonVectors(t) {
		var p struct {
			Tool   string          `json:"tool"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
		}
		if !strings.HasPrefix(v.Name, "tools/call") {
			continue
		}
		found++
		if err := json.Unmarshal([]byte(v.Input), &p); err != nil {
			t.Fatal(err)
		}
		// The nonce and the timestamp, a string or a number, as a signature
		// object carries them.
		var sig Signature
		if err := json.Unmarshal([]byte(v.Input), &sig); err != nil {
			t.Fatal(err)
		}
		var got []byte
		var err error
		if p.Result != nil {
			got, err = sig.ResultPayload(FormPython, p.Tool, p.Result)
		} else {
			got, err = sig.RequestPayload(FormPython, p.Tool, p.Params)
		}
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		if diff := cmp.Diff(v.Canonical, string(got)); diff != "" {
			t.Errorf("%s: payload mismatch (-python +go):\n%s", v.Name, diff)
		}
		if mac := Sign([]byte(v.Key), got); mac != v.HMAC {
			t.Errorf("%s: HMAC = %s, want %s", v.Name, mac, v.HMAC)
		}
	}
	if found != 5 {
		t.Fatalf("found %d tools/call vectors, want 5", found)
	}
}

// requirePython3 returns the path of python3, skipping the test when there
// is none, except under CI=true or MCPCTL_REQUIRE_INTEROP=1 (as in
// main_test.go), where a missing python3 is a failure.
func requirePython3(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") == "true" || os.Getenv("MCPCTL_REQUIRE_INTEROP") == "1" {
			t.Fatalf("python3 is required under CI: %v", err)
		}
		t.Skipf("python3 not found: %v", err)
	}
	return path
}

// TestPythonVectorsAreCurrent reruns the generator and compares its output
// with the committed file, so the vectors cannot drift from their script.
func TestPythonVectorsAreCurrent(t *testing.T) {
	py := requirePython3(t)
	out := filepath.Join(t.TempDir(), "vectors.json")
	cmd := exec.Command(py, "../scripts/gen-signing-vectors.py", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gen-signing-vectors.py: %v\n%s", err, b)
	}
	fresh, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile(pythonVectorsPath)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(committed), string(fresh)); diff != "" {
		t.Errorf("%s is stale; run python3 scripts/gen-signing-vectors.py (-committed +fresh):\n%s", pythonVectorsPath, diff)
	}
}

func TestPyFloat(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{1, "1.0"},
		{-1, "-1.0"},
		{0.1, "0.1"},
		{100, "100.0"},
		{1.5, "1.5"},
		{123456789.123456789, "123456789.12345679"},
		{1e15, "1000000000000000.0"},
		{9999999999999998, "9999999999999998.0"},
		{1e16, "1e+16"},
		{1.25e16, "1.25e+16"},
		{1e21, "1e+21"},
		{1e22, "1e+22"},
		{1e100, "1e+100"},
		{0.0001, "0.0001"},
		{0.00012345, "0.00012345"},
		{0.00001, "1e-05"},
		{1e-7, "1e-07"},
		{-2.5e-10, "-2.5e-10"},
		{5e-324, "5e-324"},
		{math.MaxFloat64, "1.7976931348623157e+308"},
		{-math.MaxFloat64, "-1.7976931348623157e+308"},
		{333333333.33333329, "333333333.3333333"},
	}
	for _, tt := range tests {
		if got := pyFloat(tt.in); got != tt.want {
			t.Errorf("pyFloat(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPythonCases(t *testing.T) {
	tests := []struct {
		name, input, want string
	}{
		{"int and float stay distinct", `[1, 1.0, 1e0, 10E-1]`, `[1, 1.0, 1.0, 1.0]`},
		{"minus zero", `[-0, -0.0, 0e0, -0e5]`, `[0, -0.0, 0.0, -0.0]`},
		{"big integers keep their digits", `[123456789012345678901234567890, -18446744073709551616]`, `[123456789012345678901234567890, -18446744073709551616]`},
		{"duplicate keys: last wins, nested too", `{"a": {"x": 1, "x": 2}, "a": {"y": 3}}`, `{"a": {"y": 3}}`},
		{"astral sorts after BMP private use", `{"\ud83d\ude00": 1, "\ue000": 2, "\uffff": 3}`, `{"\ue000": 2, "\uffff": 3, "\ud83d\ude00": 1}`},
		{"lone surrogate sorts by code point", `{"\ue000": 1, "\ud800": 2, "\ud7ff": 3}`, `{"\ud7ff": 3, "\ud800": 2, "\ue000": 1}`},
		{"high surrogate then non-surrogate escape", `"\ud83d\u0041"`, `"\ud83dA"`},
		{"upper-case hex escapes", `"\u00C9\uD83D\uDE00"`, `"\u00c9\ud83d\ude00"`},
		{"del is escaped", "\"\x7f\"", `"\u007f"`},
		{"slash is not escaped", `"a\/b"`, `"a/b"`},
		{"raw utf-8", `"é😀"`, `"\u00e9\ud83d\ude00"`},
		{"exponent without fraction is a float", `[1e2, 1E+2, 1e-2]`, `[100.0, 100.0, 0.01]`},
		{"deep but allowed", strings.Repeat("[", 1000) + strings.Repeat("]", 1000), strings.Repeat("[", 1000) + strings.Repeat("]", 1000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Python([]byte(tt.input))
			if err != nil {
				t.Fatalf("Python(%q): %v", tt.input, err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPythonRejects(t *testing.T) {
	tests := []struct {
		name, input, wantErr string
	}{
		{"NaN", `[NaN]`, "NaN is not JSON"},
		{"Infinity", `{"a": Infinity}`, "Infinity is not JSON"},
		{"-Infinity", `-Infinity`, "-Infinity is not JSON"},
		{"overflow", `1e400`, "overflows a double"},
		{"huge integer", strings.Repeat("9", 4301), "exceeds Python's limit of 4300"},
		{"too deep", strings.Repeat("[", 1001) + strings.Repeat("]", 1001), "nesting deeper than 1000"},
		{"trailing data", `{} {}`, "extra data"},
		{"leading zero", `01`, "extra data"},
		{"empty", ``, "unexpected end of input"},
		{"bare minus", `-`, "expecting a digit"},
		{"fraction without digits", `1.`, "extra data"},
		{"control character", "\"a\nb\"", "invalid control character"},
		{"bad escape", `"\x"`, `invalid escape \x`},
		{"short unicode escape", `"\u12"`, `\u escape`},
		{"invalid utf-8", "\"\xff\"", "invalid UTF-8"},
		{"unquoted key", `{a: 1}`, "expecting a member name"},
		{"missing colon", `{"a" 1}`, "expecting ':'"},
		{"trailing comma", `[1,]`, "unexpected character ']'"},
		{"single quotes", `'a'`, "unexpected character"},
		{"unterminated", `["a`, "unterminated string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Python([]byte(tt.input))
			if err == nil {
				t.Fatalf("Python(%q) = %q, want an error", tt.input, got)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not contain %q", err, tt.wantErr)
			}
		})
	}
}

func BenchmarkPython(b *testing.B) {
	input := []byte(`{"tool":"get_weather","params":{"city":"Lyon","days":3,"threshold":0.5,"tags":["café","🌧"]},"nonce":"0f1e2d3c4b5a69788796a5b4c3d2e1f0","timestamp":"2025-06-18T09:30:00Z"}`)
	for b.Loop() {
		if _, err := Python(input); err != nil {
			b.Fatal(err)
		}
	}
}
