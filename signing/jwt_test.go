package signing

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"
)

func TestMintAndInspectJWT(t *testing.T) {
	claims := JWTClaims{
		Subject:  "alice",
		Scopes:   []string{"tools:call", "resources:read"},
		Audience: "http://127.0.0.1:3001/mcp",
		Issuer:   "mcpctl-test",
		TTL:      time.Hour,
		KID:      "k1",
	}
	tok, err := MintJWT(testKey, claims, testNow)
	if err != nil {
		t.Fatal(err)
	}
	at := func(d time.Duration) func() time.Time { return func() time.Time { return testNow.Add(d) } }
	unix := func(d time.Duration) json.Number { return json.Number(strconv.FormatInt(testNow.Add(d).Unix(), 10)) }
	wantHeader := map[string]any{"alg": "HS256", "typ": "JWT", "kid": "k1"}
	wantClaims := map[string]any{
		"sub": "alice", "scope": "tools:call resources:read", "aud": "http://127.0.0.1:3001/mcp",
		"iss": "mcpctl-test", "iat": unix(0), "nbf": unix(0), "exp": unix(time.Hour),
	}
	tests := []struct {
		name         string
		key          []byte
		now          func() time.Time
		wantVerified bool
		wantErr      error
	}{
		{name: "decode only", key: nil, now: at(0)},
		{name: "verified", key: testKey, now: at(time.Minute), wantVerified: true},
		{name: "wrong key", key: []byte("other"), now: at(time.Minute), wantErr: jwt.ErrTokenSignatureInvalid},
		{name: "expired", key: testKey, now: at(2 * time.Hour), wantErr: jwt.ErrTokenExpired},
		{name: "not yet valid", key: testKey, now: at(-time.Minute), wantErr: jwt.ErrTokenNotValidYet},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			header, got, verified, err := inspectJWT(tok, tt.key, tt.now)
			if tt.wantErr == nil && err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if verified != tt.wantVerified {
				t.Errorf("verified = %v, want %v", verified, tt.wantVerified)
			}
			if diff := cmp.Diff(wantHeader, header); diff != "" {
				t.Errorf("header mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantClaims, got); diff != "" {
				t.Errorf("claims mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestInspectJWTRejects(t *testing.T) {
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	none := enc(`{"alg":"none","typ":"JWT"}`) + "." + enc(`{"sub":"mallory"}`) + "."
	hs512, err := jwt.NewWithClaims(jwt.SigningMethodHS512, jwt.MapClaims{"sub": "x"}).SignedString(testKey)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, token, wantErr string
		key                  []byte
	}{
		{name: "two parts", token: "a.b", wantErr: "3"},
		{name: "bad base64", token: "!!.e30.", wantErr: "JWT header: invalid base64url"},
		{name: "claims not an object", token: enc(`{"alg":"HS256"}`) + "." + enc(`[1]`) + ".", wantErr: "JWT claims: not a JSON object"},
		{name: "alg none", token: none, key: testKey, wantErr: "JWT not verified"},
		{name: "other HMAC alg", token: hs512, key: testKey, wantErr: "signing method HS512 is invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, verified, err := InspectJWT(tt.token, tt.key)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
			}
			if verified {
				t.Error("verified = true")
			}
			if strings.Contains(err.Error(), string(testKey)) {
				t.Errorf("error contains the key: %v", err)
			}
		})
	}
	// Decoding alone shows even an alg=none token, unverified.
	h, c, verified, err := InspectJWT(none, nil)
	if err != nil || verified || h["alg"] != "none" || c["sub"] != "mallory" {
		t.Errorf("decode only: %v %v %v %v", h, c, verified, err)
	}
}

func TestMintJWTErrors(t *testing.T) {
	if _, err := MintJWT(nil, JWTClaims{TTL: time.Minute}, testNow); err == nil {
		t.Error("minted with an empty key")
	}
	if _, err := MintJWT(testKey, JWTClaims{}, testNow); err == nil || !strings.Contains(err.Error(), "TTL must be positive") {
		t.Errorf("zero TTL: err = %v", err)
	}
	// Minimal claims: only the times.
	tok, err := MintJWT(testKey, JWTClaims{TTL: time.Minute}, testNow)
	if err != nil {
		t.Fatal(err)
	}
	_, c, _, err := InspectJWT(tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"exp", "iat", "nbf"}, slices.Sorted(maps.Keys(c))); diff != "" {
		t.Errorf("claims (-want +got):\n%s", diff)
	}
}
