// Package signserver is a reference MCP server for mcpctl's signed tool
// calls (docs/signing.md), built with the official Go SDK. It verifies the
// HMAC signature of every tools/call request and signs every result, and it
// can misbehave on purpose so that tests can check how a client reacts.
//
// The signing is done by a receiving middleware ([Middleware]) that wraps
// any SDK server; [New] returns a server with two tools, echo and add,
// already wrapped:
//
//	s, err := signserver.New(signserver.Options{Key: key, Form: signing.FormPython})
//	if err != nil { ... }
//	err = s.Run(ctx, &mcp.StdioTransport{})
//
// A request without a valid signature, or whose nonce was already used, is
// refused with JSON-RPC error [CodeSignatureRejected] and a message naming
// the reason in the terms of [signing.VerifyError] ("nonce already used",
// "signature value does not match", …), never the expected value.
//
// A result is signed over the exact bytes the SDK sends: the middleware
// marshals the result as the SDK does (encoding/json without HTML escaping),
// signs those bytes, attaches the signature and hands the SDK the finished
// JSON, so nothing is re-encoded after signing. The sessionless protocol
// revision (2026-07-28), where the SDK adds _meta.serverInfo to results after
// the middleware has run, is not supported.
package signserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/signing"
)

// Modes of the server: how it signs its results. Every mode verifies
// requests the same way.
const (
	// ModeGood signs every result correctly.
	ModeGood = "good"
	// ModeWrongSignature signs correctly, then corrupts the value.
	ModeWrongSignature = "wrong-signature"
	// ModeStale signs with a timestamp ten minutes ([StaleBy]) in the past.
	ModeStale = "stale"
	// ModeReplay answers each call with the correctly signed answer to the
	// previous call of the same tool, which carries that call's nonce. The
	// first call of a tool gets an answer signed for a nonce the client
	// never sent, as if recorded from an earlier session.
	ModeReplay = "replay"
	// ModeUnsigned sends results without a signature.
	ModeUnsigned = "unsigned"
)

// Modes returns the mode names, [ModeGood] first.
func Modes() []string {
	return []string{ModeGood, ModeWrongSignature, ModeStale, ModeReplay, ModeUnsigned}
}

// CodeSignatureRejected is the JSON-RPC error code of a tools/call whose
// request signature is missing, wrong, stale or replayed.
const CodeSignatureRejected = -32001

// StaleBy is how far in the past [ModeStale] dates its signatures: twice
// mcpctl's default skew.
const StaleBy = 10 * time.Minute

// Options configure the server.
type Options struct {
	// Key is the shared HMAC key. Without one, every tools/call is refused
	// with an error saying so, so a test that forgot to set the key fails at
	// the call rather than passing unsigned.
	Key []byte
	// Form is the canonical form, [signing.FormJCS] (the default when empty)
	// or [signing.FormPython].
	Form string
	// KID, when set, is written in result signatures.
	KID string
	// Mode is one of [Modes]; empty means [ModeGood].
	Mode string
	// MaxSkew is how far a request timestamp may be from the server's clock
	// (0 means [signing.DefaultMaxSkew]).
	MaxSkew time.Duration
	// Now is the server's clock; nil means time.Now.
	Now func() time.Time
}

// New returns an SDK server with the tools echo and add, wrapped by
// [Middleware].
func New(opts Options) (*mcp.Server, error) {
	mw, err := Middleware(opts)
	if err != nil {
		return nil, err
	}
	mode := opts.Mode
	if mode == "" {
		mode = ModeGood
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "signserver-" + mode, Version: "1.0.0"}, nil)
	addTools(s)
	s.AddReceivingMiddleware(mw)
	return s, nil
}

// Middleware returns the receiving middleware that verifies tools/call
// requests and signs their results. Add it last, so that it sees the request
// before any other middleware and the result after all of them. Each call
// of Middleware has its own nonce cache.
func Middleware(opts Options) (mcp.Middleware, error) {
	if opts.Mode == "" {
		opts.Mode = ModeGood
	}
	known := false
	for _, m := range Modes() {
		known = known || m == opts.Mode
	}
	if !known {
		return nil, fmt.Errorf("signserver: unknown mode %q (modes: %s)", opts.Mode, strings.Join(Modes(), ", "))
	}
	if _, err := signing.Canonical(opts.Form, []byte("0")); err != nil {
		return nil, fmt.Errorf("signserver: %w", err)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &signer{opts: opts, nonces: signing.NewNonceCache(0), previous: map[string]json.RawMessage{}}
	return s.middleware, nil
}

// signer holds the state of one middleware.
type signer struct {
	opts   Options
	nonces *signing.NonceCache

	mu       sync.Mutex
	previous map[string]json.RawMessage // by tool, for ModeReplay
}

func (s *signer) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		params, ok := req.GetParams().(*mcp.CallToolParamsRaw)
		if !ok || params == nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("signserver: unexpected tools/call params %T", req.GetParams())}
		}
		nonce, err := s.verifyRequest(params)
		if err != nil {
			return nil, err
		}
		res, err := next(ctx, method, req)
		if err != nil || res == nil {
			return res, err
		}
		return s.signResult(params.Name, res, nonce)
	}
}

