package signserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/signing"
)

var testKey = []byte("reference-server-test-key")

// wire talks newline-delimited JSON-RPC to a server, so that tests see the
// exact bytes the server sends.
type wire struct {
	t      *testing.T
	w      io.Writer
	r      *bufio.Reader
	nextID int
}

// response is a JSON-RPC response as it arrived.
type response struct {
	ID     int             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// serve runs a signing server with opts and completes the handshake.
func serve(t *testing.T, opts Options) *wire {
	t.Helper()
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, &mcp.IOTransport{Reader: inR, Writer: outW}) }()
	t.Cleanup(func() {
		inW.Close()
		cancel()
		<-done
		outR.Close()
	})
	w := &wire{t: t, w: inW, r: bufio.NewReader(outR)}
	init := w.call("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"0"}}`)
	if init.Error != nil {
		t.Fatalf("initialize: %s", init.Error.Message)
	}
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return w
}

func (w *wire) send(line string) {
	w.t.Helper()
	if _, err := io.WriteString(w.w, line+"\n"); err != nil {
		w.t.Fatal(err)
	}
}

// call sends a request with the next id and returns its response.
func (w *wire) call(method, params string) response {
	w.t.Helper()
	w.nextID++
	w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, w.nextID, method, params))
	return w.recv(w.nextID)
}

// recv reads messages until the response with id arrives.
func (w *wire) recv(id int) response {
	w.t.Helper()
	for {
		line, err := w.r.ReadBytes('\n')
		if err != nil {
			w.t.Fatalf("reading the response to request %d: %v", id, err)
		}
		var r response
		if err := json.Unmarshal(line, &r); err != nil {
			w.t.Fatalf("response is not JSON: %v\n%s", err, line)
		}
		if r.ID == id && (r.Result != nil || r.Error != nil) {
			return r
		}
	}
}

// signedParams returns tools/call params for tool and arguments (exact
// JSON text) signed with key in form, and the nonce.
func signedParams(t *testing.T, key []byte, form, tool, arguments string, now time.Time) (string, string) {
	t.Helper()
	sig, err := signing.SignRequest(key, form, "", tool, json.RawMessage(arguments), now)
	if err != nil {
		t.Fatal(err)
	}
	sigJSON, _ := json.Marshal(sig)
	return fmt.Sprintf(`{"name":%q,"arguments":%s,"_meta":{"signature":%s}}`, tool, arguments, sigJSON), sig.Nonce
}

// content returns the text of a result's first content block.
func content(t *testing.T, result json.RawMessage) string {
	t.Helper()
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(result, &r); err != nil || len(r.Content) == 0 {
		t.Fatalf("result has no content: %v\n%s", err, result)
	}
	return r.Content[0].Text
}

func TestGoodResultsVerify(t *testing.T) {
	tests := []struct {
		tool, arguments, want string
	}{
		{"echo", `{"message":"hi"}`, "hi"},
		// Escapes the SDK does not make (no HTML escaping), non-ASCII, and
		// numbers written in ways the two forms treat differently.
		{"echo", `{"message":"<a href=\"x\">&amp; é 😀</a>"}`, `<a href="x">&amp; é 😀</a>`},
		{"add", `{"a":1.0,"b":2}`, "3"},
		{"add", `{"b":0.2, "a":0.1}`, "0.30000000000000004"},
		{"add", `{"a":1e3,"b":-0.5}`, "999.5"},
	}
	for _, form := range []string{signing.FormJCS, signing.FormPython} {
		w := serve(t, Options{Key: testKey, Form: form, KID: "k1"})
		for _, tt := range tests {
			params, nonce := signedParams(t, testKey, form, tt.tool, tt.arguments, time.Now())
			r := w.call("tools/call", params)
			if r.Error != nil {
				t.Fatalf("%s %s %s: error %d %s", form, tt.tool, tt.arguments, r.Error.Code, r.Error.Message)
			}
			if err := signing.VerifyResult(testKey, form, tt.tool, r.Result, nonce, time.Now(), 0); err != nil {
				t.Errorf("%s %s %s: %v\nresult: %s", form, tt.tool, tt.arguments, err, r.Result)
			}
			if got := content(t, r.Result); got != tt.want {
				t.Errorf("%s %s %s: content %q, want %q", form, tt.tool, tt.arguments, got, tt.want)
			}
			_, sig, err := signing.StripSignature(r.Result)
			if err != nil || sig == nil || sig.KID != "k1" || sig.Nonce != nonce {
				t.Errorf("%s: signature %+v (%v), want kid k1 and nonce %s", form, sig, err, nonce)
			}
		}
	}
}

func TestMisbehavingModes(t *testing.T) {
	tests := []struct {
		mode string
		want error
	}{
		{ModeWrongSignature, signing.ErrValueMismatch},
		{ModeStale, signing.ErrTimestampTooOld},
		{ModeReplay, signing.ErrNonceMismatch},
		{ModeUnsigned, signing.ErrMissingSignature},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			w := serve(t, Options{Key: testKey, Mode: tt.mode})
			var nonces []string
			for i := range 3 {
				params, nonce := signedParams(t, testKey, "", "echo", `{"message":"hi"}`, time.Now())
				nonces = append(nonces, nonce)
				r := w.call("tools/call", params)
				if r.Error != nil {
					t.Fatalf("call %d: error %s", i, r.Error.Message)
				}
				err := signing.VerifyResult(testKey, "", "echo", r.Result, nonce, time.Now(), 0)
				var verr *signing.VerifyError
				if !errors.As(err, &verr) || !errors.Is(err, tt.want) {
					t.Fatalf("call %d: VerifyResult = %v, want %v", i, err, tt.want)
				}
				if tt.mode == ModeReplay && i > 0 {
					// The answer is the previous call's, signed for its nonce.
					if _, sig, _ := signing.StripSignature(r.Result); sig == nil || sig.Nonce != nonces[i-1] {
						t.Errorf("call %d: replayed nonce %+v, want the previous request's %s", i, sig, nonces[i-1])
					}
				}
			}
		})
	}
}

