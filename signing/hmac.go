package signing

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
)

// Sign returns the lower-case hex HMAC-SHA256 of canonical under key.
func Sign(key, canonical []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write(canonical)
	return hex.EncodeToString(m.Sum(nil))
}

// Equal reports whether two signature values are identical, taking time
// that depends only on their lengths, never on where they differ.
func Equal(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// NewNonce returns 128 random bits from crypto/rand as 32 lower-case hex digits.
func NewNonce() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("generating a nonce: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}
