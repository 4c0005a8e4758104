package signing

import (
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

const signedMessagesPath = "../testdata/signing/python-signed-messages.json"

type signedMessageVector struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Tool      string `json:"tool"`
	Key       string `json:"key"`
	Nonce     string `json:"nonce"`
	Timestamp string `json:"timestamp"`
	Canonical string `json:"canonical"`
	Message   string `json:"message"`
}

func loadSignedMessages(t *testing.T) []signedMessageVector {
	t.Helper()
	b, err := os.ReadFile(signedMessagesPath)
	if err != nil {
		t.Fatal(err)
	}
	var vs []signedMessageVector
	if err := json.Unmarshal(b, &vs); err != nil {
		t.Fatal(err)
	}
	if len(vs) < 8 {
		t.Fatalf("only %d vectors in %s", len(vs), signedMessagesPath)
	}
	return vs
}

// verifyVector verifies a Python-signed message as mcpctl would, at now.
func verifyVector(v signedMessageVector, form, message string, now time.Time) error {
	key := []byte(v.Key)
	if v.Kind == "result" {
		return VerifyResult(key, form, v.Tool, json.RawMessage(message), v.Nonce, now, 0)
	}
	var params struct {
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal([]byte(message), &params); err != nil {
		return err
	}
	_, sig, err := StripSignature(json.RawMessage(message))
	if err != nil {
		return err
	}
	return VerifyRequest(key, form, v.Tool, params.Arguments, sig, now, 0, NewNonceCache(10))
}

// TestPythonSignedMessages verifies requests and results Python signed the
// design's way (timestamp = time.time(), json.dumps(sort_keys=True)), and
// refuses them once tampered with.
func TestPythonSignedMessages(t *testing.T) {
	for _, v := range loadSignedMessages(t) {
		t.Run(v.Name, func(t *testing.T) {
			_, sig, err := StripSignature(json.RawMessage(v.Message))
			if err != nil || sig == nil {
				t.Fatalf("StripSignature: %v, %v", sig, err)
			}
			if !sig.NumericTimestamp || sig.Timestamp != v.Timestamp {
				t.Fatalf("timestamp = %q (numeric %v), want the number %s as sent", sig.Timestamp, sig.NumericTimestamp, v.Timestamp)
			}
			var canon []byte
			if v.Kind == "result" {
				canon, err = sig.ResultPayload(FormPython, v.Tool, json.RawMessage(v.Message))
			} else {
				var p struct {
					Arguments json.RawMessage `json:"arguments"`
				}
				if err := json.Unmarshal([]byte(v.Message), &p); err != nil {
					t.Fatal(err)
				}
				canon, err = sig.RequestPayload(FormPython, v.Tool, p.Arguments)
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(v.Canonical, string(canon)); diff != "" {
				t.Errorf("payload mismatch (-python +go):\n%s", diff)
			}
			signedAt, err := sig.Time()
			if err != nil {
				t.Fatal(err)
			}
			if err := verifyVector(v, FormPython, v.Message, signedAt.Add(2*time.Second)); err != nil {
				t.Fatalf("verify: %v", err)
			}
			bad := []struct {
				name    string
				form    string
				message string
				now     time.Time
				want    error
			}{
				{"tampered nonce", FormPython, strings.Replace(v.Message, `"nonce": "0f1e`, `"nonce": "0f1f`, 1), signedAt, ErrValueMismatch},
				// 100 s later: still within the skew, so only the value can tell.
				// (Appending a digit may not change the double, nor its repr.)
				{"timestamp changed", FormPython, strings.Replace(v.Message, `"timestamp": 175023900`, `"timestamp": 175023910`, 1), signedAt, ErrValueMismatch},
				{"timestamp as a string", FormPython, strings.Replace(v.Message, `"timestamp": `+v.Timestamp, `"timestamp": "`+v.Timestamp+`"`, 1), signedAt, ErrMalformedSignature},
				{"other canonical form", FormJCS, v.Message, signedAt, ErrValueMismatch},
				{"stale", FormPython, v.Message, signedAt.Add(6 * time.Minute), ErrTimestampTooOld},
				{"from the future", FormPython, v.Message, signedAt.Add(-6 * time.Minute), ErrTimestampInFuture},
			}
			for _, b := range bad {
				if b.message == v.Message && b.form == FormPython && b.want == ErrValueMismatch {
					t.Fatalf("%s: the message was not changed", b.name)
				}
				if err := verifyVector(v, b.form, b.message, b.now); !errors.Is(err, b.want) {
					t.Errorf("%s: err = %v, want %v", b.name, err, b.want)
				}
			}
		})
	}
}

// TestPythonSignedMessagesAreCurrent reruns the generator and compares its
// output with the committed file.
func TestPythonSignedMessagesAreCurrent(t *testing.T) {
	py := requirePython3(t)
	out := filepath.Join(t.TempDir(), "messages.json")
	cmd := exec.Command(py, "../scripts/gen-signed-messages.py", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gen-signed-messages.py: %v\n%s", err, b)
	}
	fresh, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile(signedMessagesPath)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(committed), string(fresh)); diff != "" {
		t.Errorf("%s is stale; run python3 scripts/gen-signed-messages.py (-committed +fresh):\n%s", signedMessagesPath, diff)
	}
}

func TestSignatureTimestampJSON(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Signature
		wantErr string
	}{
		{"string", `{"alg":"a","nonce":"n","timestamp":"2025-06-18T09:30:00Z","value":"v"}`,
			Signature{Alg: "a", Nonce: "n", Timestamp: "2025-06-18T09:30:00Z", Value: "v"}, ""},
		{"float kept as sent", `{"alg":"a","nonce":"n","timestamp": 1750239000.10 ,"value":"v"}`,
			Signature{Alg: "a", Nonce: "n", Timestamp: "1750239000.10", NumericTimestamp: true, Value: "v"}, ""},
		{"integer", `{"timestamp":1750239000}`, Signature{Timestamp: "1750239000", NumericTimestamp: true}, ""},
		{"exponent", `{"timestamp":1.75e9}`, Signature{Timestamp: "1.75e9", NumericTimestamp: true}, ""},
		{"absent", `{"alg":"a"}`, Signature{Alg: "a"}, ""},
		{"null", `{"timestamp":null}`, Signature{}, ""},
		{"boolean", `{"timestamp":true}`, Signature{}, "expected an RFC 3339 string or a number"},
		{"object", `{"timestamp":{}}`, Signature{}, "expected an RFC 3339 string or a number"},
		{"other member not a string", `{"nonce":1,"timestamp":1}`, Signature{}, "cannot unmarshal number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Signature
			err := json.Unmarshal([]byte(tt.in), &got)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			// Marshalling writes the timestamp back as it arrived.
			out, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			var again Signature
			if err := json.Unmarshal(out, &again); err != nil || again != got {
				t.Fatalf("round trip %s: %+v, %v", out, again, err)
			}
		})
	}
	if _, err := json.Marshal(Signature{Timestamp: "12 34", NumericTimestamp: true}); err == nil {
		t.Error("a numeric timestamp that is not a JSON number marshalled")
	}
}

