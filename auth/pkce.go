package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
)

// NewPKCE returns a fresh PKCE code verifier (RFC 7636 §4.1: 43
// characters of base64url from 32 random bytes) and its S256 challenge.
func NewPKCE() (verifier, challenge string) {
	verifier = randomBase64URL(32)
	return verifier, PKCEChallenge(verifier)
}

// PKCEChallenge is the S256 code challenge of verifier (RFC 7636 §4.2):
// BASE64URL(SHA256(ASCII(verifier))), no padding.
func PKCEChallenge(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// randomBase64URL is n random bytes, base64url without padding: PKCE
// verifiers, state values, jti claims.
func randomBase64URL(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		// crypto/rand.Read does not fail on supported platforms (Go 1.24+
		// crashes the program instead); keep the signature simple.
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	return base64.RawURLEncoding.EncodeToString(b)
}
