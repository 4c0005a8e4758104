package auth

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/golang-jwt/jwt/v5"
)

// OAuth 2.0 grant types and token types sent to token endpoints.
const (
	grantTypeAuthorizationCode = "authorization_code"
	grantTypeRefreshToken      = "refresh_token"
	grantTypeClientCredentials = "client_credentials"
	// GrantTypeJWTBearer is the RFC 7523 JWT-bearer grant_type.
	GrantTypeJWTBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	// GrantTypeTokenExchange is the RFC 8693 token exchange grant_type.
	GrantTypeTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	// TokenTypeIDJAG is the RFC 8693 token type of an Identity Assertion
	// JWT Authorization Grant.
	TokenTypeIDJAG = "urn:ietf:params:oauth:token-type:id-jag"
	// TokenTypeIDToken is the RFC 8693 token type of an OpenID Connect ID
	// token.
	TokenTypeIDToken = "urn:ietf:params:oauth:token-type:id_token"

	clientAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
)

// Token endpoint authentication methods (RFC 7591 token_endpoint_auth_method).
const (
	AuthMethodNone              = "none"
	AuthMethodClientSecretBasic = "client_secret_basic"
	AuthMethodClientSecretPost  = "client_secret_post"
	AuthMethodPrivateKeyJWT     = "private_key_jwt"
)

// maxResponseBody bounds what is read from a token endpoint: a token
// response is a few kilobytes; more is a broken or hostile server.
const maxResponseBody = 1 << 20

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

// ResponseError is an OAuth error response (RFC 6749 §5.2 from a token
// endpoint, §4.1.2.1 in an authorization response). It is the cause of
// the [*Error] the grants return; match it with errors.As to tell, for
// example, an expired refresh token (Code "invalid_grant") from a broken
// server. The description is the server's, shortened and stripped of
// control characters and of any secret the request carried.
type ResponseError struct {
	// Code is the error parameter ("invalid_grant", "access_denied", ...).
	Code        string
	Description string
	URI         string
	// StatusCode is the HTTP status of a token endpoint answer (0 for an
	// authorization response).
	StatusCode int
}

func (e *ResponseError) Error() string {
	msg := e.Code
	if e.Description != "" {
		msg += ": " + e.Description
	}
	if e.StatusCode != 0 {
		msg += fmt.Sprintf(" (HTTP %d)", e.StatusCode)
	}
	return msg
}

// ParsePrivateKey reads a PEM private key (PKCS#8, EC or PKCS#1) and
// returns it with the JWS algorithm it signs with (alg, if not empty,
// overrides: e.g. "ES256", "RS256", "PS256", "EdDSA").
func ParsePrivateKey(pemBytes []byte, alg string) (crypto.Signer, string, error) {
	block, _ := pem.Decode(pemBytes)
	if block == nil {
		return nil, "", errors.New("reading the private key: no PEM block found (expected -----BEGIN PRIVATE KEY-----)")
	}
	if strings.Contains(block.Type, "ENCRYPTED") || block.Headers["Proc-Type"] != "" {
		return nil, "", errors.New("reading the private key: it is encrypted; decrypt it first (openssl pkcs8 -topk8 -nocrypt)")
	}
	var key any
	var err error
	switch block.Type {
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			// Some tools label SEC1 or PKCS#1 keys "PRIVATE KEY".
			if k, err2 := x509.ParseECPrivateKey(block.Bytes); err2 == nil {
				key, err = k, nil
			} else if k, err2 := x509.ParsePKCS1PrivateKey(block.Bytes); err2 == nil {
				key, err = k, nil
			}
		}
	}
	if err != nil {
		return nil, "", fmt.Errorf("reading the private key (%s): %w", block.Type, err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, "", fmt.Errorf("reading the private key: %T cannot sign", key)
	}
	natural, err := signingAlgOf(signer)
	if err != nil {
		return nil, "", err
	}
	if alg == "" {
		return signer, natural, nil
	}
	if err := checkSigningAlg(signer, alg); err != nil {
		return nil, "", err
	}
	return signer, alg, nil
}

