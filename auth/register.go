package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"
)

// ClientConfig is what the user says about the client: pre-registered
// credentials, a Client ID Metadata Document URL, and what dynamic
// registration should ask for.
type ClientConfig struct {
	// ClientID and ClientSecret are a pre-registered client (--client-id,
	// --client-secret). ClientSecret may be empty (a public client).
	ClientID     string
	ClientSecret string
	// Issuer is the authorization server a pre-registered client belongs
	// to (--issuer): its secret or key is sent to no other. Empty: the
	// first issuer they are used with, remembered in the [Store].
	Issuer string
	// ClientKey is a PEM private key for private_key_jwt (--client-key);
	// KeyID is its kid, if the server wants one.
	ClientKey []byte
	KeyID     string
	// ClientMetadataURL is an HTTPS URL serving a Client ID Metadata
	// Document (--client-metadata-url); used as client_id when the
	// authorization server advertises client_id_metadata_document_supported.
	ClientMetadataURL string
	// ClientName is client_name for dynamic registration ("mcpctl").
	ClientName string
	// RedirectURIs are the loopback redirect URIs to register.
	RedirectURIs []string
	// GrantTypes to register (default authorization_code, refresh_token).
	GrantTypes []string
	// Scope to register, space-separated (may be empty).
	Scope string
}

// Registration kinds (Registration.Kind).
const (
	KindPreRegistered    = "pre-registered"
	KindMetadataDocument = "metadata-document"
	KindDynamic          = "dynamic"
)

// Token endpoint authentication methods (Registration.AuthMethod).
const (
	AuthNone              = "none"
	AuthClientSecretBasic = "client_secret_basic"
	AuthClientSecretPost  = "client_secret_post"
	AuthPrivateKeyJWT     = "private_key_jwt"
)

// Register identifies the client to the authorization server asm, in the
// spec's order: a pre-registered client (cc.ClientID), a Client ID
// Metadata Document (cc.ClientMetadataURL, when asm supports it), Dynamic
// Client Registration (RFC 7591, when asm has a registration endpoint).
// The token endpoint authentication method is chosen from what asm
// supports and what the client has (secret, key). An error says what the
// user can pass instead (--client-id) when none of the three is possible.
//
// The method, by kind:
//   - pre-registered: with a key, private_key_jwt; with a secret,
//     client_secret_basic, else client_secret_post; else none — the first
//     of these that asm lists (an absent list means client_secret_basic,
//     RFC 8414 §2), or the first candidate when asm lists none of them.
//   - metadata document: private_key_jwt when there is a key and asm lists
//     it, else none. The document is not fetched (the authorization server
//     does that); its URL must be https with a path.
//   - dynamic: asks for none (a native public client) when asm lists it or
//     lists nothing, else client_secret_basic, else client_secret_post;
//     client_secret_basic when only client_credentials is to be
//     registered. The method in the answer wins; without one, the method
//     asked for stands. The request carries client_name, redirect_uris,
//     grant_types, response_types (["code"] with authorization_code),
//     token_endpoint_auth_method, application_type "native" (the
//     2026-07-28 text) and scope. Redirects are not followed.
//
// Registration.Issuer is asm.Issuer: a registration belongs to one server.
func (f *Fetcher) Register(ctx context.Context, asm *ServerMetadata, cc ClientConfig) (*Registration, error) {
	if asm == nil {
		return nil, &Error{Op: "registering the client", Err: errors.New("no authorization server metadata")}
	}
	op := "registering the client with " + asm.Issuer
	switch {
	case cc.ClientID != "":
		reg := &Registration{
			Issuer:       asm.Issuer,
			ClientID:     cc.ClientID,
			ClientSecret: cc.ClientSecret,
			AuthMethod:   preRegisteredMethod(asm.TokenEndpointAuthMethodsSupported, cc.ClientSecret != "", len(cc.ClientKey) > 0),
			Kind:         KindPreRegistered,
		}
		f.event(EventClientRegistered, fmt.Sprintf("pre-registered client_id %q (%s)", reg.ClientID, reg.AuthMethod))
		return reg, nil

	case cc.ClientMetadataURL != "" && asm.ClientIDMetadataDocumentSupported:
		if err := checkClientMetadataURL(cc.ClientMetadataURL); err != nil {
			return nil, &Error{Op: op, Err: err, Hint: "--client-metadata-url must be an https URL with a path"}
		}
		method := AuthNone
		if len(cc.ClientKey) > 0 && slices.Contains(asm.TokenEndpointAuthMethodsSupported, AuthPrivateKeyJWT) {
			method = AuthPrivateKeyJWT
		}
		reg := &Registration{Issuer: asm.Issuer, ClientID: cc.ClientMetadataURL, AuthMethod: method, Kind: KindMetadataDocument}
		f.event(EventClientRegistered, fmt.Sprintf("client metadata document %s as client_id", reg.ClientID))
		return reg, nil

	case asm.RegistrationEndpoint != "":
		return f.registerDynamic(ctx, op, asm, cc)
	}
	why := "the authorization server offers no dynamic client registration"
	if cc.ClientMetadataURL != "" {
		why += " and does not accept client metadata documents"
	} else if asm.ClientIDMetadataDocumentSupported {
		why += "; it accepts client metadata documents (--client-metadata-url)"
	}
	return nil, &Error{
		Op:   op,
		Err:  errors.New(why),
		Hint: "pass --client-id (and --client-secret) of a client registered with " + asm.Issuer,
	}
}

