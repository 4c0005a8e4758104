// Package authserver is an OAuth 2.1 authorization server and a protected
// MCP resource in one, for mcpctl's tests of what the official conformance
// suite does not cover: the token store reused across commands, refresh
// (with rotation) after expiry, exit code 8, redaction.
//
// One [Server] serves, on one origin:
//
//   - the protected resource's metadata (RFC 9728) at
//     /.well-known/oauth-protected-resource/mcp and
//     /.well-known/oauth-protected-resource;
//   - the authorization server's metadata (RFC 8414) at
//     /.well-known/oauth-authorization-server;
//   - Dynamic Client Registration (RFC 7591) at /register;
//   - /authorize, which approves at once with a 302 to the client's redirect
//     URI (code, state and iss), or redirects with the configured error;
//   - /token: authorization_code (PKCE S256 checked), refresh_token (the
//     refresh token rotates: the old one stops working), client_credentials;
//   - the MCP endpoint /mcp, which wants a bearer token issued for it and
//     answers 401 with WWW-Authenticate resource_metadata otherwise, or 403
//     insufficient_scope when [Config.ToolScope] is missing from the token of
//     a tools/call.
//
// Every request is recorded ([Server.Requests]) without secrets, so tests
// can assert what a client did. Token values have fixed prefixes
// ([AccessTokenPrefix] and the others), so a test can look for any of them
// in output that must not hold one.
//
// The testscript harness runs [Main] as the command authserver, and
// [FollowMain] as oauthfollow, a $BROWSER stand-in.
package authserver

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Prefixes of the secrets the server issues. They make a leak easy to find:
// a test greps output for them.
const (
	AccessTokenPrefix  = "mcpctl-test-access-"
	RefreshTokenPrefix = "mcpctl-test-refresh-"
	ClientSecretPrefix = "mcpctl-test-secret-"
	CodePrefix         = "mcpctl-test-code-"
)

// Config says how a [Server] behaves. The zero value is a well-behaved
// server with one-hour tokens and no scopes.
type Config struct {
	// MCP is the protected resource's handler, reached only with a valid
	// token. Nil answers every authorized POST with a JSON-RPC error.
	MCP http.Handler
	// TokenLifetime is how long an access token is valid (expires_in);
	// 0 means one hour.
	TokenLifetime time.Duration
	// NoRefreshTokens leaves refresh tokens out of token responses.
	NoRefreshTokens bool
	// ScopesSupported is advertised in both metadata documents.
	ScopesSupported []string
	// ChallengeScope is put in the scope of the 401 challenge.
	ChallengeScope string
	// ToolScope, when set, must be among a token's scopes for a tools/call;
	// without it the call gets 403 insufficient_scope with this scope.
	ToolScope string
	// Issuer overrides the issuer named in the metadata and in the
	// authorization response (default: the server's origin), to test a
	// client's issuer checks.
	Issuer string
	// OmitIss leaves iss out of the authorization response.
	OmitIss bool
	// AuthorizeError, when set, makes /authorize redirect with this error
	// code (e.g. access_denied) instead of a code.
	AuthorizeError string
	// Clients are pre-registered clients: client ID to secret ("" for a
	// public client). They may use any loopback redirect URI.
	Clients map[string]string
	// NoRegistration hides the registration endpoint (pre-registered
	// clients only).
	NoRegistration bool
	// AuthorizationServer, when set, is the issuer the resource metadata
	// names instead of this server: another server (on another origin)
	// whose tokens this resource does not accept. Tests of what reaches
	// that other server use it.
	AuthorizationServer string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Request is what the server recorded of one request: no secret values.
type Request struct {
	Method string
	Path   string
	// GrantType, ClientID, Scope and Resource are the OAuth parameters of
	// /authorize and /token requests, where present.
	GrantType string
	ClientID  string
	Scope     string
	Resource  string
	// ClientAuth is how a /token request authenticated the client:
	// client_secret_basic, client_secret_post or none.
	ClientAuth string
	// Bearer reports whether the request carried an Authorization header.
	Bearer bool
	// Status is the HTTP status of the answer.
	Status int
	// RPCMethod is the JSON-RPC method of a POST to /mcp.
	RPCMethod string
}

// String is the request as one line of the -log file.
func (r Request) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %d", r.Method, r.Path, r.Status)
	add := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, " %s=%s", k, v)
		}
	}
	add("grant_type", r.GrantType)
	add("client_id", r.ClientID)
	add("client_auth", r.ClientAuth)
	add("scope", r.Scope)
	add("resource", r.Resource)
	add("rpc", r.RPCMethod)
	if r.Bearer {
		b.WriteString(" bearer")
	}
	return b.String()
}