// signingAlgOf is the JWS algorithm a key naturally signs with.
func signingAlgOf(k crypto.Signer) (string, error) {
	switch k := k.(type) {
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			return "ES256", nil
		case elliptic.P384():
			return "ES384", nil
		case elliptic.P521():
			return "ES512", nil
		}
		return "", fmt.Errorf("reading the private key: EC curve %s has no JWS algorithm (use P-256, P-384 or P-521)", k.Curve.Params().Name)
	case *rsa.PrivateKey:
		return "RS256", nil
	case ed25519.PrivateKey:
		return "EdDSA", nil
	}
	return "", fmt.Errorf("reading the private key: unsupported key type %T (use EC, RSA or Ed25519)", k)
}

// checkSigningAlg reports whether alg can be used with k.
func checkSigningAlg(k crypto.Signer, alg string) error {
	ok := false
	switch k := k.(type) {
	case *ecdsa.PrivateKey:
		natural, _ := signingAlgOf(k)
		ok = alg == natural
	case *rsa.PrivateKey:
		switch alg {
		case "RS256", "RS384", "RS512", "PS256", "PS384", "PS512":
			ok = true
		}
	case ed25519.PrivateKey:
		ok = alg == "EdDSA"
	}
	if !ok {
		return fmt.Errorf("signing algorithm %s does not fit a %T key", alg, k)
	}
	return nil
}

// Exchange redeems an authorization code (with its PKCE verifier).
func (c *TokenClient) Exchange(ctx context.Context, code, verifier, redirectURI string) (*Token, error) {
	form := url.Values{
		"grant_type":    {grantTypeAuthorizationCode},
		"code":          {code},
		"redirect_uri":  {redirectURI},
		"code_verifier": {verifier},
	}
	return c.grant(ctx, form, nil, "", code, verifier)
}

// Refresh uses a refresh token; scopes may be nil (the original ones).
// The refresh token is kept in the result when the server does not issue
// a new one; Scope is empty when the server does not name the scopes (the
// caller keeps the ones it had).
func (c *TokenClient) Refresh(ctx context.Context, refreshToken string, scopes []string) (*Token, error) {
	form := url.Values{
		"grant_type":    {grantTypeRefreshToken},
		"refresh_token": {refreshToken},
	}
	return c.grant(ctx, form, scopes, refreshToken, refreshToken)
}

// ClientCredentials runs the client credentials grant.
func (c *TokenClient) ClientCredentials(ctx context.Context, scopes []string) (*Token, error) {
	form := url.Values{"grant_type": {grantTypeClientCredentials}}
	return c.grant(ctx, form, scopes, "")
}

// JWTBearer runs the RFC 7523 JWT-bearer grant with assertion. A refused
// assertion is reported, never retried: a second try with the same
// assertion cannot succeed.
func (c *TokenClient) JWTBearer(ctx context.Context, assertion string, scopes []string) (*Token, error) {
	form := url.Values{
		"grant_type": {GrantTypeJWTBearer},
		"assertion":  {assertion},
	}
	return c.grant(ctx, form, scopes, "", assertion)
}

