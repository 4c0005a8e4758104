package signing

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var (
	testKey = []byte("a shared secret nobody else knows")
	testNow = time.Date(2025, 6, 18, 9, 30, 0, 0, time.UTC)
)

// signedResult is what a server answers: result signed for nonce at signedAt.
func signedResult(t *testing.T, form, tool, result, nonce string, signedAt time.Time) json.RawMessage {
	t.Helper()
	sig, err := SignResult(testKey, form, "k1", tool, json.RawMessage(result), nonce, signedAt)
	if err != nil {
		t.Fatalf("SignResult: %v", err)
	}
	out, err := AttachSignature(json.RawMessage(result), sig)
	if err != nil {
		t.Fatalf("AttachSignature: %v", err)
	}
	return out
}

func TestRequestRoundTrip(t *testing.T) {
	for _, form := range []string{FormJCS, FormPython} {
		t.Run(form, func(t *testing.T) {
			args := json.RawMessage(`{"city": "Lyon", "days": 3, "ratio": 1.0, "tags": ["café", "🌧"]}`)
			sig, err := SignRequest(testKey, form, "k1", "get_weather", args, testNow)
			if err != nil {
				t.Fatal(err)
			}
			want := Signature{Alg: AlgHMACSHA256, KID: "k1", Nonce: sig.Nonce, Timestamp: "2025-06-18T09:30:00Z", Value: sig.Value}
			if diff := cmp.Diff(want, sig); diff != "" {
				t.Errorf("signature mismatch (-want +got):\n%s", diff)
			}
			// The signature travels inside params; the server takes it out again.
			params, err := AttachSignature(json.RawMessage(`{"name":"get_weather","arguments":`+string(args)+`}`), sig)
			if err != nil {
				t.Fatal(err)
			}
			_, gotSig, err := StripSignature(params)
			if err != nil {
				t.Fatal(err)
			}
			seen := NewNonceCache(0)
			if err := VerifyRequest(testKey, form, "get_weather", args, gotSig, testNow.Add(time.Minute), 0, seen); err != nil {
				t.Fatalf("VerifyRequest: %v", err)
			}
			// Whitespace and member order do not matter; values do.
			reordered := json.RawMessage(`{"tags":["café","🌧"],"ratio":1.0,"days":3,"city":"Lyon"}`)
			if err := VerifyRequest(testKey, form, "get_weather", reordered, gotSig, testNow, 0, nil); err != nil {
				t.Errorf("VerifyRequest of reordered arguments: %v", err)
			}
			err = VerifyRequest(testKey, form, "get_weather", args, gotSig, testNow.Add(2*time.Minute), 0, seen)
			if !errors.Is(err, ErrNonceReplayed) {
				t.Errorf("replayed request: err = %v, want ErrNonceReplayed", err)
			}
		})
	}
}

func TestVerifyRequestFailures(t *testing.T) {
	args := json.RawMessage(`{"n":1}`)
	good, err := SignRequest(testKey, FormJCS, "", "add", args, testNow)
	if err != nil {
		t.Fatal(err)
	}
	with := func(f func(s *Signature)) *Signature {
		s := good
		f(&s)
		return &s
	}
	tests := []struct {
		name       string
		key        []byte
		tool, args string
		sig        *Signature
		now        time.Time
		want       error
		wantDetail string
	}{
		{name: "missing", sig: nil, want: ErrMissingSignature},
		{name: "wrong key", key: []byte("another key"), sig: &good, want: ErrValueMismatch},
		{name: "other tool", tool: "sub", sig: &good, want: ErrValueMismatch},
		{name: "altered arguments", args: `{"n":2}`, sig: &good, want: ErrValueMismatch},
		{name: "altered nonce", sig: with(func(s *Signature) { s.Nonce = "00" }), want: ErrValueMismatch},
		{name: "alg", sig: with(func(s *Signature) { s.Alg = "none" }), want: ErrUnsupportedAlg, wantDetail: `alg "none", expected "HMAC-SHA256"`},
		{name: "no nonce", sig: with(func(s *Signature) { s.Nonce = "" }), want: ErrMalformedSignature},
		{name: "bad timestamp", sig: with(func(s *Signature) { s.Timestamp = "1718703000" }), want: ErrMalformedSignature, wantDetail: `"1718703000" is not RFC 3339`},
		{name: "too old", sig: &good, now: testNow.Add(6 * time.Minute), want: ErrTimestampTooOld, wantDetail: "6m0s before"},
		{name: "in future", sig: &good, now: testNow.Add(-6 * time.Minute), want: ErrTimestampInFuture, wantDetail: "6m0s after"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key, tool, a, now := testKey, "add", args, testNow
			if tt.key != nil {
				key = tt.key
			}
			if tt.tool != "" {
				tool = tt.tool
			}
			if tt.args != "" {
				a = json.RawMessage(tt.args)
			}
			if !tt.now.IsZero() {
				now = tt.now
			}
			err := VerifyRequest(key, FormJCS, tool, a, tt.sig, now, 0, nil)
			checkVerifyError(t, err, tt.want, tt.wantDetail)
		})
	}
}