func TestSignatureTime(t *testing.T) {
	tests := []struct {
		ts      string
		numeric bool
		want    time.Time
		wantErr string
	}{
		{"2025-06-18T09:30:00Z", false, time.Date(2025, 6, 18, 9, 30, 0, 0, time.UTC), ""},
		{"2025-06-18T11:30:00.5+02:00", false, time.Date(2025, 6, 18, 9, 30, 0, 5e8, time.UTC), ""},
		{"1750239000", false, time.Time{}, `"1750239000" is not RFC 3339`},
		{"1750239000", true, time.Unix(1750239000, 0), ""},
		{"1750239000.5", true, time.Unix(1750239000, 5e8), ""},
		{"1750239000.25", true, time.Unix(1750239000, 25e7), ""},
		{"1.7502390005e9", true, time.Unix(1750239000, 5e8), ""},
		{"-1.5", true, time.Unix(-2, 5e8), ""},
		{"1e300", true, time.Time{}, "out of range"},
		{"0x10", true, time.Time{}, "not a JSON number"},
	}
	for _, tt := range tests {
		got, err := Signature{Timestamp: tt.ts, NumericTimestamp: tt.numeric}.Time()
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Time(%q) err = %v, want %q", tt.ts, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !got.Equal(tt.want) {
			t.Errorf("Time(%q) = %v, %v; want %v", tt.ts, got, err, tt.want)
		}
	}
	// A float timestamp near now is exact to the microsecond.
	got, err := Signature{Timestamp: "1750239000.123456", NumericTimestamp: true}.Time()
	if d := got.Sub(time.Unix(1750239000, 123456000)); err != nil || d > time.Microsecond || d < -time.Microsecond {
		t.Errorf("Time = %v (off by %s), %v", got, d, err)
	}
}

