package signing

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// JWTClaims describes an HS256 bearer token for a test server that checks
// tokens with a shared key.
type JWTClaims struct {
	// Subject becomes "sub", when not empty.
	Subject string
	// Scopes become "scope", one space-separated string as OAuth 2.0 writes
	// it, when not empty.
	Scopes []string
	// Audience becomes "aud", when not empty: the server's resource URI.
	Audience string
	// Issuer becomes "iss", when not empty.
	Issuer string
	// TTL sets "exp" to now plus TTL. It must be positive.
	TTL time.Duration
	// KID becomes the header's "kid", when not empty.
	KID string
}

// MintJWT returns a compact HS256 JWT signed with key, carrying c's claims
// and "iat" and "nbf" set to now and "exp" to now plus c.TTL, in whole
// seconds.
func MintJWT(key []byte, c JWTClaims, now time.Time) (string, error) {
	if len(key) == 0 {
		return "", errors.New("minting a JWT: the key is empty")
	}
	if c.TTL <= 0 {
		return "", fmt.Errorf("minting a JWT: TTL must be positive, got %s", c.TTL)
	}
	claims := jwt.MapClaims{
		"iat": now.Unix(),
		"nbf": now.Unix(),
		"exp": now.Add(c.TTL).Unix(),
	}
	if c.Subject != "" {
		claims["sub"] = c.Subject
	}
	if len(c.Scopes) > 0 {
		claims["scope"] = strings.Join(c.Scopes, " ")
	}
	if c.Audience != "" {
		claims["aud"] = c.Audience
	}
	if c.Issuer != "" {
		claims["iss"] = c.Issuer
	}
	t := jwt.NewWithClaims(jwt.SigningMethodHS256, claims)
	if c.KID != "" {
		t.Header["kid"] = c.KID
	}
	s, err := t.SignedString(key)
	if err != nil {
		return "", fmt.Errorf("minting a JWT: %w", err)
	}
	return s, nil
}

// InspectJWT decodes a compact JWT's header and claims; numbers in them are
// json.Number. With a nil key it only decodes, and verified is false. With a
// key it also checks, against the current time, that the token is HS256,
// that the signature is right and that exp, nbf and iat allow it now;
// verified says whether all held, and err says why not. header and claims
// are returned whenever the token can be decoded, so a failed check can
// still be shown. Error messages never contain the key.
func InspectJWT(token string, key []byte) (header, claims map[string]any, verified bool, err error) {
	return inspectJWT(token, key, time.Now)
}

func inspectJWT(token string, key []byte, now func() time.Time) (header, claims map[string]any, verified bool, err error) {
	parts := strings.Split(strings.TrimSpace(token), ".")
	if len(parts) != 3 {
		return nil, nil, false, fmt.Errorf("not a compact JWT: %d dot-separated parts, expected 3", len(parts))
	}
	if header, err = decodeJWTPart(parts[0]); err != nil {
		return nil, nil, false, fmt.Errorf("JWT header: %w", err)
	}
	if claims, err = decodeJWTPart(parts[1]); err != nil {
		return nil, nil, false, fmt.Errorf("JWT claims: %w", err)
	}
	if key == nil {
		return header, claims, false, nil
	}
	p := jwt.NewParser(
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithJSONNumber(),
		jwt.WithIssuedAt(),
		jwt.WithTimeFunc(now),
	)
	_, err = p.Parse(strings.TrimSpace(token), func(*jwt.Token) (any, error) { return key, nil })
	if err != nil {
		return header, claims, false, fmt.Errorf("JWT not verified: %w", err)
	}
	return header, claims, true, nil
}

func decodeJWTPart(seg string) (map[string]any, error) {
	// JWTs use unpadded base64url; tolerate padding some encoders add.
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(seg, "="))
	if err != nil {
		return nil, fmt.Errorf("invalid base64url: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if m == nil {
		return nil, errors.New("not a JSON object: null")
	}
	return m, nil
}
