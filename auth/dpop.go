package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// DPoP holds a DPoP key pair (RFC 9449) and the nonces servers gave; it
// makes proofs for the token endpoint and for resource requests. Safe for
// concurrent use.
//
// A token the token endpoint issues with token_type DPoP is bound to the
// key: it is presented with [DPoP.Apply], each request with a fresh proof.
type DPoP struct {
	alg    string
	key    crypto.Signer
	method jwt.SigningMethod
	jwk    map[string]string // the public key as a JWK

	mu     sync.Mutex
	nonces map[string]string // by origin
}

// NewDPoP makes a fresh key for alg (one of the algorithms in supported,
// preferring ES256); an error if none of supported can be done. An empty
// supported means ES256.
func NewDPoP(supported []string) (*DPoP, error) {
	// The algorithms mcpctl makes keys for, preferred first: ES256 is the
	// one every server supports (RFC 9449 names no mandatory one; the MCP
	// DPoP extension uses ES256).
	dpopAlgs := []string{"ES256", "ES384", "EdDSA"}
	alg := ""
	if len(supported) == 0 {
		alg = "ES256"
	}
	for _, a := range dpopAlgs {
		if alg == "" && slices.Contains(supported, a) {
			alg = a
		}
	}
	if alg == "" {
		return nil, fmt.Errorf("making a DPoP key: the server accepts proofs signed with %s; mcpctl signs with %s", strings.Join(supported, ", "), strings.Join(dpopAlgs, ", "))
	}
	var key crypto.Signer
	var err error
	switch alg {
	case "ES256":
		key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case "ES384":
		key, err = ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	case "EdDSA":
		_, key, err = ed25519.GenerateKey(rand.Reader)
	}
	if err != nil {
		return nil, fmt.Errorf("making a DPoP key (%s): %w", alg, err)
	}
	return newDPoP(alg, key)
}

func newDPoP(alg string, key crypto.Signer) (*DPoP, error) {
	jwk, err := publicJWK(key)
	if err != nil {
		return nil, err
	}
	return &DPoP{
		alg:    alg,
		key:    key,
		method: jwt.GetSigningMethod(alg),
		jwk:    jwk,
		nonces: map[string]string{},
	}, nil
}

// publicJWK is key's public half as a JWK (RFC 7517, RFC 8037).
func publicJWK(key crypto.Signer) (map[string]string, error) {
	b64 := base64.RawURLEncoding.EncodeToString
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		pub, err := k.PublicKey.Bytes() // 0x04 || X || Y
		if err != nil {
			return nil, fmt.Errorf("encoding the DPoP public key: %w", err)
		}
		n := (len(pub) - 1) / 2
		return map[string]string{"kty": "EC", "crv": k.Curve.Params().Name, "x": b64(pub[1 : 1+n]), "y": b64(pub[1+n:])}, nil
	case ed25519.PrivateKey:
		return map[string]string{"kty": "OKP", "crv": "Ed25519", "x": b64(k.Public().(ed25519.PublicKey))}, nil
	}
	return nil, fmt.Errorf("a DPoP key cannot be a %T", key)
}

// LoadDPoP restores a key saved with [DPoP.MarshalKey].
func LoadDPoP(jwk []byte) (*DPoP, error) {
	var k struct {
		Kty, Crv, Alg, X, Y, D string
	}
	if err := json.Unmarshal(jwk, &k); err != nil {
		return nil, fmt.Errorf("reading the stored DPoP key: %w", err)
	}
	d, err := base64.RawURLEncoding.DecodeString(k.D)
	if err != nil || len(d) == 0 {
		return nil, errors.New("reading the stored DPoP key: no private key (d); sign in again to make a new one")
	}
	var key crypto.Signer
	alg := ""
	switch {
	case k.Kty == "EC" && k.Crv == "P-256":
		alg = "ES256"
		key, err = ecdsa.ParseRawPrivateKey(elliptic.P256(), d)
	case k.Kty == "EC" && k.Crv == "P-384":
		alg = "ES384"
		key, err = ecdsa.ParseRawPrivateKey(elliptic.P384(), d)
	case k.Kty == "OKP" && k.Crv == "Ed25519":
		alg = "EdDSA"
		if len(d) != ed25519.SeedSize {
			err = fmt.Errorf("an Ed25519 seed is %d bytes, not %d", ed25519.SeedSize, len(d))
		} else {
			key = ed25519.NewKeyFromSeed(d)
		}
	default:
		return nil, fmt.Errorf("reading the stored DPoP key: kty %q crv %q is not supported", k.Kty, k.Crv)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the stored DPoP key: %w", err)
	}
	dp, err := newDPoP(alg, key)
	if err != nil {
		return nil, err
	}
	// A stored key whose public half does not match d is corrupt.
	if (k.X != "" && k.X != dp.jwk["x"]) || (k.Y != "" && k.Y != dp.jwk["y"]) {
		return nil, errors.New("reading the stored DPoP key: the public key does not match the private key")
	}
	return dp, nil
}

