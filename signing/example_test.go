package signing_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpctl/mcpctl/signing"
)

func ExampleCanonical() {
	in := []byte(`{"b": 1.0, "a": "é", "c": 1e21}`)
	for _, form := range []string{signing.FormJCS, signing.FormPython} {
		out, err := signing.Canonical(form, in)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-6s %s\n", form, out)
	}
	// Output:
	// jcs    {"a":"é","b":1,"c":1e+21}
	// python {"a": "\u00e9", "b": 1.0, "c": 1e+21}
}

func ExampleRequestPayload() {
	canon, err := signing.RequestPayload(signing.FormPython, "get_weather",
		json.RawMessage(`{"city":"Lyon"}`), "0f1e2d3c4b5a69788796a5b4c3d2e1f0", "2025-06-18T09:30:00Z")
	if err != nil {
		panic(err)
	}
	fmt.Println(string(canon))
	fmt.Println(signing.Sign([]byte("secret"), canon)[:16] + "…")
	// Output:
	// {"nonce": "0f1e2d3c4b5a69788796a5b4c3d2e1f0", "params": {"city": "Lyon"}, "timestamp": "2025-06-18T09:30:00Z", "tool": "get_weather"}
	// 707001467033eb5e…
}

// A server signs its result with the request's nonce; the client checks it.
func ExampleVerifyResult() {
	key := []byte("secret")
	now := time.Date(2025, 6, 18, 9, 30, 0, 0, time.UTC)
	result := json.RawMessage(`{"content":[{"type":"text","text":"sunny"}]}`)

	sig, err := signing.SignResult(key, signing.FormJCS, "", "get_weather", result, "nonce-sent-by-client", now)
	if err != nil {
		panic(err)
	}
	signed, err := signing.AttachSignature(result, sig)
	if err != nil {
		panic(err)
	}

	fmt.Println(signing.VerifyResult(key, signing.FormJCS, "get_weather", signed, "nonce-sent-by-client", now.Add(time.Second), 0))
	err = signing.VerifyResult(key, signing.FormJCS, "get_weather", signed, "another-nonce", now, 0)
	fmt.Println(errors.Is(err, signing.ErrNonceMismatch))
	// Output:
	// <nil>
	// true
}

// A result signed the design's way, by Python with
// json.dumps(payload, sort_keys=True) and timestamp = time.time(), verifies
// in the python form: the float timestamp is signed as Python printed it.
func ExampleVerifyResult_python() {
	key := []byte("mcpctl-test-key")
	result := json.RawMessage(`{"content": [{"type": "text", "text": "sunny"}], "isError": false, "_meta": {"signature": {"alg": "HMAC-SHA256", "nonce": "0f1e2d3c4b5a69788796a5b4c3d2e1f0", "timestamp": 1750239001.5, "value": "825a9cea8a019ee44e41bbe067a47d98c03e0642300ac564c5676220e561f7e2"}}}`)
	now := time.Unix(1750239003, 0)

	fmt.Println(signing.VerifyResult(key, signing.FormPython, "get_weather", result, "0f1e2d3c4b5a69788796a5b4c3d2e1f0", now, 0))
	tampered := json.RawMessage(strings.Replace(string(result), "sunny", "rainy", 1))
	err := signing.VerifyResult(key, signing.FormPython, "get_weather", tampered, "0f1e2d3c4b5a69788796a5b4c3d2e1f0", now, 0)
	fmt.Println(errors.Is(err, signing.ErrValueMismatch))
	// Output:
	// <nil>
	// true
}

// Signing the design's way: a numeric timestamp of Unix seconds.
func ExampleSignRequestAs() {
	now := time.Unix(1750239000, 123456000)
	sig, err := signing.SignRequestAs([]byte("secret"), signing.FormPython, "", signing.TimestampUnix,
		"get_weather", json.RawMessage(`{"city":"Lyon"}`), now)
	if err != nil {
		panic(err)
	}
	canon, err := sig.RequestPayload(signing.FormPython, "get_weather", json.RawMessage(`{"city":"Lyon"}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(sig.Timestamp, sig.NumericTimestamp)
	fmt.Println(strings.Replace(string(canon), sig.Nonce, "NONCE", 1))
	// Output:
	// 1750239000.123456 true
	// {"nonce": "NONCE", "params": {"city": "Lyon"}, "timestamp": 1750239000.123456, "tool": "get_weather"}
}
