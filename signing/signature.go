package signing

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpctl/mcpctl/internal/jsonscan"
)

// AlgHMACSHA256 is the only signature algorithm of the convention.
const AlgHMACSHA256 = "HMAC-SHA256"

// DefaultMaxSkew is how far a signature's timestamp may be from the
// verifier's clock, either way, when no other skew is given.
const DefaultMaxSkew = 5 * time.Minute

// timestampLayout is the layout signers write: RFC 3339, UTC, whole seconds.
const timestampLayout = "2006-01-02T15:04:05Z"

// Signature is the object carried in params._meta.signature of a request and
// in result._meta.signature of a result.
type Signature struct {
	// Alg is always [AlgHMACSHA256].
	Alg string `json:"alg"`
	// KID optionally names the key, so a server holding several can pick one.
	// It is not covered by the HMAC.
	KID string `json:"kid,omitempty"`
	// Nonce is 128 random bits in hex, chosen by the client; a result echoes
	// the nonce of the request it answers.
	Nonce string `json:"nonce"`
	// Timestamp is when the signature was made, as it travels. By default it
	// is an RFC 3339 string in UTC with whole seconds, such as
	// "2025-06-18T09:30:00Z" (verifiers accept any RFC 3339 time). When
	// NumericTimestamp is set it is instead the text of a JSON number of Unix
	// seconds exactly as it arrived or is sent, such as "1750239000.1234567"
	// (the design's Python signers write time.time()); the canonical payload
	// then holds that number, so the canonical form decides its spelling.
	Timestamp string `json:"timestamp"`
	// NumericTimestamp says Timestamp is a JSON number, not a string. It is
	// not a member on the wire: the JSON type of "timestamp" carries it.
	NumericTimestamp bool `json:"-"`
	// Value is the lower-case hex HMAC-SHA256 of the canonical payload.
	Value string `json:"value"`
}

// Reasons a verification fails, wrapped in a [*VerifyError]; test with errors.Is.
var (
	// ErrMissingSignature means a verify key was given but there is no _meta.signature.
	ErrMissingSignature = errors.New("missing signature")
	// ErrMalformedSignature means the signature object, its timestamp or the
	// signed data cannot be read.
	ErrMalformedSignature = errors.New("malformed signature")
	// ErrUnsupportedAlg means alg is not HMAC-SHA256.
	ErrUnsupportedAlg = errors.New("unsupported signature algorithm")
	// ErrValueMismatch means the value is not the HMAC of the canonical payload
	// under the key; the data was altered, or the key or canonical form differ.
	ErrValueMismatch = errors.New("signature value does not match")
	// ErrNonceMismatch means a result's nonce is not the one the request sent, so
	// the result is replayed or answers another request.
	ErrNonceMismatch = errors.New("nonce does not match the request (replayed or misdirected result)")
	// ErrNonceReplayed means a request reuses a nonce the server has already seen.
	ErrNonceReplayed = errors.New("nonce already used (replayed request)")
	// ErrTimestampTooOld means the timestamp is further in the past than the allowed skew.
	ErrTimestampTooOld = errors.New("timestamp too old")
	// ErrTimestampInFuture means the timestamp is further in the future than the allowed skew.
	ErrTimestampInFuture = errors.New("timestamp in the future")
	// ErrAmbiguousPayload means the signed data is not I-JSON (a duplicate
	// key, an integer beyond ±(2^53-1)): readers may take it for another
	// value than the one signed, so no signature on it is accepted.
	ErrAmbiguousPayload = errors.New("ambiguous payload")
)

// VerifyError reports a failed verification: Reason is one of the Err*
// values of this package and Detail says what was expected and what was
// found. Neither ever contains the key or an expected signature value.
type VerifyError struct {
	Reason error
	Detail string
}

// Error names the reason and, when known, what was expected and found.
func (e *VerifyError) Error() string {
	if e.Detail == "" {
		return "signature verification failed: " + e.Reason.Error()
	}
	return "signature verification failed: " + e.Reason.Error() + ": " + e.Detail
}

