// Package auth is mcpctl's OAuth 2.1 client for protected MCP servers: the
// authorization flow of the MCP specification (basic/authorization), from a
// 401 or a 403 insufficient_scope to an access token, and the extensions
// the official conformance suite tests (client credentials, enterprise-
// managed authorization, DPoP, the workload-identity JWT-bearer grant).
//
// The HTTP transport never imports this package: cmd wraps the transport's
// http.Client in an [Authorizer], an http.RoundTripper that adds the token
// to requests for the protected resource, runs the flow when the resource
// answers 401 (or 403 insufficient_scope), and retries the request once.
// This package never imports client or cmd.
//
// Layout:
//   - challenge.go: WWW-Authenticate parsing ([ParseChallenges]).
//   - discover.go, urls.go: Protected Resource Metadata (RFC 9728),
//     authorization server metadata (RFC 8414, OpenID Connect discovery,
//     the 2025-03-26 fallbacks), issuer checks, the canonical resource URI
//     (RFC 8707), and the fetch rules (HTTPS except loopback, no
//     link-local or cloud-metadata addresses).
//   - register.go: client identification — pre-registered, Client ID
//     Metadata Document, Dynamic Client Registration (RFC 7591).
//   - pkce.go, loopback.go, browser.go, authcode.go: the authorization code
//     grant with PKCE S256, state and iss checks, a 127.0.0.1 redirect.
//   - token.go: the token endpoint — client authentication (none,
//     client_secret_basic, client_secret_post, private_key_jwt) and the
//     grants (authorization_code, refresh_token, client_credentials,
//     jwt-bearer, token exchange for ID-JAG).
//   - dpop.go: DPoP proofs (RFC 9449) and server nonces.
//   - store.go: tokens and registrations on disk, per authorization server
//     and resource, mode 0600, written atomically.
//   - authorizer.go: the [Authorizer] round tripper that ties it together.
package auth

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Challenge is one challenge of a WWW-Authenticate header: the scheme
// ("Bearer", "DPoP") and its auth-params by lower-case name, quotes
// removed.
type Challenge struct {
	Scheme string
	Params map[string]string
}

// Param returns the auth-param name (lower case), or "".
func (c Challenge) Param(name string) string { return c.Params[name] }

// ResourceMetadata is OAuth 2.0 Protected Resource Metadata (RFC 9728) as
// an MCP server publishes it.
type ResourceMetadata struct {
	Resource                      string   `json:"resource"`
	AuthorizationServers          []string `json:"authorization_servers,omitempty"`
	ScopesSupported               []string `json:"scopes_supported,omitempty"`
	BearerMethodsSupported        []string `json:"bearer_methods_supported,omitempty"`
	DPoPSigningAlgValuesSupported []string `json:"dpop_signing_alg_values_supported,omitempty"`
	DPoPBoundAccessTokensRequired bool     `json:"dpop_bound_access_tokens_required,omitempty"`

	// URL is where the document was fetched from (not part of the JSON).
	URL string `json:"-"`
}

// ServerMetadata is OAuth 2.0 Authorization Server Metadata (RFC 8414) or
// an OpenID Connect provider configuration, with the fields mcpctl uses.
type ServerMetadata struct {
	Issuer                                     string   `json:"issuer"`
	AuthorizationEndpoint                      string   `json:"authorization_endpoint,omitempty"`
	TokenEndpoint                              string   `json:"token_endpoint,omitempty"`
	RegistrationEndpoint                       string   `json:"registration_endpoint,omitempty"`
	ScopesSupported                            []string `json:"scopes_supported,omitempty"`
	ResponseTypesSupported                     []string `json:"response_types_supported,omitempty"`
	GrantTypesSupported                        []string `json:"grant_types_supported,omitempty"`
	CodeChallengeMethodsSupported              []string `json:"code_challenge_methods_supported,omitempty"`
	TokenEndpointAuthMethodsSupported          []string `json:"token_endpoint_auth_methods_supported,omitempty"`
	TokenEndpointAuthSigningAlgValuesSupported []string `json:"token_endpoint_auth_signing_alg_values_supported,omitempty"`
	DPoPSigningAlgValuesSupported              []string `json:"dpop_signing_alg_values_supported,omitempty"`
	ClientIDMetadataDocumentSupported          bool     `json:"client_id_metadata_document_supported,omitempty"`
	AuthorizationResponseIssParameterSupported bool     `json:"authorization_response_iss_parameter_supported,omitempty"`

	// URL is where the document was fetched from; Legacy is true when it
	// was not fetched but built from the 2025-03-26 default endpoints.
	URL    string `json:"-"`
	Legacy bool   `json:"-"`
}

