package auth

import (
	"context"
	"crypto"
	"errors"
	"net/http"
	"time"
)

// STUB: owned by the grants helper; replaced wholesale.

// TokenClient talks to one authorization server's token endpoint as one
// registered client.
type TokenClient struct {
	HTTP         *http.Client
	Metadata     *ServerMetadata
	Registration *Registration
	// Key signs private_key_jwt client assertions (nil: none); Alg is its
	// JWS algorithm ("ES256", "RS256", ...), KeyID its kid.
	Key   crypto.Signer
	Alg   string
	KeyID string
	// Resource is the RFC 8707 resource parameter (the canonical MCP
	// server URI); sent with every grant.
	Resource string
	// DPoP, when not nil, binds tokens to its key: every token request
	// carries a proof, and a use_dpop_nonce error is retried once with
	// the server's nonce.
	DPoP *DPoP
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// ParsePrivateKey reads a PEM private key (PKCS#8, EC or PKCS#1) and
// returns it with the JWS algorithm it signs with (alg, if not empty,
// overrides: e.g. "ES256", "RS256", "PS256", "EdDSA").
func ParsePrivateKey(pemBytes []byte, alg string) (crypto.Signer, string, error) {
	return nil, "", errors.New("not implemented")
}

// Exchange redeems an authorization code (with its PKCE verifier).
func (c *TokenClient) Exchange(ctx context.Context, code, verifier, redirectURI string) (*Token, error) {
	return nil, errors.New("not implemented")
}

// Refresh uses a refresh token; scopes may be nil (the original ones).
func (c *TokenClient) Refresh(ctx context.Context, refreshToken string, scopes []string) (*Token, error) {
	return nil, errors.New("not implemented")
}

// ClientCredentials runs the client credentials grant.
func (c *TokenClient) ClientCredentials(ctx context.Context, scopes []string) (*Token, error) {
	return nil, errors.New("not implemented")
}

// JWTBearer runs the RFC 7523 JWT-bearer grant with assertion.
func (c *TokenClient) JWTBearer(ctx context.Context, assertion string, scopes []string) (*Token, error) {
	return nil, errors.New("not implemented")
}

// IDJAGRequest is the RFC 8693 token exchange at an identity provider that
// turns its ID token into an Identity Assertion JWT Authorization Grant
// for one authorization server and resource.
type IDJAGRequest struct {
	HTTP          *http.Client
	TokenEndpoint string // the IdP's token endpoint
	ClientID      string // the client at the IdP
	ClientSecret  string
	IDToken       string // the subject token (an OpenID Connect ID token)
	Audience      string // the MCP authorization server's issuer
	Resource      string // the canonical MCP server URI
	Scopes        []string
}

// ExchangeIDJAG runs the token exchange and returns the ID-JAG.
func ExchangeIDJAG(ctx context.Context, r IDJAGRequest) (string, error) {
	return "", errors.New("not implemented")
}