// Unwrap returns the reason, so errors.Is(err, ErrNonceMismatch) works.
func (e *VerifyError) Unwrap() error { return e.Reason }

func verifyErrorf(reason error, format string, args ...any) *VerifyError {
	return &VerifyError{Reason: reason, Detail: fmt.Sprintf(format, args...)}
}

// RequestPayload returns the canonical bytes a request signature covers:
// canon({"tool":tool,"params":arguments,"nonce":nonce,"timestamp":timestamp}).
// Empty arguments stand for {}.
// For a numeric timestamp use [Signature.RequestPayload].
func RequestPayload(form, tool string, arguments json.RawMessage, nonce, timestamp string) ([]byte, error) {
	return Signature{Nonce: nonce, Timestamp: timestamp}.RequestPayload(form, tool, arguments)
}

// ResultPayload returns the canonical bytes a result signature covers:
// canon({"tool":tool,"result":R,"nonce":nonce,"timestamp":timestamp}), where
// R is result as [StripSignature] leaves it.
// For a numeric timestamp use [Signature.ResultPayload].
func ResultPayload(form, tool string, result json.RawMessage, nonce, timestamp string) ([]byte, error) {
	return Signature{Nonce: nonce, Timestamp: timestamp}.ResultPayload(form, tool, result)
}

// payload builds the signed object; timestamp is its JSON value, a string
// or a number as it travels.
func payload(form, tool, field string, value json.RawMessage, nonce string, timestamp json.RawMessage) ([]byte, error) {
	if !json.Valid(value) {
		return nil, fmt.Errorf("%s is not a single valid JSON value", field)
	}
	// Readers of the request see its arguments at params.arguments.
	base := "/" + field
	if field == "params" {
		base = "/arguments"
	}
	if err := CheckIJSON(value, base); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(`{"tool":`)
	b.Write(jsonString(tool))
	b.WriteString(`,"` + field + `":`)
	b.Write(value)
	b.WriteString(`,"nonce":`)
	b.Write(jsonString(nonce))
	b.WriteString(`,"timestamp":`)
	b.Write(timestamp)
	b.WriteByte('}')
	return Canonical(form, b.Bytes())
}

func jsonString(s string) []byte {
	b, _ := json.Marshal(s) // a string always marshals
	return b
}

// SignRequest signs a tools/call request: it picks a fresh nonce and returns
// the signature to send in params._meta.signature. Keep its Nonce to check
// the result with [VerifyResult]. arguments must be the bytes sent as
// params.arguments.
// The timestamp is RFC 3339; [SignRequestAs] chooses.
func SignRequest(key []byte, form, kid, tool string, arguments json.RawMessage, now time.Time) (Signature, error) {
	return SignRequestAs(key, form, kid, TimestampRFC3339, tool, arguments, now)
}

// SignResult signs a tools/call result for the request that carried nonce,
// returning the signature to place in result._meta.signature (see
// [AttachSignature]). Any signature already in result is ignored.
// The timestamp is RFC 3339; [SignResultAs] chooses.
func SignResult(key []byte, form, kid, tool string, result json.RawMessage, nonce string, now time.Time) (Signature, error) {
	return SignResultAs(key, form, kid, TimestampRFC3339, tool, result, nonce, now)
}

func sign(key []byte, kid, nonce, style string, now time.Time, payload func(Signature) ([]byte, error)) (Signature, error) {
	if len(key) == 0 {
		return Signature{}, errors.New("signing: the key is empty")
	}
	ts, numeric, err := newTimestamp(style, now)
	if err != nil {
		return Signature{}, fmt.Errorf("signing: %w", err)
	}
	sig := Signature{Alg: AlgHMACSHA256, KID: kid, Nonce: nonce, Timestamp: ts, NumericTimestamp: numeric}
	canon, err := payload(sig)
	if err != nil {
		return Signature{}, fmt.Errorf("signing: %w", err)
	}
	sig.Value = Sign(key, canon)
	return sig, nil
}