func TestVerifyResult(t *testing.T) {
	const nonce = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
	result := `{"content":[{"type":"text","text":"21°C"}],"structuredContent":{"temp":21.5},"isError":false}`
	good := signedResult(t, FormJCS, "get_weather", result, nonce, testNow)
	pyGood := signedResult(t, FormPython, "get_weather", result, nonce, testNow)
	tests := []struct {
		name       string
		form       string
		result     json.RawMessage
		tool       string
		sentNonce  string
		now        time.Time
		maxSkew    time.Duration
		want       error
		wantDetail string
	}{
		{name: "ok", result: good},
		{name: "ok python", form: FormPython, result: pyGood},
		{name: "ok at the edge of the skew", result: good, now: testNow.Add(5 * time.Minute)},
		{name: "ok with a wider skew", result: good, now: testNow.Add(time.Hour), maxSkew: 2 * time.Hour},
		{name: "form mismatch", form: FormPython, result: good, want: ErrValueMismatch, wantDetail: "python canonical payload"},
		{name: "missing", result: json.RawMessage(result), want: ErrMissingSignature, wantDetail: "no _meta.signature"},
		{name: "missing with other meta", result: json.RawMessage(`{"content":[],"_meta":{"progressToken":1}}`), want: ErrMissingSignature},
		{name: "replayed answer to another request", result: good, sentNonce: "ffffffffffffffffffffffffffffffff", want: ErrNonceMismatch,
			wantDetail: "request sent nonce ffffffffffffffffffffffffffffffff, result signature carries " + nonce},
		{name: "other tool", result: good, tool: "get_time", want: ErrValueMismatch},
		{name: "tampered content", result: json.RawMessage(strings.Replace(string(good), "21°C", "22°C", 1)), want: ErrValueMismatch},
		{name: "too old", result: good, now: testNow.Add(5*time.Minute + time.Second), want: ErrTimestampTooOld,
			wantDetail: "result signed at 2025-06-18T09:30:00Z, 5m1s before this clock's 2025-06-18T09:35:01Z; allowed skew is 5m0s"},
		{name: "in future", result: good, now: testNow.Add(-time.Hour), want: ErrTimestampInFuture},
		{name: "signature not an object", result: json.RawMessage(`{"_meta":{"signature":"abc"}}`), want: ErrMalformedSignature},
		{name: "result not an object", result: json.RawMessage(`[1]`), want: ErrMalformedSignature},
		{name: "duplicate _meta", result: json.RawMessage(`{"_meta":{},"_meta":{"signature":{}}}`), want: ErrMalformedSignature, wantDetail: `"_meta" appears more than once`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			form, tool, sent, now := FormJCS, "get_weather", nonce, testNow
			if tt.form != "" {
				form = tt.form
			}
			if tt.tool != "" {
				tool = tt.tool
			}
			if tt.sentNonce != "" {
				sent = tt.sentNonce
			}
			if !tt.now.IsZero() {
				now = tt.now
			}
			err := VerifyResult(testKey, form, tool, tt.result, sent, now, tt.maxSkew)
			checkVerifyError(t, err, tt.want, tt.wantDetail)
		})
	}
}

func checkVerifyError(t *testing.T, err, want error, wantDetail string) {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	var verr *VerifyError
	if !errors.As(err, &verr) {
		t.Fatalf("err = %v (%T), want a *VerifyError", err, err)
	}
	if !errors.Is(err, want) {
		t.Errorf("reason = %v, want %v", verr.Reason, want)
	}
	if !strings.Contains(verr.Detail, wantDetail) {
		t.Errorf("detail %q does not contain %q", verr.Detail, wantDetail)
	}
	if strings.Contains(err.Error(), string(testKey)) {
		t.Errorf("error message contains the key: %v", err)
	}
}