// preRegisteredMethod picks the method for a client the user registered.
func preRegisteredMethod(supported []string, secret, key bool) string {
	var candidates []string
	if key {
		candidates = append(candidates, AuthPrivateKeyJWT)
	}
	if secret {
		candidates = append(candidates, AuthClientSecretBasic, AuthClientSecretPost)
	}
	candidates = append(candidates, AuthNone)
	if len(supported) == 0 {
		// RFC 8414 §2: the default is client_secret_basic.
		supported = []string{AuthClientSecretBasic}
	}
	for _, c := range candidates {
		if slices.Contains(supported, c) {
			return c
		}
	}
	return candidates[0]
}

// checkClientMetadataURL applies the CIMD rules to a client_id URL: https,
// a path, no fragment, no user info.
func checkClientMetadataURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("the client metadata URL %q: %w", raw, err)
	}
	if u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("the client metadata URL %q is not an https URL", raw)
	}
	if u.Path == "" || u.Path == "/" {
		return fmt.Errorf("the client metadata URL %q has no path", raw)
	}
	if u.Fragment != "" || u.User != nil {
		return fmt.Errorf("the client metadata URL %q has a fragment or user info", raw)
	}
	return nil
}

// dcrRequest is the RFC 7591 client metadata mcpctl registers.
type dcrRequest struct {
	ClientName              string   `json:"client_name"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	ApplicationType         string   `json:"application_type"`
	Scope                   string   `json:"scope,omitempty"`
}

// dcrResponse is the part of an RFC 7591 answer mcpctl keeps.
type dcrResponse struct {
	ClientID                string   `json:"client_id"`
	ClientSecret            string   `json:"client_secret"`
	ClientSecretExpiresAt   *float64 `json:"client_secret_expires_at"` // seconds; some servers send a fraction
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	RedirectURIs            []string `json:"redirect_uris"`
}

func (f *Fetcher) registerDynamic(ctx context.Context, op string, asm *ServerMetadata, cc ClientConfig) (*Registration, error) {
	endpoint := asm.RegistrationEndpoint
	if err := f.CheckURL(endpoint); err != nil {
		return nil, &Error{Op: op, Err: fmt.Errorf("registration_endpoint: %w", err)}
	}
	grants := cc.GrantTypes
	if len(grants) == 0 {
		grants = []string{"authorization_code", "refresh_token"}
	}
	req := dcrRequest{
		ClientName:              cc.ClientName,
		RedirectURIs:            cc.RedirectURIs,
		GrantTypes:              grants,
		ResponseTypes:           []string{},
		TokenEndpointAuthMethod: dynamicMethod(asm.TokenEndpointAuthMethodsSupported, grants),
		// mcpctl is a CLI with loopback redirects: a native client
		// (OpenID Connect Registration; required by the 2026-07-28 text).
		ApplicationType: "native",
		Scope:           cc.Scope,
	}
	if req.ClientName == "" {
		req.ClientName = "mcpctl"
	}
	if req.RedirectURIs == nil {
		req.RedirectURIs = []string{}
	}
	if slices.Contains(grants, "authorization_code") {
		req.ResponseTypes = []string{"code"}
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, &Error{Op: op, Err: err}
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, &Error{Op: op, Err: fmt.Errorf("POST %s: %w", endpoint, err)}
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json")
	c, done := f.client()
	defer done()
	// A redirect of a POST would resend the registration elsewhere.
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Do(hr)
	if err != nil {
		f.event(EventClientRegistered, fmt.Sprintf("dynamic registration at %s: %v", endpoint, err))
		return nil, &Error{Op: op, Err: fmt.Errorf("POST %s: %w", endpoint, err)}
	}
	defer resp.Body.Close()
	rb, err := readBounded(resp.Body)
	if err != nil {
		return nil, &Error{Op: op, Err: fmt.Errorf("POST %s: %w", endpoint, err)}
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
		f.event(EventClientRegistered, fmt.Sprintf("dynamic registration at %s: %s", endpoint, resp.Status))
		return nil, &Error{
			Op:   op,
			Err:  fmt.Errorf("POST %s: %s%s", endpoint, resp.Status, oauthErrorSuffix(rb)),
			Hint: "pass --client-id (and --client-secret) of a client registered with " + asm.Issuer,
		}
	}
	var dr dcrResponse
	if err := json.Unmarshal(rb, &dr); err != nil {
		return nil, &Error{Op: op, Err: fmt.Errorf("POST %s: the answer is not a registration: %w", endpoint, err)}
	}
	if dr.ClientID == "" {
		return nil, &Error{Op: op, Err: fmt.Errorf("POST %s: the answer has no client_id", endpoint)}
	}
	reg := &Registration{
		Issuer:       asm.Issuer,
		ClientID:     dr.ClientID,
		ClientSecret: dr.ClientSecret,
		AuthMethod:   dr.TokenEndpointAuthMethod,
		Kind:         KindDynamic,
		RedirectURIs: dr.RedirectURIs,
	}
	if reg.AuthMethod == "" {
		reg.AuthMethod = req.TokenEndpointAuthMethod
	}
	if reg.RedirectURIs == nil {
		reg.RedirectURIs = slices.Clone(cc.RedirectURIs)
	}
	if dr.ClientSecretExpiresAt != nil && *dr.ClientSecretExpiresAt > 0 {
		reg.SecretExpiresAt = time.Unix(int64(*dr.ClientSecretExpiresAt), 0).UTC()
	}
	f.event(EventClientRegistered, fmt.Sprintf("dynamic registration at %s: client_id %q (%s)", endpoint, reg.ClientID, reg.AuthMethod))
	return reg, nil
}

// dynamicMethod is the token_endpoint_auth_method to ask for.
func dynamicMethod(supported, grants []string) string {
	publicOK := slices.Contains(grants, "authorization_code")
	if publicOK && (len(supported) == 0 || slices.Contains(supported, AuthNone)) {
		return AuthNone
	}
	for _, m := range []string{AuthClientSecretBasic, AuthClientSecretPost} {
		if slices.Contains(supported, m) {
			return m
		}
	}
	if len(supported) == 0 {
		return AuthClientSecretBasic
	}
	return supported[0]
}