// VerifyRequest checks a request's signature, as a server does: sig is what
// params._meta.signature held (nil if nothing), arguments the bytes of
// params.arguments. The timestamp must be within maxSkew of now (0 means
// [DefaultMaxSkew]). If seen is not nil the nonce must be new to it, and is
// remembered until the timestamp leaves the skew window. Failures are
// [*VerifyError] values, except [ErrNonceCacheFull] and an unknown form.
func VerifyRequest(key []byte, form, tool string, arguments json.RawMessage, sig *Signature, now time.Time, maxSkew time.Duration, seen *NonceCache) error {
	if err := checkForm(form); err != nil {
		return err
	}
	if sig == nil {
		return verifyErrorf(ErrMissingSignature, "request params have no _meta.signature")
	}
	signedAt, err := checkSignature(key, form, "request", sig, func() ([]byte, error) {
		return sig.RequestPayload(form, tool, arguments)
	})
	if err != nil {
		return err
	}
	if err := checkSkew("request", signedAt, now, maxSkew); err != nil {
		return err
	}
	if seen != nil {
		if err := seen.Use(sig.Nonce, signedAt.Add(skewOrDefault(maxSkew)), now); err != nil {
			if errors.Is(err, ErrNonceReplayed) {
				return verifyErrorf(ErrNonceReplayed, "request nonce %s was already used within the last %s", sig.Nonce, skewOrDefault(maxSkew))
			}
			return err
		}
	}
	return nil
}

// VerifyResult checks a tools/call result as a client does: result is the
// whole result object, sentNonce the nonce of the request's signature. The
// result's signature must be present, match the result under key, echo
// sentNonce, and carry a timestamp within maxSkew of now (0 means
// [DefaultMaxSkew]). Failures are [*VerifyError] values naming the first
// problem. The value is checked before the nonce and the timestamp, so those
// two are only judged once they are known to be authentic.
func VerifyResult(key []byte, form, tool string, result json.RawMessage, sentNonce string, now time.Time, maxSkew time.Duration) error {
	if err := checkForm(form); err != nil {
		return err
	}
	stripped, sig, err := StripSignature(result)
	if err != nil {
		return &VerifyError{Reason: ErrMalformedSignature, Detail: "reading the result: " + err.Error()}
	}
	if sig == nil {
		return verifyErrorf(ErrMissingSignature, "result has no _meta.signature (is the server configured to sign?)")
	}
	signedAt, err := checkSignature(key, form, "result", sig, func() ([]byte, error) {
		ts, err := sig.timestampJSON()
		if err != nil {
			return nil, err
		}
		return payload(form, tool, "result", stripped, sig.Nonce, ts)
	})
	if err != nil {
		return err
	}
	if !Equal(sig.Nonce, sentNonce) {
		return verifyErrorf(ErrNonceMismatch, "request sent nonce %s, result signature carries %s", sentNonce, sig.Nonce)
	}
	return checkSkew("result", signedAt, now, maxSkew)
}

// checkSignature checks alg, shape and value, returning the signed time.
func checkSignature(key []byte, form, what string, sig *Signature, payload func() ([]byte, error)) (time.Time, error) {
	if len(key) == 0 {
		return time.Time{}, errors.New("verifying: the key is empty")
	}
	if sig.Alg != AlgHMACSHA256 {
		return time.Time{}, verifyErrorf(ErrUnsupportedAlg, "%s signature has alg %q, expected %q", what, sig.Alg, AlgHMACSHA256)
	}
	if sig.Nonce == "" {
		return time.Time{}, verifyErrorf(ErrMalformedSignature, "%s signature has no nonce", what)
	}
	signedAt, err := sig.Time()
	if err != nil {
		return time.Time{}, verifyErrorf(ErrMalformedSignature, "%s signature %v", what, err)
	}
	canon, err := payload()
	if ije := (*IJSONError)(nil); errors.As(err, &ije) {
		return time.Time{}, &VerifyError{Reason: ErrAmbiguousPayload, Detail: ije.Error()}
	}
	if err != nil {
		return time.Time{}, verifyErrorf(ErrMalformedSignature, "the signed %s cannot be put in %s canonical form: %v", what, formName(form), err)
	}
	if !Equal(strings.ToLower(sig.Value), Sign(key, canon)) {
		sum := sha256.Sum256(canon)
		return time.Time{}, verifyErrorf(ErrValueMismatch,
			"%s signature value %s is not the HMAC-SHA256 of the %s canonical payload (%d bytes, sha256 %s) under the verify key; check the key, the canonical form (jcs or python) and the tool name",
			what, clip(sig.Value, 16), formName(form), len(canon), hex.EncodeToString(sum[:8]))
	}
	return signedAt, nil
}

