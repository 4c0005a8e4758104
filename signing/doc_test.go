package signing

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// pythonDriver follows the Python example of docs/signing.md when the test
// runs it. It reads a JSON array of cases from stdin and, for each, verifies
// the request twice (the second time must be refused as a replay) and
// answers with the signed result or the reason verification failed: one
// Python process for every case, since starting Python dominates the test.
const pythonDriver = `

import sys as _sys


def _answer(_case):
    _key = _case["key"].encode()
    _seen = {}
    try:
        _nonce = verify_request(_key, _case["params"], _seen)
    except ValueError as e:
        return {"error": str(e)}
    try:
        verify_request(_key, _case["params"], _seen)
        return {"error": "replayed request accepted"}
    except ValueError as e:
        if str(e) != "nonce already used":
            raise
    return {"result": sign_result(_key, _case["params"]["name"], _case["result"], _nonce, kid="k1")}


print(json.dumps([_answer(_c) for _c in json.load(_sys.stdin)]))
`

// extractPythonExample returns the single python code block of docs/signing.md.
func extractPythonExample(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile("../docs/signing.md")
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(string(doc), "```python\n")
	if len(parts) != 2 {
		t.Fatalf("docs/signing.md has %d python code blocks, want exactly 1", len(parts)-1)
	}
	code, _, ok := strings.Cut(parts[1], "\n```")
	if !ok {
		t.Fatal("unterminated python code block in docs/signing.md")
	}
	return code + "\n"
}

// TestDocPythonExample runs the Python server example of docs/signing.md
// against requests signed here, and verifies the results it signs.
func TestDocPythonExample(t *testing.T) {
	py := requirePython3(t)
	script := filepath.Join(t.TempDir(), "example.py")
	if err := os.WriteFile(script, []byte(extractPythonExample(t)+pythonDriver), 0o600); err != nil {
		t.Fatal(err)
	}
	key := []byte("doc example key")
	tests := []struct {
		name      string
		args      string
		sentArgs  string // what the server receives, if tampered with
		key       []byte // signing key, if not key
		signedAt  time.Duration
		style     string // timestamp style of the request signature; "" is RFC 3339
		result    string
		wantError string // reason the Python server gives
	}{
		{
			name:   "plain",
			args:   `{"city":"Lyon","days":3}`,
			result: `{"content":[{"type":"text","text":"sunny"}],"isError":false}`,
		},
		{
			name:   "unicode, floats, the largest exact integers and existing _meta",
			args:   `{"q":"café 😀 \"quoted\"\n","ratio":1.0,"tiny":1e-7,"big":9007199254740991,"small":-9007199254740991,"nested":{"b":[],"a":{}}}`,
			result: `{"content":[{"type":"text","text":"Léger, 21°C 🌧"}],"structuredContent":{"temp":21.0,"n":-0.0},"_meta":{"progressToken":"p1"}}`,
		},
		{
			name:   "request timestamp a float, as the design signs",
			args:   `{"city":"Lyon","ratio":0.5}`,
			style:  TimestampUnix,
			result: `{"content":[{"type":"text","text":"sunny"}],"structuredContent":{"t":1.0}}`,
		},
		{
			name:      "stale float timestamp",
			args:      `{}`,
			style:     TimestampUnix,
			signedAt:  -10 * time.Minute,
			result:    `{"content":[]}`,
			wantError: "timestamp too old",
		},
		{
			name:   "result with an empty _meta",
			args:   `{}`,
			result: `{"content":[],"_meta":{}}`,
		},
		{
			name:   "result that already carries a stale signature",
			args:   `{}`,
			result: `{"content":[],"_meta":{"signature":{"alg":"HMAC-SHA256","nonce":"old","timestamp":"2020-01-01T00:00:00Z","value":"00"}}}`,
		},
		{
			name:      "tampered arguments",
			args:      `{"amount":10}`,
			sentArgs:  `{"amount":1000}`,
			result:    `{"content":[]}`,
			wantError: "signature value does not match",
		},
		{
			name:      "wrong key",
			args:      `{}`,
			key:       []byte("not the server's key"),
			result:    `{"content":[]}`,
			wantError: "signature value does not match",
		},
		{
			name:      "stale request",
			args:      `{}`,
			signedAt:  -10 * time.Minute,
			result:    `{"content":[]}`,
			wantError: "timestamp too old",
		},
	}
	type answer struct {
		Error  string          `json:"error"`
		Result json.RawMessage `json:"result"`
	}
	nonces := make([]string, len(tests))
	cases := make([]map[string]any, len(tests))
	for i, tt := range tests {
		signKey := key
		if tt.key != nil {
			signKey = tt.key
		}
		sig, err := SignRequestAs(signKey, FormPython, "", tt.style, "weather", json.RawMessage(tt.args), time.Now().Add(tt.signedAt))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		sent := tt.args
		if tt.sentArgs != "" {
			sent = tt.sentArgs
		}
		params, err := AttachSignature(json.RawMessage(`{"name":"weather","arguments":`+sent+`}`), sig)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		nonces[i] = sig.Nonce
		cases[i] = map[string]any{"key": string(key), "params": params, "result": json.RawMessage(tt.result)}
	}
	in, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, script)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python example failed: %v\n%s", err, stderr.String())
	}
	var answers []answer
	if err := json.Unmarshal(out, &answers); err != nil || len(answers) != len(tests) {
		t.Fatalf("python printed %q (%v), want %d answers", out, err, len(tests))
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			answer := answers[i]
			if answer.Error != tt.wantError {
				t.Fatalf("python server error = %q, want %q", answer.Error, tt.wantError)
			}
			if tt.wantError != "" {
				return
			}
			if err := VerifyResult(key, FormPython, "weather", answer.Result, nonces[i], time.Now(), 0); err != nil {
				t.Fatalf("VerifyResult of the Python-signed result: %v\nresult: %s", err, answer.Result)
			}
			// The design signs with timestamp = time.time(): a number.
			if _, sig, err := StripSignature(answer.Result); err != nil || sig == nil || !sig.NumericTimestamp {
				t.Errorf("the Python result's signature %+v (%v) has no numeric timestamp", sig, err)
			}
			// The same answer must not pass for another request.
			err = VerifyResult(key, FormPython, "weather", answer.Result, "another nonce", time.Now(), 0)
			if !errors.Is(err, ErrNonceMismatch) {
				t.Errorf("result checked against another nonce: err = %v, want ErrNonceMismatch", err)
			}
		})
	}
}

// TestDocPythonExampleIsTheServer checks that the Python code of
// docs/signing.md is, word for word, the signing part of
// docs/signing_server.py, the complete server the README runs.
func TestDocPythonExampleIsTheServer(t *testing.T) {
	server, err := os.ReadFile("../docs/signing_server.py")
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "# --- signing: the code of docs/signing.md ---\n", "# --- end of the code of docs/signing.md ---"
	_, rest, ok := strings.Cut(string(server), begin)
	code, _, ok2 := strings.Cut(rest, end)
	if !ok || !ok2 {
		t.Fatalf("docs/signing_server.py lacks the markers %q and %q around the signing code", begin, end)
	}
	if diff := cmp.Diff(extractPythonExample(t), code); diff != "" {
		t.Errorf("the python block of docs/signing.md differs from the signing code of docs/signing_server.py (-doc +server):\n%s", diff)
	}
}