// verifyRequest checks the request's signature and returns its nonce, or a
// JSON-RPC error to answer with.
func (s *signer) verifyRequest(params *mcp.CallToolParamsRaw) (string, error) {
	if len(s.opts.Key) == 0 {
		return "", &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "signserver: no signing key configured"}
	}
	sig, err := signatureOf(params.Meta)
	if err == nil {
		err = signing.VerifyRequest(s.opts.Key, s.opts.Form, params.Name, params.Arguments, sig, s.opts.Now(), s.opts.MaxSkew, s.nonces)
		if errors.Is(err, signing.ErrValueMismatch) && sig.NumericTimestamp && !strings.ContainsAny(sig.Timestamp, ".eE") {
			// The SDK hands _meta over decoded, and a float64 of whole
			// seconds re-encodes without its fraction: a signer's
			// 1750239000.0 arrives here as 1750239000. Try the spelling
			// it may have had; a wrong signature still fails.
			whole := *sig
			whole.Timestamp += ".0"
			err = signing.VerifyRequest(s.opts.Key, s.opts.Form, params.Name, params.Arguments, &whole, s.opts.Now(), s.opts.MaxSkew, s.nonces)
		}
	}
	if err == nil {
		return sig.Nonce, nil
	}
	rpcErr := &jsonrpc.Error{Code: CodeSignatureRejected, Message: "request " + err.Error()}
	var verr *signing.VerifyError
	if errors.As(err, &verr) {
		rpcErr.Data, _ = json.Marshal(map[string]string{"reason": verr.Reason.Error()})
	}
	return "", rpcErr
}

// signatureOf reads params._meta.signature: nil if absent, a
// [*signing.VerifyError] if it is not a signature object.
func signatureOf(meta mcp.Meta) (*signing.Signature, error) {
	v, ok := meta["signature"]
	if !ok {
		return nil, nil
	}
	b, err := json.Marshal(v)
	sig := &signing.Signature{}
	if err == nil {
		err = json.Unmarshal(b, sig)
	}
	if err != nil {
		return nil, &signing.VerifyError{Reason: signing.ErrMalformedSignature, Detail: "request _meta.signature is not an object of strings"}
	}
	return sig, nil
}

// signResult returns res signed as the mode says, ready for the SDK to send.
func (s *signer) signResult(tool string, res mcp.Result, nonce string) (mcp.Result, error) {
	if s.opts.Mode == ModeUnsigned {
		return res, nil
	}
	raw, err := marshal(res)
	if err != nil {
		return nil, fmt.Errorf("signserver: encoding the result: %w", err)
	}
	now := s.opts.Now()
	if s.opts.Mode == ModeStale {
		now = now.Add(-StaleBy)
	}
	signed, err := s.sign(tool, raw, nonce, now)
	if err != nil {
		return nil, err
	}
	if s.opts.Mode == ModeReplay {
		s.mu.Lock()
		prev, ok := s.previous[tool]
		s.previous[tool] = signed
		s.mu.Unlock()
		if !ok {
			// No earlier answer to replay: make one, for a nonce this
			// client never sent.
			earlier, err := signing.NewNonce()
			if err != nil {
				return nil, err
			}
			if prev, err = s.sign(tool, raw, earlier, now); err != nil {
				return nil, err
			}
		}
		signed = prev
	}
	return &rawResult{raw: signed}, nil
}

// sign returns raw with _meta.signature attached; in [ModeWrongSignature]
// the value is corrupted.
func (s *signer) sign(tool string, raw json.RawMessage, nonce string, now time.Time) (json.RawMessage, error) {
	sig, err := signing.SignResult(s.opts.Key, s.opts.Form, s.opts.KID, tool, raw, nonce, now)
	if err != nil {
		return nil, fmt.Errorf("signserver: %w", err)
	}
	if s.opts.Mode == ModeWrongSignature {
		sig.Value = corrupt(sig.Value)
	}
	return signing.AttachSignature(raw, sig)
}

// corrupt changes the last hex digit of a signature value.
func corrupt(value string) string {
	if value == "" {
		return "0"
	}
	last := value[len(value)-1]
	repl := byte('0')
	if last == '0' {
		repl = '1'
	}
	return value[:len(value)-1] + string(repl)
}

// marshal encodes v as the SDK's JSON-RPC layer does: encoding/json without
// HTML escaping and without the encoder's trailing newline.
func marshal(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// rawResult is a result already encoded, and signed: the SDK sends its bytes
// as they are.
type rawResult struct {
	mcp.ResultBase
	raw json.RawMessage
}

// MarshalJSON returns the encoded result.
func (r *rawResult) MarshalJSON() ([]byte, error) { return r.raw, nil }