// MarshalKey returns the private key as a JWK, for the token store.
func (d *DPoP) MarshalKey() []byte {
	if d == nil {
		return nil
	}
	m := map[string]string{"alg": d.alg}
	for k, v := range d.jwk {
		m[k] = v
	}
	switch k := d.key.(type) {
	case *ecdsa.PrivateKey:
		raw, err := k.Bytes()
		if err != nil {
			return nil
		}
		m["d"] = base64.RawURLEncoding.EncodeToString(raw)
	case ed25519.PrivateKey:
		m["d"] = base64.RawURLEncoding.EncodeToString(k.Seed())
	}
	b, _ := json.Marshal(m)
	return b
}

// Alg is the JWS algorithm the proofs are signed with.
func (d *DPoP) Alg() string { return d.alg }

// PublicJWK returns the public key as a JWK (JSON), as proofs carry it.
func (d *DPoP) PublicJWK() []byte {
	b, _ := json.Marshal(d.jwk)
	return b
}

// Thumbprint is the RFC 7638 SHA-256 thumbprint of the public key,
// base64url: the jkt a DPoP-bound token's cnf claim names.
func (d *DPoP) Thumbprint() string { return JWKThumbprint(d.jwk) }

// JWKThumbprint is the RFC 7638 SHA-256 thumbprint (base64url) of a public
// JWK given as its members: the required members only, in lexicographic
// order, no white space.
func JWKThumbprint(jwk map[string]string) string {
	var required []string
	switch jwk["kty"] {
	case "EC":
		required = []string{"crv", "kty", "x", "y"}
	case "OKP":
		required = []string{"crv", "kty", "x"}
	case "RSA":
		required = []string{"e", "kty", "n"}
	default:
		return ""
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, name := range required {
		if i > 0 {
			b.WriteByte(',')
		}
		n, _ := json.Marshal(name)
		v, _ := json.Marshal(jwk[name])
		b.Write(n)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	sum := sha256.Sum256([]byte(b.String()))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// Proof returns a proof JWT for method and target URL (query and fragment
// dropped from htu), with ath when accessToken is not empty, and the
// nonce last given for target's origin by [DPoP.SetNonce].
func (d *DPoP) Proof(method, target, accessToken string) (string, error) {
	u, err := url.Parse(target)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", fmt.Errorf("making a DPoP proof: %q is not an absolute URL", target)
	}
	htu := *u
	htu.RawQuery, htu.ForceQuery, htu.Fragment, htu.RawFragment, htu.User = "", false, "", "", nil
	claims := jwt.MapClaims{
		"jti": randomBase64URL(16),
		"htm": method,
		"htu": htu.String(),
		"iat": time.Now().Unix(),
	}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		claims["ath"] = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	if nonce := d.nonce(u); nonce != "" {
		claims["nonce"] = nonce
	}
	t := jwt.NewWithClaims(d.method, claims)
	t.Header["typ"] = "dpop+jwt"
	t.Header["jwk"] = d.jwk
	s, err := t.SignedString(d.key)
	if err != nil {
		return "", fmt.Errorf("signing a DPoP proof: %w", err)
	}
	return s, nil
}

// SetNonce records the DPoP-Nonce a server at target's origin sent.
func (d *DPoP) SetNonce(target, nonce string) {
	u, err := url.Parse(target)
	if err != nil || nonce == "" {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.nonces[dpopOrigin(u)] = nonce
}

func (d *DPoP) nonce(u *url.URL) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.nonces[dpopOrigin(u)]
}

// dpopOrigin is scheme://host[:port], lower case: nonces are per server
// (RFC 9449 §8, §9), not per path.
func dpopOrigin(u *url.URL) string {
	return strings.ToLower(u.Scheme + "://" + u.Host)
}

// Apply prepares req for a protected resource with a DPoP-bound access
// token: "Authorization: DPoP <token>" and a fresh proof in the DPoP
// header, bound to the token (ath) and to req's method and URL, with the
// nonce last seen from req's origin. Call it for every attempt (a proof
// is never reused), and feed the response to [DPoP.Observe].
func (d *DPoP) Apply(req *http.Request, accessToken string) error {
	if accessToken == "" {
		return errors.New("making a DPoP proof: no access token")
	}
	proof, err := d.Proof(req.Method, req.URL.String(), accessToken)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "DPoP "+accessToken)
	req.Header.Set("DPoP", proof)
	return nil
}

// Observe records the DPoP-Nonce header of resp (servers may send a new
// nonce on any response) and reports whether resp is a use_dpop_nonce
// challenge of a resource server that a retry with a fresh proof can
// answer: a 401 (or 400) with a nonce whose WWW-Authenticate says
// error="use_dpop_nonce" (RFC 9449 §9). The token endpoint's challenge
// (§8) is handled inside [TokenClient].
func (d *DPoP) Observe(resp *http.Response) (retry bool) {
	nonce := resp.Header.Get("DPoP-Nonce")
	if nonce == "" || resp.Request == nil {
		return false
	}
	d.SetNonce(resp.Request.URL.String(), nonce)
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusBadRequest {
		return false
	}
	for _, v := range resp.Header.Values("WWW-Authenticate") {
		if strings.Contains(v, "use_dpop_nonce") {
			return true
		}
	}
	return false
}