func TestVerifyNeverRevealsExpectedValue(t *testing.T) {
	args := json.RawMessage(`{"n":1}`)
	sig, err := SignRequest(testKey, FormJCS, "", "add", args, testNow)
	if err != nil {
		t.Fatal(err)
	}
	forged := sig
	forged.Value = strings.Repeat("0", 64)
	err = VerifyRequest(testKey, FormJCS, "add", args, &forged, testNow, 0, nil)
	if !errors.Is(err, ErrValueMismatch) {
		t.Fatalf("err = %v, want ErrValueMismatch", err)
	}
	if strings.Contains(err.Error(), sig.Value) || strings.Contains(err.Error(), sig.Value[:16]) {
		t.Errorf("error reveals the expected value: %v", err)
	}
}

func TestVerifyUnknownFormIsNotAVerifyError(t *testing.T) {
	err := VerifyResult(testKey, "xml", "t", json.RawMessage(`{}`), "n", testNow, 0)
	var verr *VerifyError
	if err == nil || errors.As(err, &verr) {
		t.Fatalf("err = %v, want a plain usage error", err)
	}
}

func TestSignErrors(t *testing.T) {
	if _, err := SignRequest(nil, FormJCS, "", "t", nil, testNow); err == nil || !strings.Contains(err.Error(), "key is empty") {
		t.Errorf("empty key: err = %v", err)
	}
	if _, err := SignRequest(testKey, FormJCS, "", "t", json.RawMessage(`{}, "nonce": "x"`), testNow); err == nil {
		t.Error("arguments that are not one JSON value were signed")
	}
	if _, err := SignResult(testKey, FormJCS, "", "t", json.RawMessage(`{}`), "", testNow); err == nil {
		t.Error("result signed without a nonce")
	}
	if _, err := SignRequest(testKey, FormPython, "", "t", json.RawMessage(`{"x": NaN}`), testNow); err == nil {
		t.Error("NaN signed")
	}
}