// grant runs one token request; keep is a refresh token to keep when
// none is issued; secrets are request values to keep out of errors.
func (c *TokenClient) grant(ctx context.Context, form url.Values, scopes []string, keep string, secrets ...string) (*Token, error) {
	grantType := form.Get("grant_type")
	op := "token request (" + grantName(grantType) + ")"
	if c.Metadata == nil || c.Metadata.TokenEndpoint == "" {
		return nil, errorf(op, "the authorization server has no token endpoint")
	}
	if c.Registration == nil || c.Registration.ClientID == "" {
		return nil, errorf(op, "no client_id: the client is not registered with %s", c.Metadata.Issuer)
	}
	if err := checkOAuthEndpointURL(c.Metadata.TokenEndpoint); err != nil {
		return nil, &Error{Op: op, Err: err}
	}
	if c.Resource != "" {
		form.Set("resource", c.Resource)
	}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	secrets = append(secrets, c.Registration.ClientSecret)
	build := func(req *http.Request) error {
		if err := c.authenticate(req, form); err != nil {
			return err
		}
		if c.DPoP != nil {
			proof, err := c.DPoP.Proof(http.MethodPost, c.Metadata.TokenEndpoint, "")
			if err != nil {
				return err
			}
			req.Header.Set("DPoP", proof)
		}
		return nil
	}
	resp, err := postForm(ctx, c.HTTP, c.Metadata.TokenEndpoint, form, build, c.DPoP)
	if err != nil {
		return nil, &Error{Op: op, Err: redactSecrets(err, secrets)}
	}
	tok, err := parseTokenResponse(resp, c.now())
	if err != nil {
		return nil, &Error{Op: op, Err: redactSecrets(err, secrets), Hint: grantHint(err, grantType)}
	}
	tok.Issuer = c.Metadata.Issuer
	tok.Resource = c.Resource
	if tok.Scope == "" && grantType != grantTypeRefreshToken {
		// RFC 6749 §5.1: an omitted scope is the one requested.
		tok.Scope = strings.Join(scopes, " ")
	}
	if tok.RefreshToken == "" {
		tok.RefreshToken = keep
	}
	if tok.TokenType == "DPoP" {
		if c.DPoP == nil {
			return nil, errorf(op, "the token endpoint issued a DPoP-bound token to a request without a DPoP proof")
		}
		tok.DPoPKey = c.DPoP.MarshalKey()
	}
	return tok, nil
}

func (c *TokenClient) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// authenticate adds the client authentication of the registration to
// req and form (RFC 6749 §2.3, RFC 7523 §2.2).
func (c *TokenClient) authenticate(req *http.Request, form url.Values) error {
	reg := c.Registration
	method := reg.AuthMethod
	if method == "" {
		switch {
		case c.Key != nil:
			method = AuthMethodPrivateKeyJWT
		case reg.ClientSecret != "":
			// RFC 7591 §2: the default for a client with a secret.
			method = AuthMethodClientSecretBasic
		default:
			method = AuthMethodNone
		}
	}
	switch method {
	case AuthMethodNone:
		form.Set("client_id", reg.ClientID)
	case AuthMethodClientSecretBasic:
		if reg.ClientSecret == "" {
			return errors.New("client_secret_basic needs a client secret; pass --client-secret")
		}
		req.Header.Set("Authorization", basicAuth(reg.ClientID, reg.ClientSecret))
	case AuthMethodClientSecretPost:
		if reg.ClientSecret == "" {
			return errors.New("client_secret_post needs a client secret; pass --client-secret")
		}
		form.Set("client_id", reg.ClientID)
		form.Set("client_secret", reg.ClientSecret)
	case AuthMethodPrivateKeyJWT:
		assertion, err := c.clientAssertion()
		if err != nil {
			return err
		}
		form.Set("client_id", reg.ClientID)
		form.Set("client_assertion_type", clientAssertionType)
		form.Set("client_assertion", assertion)
	default:
		return fmt.Errorf("token endpoint authentication method %q is not supported (mcpctl does none, client_secret_basic, client_secret_post, private_key_jwt)", method)
	}
	return nil
}

// basicAuth is the client_secret_basic header: RFC 6749 §2.3.1 has both
// values form-encoded before they are joined and base64-encoded.
func basicAuth(id, secret string) string {
	cred := url.QueryEscape(id) + ":" + url.QueryEscape(secret)
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(cred))
}