// TestSignAsUnix signs with numeric timestamps in both forms and verifies.
func TestSignAsUnix(t *testing.T) {
	now := time.Unix(1750239000, 123456789)
	for _, form := range []string{FormJCS, FormPython} {
		args := json.RawMessage(`{"a":1.0}`)
		req, err := SignRequestAs(testKey, form, "", TimestampUnix, "add", args, now)
		if err != nil {
			t.Fatal(err)
		}
		if !req.NumericTimestamp || req.Timestamp != "1750239000.123456" {
			t.Fatalf("%s: timestamp %q (numeric %v), want the number 1750239000.123456", form, req.Timestamp, req.NumericTimestamp)
		}
		if err := VerifyRequest(testKey, form, "add", args, &req, now, 0, nil); err != nil {
			t.Fatalf("%s: VerifyRequest: %v", form, err)
		}
		wire, err := json.Marshal(req)
		if err != nil || !strings.Contains(string(wire), `"timestamp":1750239000.123456,`) {
			t.Fatalf("%s: wire %s, %v", form, wire, err)
		}
		result := json.RawMessage(`{"content":[]}`)
		res, err := SignResultAs(testKey, form, "", TimestampUnix, "add", result, req.Nonce, now)
		if err != nil {
			t.Fatal(err)
		}
		signed, err := AttachSignature(result, res)
		if err != nil {
			t.Fatal(err)
		}
		if err := VerifyResult(testKey, form, "add", signed, req.Nonce, now.Add(time.Second), 0); err != nil {
			t.Fatalf("%s: VerifyResult: %v", form, err)
		}
	}
	// A whole second is still a float, as time.time() would print it.
	sig, err := SignRequestAs(testKey, FormPython, "", TimestampUnix, "t", nil, time.Unix(1750239000, 0))
	if err != nil || sig.Timestamp != "1750239000.0" {
		t.Errorf("timestamp = %q, %v; want 1750239000.0", sig.Timestamp, err)
	}
	if _, err := SignRequestAs(testKey, FormPython, "", "epoch", "t", nil, now); err == nil || !strings.Contains(err.Error(), `use "rfc3339" or "unix"`) {
		t.Errorf("unknown style: err = %v", err)
	}
	if err := CheckTimestampStyle("unix"); err != nil {
		t.Error(err)
	}
}

// FuzzSignatureTimestamp checks that any timestamp a signature object can
// carry is read without panicking, judged by Time without panicking, and
// written back exactly as it arrived.
func FuzzSignatureTimestamp(f *testing.F) {
	for _, s := range []string{`1750239000.1234567`, `1750239000`, `-0.0`, `1e308`, `1E-400`, `"2025-06-18T09:30:00Z"`, `"x"`, `null`, `true`, `[]`, `0.1e+1`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ts string) {
		var sig Signature
		if err := json.Unmarshal([]byte(`{"alg":"HMAC-SHA256","nonce":"n","timestamp":`+ts+`,"value":"v"}`), &sig); err != nil {
			return
		}
		_, _ = sig.Time()
		out, err := json.Marshal(sig)
		if err != nil {
			t.Fatalf("Marshal(%+v): %v", sig, err)
		}
		var again Signature
		if err := json.Unmarshal(out, &again); err != nil || again != sig {
			t.Fatalf("round trip of %q: %s -> %+v, %v", ts, out, again, err)
		}
		if _, err := sig.RequestPayload(FormPython, "t", nil); err != nil && sig.NumericTimestamp && !strings.Contains(err.Error(), "overflows") {
			t.Fatalf("payload with timestamp %q: %v", ts, err)
		}
	})
}