type client struct {
	secret       string // "" for a public client
	authMethod   string
	redirectURIs []string
}

type grant struct {
	clientID    string
	redirectURI string
	challenge   string
	scope       string
	resource    string
	expires     time.Time
}

type token struct {
	clientID string
	scope    string
	resource string
	expires  time.Time
}

// Server is the authorization server and protected resource. Its methods
// are safe for concurrent use.
type Server struct {
	cfg     Config
	handler http.Handler

	mu       sync.Mutex
	origin   string // set by Serve or SetOrigin
	clients  map[string]*client
	codes    map[string]*grant
	access   map[string]*token
	refresh  map[string]*token
	requests []Request
	onRecord func(Request)
	moved    bool // see MoveIssuer
}

// New returns a server configured by cfg. Call [Server.SetOrigin] before
// the first request ([StartTest] does).
func New(cfg Config) *Server {
	if cfg.TokenLifetime == 0 {
		cfg.TokenLifetime = time.Hour
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Server{
		cfg:     cfg,
		clients: map[string]*client{},
		codes:   map[string]*grant{},
		access:  map[string]*token{},
		refresh: map[string]*token{},
	}
	for id, secret := range cfg.Clients {
		method := "client_secret_basic"
		if secret == "" {
			method = "none"
		}
		s.clients[id] = &client{secret: secret, authMethod: method}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", s.resourceMetadata)
	mux.HandleFunc("GET /.well-known/oauth-protected-resource", s.resourceMetadata)
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", s.serverMetadata)
	mux.HandleFunc("GET /.well-known/oauth-authorization-server/v2", s.movedMetadata)
	mux.HandleFunc("POST /v2/token", s.movedToken)
	mux.HandleFunc("POST /register", s.register)
	mux.HandleFunc("GET /authorize", s.authorize)
	mux.HandleFunc("POST /token", s.token)
	mux.HandleFunc("/mcp", s.mcp)
	s.handler = mux
	return s
}

// SetOrigin tells the server its own origin (scheme, host and port, e.g.
// http://127.0.0.1:8080), from which it names its endpoints.
func (s *Server) SetOrigin(origin string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.origin = strings.TrimSuffix(origin, "/")
}

// OnRecord sets a function called with every recorded request, after it
// is answered (the -log file of [Main]).
func (s *Server) OnRecord(f func(Request)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onRecord = f
}

// StartTest serves a new server configured by cfg with httptest on
// 127.0.0.1 until the test ends.
func StartTest(tb testing.TB, cfg Config) *Server {
	tb.Helper()
	s := New(cfg)
	ts := httptest.NewServer(s)
	tb.Cleanup(ts.Close)
	s.SetOrigin(ts.URL)
	return s
}

// URL is the MCP endpoint's URL.
func (s *Server) URL() string { return s.base() + "/mcp" }

func (s *Server) base() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.origin
}

func (s *Server) issuer() string {
	if s.cfg.Issuer != "" {
		return s.cfg.Issuer
	}
	if s.isMoved() {
		return s.base() + "/v2"
	}
	return s.base()
}

func (s *Server) isMoved() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.moved
}