func checkSkew(what string, signedAt, now time.Time, maxSkew time.Duration) error {
	maxSkew = skewOrDefault(maxSkew)
	switch d := now.Sub(signedAt); {
	case d > maxSkew:
		return verifyErrorf(ErrTimestampTooOld, "%s signed at %s, %s before this clock's %s; allowed skew is %s",
			what, signedAt.UTC().Format(time.RFC3339), d.Round(time.Second), now.UTC().Format(time.RFC3339), maxSkew)
	case -d > maxSkew:
		return verifyErrorf(ErrTimestampInFuture, "%s signed at %s, %s after this clock's %s; allowed skew is %s",
			what, signedAt.UTC().Format(time.RFC3339), (-d).Round(time.Second), now.UTC().Format(time.RFC3339), maxSkew)
	}
	return nil
}

// checkForm rejects an unknown canonical form before verification starts: it
// is a usage error, not a bad signature.
func checkForm(form string) error {
	_, err := Canonical(form, []byte("0"))
	return err
}

func skewOrDefault(d time.Duration) time.Duration {
	if d <= 0 {
		return DefaultMaxSkew
	}
	return d
}

func formName(form string) string {
	if form == "" {
		return FormJCS
	}
	return form
}

// clip shortens text copied from the wire into an error message.
func clip(s string, n int) string {
	if len(s) <= n {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q…", s[:n])
}

// StripSignature splits a signed object, a tools/call result or request
// params, into the object a signature covers and the signature it carried:
// _meta.signature is removed, and _meta too if that leaves it empty (an
// empty _meta is always removed, so signer and verifier agree). Other
// members keep their order and bytes. sig is nil when there is no
// _meta.signature; the object is then returned unchanged except for an empty
// _meta. A repeated _meta or signature member is an error, since signer and
// verifier might pick different ones.
func StripSignature(obj json.RawMessage) (stripped json.RawMessage, sig *Signature, err error) {
	members, err := objectMembers(obj)
	if err != nil {
		return nil, nil, err
	}
	metaAt, err := findMember(members, "_meta")
	if err != nil || metaAt < 0 {
		return obj, nil, err
	}
	meta := members[metaAt].value
	if !bytes.HasPrefix(bytes.TrimSpace(meta), []byte("{")) {
		return obj, nil, nil // not an object, so no signature inside
	}
	metaMembers, err := objectMembers(meta)
	if err != nil {
		return nil, nil, fmt.Errorf("_meta: %w", err)
	}
	sigAt, err := findMember(metaMembers, "signature")
	if err != nil {
		return nil, nil, fmt.Errorf("_meta: %w", err)
	}
	if sigAt >= 0 {
		sig = &Signature{}
		// The value is valid JSON (objectMembers read it): it is read
		// without validating it again.
		if err := sig.UnmarshalJSON(metaMembers[sigAt].value); err != nil {
			return nil, nil, fmt.Errorf("_meta.signature is not a signature object: %w", err)
		}
		metaMembers = append(metaMembers[:sigAt:sigAt], metaMembers[sigAt+1:]...)
	}
	switch {
	case len(metaMembers) == 0:
		members = append(members[:metaAt:metaAt], members[metaAt+1:]...)
	case sigAt >= 0:
		members[metaAt].value = writeObject(metaMembers)
	default:
		return obj, nil, nil
	}
	return writeObject(members), sig, nil
}

// AttachSignature returns obj, a result or request params, with
// _meta.signature set to sig, replacing any signature already there and
// keeping every other member.
func AttachSignature(obj json.RawMessage, sig Signature) (json.RawMessage, error) {
	members, err := objectMembers(obj)
	if err != nil {
		return nil, err
	}
	sigJSON, err := json.Marshal(sig)
	if err != nil {
		return nil, err
	}
	sigMember := member{rawName: []byte(`"signature"`), name: "signature", value: sigJSON}
	metaAt, err := findMember(members, "_meta")
	if err != nil {
		return nil, err
	}
	if metaAt < 0 {
		meta := writeObject([]member{sigMember})
		return writeObject(append(members, member{rawName: []byte(`"_meta"`), name: "_meta", value: meta})), nil
	}
	metaMembers, err := objectMembers(members[metaAt].value)
	if err != nil {
		return nil, fmt.Errorf("_meta: %w", err)
	}
	sigAt, err := findMember(metaMembers, "signature")
	if err != nil {
		return nil, fmt.Errorf("_meta: %w", err)
	}
	if sigAt >= 0 {
		metaMembers[sigAt].value = sigJSON
	} else {
		metaMembers = append(metaMembers, sigMember)
	}
	members[metaAt].value = writeObject(metaMembers)
	return writeObject(members), nil
}

// member is one member of a JSON object, its name kept as written so that
// rewriting an object never alters a name.
type member struct {
	rawName []byte
	name    string
	value   json.RawMessage
}

// objectMembers splits a JSON object into its members, in order. The
// members' bytes are obj's own, not copies: the callers build new objects
// from them and change none. Valid JSON, as results and params are, is
// split by [scanMembers] without decoding; anything else by
// [decodeMembers], which says what is wrong with it.
func objectMembers(obj json.RawMessage) ([]member, error) {
	if json.Valid(obj) {
		if members, ok := scanMembers(obj); ok {
			return members, nil
		}
	}
	return decodeMembers(obj)
}

// scanMembers is [decodeMembers] for a valid JSON text, found by byte
// scanning: ok is false when obj is not an object. A name that holds an
// escape or a byte beyond ASCII is decoded, as the decoder would read it.
func scanMembers(obj []byte) (members []member, ok bool) {
	ok = true
	err := jsonscan.Members(obj, func(m jsonscan.Member) bool {
		name, named := m.Key()
		ok = named
		members = append(members, member{rawName: m.Name, name: name, value: m.Value})
		return ok
	})
	if err != nil || !ok {
		return nil, false
	}
	return members, true
}

// decodeMembers splits a JSON object into its members, in order, with the
// decoder: it says what is wrong with a text that is not an object.
func decodeMembers(obj json.RawMessage) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var members []member
	for dec.More() {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("invalid JSON object: %w", err)
		}
		name, _ := tok.(string)
		rawName := bytes.TrimLeft(obj[start:dec.InputOffset()], " \t\r\n,")
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, fmt.Errorf("invalid JSON object: %w", err)
		}
		members = append(members, member{rawName: rawName, name: name, value: value})
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("invalid JSON object: %w", err)
	}
	if len(bytes.TrimSpace(obj[dec.InputOffset():])) > 0 {
		return nil, errors.New("invalid JSON: data after the object")
	}
	return members, nil
}

// findMember returns the index of the member called name, or -1.
func findMember(members []member, name string) (int, error) {
	at := -1
	for i, m := range members {
		if m.name == name {
			if at >= 0 {
				return -1, fmt.Errorf("member %q appears more than once", name)
			}
			at = i
		}
	}
	return at, nil
}

func writeObject(members []member) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(m.rawName)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes()
}
