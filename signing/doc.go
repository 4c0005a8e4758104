// Package signing implements mcpctl's convention for HMAC-signed tool calls:
// canonical JSON, HMAC-SHA256 signatures with a nonce and a timestamp,
// replay protection, key loading, and HS256 JWT minting for test servers.
//
// # The convention
//
// A signed tools/call request carries its signature in
// params._meta.signature and a signed result carries one in
// result._meta.signature, both shaped like [Signature]:
//
//	{"alg":"HMAC-SHA256","kid":"k1","nonce":"<32 hex>","timestamp":"2025-06-18T09:30:00Z","value":"<64 hex>"}
//
// The value is the lower-case hex HMAC-SHA256, under a shared key, of the
// canonical form of a small object built from the call:
//
//	request: {"tool":NAME,"params":ARGUMENTS,"nonce":NONCE,"timestamp":TS}
//	result:  {"tool":NAME,"result":R,"nonce":NONCE,"timestamp":TS}
//
// ARGUMENTS is params.arguments exactly as sent ({} when absent); R is the
// whole result with _meta.signature removed, and _meta removed if that
// leaves it empty. The server echoes the request's nonce in its result
// signature, so a client can tell a fresh answer from a replayed one.
//
// Two canonical forms exist: RFC 8785 JCS ([FormJCS], the default) and the
// bytes Python prints with json.dumps(obj, sort_keys=True) ([FormPython]),
// which lets a Python server sign with nothing but its standard library.
// Both sides must agree on the form; it is not carried on the wire.
//
// Timestamps are RFC 3339 strings in UTC with second precision, such as
// "2025-06-18T09:30:00Z", or, in the design mcpctl learned from, numbers of
// Unix seconds: a Python signer's timestamp = time.time(), a float such as
// 1750239000.1234567 ([TimestampUnix], see [SignRequestAs]). A numeric
// timestamp is signed as the number it is on the wire, so the canonical form
// decides its spelling (the Python form prints the float's repr). Verifiers
// accept either within the allowed skew ([DefaultMaxSkew] unless told
// otherwise) of their own clock.
//
// # Example
//
// A client signs its arguments, sends the signature in params._meta, and
// checks the result against the nonce it sent:
//
//	args := json.RawMessage(`{"city":"Lyon"}`)
//	sig, err := signing.SignRequest(key, signing.FormJCS, "", "weather", args, time.Now())
//	// ... send {"name":"weather","arguments":args,"_meta":{"signature":sig}},
//	// receive result ...
//	err = signing.VerifyResult(key, signing.FormJCS, "weather", result, sig.Nonce, time.Now(), 0)
//	var verr *signing.VerifyError
//	if errors.As(err, &verr) && errors.Is(err, signing.ErrNonceMismatch) {
//		// a replayed or misdirected answer
//	}
//
// docs/signing.md in the repository describes the same convention for
// server authors in any language.
package signing
