package signing

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
)

// Timestamp styles a signer writes, as given to [SignRequestAs],
// [SignResultAs] and mcpctl's --sign-timestamp flag.
const (
	// TimestampRFC3339 writes an RFC 3339 string in UTC with whole seconds,
	// such as "2025-06-18T09:30:00Z". It is the default.
	TimestampRFC3339 = "rfc3339"
	// TimestampUnix writes a JSON number of Unix seconds with microseconds,
	// such as 1750239000.123456, spelled as Python's repr(time.time()) would
	// spell it: the design's own form.
	TimestampUnix = "unix"
)

// maxUnixSeconds bounds a numeric timestamp (about the year 5138): beyond it
// a float has no sub-second precision left and time.Time arithmetic
// overflows, and no honest clock is there.
const maxUnixSeconds = 1e11

// sigWire is the wire shape of a [Signature]: the timestamp as raw JSON, a
// string or a number.
type sigWire struct {
	Alg       string          `json:"alg"`
	KID       string          `json:"kid,omitempty"`
	Nonce     string          `json:"nonce"`
	Timestamp json.RawMessage `json:"timestamp"`
	Value     string          `json:"value"`
}

// MarshalJSON writes the signature object, the timestamp as a string, or as
// a number when NumericTimestamp is set.
func (s Signature) MarshalJSON() ([]byte, error) {
	ts, err := s.timestampJSON()
	if err != nil {
		return nil, err
	}
	return json.Marshal(sigWire{Alg: s.Alg, KID: s.KID, Nonce: s.Nonce, Timestamp: ts, Value: s.Value})
}

// UnmarshalJSON reads a signature object whose timestamp is a string or a
// number; a number's text is kept exactly as it arrived, since the HMAC
// covers it in that spelling.
func (s *Signature) UnmarshalJSON(data []byte) error {
	var w sigWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*s = Signature{Alg: w.Alg, KID: w.KID, Nonce: w.Nonce, Value: w.Value}
	ts := bytes.TrimSpace(w.Timestamp)
	switch {
	case len(ts) == 0 || string(ts) == "null":
		// absent: left empty, refused when the signature is checked
	case ts[0] == '"':
		if err := json.Unmarshal(ts, &s.Timestamp); err != nil {
			return fmt.Errorf("timestamp: %w", err)
		}
	case ts[0] == '-' || isDigit(ts[0]):
		s.Timestamp, s.NumericTimestamp = string(ts), true
	default:
		return fmt.Errorf("timestamp is %s, expected an RFC 3339 string or a number of Unix seconds", clip(string(ts), 20))
	}
	return nil
}

// timestampJSON returns the timestamp as the JSON value the payload holds.
func (s Signature) timestampJSON() (json.RawMessage, error) {
	if !s.NumericTimestamp {
		return jsonString(s.Timestamp), nil
	}
	if !isJSONNumber(s.Timestamp) {
		return nil, fmt.Errorf("numeric timestamp %s is not a JSON number", clip(s.Timestamp, 40))
	}
	return json.RawMessage(s.Timestamp), nil
}

// isJSONNumber reports whether text is exactly one JSON number.
func isJSONNumber(text string) bool {
	if text == "" || (text[0] != '-' && !isDigit(text[0])) {
		return false
	}
	p := &pyParser{data: []byte(text)}
	if _, _, _, err := p.scanNumber(); err != nil {
		return false
	}
	return p.pos == len(text)
}

// Time returns when the signature says it was made: the RFC 3339 time, or
// the Unix seconds of a numeric timestamp (to the nearest nanosecond a
// double holds).
func (s Signature) Time() (time.Time, error) {
	if !s.NumericTimestamp {
		t, err := time.Parse(time.RFC3339, s.Timestamp)
		if err != nil {
			return time.Time{}, fmt.Errorf("timestamp %s is not RFC 3339 (expected UTC like \"2025-06-18T09:30:00Z\") nor a number of Unix seconds", clip(s.Timestamp, 40))
		}
		return t, nil
	}
	if !isJSONNumber(s.Timestamp) {
		return time.Time{}, fmt.Errorf("numeric timestamp %s is not a JSON number", clip(s.Timestamp, 40))
	}
	f, err := strconv.ParseFloat(s.Timestamp, 64)
	if err != nil || math.Abs(f) > maxUnixSeconds {
		return time.Time{}, fmt.Errorf("timestamp %s is out of range for Unix seconds", clip(s.Timestamp, 40))
	}
	sec := math.Floor(f)
	nsec := math.Round((f - sec) * 1e9)
	return time.Unix(int64(sec), int64(nsec)).UTC(), nil
}

// newTimestamp returns the timestamp a signer writes for now in style.
func newTimestamp(style string, now time.Time) (text string, numeric bool, err error) {
	switch style {
	case TimestampRFC3339, "":
		return now.UTC().Format(timestampLayout), false, nil
	case TimestampUnix:
		// Microseconds, as time.time() has on most systems; pyFloat spells
		// the double as Python's repr does, so the Python canonical form
		// reproduces the text sent.
		return pyFloat(float64(now.UnixMicro()) / 1e6), true, nil
	default:
		return "", false, fmt.Errorf("unknown timestamp style %q: use %q or %q", style, TimestampRFC3339, TimestampUnix)
	}
}

// CheckTimestampStyle returns an error naming the valid styles unless style
// is [TimestampRFC3339], [TimestampUnix] or empty (RFC 3339).
func CheckTimestampStyle(style string) error {
	_, _, err := newTimestamp(style, time.Unix(0, 0))
	return err
}

// RequestPayload returns the canonical bytes s covers as a request
// signature: canon({"tool":tool,"params":arguments,"nonce":s.Nonce,
// "timestamp":TS}), TS being the timestamp as it travels (string or number).
// Empty arguments stand for {}.
func (s Signature) RequestPayload(form, tool string, arguments json.RawMessage) ([]byte, error) {
	ts, err := s.timestampJSON()
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(arguments)) == 0 {
		arguments = json.RawMessage("{}")
	}
	return payload(form, tool, "params", arguments, s.Nonce, ts)
}

// ResultPayload returns the canonical bytes s covers as a result signature:
// canon({"tool":tool,"result":R,"nonce":s.Nonce,"timestamp":TS}), where R is
// result as [StripSignature] leaves it.
func (s Signature) ResultPayload(form, tool string, result json.RawMessage) ([]byte, error) {
	ts, err := s.timestampJSON()
	if err != nil {
		return nil, err
	}
	stripped, _, err := StripSignature(result)
	if err != nil {
		return nil, err
	}
	return payload(form, tool, "result", stripped, s.Nonce, ts)
}

// SignRequestAs is [SignRequest] with the timestamp written in style,
// [TimestampRFC3339] or [TimestampUnix].
func SignRequestAs(key []byte, form, kid, style, tool string, arguments json.RawMessage, now time.Time) (Signature, error) {
	nonce, err := NewNonce()
	if err != nil {
		return Signature{}, err
	}
	return sign(key, kid, nonce, style, now, func(s Signature) ([]byte, error) {
		return s.RequestPayload(form, tool, arguments)
	})
}

// SignResultAs is [SignResult] with the timestamp written in style,
// [TimestampRFC3339] or [TimestampUnix].
func SignResultAs(key []byte, form, kid, style, tool string, result json.RawMessage, nonce string, now time.Time) (Signature, error) {
	if nonce == "" {
		return Signature{}, errors.New("signing a result: the request's nonce is empty")
	}
	return sign(key, kid, nonce, style, now, func(s Signature) ([]byte, error) {
		return s.ResultPayload(form, tool, result)
	})
}