func TestRequestsRefused(t *testing.T) {
	now := time.Now()
	good, _ := signedParams(t, testKey, "", "echo", `{"message":"hi"}`, now)
	otherKey, _ := signedParams(t, []byte("another key"), "", "echo", `{"message":"hi"}`, now)
	stale, _ := signedParams(t, testKey, "", "echo", `{"message":"hi"}`, now.Add(-StaleBy))
	python, _ := signedParams(t, testKey, signing.FormPython, "add", `{"a":1.0,"b":2}`, now)
	tampered := strings.Replace(good, `"hi"`, `"ho"`, 1)
	tests := []struct {
		name, params string
		want         string
	}{
		{"missing", `{"name":"echo","arguments":{"message":"hi"}}`, "missing signature"},
		{"not an object", `{"name":"echo","arguments":{"message":"hi"},"_meta":{"signature":"abc"}}`, "malformed signature"},
		{"other key", otherKey, "signature value does not match"},
		{"tampered arguments", tampered, "signature value does not match"},
		{"other canonical form", python, "signature value does not match"},
		{"stale", stale, "timestamp too old"},
	}
	w := serve(t, Options{Key: testKey})
	for _, tt := range tests {
		r := w.call("tools/call", tt.params)
		if r.Error == nil {
			t.Errorf("%s: answered %s, want an error", tt.name, r.Result)
			continue
		}
		var data struct{ Reason string }
		_ = json.Unmarshal(r.Error.Data, &data)
		if r.Error.Code != CodeSignatureRejected || !strings.Contains(r.Error.Message, tt.want) || !strings.HasPrefix(data.Reason, tt.want) {
			t.Errorf("%s: error %d %q data %s, want code %d naming %q", tt.name, r.Error.Code, r.Error.Message, r.Error.Data, CodeSignatureRejected, tt.want)
		}
		if strings.Contains(r.Error.Message, string(testKey)) {
			t.Errorf("%s: the error message contains the key", tt.name)
		}
	}
}

func TestReplayedRequestRefused(t *testing.T) {
	w := serve(t, Options{Key: testKey})
	params, _ := signedParams(t, testKey, "", "echo", `{"message":"once"}`, time.Now())
	if r := w.call("tools/call", params); r.Error != nil {
		t.Fatalf("first call: %s", r.Error.Message)
	}
	r := w.call("tools/call", params)
	if r.Error == nil || r.Error.Code != CodeSignatureRejected || !strings.Contains(r.Error.Message, "nonce already used") {
		t.Fatalf("second call with the same nonce: %+v %s, want error %d nonce already used", r.Error, r.Result, CodeSignatureRejected)
	}
}

func TestOtherMethodsNeedNoSignature(t *testing.T) {
	w := serve(t, Options{Key: testKey})
	r := w.call("tools/list", `{}`)
	if r.Error != nil || !strings.Contains(string(r.Result), `"echo"`) || !strings.Contains(string(r.Result), `"add"`) {
		t.Fatalf("tools/list: %+v %s", r.Error, r.Result)
	}
}

func TestNoKeyRefusesCalls(t *testing.T) {
	w := serve(t, Options{})
	r := w.call("tools/call", `{"name":"echo","arguments":{"message":"hi"}}`)
	if r.Error == nil || !strings.Contains(r.Error.Message, "no signing key") {
		t.Fatalf("call without a server key: %+v %s", r.Error, r.Result)
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	for _, opts := range []Options{{Key: testKey, Mode: "sloppy"}, {Key: testKey, Form: "xml"}} {
		if _, err := New(opts); err == nil {
			t.Errorf("New(%+v) succeeded, want an error", opts)
		}
	}
}

// TestWholeSecondUnixTimestamp checks a request signed with a numeric
// timestamp at an exact second, spelled 1750239000.0 as Python's repr
// spells it: the SDK's decoding loses the ".0", and the server still
// verifies it, while a wrong signature of the same form is still refused.
func TestWholeSecondUnixTimestamp(t *testing.T) {
	now := time.Now().Truncate(time.Second)
	for _, form := range []string{signing.FormJCS, signing.FormPython} {
		w := serve(t, Options{Key: testKey, Form: form, Now: func() time.Time { return now }})
		sig, err := signing.SignRequestAs(testKey, form, "", signing.TimestampUnix, "echo", json.RawMessage(`{"message":"hi"}`), now)
		if err != nil {
			t.Fatal(err)
		}
		sigJSON, _ := json.Marshal(sig)
		if !strings.Contains(string(sigJSON), ".0,") && !strings.Contains(string(sigJSON), ".0}") {
			t.Fatalf("signature %s: want a timestamp spelled with .0", sigJSON)
		}
		r := w.call("tools/call", fmt.Sprintf(`{"name":"echo","arguments":{"message":"hi"},"_meta":{"signature":%s}}`, sigJSON))
		if r.Error != nil {
			t.Errorf("%s: refused: %d %s", form, r.Error.Code, r.Error.Message)
		}
		sig.Value = strings.Repeat("0", len(sig.Value))
		sig.Nonce = strings.Repeat("1", len(sig.Nonce))
		sigJSON, _ = json.Marshal(sig)
		if r := w.call("tools/call", fmt.Sprintf(`{"name":"echo","arguments":{"message":"hi"},"_meta":{"signature":%s}}`, sigJSON)); r.Error == nil {
			t.Errorf("%s: a wrong signature was accepted", form)
		}
	}
}
