package auth

import "errors"

// STUB: owned by the grants helper; replaced wholesale.

// DPoP holds a DPoP key pair (RFC 9449) and the nonces servers gave; it
// makes proofs for the token endpoint and for resource requests. Safe for
// concurrent use.
type DPoP struct{}

// NewDPoP makes a fresh key for alg (one of the algorithms in supported,
// preferring ES256); an error if none of supported can be done.
func NewDPoP(supported []string) (*DPoP, error) { return nil, errors.New("not implemented") }

// LoadDPoP restores a key saved with [DPoP.MarshalKey].
func LoadDPoP(jwk []byte) (*DPoP, error) { return nil, errors.New("not implemented") }

// MarshalKey returns the private key as a JWK, for the token store.
func (d *DPoP) MarshalKey() []byte { return nil }

// Proof returns a proof JWT for method and target URL (query and fragment
// dropped from htu), with ath when accessToken is not empty, and the
// nonce last given for target's origin by [DPoP.SetNonce].
func (d *DPoP) Proof(method, target, accessToken string) (string, error) {
	return "", errors.New("not implemented")
}

// SetNonce records the DPoP-Nonce a server at target's origin sent.
func (d *DPoP) SetNonce(target, nonce string) {}