// Registration is how mcpctl identifies itself to one authorization
// server: a pre-registered client, a Client ID Metadata Document URL used
// as client_id, or the answer of Dynamic Client Registration.
type Registration struct {
	// Issuer is the authorization server the registration belongs to; a
	// registration is never used with another one.
	Issuer       string `json:"issuer"`
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret,omitempty"`
	// AuthMethod is the token_endpoint_auth_method to use: "none",
	// "client_secret_basic", "client_secret_post" or "private_key_jwt".
	AuthMethod string `json:"token_endpoint_auth_method,omitempty"`
	// SecretExpiresAt is client_secret_expires_at (zero: never).
	SecretExpiresAt time.Time `json:"client_secret_expires_at,omitzero"`
	// Kind says where the registration came from: "pre-registered",
	// "metadata-document" or "dynamic".
	Kind string `json:"kind"`
	// RedirectURIs are the redirect URIs registered (dynamic only).
	RedirectURIs []string `json:"redirect_uris,omitempty"`
}

// Token is an access token with what came with it.
type Token struct {
	AccessToken string `json:"access_token"`
	// TokenType is "Bearer" or "DPoP" (as the token endpoint said).
	TokenType    string    `json:"token_type"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Scope        string    `json:"scope,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	// Issuer and Resource say whom the token is from and for; a token is
	// only ever sent to Resource.
	Issuer   string `json:"issuer"`
	Resource string `json:"resource"`
	// Grant and ClientID say how the token was obtained: the --grant and
	// the --client-id given (empty for a dynamic registration). A command
	// that names another grant or client does not use it.
	Grant    string `json:"grant,omitempty"`
	ClientID string `json:"client_id,omitempty"`
	// DPoPKey is the private key (JWK, JSON) the token is bound to, for
	// DPoP tokens.
	DPoPKey []byte `json:"dpop_key,omitempty"`
}

// Valid reports whether the token can be used at now: it has an access
// token that does not expire within the next 30 seconds.
func (t *Token) Valid(now time.Time) bool {
	if t == nil || t.AccessToken == "" {
		return false
	}
	return t.Expiry.IsZero() || now.Add(30*time.Second).Before(t.Expiry)
}

// Grant names the ways mcpctl obtains a token (--grant).
const (
	// GrantAuthorizationCode is the interactive flow with a browser; the
	// default.
	GrantAuthorizationCode = "authorization-code"
	// GrantClientCredentials is the client credentials grant: a client
	// secret or a private key (private_key_jwt), no user.
	GrantClientCredentials = "client-credentials"
	// GrantJWTBearer is the RFC 7523 JWT-bearer grant with an assertion
	// the caller has (workload identity federation).
	GrantJWTBearer = "jwt-bearer"
	// GrantTokenExchange is enterprise-managed authorization: an identity
	// provider's ID token exchanged (RFC 8693) for an ID-JAG, then the
	// JWT-bearer grant at the MCP server's authorization server.
	GrantTokenExchange = "token-exchange"
)

// Error is an authorization that is required and could not be completed:
// no usable token and no way to get one (no browser, CI), a refused or
// failed flow, a server that breaks the rules. mcpctl exits 8 for it.
// Error never holds a token or a secret.
type Error struct {
	// Op is what was being done ("discovering the authorization server",
	// "token request", ...).
	Op string
	// Err is the cause.
	Err error
	// Hint is what the user can do, a command line when there is one
	// ("run: mcpctl auth login --url URL").
	Hint string

	// waiting says what the flow was waiting for when its time ran out
	// (see TimeoutDetail).
	waiting string
}

// TimeoutDetail says what the flow was waiting for when the request's
// context ended it (its deadline, or the cancellation a transport derives
// from one), such as the user at the browser; "" when the error is not the
// end of a wait. A caller that reports the timeout (the client, as exit 7)
// uses it instead of blaming a silent server.
func (e *Error) TimeoutDetail() string {
	if e.waiting == "" || !(errors.Is(e.Err, context.DeadlineExceeded) || errors.Is(e.Err, context.Canceled)) {
		return ""
	}
	return e.waiting
}

func (e *Error) Error() string {
	msg := "authorization required"
	if e.Op != "" {
		msg = "authorization failed: " + e.Op
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	if e.Hint != "" {
		msg += " (" + e.Hint + ")"
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// errorf builds an [*Error] for op.
func errorf(op, format string, args ...any) *Error {
	return &Error{Op: op, Err: fmt.Errorf(format, args...)}
}

// ErrInteractionRequired is the cause of an [*Error] when only a user at
// a browser could continue and none can (no TTY and no $BROWSER, CI=true,
// or Options.Interactive false).
var ErrInteractionRequired = errors.New("no token stored and no browser to sign in with")