// clientAssertion signs the private_key_jwt assertion. Its audience is
// the issuer identifier, as RFC 7523bis requires (the token endpoint URL
// of RFC 7523 is ambiguous and open to audience confusion); the token
// endpoint only when the metadata names no issuer.
func (c *TokenClient) clientAssertion() (string, error) {
	if c.Key == nil {
		return "", errors.New("private_key_jwt needs a private key; pass --client-key file:PATH")
	}
	alg := c.Alg
	if alg == "" {
		var err error
		if alg, err = signingAlgOf(c.Key); err != nil {
			return "", err
		}
	}
	method := jwt.GetSigningMethod(alg)
	if method == nil {
		return "", fmt.Errorf("signing algorithm %q is not supported", alg)
	}
	aud := c.Metadata.Issuer
	if aud == "" {
		aud = c.Metadata.TokenEndpoint
	}
	now := c.now()
	claims := jwt.MapClaims{
		"iss": c.Registration.ClientID,
		"sub": c.Registration.ClientID,
		"aud": aud,
		"jti": randomBase64URL(16),
		"iat": now.Unix(),
		"exp": now.Add(5 * time.Minute).Unix(),
	}
	t := jwt.NewWithClaims(method, claims)
	if c.KeyID != "" {
		t.Header["kid"] = c.KeyID
	}
	s, err := t.SignedString(c.Key)
	if err != nil {
		return "", fmt.Errorf("signing the client assertion with %s: %w", alg, err)
	}
	return s, nil
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
	// AuthMethod is how the client authenticates to the IdP:
	// "client_secret_post" (the default with a secret),
	// "client_secret_basic", or "none" (the default without one).
	AuthMethod string
}

// ExchangeIDJAG runs the token exchange and returns the ID-JAG.
func ExchangeIDJAG(ctx context.Context, r IDJAGRequest) (string, error) {
	const op = "token exchange for an ID-JAG at the identity provider"
	if r.TokenEndpoint == "" {
		return "", errorf(op, "no identity provider token endpoint")
	}
	if r.IDToken == "" {
		return "", errorf(op, "no ID token to exchange")
	}
	if err := checkOAuthEndpointURL(r.TokenEndpoint); err != nil {
		return "", &Error{Op: op, Err: err}
	}
	form := url.Values{
		"grant_type":           {GrantTypeTokenExchange},
		"requested_token_type": {TokenTypeIDJAG},
		"subject_token":        {r.IDToken},
		"subject_token_type":   {TokenTypeIDToken},
	}
	if r.Audience != "" {
		form.Set("audience", r.Audience)
	}
	if r.Resource != "" {
		form.Set("resource", r.Resource)
	}
	if len(r.Scopes) > 0 {
		form.Set("scope", strings.Join(r.Scopes, " "))
	}
	method := r.AuthMethod
	if method == "" {
		method = AuthMethodNone
		if r.ClientSecret != "" {
			method = AuthMethodClientSecretPost
		}
	}
	build := func(req *http.Request) error {
		switch method {
		case AuthMethodNone:
			if r.ClientID != "" {
				form.Set("client_id", r.ClientID)
			}
		case AuthMethodClientSecretPost:
			form.Set("client_id", r.ClientID)
			form.Set("client_secret", r.ClientSecret)
		case AuthMethodClientSecretBasic:
			req.Header.Set("Authorization", basicAuth(r.ClientID, r.ClientSecret))
		default:
			return fmt.Errorf("authentication method %q is not supported at the identity provider", method)
		}
		return nil
	}
	secrets := []string{r.IDToken, r.ClientSecret}
	resp, err := postForm(ctx, r.HTTP, r.TokenEndpoint, form, build, nil)
	if err != nil {
		return "", &Error{Op: op, Err: redactSecrets(err, secrets)}
	}
	raw, err := readTokenResponse(resp)
	if err != nil {
		return "", &Error{Op: op, Err: redactSecrets(err, secrets)}
	}
	if raw.AccessToken == "" {
		return "", errorf(op, "the answer has no access_token")
	}
	if raw.IssuedTokenType != "" && raw.IssuedTokenType != TokenTypeIDJAG {
		return "", errorf(op, "the identity provider issued a %q, not an ID-JAG (%s)", raw.IssuedTokenType, TokenTypeIDJAG)
	}
	return raw.AccessToken, nil
}