// MoveIssuer makes the server another authorization server on the same
// origin, as an operator's migration (or an attacker who controls the
// resource) would: the issuer becomes ORIGIN/v2, its metadata is at
// /.well-known/oauth-authorization-server/v2 with the token endpoint
// /v2/token, the resource metadata names it, and every access token
// issued so far expires. The old metadata keeps describing the old
// issuer. A client that sends the first issuer's client secret to the
// new one shows up in the log as a POST /v2/token.
func (s *Server) MoveIssuer() {
	s.mu.Lock()
	s.moved = true
	s.mu.Unlock()
	s.ExpireAccessTokens()
}

// movedMetadata is the metadata of the issuer MoveIssuer makes; 404 until
// then.
func (s *Server) movedMetadata(w http.ResponseWriter, r *http.Request) {
	if !s.isMoved() {
		http.NotFound(w, r)
		return
	}
	s.serverMetadata(w, r)
}

func (s *Server) movedToken(w http.ResponseWriter, r *http.Request) {
	if !s.isMoved() {
		http.NotFound(w, r)
		return
	}
	s.token(w, r)
}

// Requests returns a copy of what the server has recorded so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// ExpireAccessTokens makes every access token issued so far invalid, as if
// its lifetime had passed: the next use gets 401 invalid_token. Refresh
// tokens stay valid.
func (s *Server) ExpireAccessTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	past := s.cfg.Now().Add(-time.Second)
	for _, t := range s.access {
		t.expires = past
	}
}

// ServeHTTP answers one request and records it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := &recorder{ResponseWriter: w, status: http.StatusOK}
	req := Request{Method: r.Method, Path: r.URL.Path, Bearer: r.Header.Get("Authorization") != ""}
	s.handler.ServeHTTP(rec, r.WithContext(withRequest(r.Context(), &req)))
	req.Status = rec.status
	s.mu.Lock()
	s.requests = append(s.requests, req)
	f := s.onRecord
	s.mu.Unlock()
	if f != nil {
		f(req)
	}
}

type recorder struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (r *recorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	r.wrote = true
	return r.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the real writer.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Flush lets streamed MCP responses (SSE) through.
func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *Server) resourceMetadata(w http.ResponseWriter, r *http.Request) {
	doc := map[string]any{
		"resource":                 s.URL(),
		"authorization_servers":    []string{s.resourceIssuer()},
		"bearer_methods_supported": []string{"header"},
	}
	if len(s.cfg.ScopesSupported) > 0 {
		doc["scopes_supported"] = s.cfg.ScopesSupported
	}
	writeJSON(w, http.StatusOK, doc)
}

// resourceIssuer is the authorization server the resource metadata names.
func (s *Server) resourceIssuer() string {
	if s.cfg.AuthorizationServer != "" {
		return s.cfg.AuthorizationServer
	}
	return s.issuer()
}