func TestRequestPayload(t *testing.T) {
	tests := []struct {
		name, form, args, want string
	}{
		{"jcs", FormJCS, `{"b":[1.0,2],"a":"é"}`, `{"nonce":"n1","params":{"a":"é","b":[1,2]},"timestamp":"2025-06-18T09:30:00Z","tool":"t"}`},
		{"python", FormPython, `{"b":[1.0,2],"a":"é"}`, `{"nonce": "n1", "params": {"a": "\u00e9", "b": [1.0, 2]}, "timestamp": "2025-06-18T09:30:00Z", "tool": "t"}`},
		{"absent arguments are {}", FormJCS, ``, `{"nonce":"n1","params":{},"timestamp":"2025-06-18T09:30:00Z","tool":"t"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RequestPayload(tt.form, "t", json.RawMessage(tt.args), "n1", "2025-06-18T09:30:00Z")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestResultPayloadStripsSignature(t *testing.T) {
	bare := `{"content":[],"_meta":{"progressToken":"p"}}`
	withSig := `{"content":[],"_meta":{"signature":{"alg":"HMAC-SHA256","nonce":"x","timestamp":"t","value":"v"},"progressToken":"p"}}`
	a, err := ResultPayload(FormJCS, "t", json.RawMessage(bare), "n", "ts")
	if err != nil {
		t.Fatal(err)
	}
	b, err := ResultPayload(FormJCS, "t", json.RawMessage(withSig), "n", "ts")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(a), string(b)); diff != "" {
		t.Errorf("signature not stripped from the payload (-bare +signed):\n%s", diff)
	}
}

func TestStripSignature(t *testing.T) {
	sig := `{"alg":"HMAC-SHA256","kid":"k","nonce":"n","timestamp":"2025-06-18T09:30:00Z","value":"ab"}`
	wantSig := &Signature{Alg: AlgHMACSHA256, KID: "k", Nonce: "n", Timestamp: "2025-06-18T09:30:00Z", Value: "ab"}
	tests := []struct {
		name      string
		in        string
		want      string
		wantSig   *Signature
		wantError string
	}{
		{name: "no meta", in: `{"a":1, "b" : [1, 2]}`, want: `{"a":1, "b" : [1, 2]}`},
		{name: "meta without signature", in: `{"a":1,"_meta":{"x":1}}`, want: `{"a":1,"_meta":{"x":1}}`},
		{name: "empty meta is dropped", in: `{"a":1,"_meta":{}}`, want: `{"a":1}`},
		{name: "meta null is kept", in: `{"a":1,"_meta":null}`, want: `{"a":1,"_meta":null}`},
		{name: "only signature", in: `{"a":1,"_meta":{"signature":` + sig + `}}`, want: `{"a":1}`, wantSig: wantSig},
		{name: "signature and more", in: `{"_meta" : {"p":1, "signature":` + sig + `, "q":[2]}, "a":1}`, want: `{"_meta":{"p":1,"q":[2]},"a":1}`, wantSig: wantSig},
		{name: "names kept as written", in: `{"\u0061":1,"_meta":{"signature":` + sig + `}}`, want: `{"\u0061":1}`, wantSig: wantSig},
		{name: "not an object", in: `"x"`, wantError: "not a JSON object"},
		{name: "trailing data", in: `{} []`, wantError: "data after the object"},
		{name: "duplicate signature", in: `{"_meta":{"signature":` + sig + `,"signature":` + sig + `}}`, wantError: `"signature" appears more than once`},
		{name: "signature of wrong type", in: `{"_meta":{"signature":{"nonce":5}}}`, wantError: "not a signature object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, gotSig, err := StripSignature(json.RawMessage(tt.in))
			if tt.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantError) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("stripped mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantSig, gotSig); diff != "" {
				t.Errorf("signature mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAttachSignature(t *testing.T) {
	sig := Signature{Alg: AlgHMACSHA256, Nonce: "n", Timestamp: "ts", Value: "v"}
	sigJSON := `{"alg":"HMAC-SHA256","nonce":"n","timestamp":"ts","value":"v"}`
	tests := []struct {
		name, in, want, wantError string
	}{
		{name: "no meta", in: `{"name":"t","arguments":{}}`, want: `{"name":"t","arguments":{},"_meta":{"signature":` + sigJSON + `}}`},
		{name: "meta kept", in: `{"_meta":{"progressToken":"p"},"a":1}`, want: `{"_meta":{"progressToken":"p","signature":` + sigJSON + `},"a":1}`},
		{name: "old signature replaced", in: `{"_meta":{"signature":{"value":"old"},"x":1}}`, want: `{"_meta":{"signature":` + sigJSON + `,"x":1}}`},
		{name: "meta not an object", in: `{"_meta":3}`, wantError: "_meta: not a JSON object"},
		{name: "not an object", in: `null`, wantError: "not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AttachSignature(json.RawMessage(tt.in), sig)
			if tt.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantError) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSignResultIgnoresOldSignature: re-signing a signed result must give
// what signing the bare result gives, with an empty _meta treated as absent.
func TestSignResultIgnoresOldSignature(t *testing.T) {
	for _, bare := range []string{`{"content":[]}`, `{"content":[],"_meta":{}}`} {
		once := signedResult(t, FormJCS, "t", bare, "n", testNow)
		twice := signedResult(t, FormJCS, "t", string(once), "n", testNow)
		if diff := cmp.Diff(string(once), string(twice)); diff != "" {
			t.Errorf("%s: re-signing changed the result (-once +twice):\n%s", bare, diff)
		}
		if err := VerifyResult(testKey, FormJCS, "t", twice, "n", testNow, 0); err != nil {
			t.Errorf("%s: %v", bare, err)
		}
	}
}

func TestVerifyAcceptsOtherRFC3339Timestamps(t *testing.T) {
	// A server may write fractions or an offset; the HMAC covers the string
	// as written, and the skew check uses the instant.
	for _, ts := range []string{"2025-06-18T09:30:00.123456Z", "2025-06-18T11:30:00+02:00"} {
		canon, err := ResultPayload(FormJCS, "t", json.RawMessage(`{}`), "n", ts)
		if err != nil {
			t.Fatal(err)
		}
		sig := Signature{Alg: AlgHMACSHA256, Nonce: "n", Timestamp: ts, Value: Sign(testKey, canon)}
		res, err := AttachSignature(json.RawMessage(`{}`), sig)
		if err != nil {
			t.Fatal(err)
		}
		if err := VerifyResult(testKey, FormJCS, "t", res, "n", testNow, 0); err != nil {
			t.Errorf("%s: %v", ts, err)
		}
	}
}

func TestVerifyAcceptsUpperCaseHex(t *testing.T) {
	res := signedResult(t, FormJCS, "t", `{}`, "n", testNow)
	_, sig, err := StripSignature(res)
	if err != nil {
		t.Fatal(err)
	}
	sig.Value = strings.ToUpper(sig.Value)
	res, err = AttachSignature(res, *sig)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyResult(testKey, FormJCS, "t", res, "n", testNow, 0); err != nil {
		t.Error(err)
	}
}