// postForm posts form to endpoint; build adds the client authentication
// and proofs to each attempt (it may change form). With d set, a
// use_dpop_nonce answer is retried once with the nonce it carries
// (RFC 9449 §8). Redirects are never followed: a token request carries
// credentials, and RFC 6749 gives token endpoints no redirects.
func postForm(ctx context.Context, hc *http.Client, endpoint string, form url.Values, build func(*http.Request) error, d *DPoP) (*http.Response, error) {
	client := http.Client{}
	if hc != nil {
		client = *hc
	}
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, nil)
		if err != nil {
			return nil, fmt.Errorf("building the request to %s: %w", endpoint, err)
		}
		if err := build(req); err != nil {
			return nil, err
		}
		body := form.Encode()
		req.Body = io.NopCloser(strings.NewReader(body))
		req.ContentLength = int64(len(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(body)), nil }
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return nil, fmt.Errorf("posting to %s: %w", endpoint, err)
		}
		if d == nil {
			return resp, nil
		}
		nonce := resp.Header.Get("DPoP-Nonce")
		if nonce != "" {
			d.SetNonce(endpoint, nonce)
		}
		if attempt > 0 || nonce == "" || resp.StatusCode != http.StatusBadRequest {
			return resp, nil
		}
		data, err := readTokenBody(resp)
		if err != nil {
			return nil, err
		}
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(data, &e) != nil || e.Error != "use_dpop_nonce" {
			resp.Body = io.NopCloser(bytes.NewReader(data))
			return resp, nil
		}
	}
}

// readTokenBody reads and closes resp's body, at most maxResponseBody bytes.
func readTokenBody(resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBody+1))
	if err != nil {
		return nil, fmt.Errorf("reading the answer of %s: %w", resp.Request.URL.Redacted(), err)
	}
	if len(data) > maxResponseBody {
		return nil, fmt.Errorf("the answer of %s is larger than %d bytes", resp.Request.URL.Redacted(), maxResponseBody)
	}
	return data, nil
}

// rawTokenResponse is a token endpoint's JSON answer (RFC 6749 §5.1,
// RFC 8693 §2.2.1), success or error.
type rawTokenResponse struct {
	AccessToken     string    `json:"access_token"`
	TokenType       string    `json:"token_type"`
	ExpiresIn       flexInt64 `json:"expires_in"`
	RefreshToken    string    `json:"refresh_token"`
	Scope           string    `json:"scope"`
	IssuedTokenType string    `json:"issued_token_type"`

	Error            string `json:"error"`
	ErrorDescription string `json:"error_description"`
	ErrorURI         string `json:"error_uri"`
}

// flexInt64 reads a JSON number or a numeric string: some servers send
// expires_in as "3600".
type flexInt64 int64

func (f *flexInt64) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "" || s == "null" {
		*f = 0
		return nil
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("expires_in %s is not a number", b)
	}
	*f = flexInt64(n)
	return nil
}

// readTokenResponse reads a token endpoint answer; an OAuth error answer
// (or a success status carrying an error, as some servers send) is a
// [*ResponseError].
func readTokenResponse(resp *http.Response) (*rawTokenResponse, error) {
	data, err := readTokenBody(resp)
	if err != nil {
		return nil, err
	}
	where := resp.Request.URL.Redacted()
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return nil, fmt.Errorf("%s redirected (HTTP %d) to %q; token requests are not sent across redirects", where, resp.StatusCode, resp.Header.Get("Location"))
	}
	var raw rawTokenResponse
	jsonErr := json.Unmarshal(data, &raw)
	if jsonErr == nil && raw.Error != "" {
		return nil, &ResponseError{Code: cleanServerText(raw.Error, 100), Description: cleanServerText(raw.ErrorDescription, 300), URI: cleanServerText(raw.ErrorURI, 300), StatusCode: resp.StatusCode}
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %s, not an OAuth error response (content type %q)", where, resp.Status, resp.Header.Get("Content-Type"))
	}
	if jsonErr != nil {
		ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		return nil, fmt.Errorf("%s answered with a body that is not a JSON token response (content type %q): %w", where, ct, jsonErr)
	}
	return &raw, nil
}