func (s *Server) serverMetadata(w http.ResponseWriter, r *http.Request) {
	base := s.base()
	issuer, tokenEndpoint := s.issuer(), base+"/token"
	if s.isMoved() && r.URL.Path == "/.well-known/oauth-authorization-server" && s.cfg.Issuer == "" {
		issuer = base // the old issuer's document stays what it was
	}
	if issuer == base+"/v2" {
		tokenEndpoint = base + "/v2/token"
	}
	doc := map[string]any{
		"issuer":                                         issuer,
		"authorization_endpoint":                         base + "/authorize",
		"token_endpoint":                                 tokenEndpoint,
		"response_types_supported":                       []string{"code"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token", "client_credentials"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{"client_secret_basic", "client_secret_post", "none"},
		"authorization_response_iss_parameter_supported": !s.cfg.OmitIss,
	}
	if !s.cfg.NoRegistration {
		doc["registration_endpoint"] = base + "/register"
	}
	if len(s.cfg.ScopesSupported) > 0 {
		doc["scopes_supported"] = s.cfg.ScopesSupported
	}
	writeJSON(w, http.StatusOK, doc)
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	var meta struct {
		RedirectURIs            []string `json:"redirect_uris"`
		TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
		GrantTypes              []string `json:"grant_types"`
		ClientName              string   `json:"client_name"`
		Scope                   string   `json:"scope"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&meta); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata", "the body is not a JSON object: "+err.Error())
		return
	}
	for _, u := range meta.RedirectURIs {
		if !loopbackURI(u) {
			oauthError(w, http.StatusBadRequest, "invalid_redirect_uri", "redirect URIs must be http on a loopback address: "+u)
			return
		}
	}
	method := meta.TokenEndpointAuthMethod
	if method == "" {
		method = "client_secret_basic"
	}
	if method != "none" && method != "client_secret_basic" && method != "client_secret_post" {
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata", "unsupported token_endpoint_auth_method "+method)
		return
	}
	c := &client{authMethod: method, redirectURIs: meta.RedirectURIs}
	id := "client-" + random(8)
	if method != "none" {
		c.secret = ClientSecretPrefix + random(16)
	}
	s.mu.Lock()
	s.clients[id] = c
	s.mu.Unlock()
	requestOf(r).ClientID = id
	resp := map[string]any{
		"client_id":                  id,
		"client_id_issued_at":        s.cfg.Now().Unix(),
		"redirect_uris":              meta.RedirectURIs,
		"token_endpoint_auth_method": method,
		"grant_types":                meta.GrantTypes,
		"client_name":                meta.ClientName,
	}
	if c.secret != "" {
		resp["client_secret"] = c.secret
		resp["client_secret_expires_at"] = 0
	}
	writeJSON(w, http.StatusCreated, resp)
}

func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	req := requestOf(r)
	req.ClientID, req.Scope, req.Resource = q.Get("client_id"), q.Get("scope"), q.Get("resource")
	s.mu.Lock()
	c := s.clients[q.Get("client_id")]
	s.mu.Unlock()
	redirect := q.Get("redirect_uri")
	// Errors about the client or the redirect URI are shown, never
	// redirected (RFC 6749 §4.1.2.1).
	switch {
	case c == nil:
		http.Error(w, "unknown client_id", http.StatusBadRequest)
		return
	case !loopbackURI(redirect):
		http.Error(w, "redirect_uri must be http on a loopback address", http.StatusBadRequest)
		return
	case len(c.redirectURIs) > 0 && !slices.ContainsFunc(c.redirectURIs, func(u string) bool { return sameIgnoringPort(u, redirect) }):
		http.Error(w, "redirect_uri was not registered", http.StatusBadRequest)
		return
	}
	back, _ := url.Parse(redirect)
	v := back.Query()
	if st := q.Get("state"); st != "" {
		v.Set("state", st)
	}
	if !s.cfg.OmitIss {
		v.Set("iss", s.issuer())
	}
	fail := func(code, desc string) {
		v.Set("error", code)
		v.Set("error_description", desc)
		back.RawQuery = v.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	}
	switch {
	case q.Get("response_type") != "code":
		fail("unsupported_response_type", "only response_type=code is supported")
		return
	case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		fail("invalid_request", "PKCE with code_challenge_method=S256 is required")
		return
	case s.cfg.AuthorizeError != "":
		fail(s.cfg.AuthorizeError, "the test server was told to refuse")
		return
	}
	code := CodePrefix + random(16)
	s.mu.Lock()
	s.codes[code] = &grant{
		clientID:    q.Get("client_id"),
		redirectURI: redirect,
		challenge:   q.Get("code_challenge"),
		scope:       q.Get("scope"),
		resource:    q.Get("resource"),
		expires:     s.cfg.Now().Add(time.Minute),
	}
	s.mu.Unlock()
	v.Set("code", code)
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

// authenticate finds the client of a /token request and checks its
// credentials, as its registration says.
func (s *Server) authenticate(r *http.Request) (string, *client, string, bool) {
	id, secret, basic := r.BasicAuth()
	method := "client_secret_basic"
	if basic {
		var err1, err2 error
		id, err1 = url.QueryUnescape(id)
		secret, err2 = url.QueryUnescape(secret)
		if err1 != nil || err2 != nil {
			return "", nil, "", false
		}
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
		method = "client_secret_post"
		if secret == "" {
			method = "none"
		}
	}
	s.mu.Lock()
	c := s.clients[id]
	s.mu.Unlock()
	if c == nil {
		return id, nil, method, false
	}
	if c.secret == "" {
		return id, c, method, method == "none"
	}
	return id, c, method, method != "none" && subtle.ConstantTimeCompare([]byte(secret), []byte(c.secret)) == 1
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "the body is not a form: "+err.Error())
		return
	}
	req := requestOf(r)
	f := r.PostForm
	req.GrantType, req.Scope, req.Resource = f.Get("grant_type"), f.Get("scope"), f.Get("resource")
	id, c, method, ok := s.authenticate(r)
	req.ClientID, req.ClientAuth = id, method
	if !ok {
		w.Header().Set("WWW-Authenticate", `Basic realm="token"`)
		oauthError(w, http.StatusUnauthorized, "invalid_client", "client authentication failed")
		return
	}
	now := s.cfg.Now()
	switch f.Get("grant_type") {
	case "authorization_code":
		s.mu.Lock()
		g := s.codes[f.Get("code")]
		delete(s.codes, f.Get("code")) // one use, even when it fails
		s.mu.Unlock()
		switch {
		case g == nil || now.After(g.expires) || g.clientID != id:
			oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown, used or expired code")
			return
		case f.Get("redirect_uri") != g.redirectURI:
			oauthError(w, http.StatusBadRequest, "invalid_grant", "redirect_uri differs from the authorization request's")
			return
		case !pkceMatches(f.Get("code_verifier"), g.challenge):
			oauthError(w, http.StatusBadRequest, "invalid_grant", "code_verifier does not match the code_challenge")
			return
		case f.Get("resource") != "" && f.Get("resource") != g.resource:
			oauthError(w, http.StatusBadRequest, "invalid_target", "resource differs from the authorization request's")
			return
		}
		s.issue(w, id, g.scope, g.resource, !s.cfg.NoRefreshTokens)
	case "refresh_token":
		s.mu.Lock()
		t := s.refresh[f.Get("refresh_token")]
		delete(s.refresh, f.Get("refresh_token")) // rotation: the old one is spent
		s.mu.Unlock()
		if t == nil || t.clientID != id {
			oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown or used refresh token")
			return
		}
		scope := t.scope
		if want := f.Get("scope"); want != "" {
			if !subset(want, t.scope) {
				oauthError(w, http.StatusBadRequest, "invalid_scope", "a refresh cannot widen the scope")
				return
			}
			scope = want
		}
		s.issue(w, id, scope, t.resource, true)
	case "client_credentials":
		if c.secret == "" {
			oauthError(w, http.StatusUnauthorized, "invalid_client", "client_credentials needs a confidential client")
			return
		}
		s.issue(w, id, f.Get("scope"), f.Get("resource"), false)
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "unsupported grant_type "+f.Get("grant_type"))
	}
}

func (s *Server) issue(w http.ResponseWriter, clientID, scope, resource string, withRefresh bool) {
	at := AccessTokenPrefix + random(16)
	exp := s.cfg.Now().Add(s.cfg.TokenLifetime)
	resp := map[string]any{
		"access_token": at,
		"token_type":   "Bearer",
		"expires_in":   int64((s.cfg.TokenLifetime + time.Second - 1) / time.Second),
	}
	if scope != "" {
		resp["scope"] = scope
	}
	s.mu.Lock()
	s.access[at] = &token{clientID: clientID, scope: scope, resource: resource, expires: exp}
	if withRefresh {
		rt := RefreshTokenPrefix + random(16)
		s.refresh[rt] = &token{clientID: clientID, scope: scope, resource: resource}
		resp["refresh_token"] = rt
	}
	s.mu.Unlock()
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, resp)
}

func (s *Server) mcp(w http.ResponseWriter, r *http.Request) {
	req := requestOf(r)
	var body []byte
	if r.Method == http.MethodPost {
		var err error
		body, err = io.ReadAll(io.LimitReader(r.Body, 16<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var msg struct {
			Method string `json:"method"`
		}
		if json.Unmarshal(body, &msg) == nil {
			req.RPCMethod = msg.Method
		}
		r.Body = io.NopCloser(strings.NewReader(string(body)))
	}
	prm := s.base() + "/.well-known/oauth-protected-resource/mcp"
	challenge := func(status int, errCode, desc, scope string) {
		v := fmt.Sprintf(`Bearer resource_metadata=%q`, prm)
		if errCode != "" {
			v += fmt.Sprintf(`, error=%q, error_description=%q`, errCode, desc)
		}
		if scope != "" {
			v += fmt.Sprintf(`, scope=%q`, scope)
		}
		w.Header().Set("WWW-Authenticate", v)
		http.Error(w, http.StatusText(status), status)
	}
	raw, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		challenge(http.StatusUnauthorized, "", "", s.cfg.ChallengeScope)
		return
	}
	s.mu.Lock()
	t := s.access[raw]
	s.mu.Unlock()
	switch {
	case t == nil:
		challenge(http.StatusUnauthorized, "invalid_token", "unknown token", s.cfg.ChallengeScope)
		return
	case !s.cfg.Now().Before(t.expires):
		challenge(http.StatusUnauthorized, "invalid_token", "the token expired", s.cfg.ChallengeScope)
		return
	case t.resource != "" && t.resource != s.URL():
		challenge(http.StatusUnauthorized, "invalid_token", "the token was issued for another resource", s.cfg.ChallengeScope)
		return
	case s.cfg.ToolScope != "" && req.RPCMethod == "tools/call" && !slices.Contains(strings.Fields(t.scope), s.cfg.ToolScope):
		want := strings.TrimSpace(t.scope + " " + s.cfg.ToolScope)
		challenge(http.StatusForbidden, "insufficient_scope", "tools/call needs scope "+s.cfg.ToolScope, want)
		return
	}
	if s.cfg.MCP == nil {
		writeJSON(w, http.StatusOK, map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32601, "message": "no MCP handler"}})
		return
	}
	s.cfg.MCP.ServeHTTP(w, r)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func oauthError(w http.ResponseWriter, status int, code, desc string) {
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

func pkceMatches(verifier, challenge string) bool {
	if len(verifier) < 43 || len(verifier) > 128 {
		return false
	}
	sum := sha256.Sum256([]byte(verifier))
	return subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(challenge)) == 1
}

// loopbackURI reports whether u is an http URL on a loopback address, the
// only redirect URIs a native client may use here (RFC 8252 §7.3).
func loopbackURI(u string) bool {
	p, err := url.Parse(u)
	if err != nil || p.Scheme != "http" {
		return false
	}
	if p.Hostname() == "localhost" {
		return true
	}
	ip := net.ParseIP(p.Hostname())
	return ip != nil && ip.IsLoopback()
}

// sameIgnoringPort compares two loopback redirect URIs as RFC 8252 §7.3
// says: any port matches.
func sameIgnoringPort(a, b string) bool {
	pa, err1 := url.Parse(a)
	pb, err2 := url.Parse(b)
	return err1 == nil && err2 == nil && pa.Scheme == pb.Scheme && pa.Hostname() == pb.Hostname() && pa.Path == pb.Path
}

func subset(scope, of string) bool {
	have := strings.Fields(of)
	for _, s := range strings.Fields(scope) {
		if !slices.Contains(have, s) {
			return false
		}
	}
	return true
}

func random(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("authserver: no randomness: %v", err)) // crypto/rand does not fail on Linux
	}
	return hex.EncodeToString(b)
}

// requestKey finds, in a request's context, the record its handler fills in.
type requestKey struct{}

func withRequest(ctx context.Context, req *Request) context.Context {
	return context.WithValue(ctx, requestKey{}, req)
}

// requestOf is the record of r; a request that did not come through
// ServeHTTP gets a throwaway one.
func requestOf(r *http.Request) *Request {
	if req, ok := r.Context().Value(requestKey{}).(*Request); ok {
		return req
	}
	return &Request{}
}