// parseTokenResponse reads a token endpoint answer into a [Token].
func parseTokenResponse(resp *http.Response, now time.Time) (*Token, error) {
	raw, err := readTokenResponse(resp)
	if err != nil {
		return nil, err
	}
	if raw.AccessToken == "" {
		return nil, errors.New("the token response has no access_token")
	}
	tok := &Token{
		AccessToken:  raw.AccessToken,
		RefreshToken: raw.RefreshToken,
		Scope:        raw.Scope,
	}
	switch strings.ToLower(raw.TokenType) {
	case "bearer", "":
		// A missing token_type breaks RFC 6749 but is common; Bearer is
		// the only reading that can work.
		tok.TokenType = "Bearer"
	case "dpop":
		tok.TokenType = "DPoP"
	default:
		return nil, fmt.Errorf("the token endpoint issued a token of type %q; mcpctl can use Bearer and DPoP tokens", cleanServerText(raw.TokenType, 40))
	}
	if raw.ExpiresIn > 0 {
		tok.Expiry = now.Add(time.Duration(raw.ExpiresIn) * time.Second)
	}
	return tok, nil
}

// grantName is the grant's name for messages.
func grantName(grantType string) string {
	switch grantType {
	case GrantTypeJWTBearer:
		return "jwt-bearer"
	case GrantTypeTokenExchange:
		return "token-exchange"
	}
	return grantType
}

// grantHint says what the user can do about a refused grant.
func grantHint(err error, grantType string) string {
	var re *ResponseError
	if !errors.As(err, &re) {
		return ""
	}
	switch re.Code {
	case "invalid_client", "unauthorized_client":
		return "check --client-id, --client-secret or --client-key, or run: mcpctl auth logout, then sign in again"
	case "invalid_grant":
		if grantType == grantTypeRefreshToken || grantType == grantTypeAuthorizationCode {
			return "sign in again: mcpctl auth login"
		}
	case "invalid_scope":
		return "request fewer scopes"
	}
	return ""
}

// checkOAuthEndpointURL refuses an endpoint that is not HTTPS, or plain HTTP on a
// loopback host (OAuth 2.1 §1.5: credentials travel only over TLS).
func checkOAuthEndpointURL(endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil {
		return fmt.Errorf("endpoint %q is not a URL: %w", endpoint, err)
	}
	switch {
	case u.Scheme == "https" && u.Host != "":
		return nil
	case u.Scheme == "http" && isLoopbackName(u.Hostname()):
		return nil
	}
	return fmt.Errorf("endpoint %q is neither https nor http on a loopback address; refusing to send credentials to it", u.Redacted())
}

// isLoopbackName reports whether host names this machine.
func isLoopbackName(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// redactSecrets replaces each non-empty secret in err's message; the result
// keeps a [*ResponseError] matchable.
func redactSecrets(err error, secrets []string) error {
	msg := err.Error()
	changed := false
	for _, s := range secrets {
		if len(s) >= 4 && strings.Contains(msg, s) {
			msg = strings.ReplaceAll(msg, s, "[redacted]")
			changed = true
		}
	}
	if !changed {
		return err
	}
	var re *ResponseError
	if errors.As(err, &re) {
		cp := *re
		for _, s := range secrets {
			if len(s) >= 4 {
				cp.Description = strings.ReplaceAll(cp.Description, s, "[redacted]")
				cp.URI = strings.ReplaceAll(cp.URI, s, "[redacted]")
			}
		}
		return &cp
	}
	return errors.New(msg)
}

// cleanServerText makes server text safe to print: no control characters (a
// terminal escape sequence in an error description), at most n runes.
func cleanServerText(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return strings.TrimSpace(s)
}
