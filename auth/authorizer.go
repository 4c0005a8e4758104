package auth

import (
	"bytes"
	"context"
	"crypto"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// Events an [Authorizer] reports through [Options].OnEvent. Details are
// URLs, issuers and scope lists, never a token or a secret.
const (
	EventAuthorizationRequired = "authorization required"
	EventServerChanged         = "authorization server changed"
	EventTokenObtained         = "token obtained"
	EventTokenRefreshed        = "token refreshed"
	EventRefreshFailed         = "token refresh failed"
	EventTokenStored           = "token stored"
	EventStoreFailed           = "token store failed"
	EventStepUp                = "step-up"
	EventDPoPNonce             = "dpop nonce"
)

// DefaultMaxStepUps is how many step-up authorizations (after a 403
// insufficient_scope) one request may cause before the Authorizer gives
// up: with the first authorization, at most three per request.
const DefaultMaxStepUps = 2

// DPoP modes of [Options].DPoP (--dpop).
const (
	// DPoPAuto binds tokens with DPoP when the authorization server
	// supports it and the resource asks for it (a DPoP challenge, or
	// DPoP in its metadata).
	DPoPAuto = "auto"
	// DPoPAlways binds every token with DPoP.
	DPoPAlways = "always"
	// DPoPNever never uses DPoP.
	DPoPNever = "never"
)

// Options configure an [Authorizer]. ServerURL is required.
type Options struct {
	// Base sends the requests to the server's origin (nil:
	// http.DefaultTransport): the resource's, and its metadata. It carries
	// no credentials of its own.
	Base http.RoundTripper
	// AuthServerBase sends the requests to every other origin: the
	// authorization server's metadata, registration and token endpoints,
	// the identity provider's (nil: Base). TLS settings given for the
	// server (a private CA, no verification) belong to Base only, so that
	// they never decide whether a client secret reaches a server on
	// another origin.
	AuthServerBase http.RoundTripper
	// ServerURL is the MCP server's URL (--url). Tokens are sent only to
	// its origin, to paths under its directory.
	ServerURL string
	// Store keeps tokens and registrations across runs (nil: in memory
	// only).
	Store *Store
	// Grant is how a token is obtained: [GrantAuthorizationCode] (the
	// default), [GrantClientCredentials], [GrantJWTBearer] or
	// [GrantTokenExchange].
	Grant string
	// Client is what the user says about the client (--client-id,
	// --client-secret, --client-key, --client-metadata-url).
	Client ClientConfig
	// Scopes are requested in addition to those the scope selection
	// strategy chooses (--scope).
	Scopes []string
	// DPoP is [DPoPAuto] (""), [DPoPAlways] or [DPoPNever].
	DPoP string
	// Assertion is the JWT for [GrantJWTBearer] (--assertion).
	Assertion string
	// IDToken, IDPTokenEndpoint, IDPClientID and IDPClientSecret are the
	// identity provider side of [GrantTokenExchange] (--id-token,
	// --idp-token-endpoint, --idp-client-id).
	IDToken          string
	IDPTokenEndpoint string
	IDPClientID      string
	IDPClientSecret  string

	// Interactive says a user can complete a browser sign-in here (a
	// terminal, or $BROWSER, and not CI). When false and only a browser
	// could give a token, the request fails at once with an [*Error]
	// whose cause is [ErrInteractionRequired].
	Interactive bool
	// Open opens the authorization URL (nil: only print it).
	Open func(url string) error
	// Prompt receives the lines for the user (the URL to open).
	Prompt io.Writer
	// Paste, if set, is read for a pasted redirect URL (--no-browser).
	Paste io.Reader
	// Hint is the advice an [*Error] for a missing interaction carries,
	// e.g. "run: mcpctl auth login --url URL".
	Hint string
	// IssuerHint is the advice an [*Error] carries when the server names
	// another authorization server than the one a pre-registered client's
	// credentials are pinned to, e.g. "run: mcpctl auth logout -s NAME, or
	// pass --issuer URL".
	IssuerHint string

	// Secret, if set, is given every secret as soon as it is known
	// (tokens, client secrets, codes, assertions), so that the caller's
	// redactor hides them.
	Secret func(string)
	// OnEvent, if set, is told about the flow's steps (the Event
	// constants, and the discovery events of [Fetcher]). Never a secret.
	OnEvent func(event string, detail any)
	// MaxStepUps overrides [DefaultMaxStepUps].
	MaxStepUps int
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Authorizer is an http.RoundTripper that authorizes requests to one MCP
// server: it adds the stored token (Authorization: Bearer, or DPoP with a
// fresh proof) to requests for the server's origin and path, refreshing an
// expired token first; on 401 it runs the authorization flow and retries
// the request once; on 403 insufficient_scope it asks for the union of
// the scopes it had and those challenged, a bounded number of times.
// Requests to any other origin pass through untouched. Safe for
// concurrent use; one authorization flow runs at a time.
type Authorizer struct {
	o        Options
	fl       flow
	base     http.RoundTripper
	server   *url.URL
	resource string // the store's key: the canonical server URI
	fetcher  *Fetcher

	sem chan struct{} // one flow at a time, acquired with a context

	mu     sync.Mutex
	loaded bool
	tok    *Token
	dpop   prover
	asm    *ServerMetadata
	prm    *ResourceMetadata
	scopes []string // what was requested last
}

// prover is what the Authorizer needs of a [*DPoP].
type prover interface {
	Proof(method, target, accessToken string) (string, error)
	SetNonce(target, nonce string)
	MarshalKey() []byte
}

// redirector is what the Authorizer needs of a [*Loopback].
type redirector interface {
	RedirectURI() string
	Close() error
}

// flow holds the steps the Authorizer builds on, the package's functions
// by default; tests replace them.
type flow struct {
	parseChallenges   func(values []string) []Challenge
	canonicalResource func(serverURL string) (string, error)
	resourceMetadata  func(ctx context.Context, f *Fetcher, ch *Challenge) (*ResourceMetadata, error)
	serverMetadata    func(ctx context.Context, f *Fetcher, issuer string) (*ServerMetadata, error)
	legacyMetadata    func(ctx context.Context, f *Fetcher) (*ServerMetadata, error)
	register          func(ctx context.Context, f *Fetcher, asm *ServerMetadata, cc ClientConfig) (*Registration, error)
	selectScopes      func(ch *Challenge, prm *ResourceMetadata, asm *ServerMetadata) []string
	listen            func(port int) (redirector, error)
	authorize         func(ctx context.Context, r AuthCodeRequest, lb redirector) (code, verifier string, err error)
	parseKey          func(pemBytes []byte, alg string) (crypto.Signer, string, error)
	exchange          func(ctx context.Context, tc *TokenClient, code, verifier, redirectURI string) (*Token, error)
	refresh           func(ctx context.Context, tc *TokenClient, refreshToken string, scopes []string) (*Token, error)
	clientCredentials func(ctx context.Context, tc *TokenClient, scopes []string) (*Token, error)
	jwtBearer         func(ctx context.Context, tc *TokenClient, assertion string, scopes []string) (*Token, error)
	exchangeIDJAG     func(ctx context.Context, r IDJAGRequest) (string, error)
	newDPoP           func(supported []string) (prover, error)
	loadDPoP          func(jwk []byte) (prover, error)
}

// realFlow is the flow of the package's own functions.
func realFlow() flow {
	return flow{
		parseChallenges:   ParseChallenges,
		canonicalResource: CanonicalResource,
		resourceMetadata: func(ctx context.Context, f *Fetcher, ch *Challenge) (*ResourceMetadata, error) {
			return f.ResourceMetadata(ctx, ch)
		},
		serverMetadata: func(ctx context.Context, f *Fetcher, issuer string) (*ServerMetadata, error) {
			return f.ServerMetadata(ctx, issuer)
		},
		legacyMetadata: func(ctx context.Context, f *Fetcher) (*ServerMetadata, error) { return f.LegacyServerMetadata(ctx) },
		register: func(ctx context.Context, f *Fetcher, asm *ServerMetadata, cc ClientConfig) (*Registration, error) {
			return f.Register(ctx, asm, cc)
		},
		selectScopes: SelectScopes,
		listen: func(port int) (redirector, error) {
			lb, err := ListenLoopback(port)
			if err != nil {
				return nil, err
			}
			return lb, nil
		},
		authorize: func(ctx context.Context, r AuthCodeRequest, lb redirector) (string, string, error) {
			r.Redirect, _ = lb.(*Loopback)
			return AuthorizeCode(ctx, r)
		},
		parseKey: ParsePrivateKey,
		exchange: func(ctx context.Context, tc *TokenClient, code, verifier, redirectURI string) (*Token, error) {
			return tc.Exchange(ctx, code, verifier, redirectURI)
		},
		refresh: func(ctx context.Context, tc *TokenClient, rt string, scopes []string) (*Token, error) {
			return tc.Refresh(ctx, rt, scopes)
		},
		clientCredentials: func(ctx context.Context, tc *TokenClient, scopes []string) (*Token, error) {
			return tc.ClientCredentials(ctx, scopes)
		},
		jwtBearer: func(ctx context.Context, tc *TokenClient, assertion string, scopes []string) (*Token, error) {
			return tc.JWTBearer(ctx, assertion, scopes)
		},
		exchangeIDJAG: ExchangeIDJAG,
		newDPoP: func(supported []string) (prover, error) {
			d, err := NewDPoP(supported)
			if err != nil {
				return nil, err
			}
			return d, nil
		},
		loadDPoP: func(jwk []byte) (prover, error) {
			d, err := LoadDPoP(jwk)
			if err != nil {
				return nil, err
			}
			return d, nil
		},
	}
}

// NewAuthorizer returns an Authorizer for o.ServerURL.
func NewAuthorizer(o Options) *Authorizer { return newAuthorizer(o, realFlow()) }

func newAuthorizer(o Options, fl flow) *Authorizer {
	if o.Grant == "" {
		o.Grant = GrantAuthorizationCode
	}
	if o.DPoP == "" {
		o.DPoP = DPoPAuto
	}
	if o.MaxStepUps <= 0 {
		o.MaxStepUps = DefaultMaxStepUps
	}
	if o.Client.ClientName == "" {
		o.Client.ClientName = "mcpctl"
	}
	base := o.Base
	if base == nil {
		base = http.DefaultTransport
	}
	a := &Authorizer{o: o, fl: fl, sem: make(chan struct{}, 1)}
	a.server, _ = url.Parse(o.ServerURL)
	if a.server == nil {
		a.server = &url.URL{}
	}
	a.base = base
	if o.AuthServerBase != nil {
		a.base = &originRouter{server: a.server, same: base, other: o.AuthServerBase}
	}
	a.resource = o.ServerURL
	if r, err := fl.canonicalResource(o.ServerURL); err == nil && r != "" {
		a.resource = r
	}
	// Metadata and token requests go out without the resource's
	// credentials: through Base, not through the Authorizer.
	a.fetcher = &Fetcher{HTTP: &http.Client{Transport: a.base}, ServerURL: o.ServerURL, OnEvent: o.OnEvent}
	for _, s := range []string{o.Client.ClientSecret, o.Assertion, o.IDToken, o.IDPClientSecret} {
		a.secret(s)
	}
	return a
}

// Resource is the canonical URI of the server, under which its tokens are
// stored.
func (a *Authorizer) Resource() string { return a.resource }

func (a *Authorizer) now() time.Time {
	if a.o.Now != nil {
		return a.o.Now()
	}
	return time.Now()
}

func (a *Authorizer) secret(s string) {
	if s != "" && a.o.Secret != nil {
		a.o.Secret(s)
	}
}

func (a *Authorizer) event(name string, detail any) {
	if a.o.OnEvent != nil {
		a.o.OnEvent(name, detail)
	}
}

func (a *Authorizer) tokenSecrets(t *Token) {
	if t != nil {
		a.secret(t.AccessToken)
		a.secret(t.RefreshToken)
	}
}

// forResource reports whether a request to u may carry the server's
// token: the same origin (scheme, host, port) as the server URL and a path
// under the server URL's directory (so a legacy SSE message endpoint next
// to the SSE endpoint qualifies, another tenant's path on a shared host
// does not).
func (a *Authorizer) forResource(u *url.URL) bool {
	s := a.server
	if !sameOrigin(u, s) {
		return false
	}
	dir := s.Path
	if i := strings.LastIndex(dir, "/"); i >= 0 {
		dir = dir[:i+1]
	} else {
		dir = "/"
	}
	p := u.Path
	if p == "" {
		p = "/"
	}
	return strings.HasPrefix(p, dir) || p+"/" == dir
}

// sameOrigin reports whether u has the origin (scheme, host, port) of s.
func sameOrigin(u, s *url.URL) bool {
	return u != nil && s.Host != "" && strings.EqualFold(u.Scheme, s.Scheme) &&
		strings.EqualFold(u.Hostname(), s.Hostname()) && portOf(u) == portOf(s)
}

// originRouter sends requests to the server's origin through same and
// all others through other (see [Options].AuthServerBase).
type originRouter struct {
	server      *url.URL
	same, other http.RoundTripper
}

func (r *originRouter) RoundTrip(req *http.Request) (*http.Response, error) {
	if sameOrigin(req.URL, r.server) {
		return r.same.RoundTrip(req)
	}
	return r.other.RoundTrip(req)
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return "443"
	case "http":
		return "80"
	}
	return ""
}

// attempt is the state of one request's round trips.
type attempt struct {
	fresh   bool // the token was obtained for this request
	stepUps int
	nonce   bool // a DPoP nonce retry was made
}

// RoundTrip implements http.RoundTripper.
func (a *Authorizer) RoundTrip(req *http.Request) (*http.Response, error) {
	if !a.forResource(req.URL) {
		return a.base.RoundTrip(req)
	}
	getBody := req.GetBody
	if req.Body != nil && req.Body != http.NoBody && getBody == nil {
		// The body is needed again if the first answer is a 401.
		data, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		getBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	} else if req.Body != nil && req.Body != http.NoBody {
		// The caller's body is replaced by GetBody's copies.
		req.Body.Close()
	}
	ctx := req.Context()
	tok, p := a.current(ctx)
	var at attempt
	for {
		r, err := a.prepare(req, getBody, tok, p)
		if err != nil {
			return nil, err
		}
		resp, err := a.base.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		if n := resp.Header.Get("DPoP-Nonce"); n != "" && p != nil {
			p.SetNonce(req.URL.String(), n)
		}
		switch resp.StatusCode {
		case http.StatusUnauthorized:
			ch, dpopOffered := a.challenge(resp)
			if p != nil && ch != nil && ch.Param("error") == "use_dpop_nonce" && resp.Header.Get("DPoP-Nonce") != "" && !at.nonce {
				at.nonce = true
				a.event(EventDPoPNonce, req.URL.Host)
				discard(resp)
				continue
			}
			discard(resp)
			if at.fresh {
				return nil, &Error{Op: "using the new token", Err: fmt.Errorf("%s answered 401 to a token just issued", a.server.Redacted()),
					Hint: "the server does not accept the authorization server's tokens; check --url, or try --dpop never/always"}
			}
			tok, p, err = a.authorize(ctx, ch, dpopOffered, tok, nil)
			if err != nil {
				return nil, err
			}
			at.fresh = true
		case http.StatusForbidden:
			ch, dpopOffered := a.challenge(resp)
			if ch == nil || ch.Param("error") != "insufficient_scope" {
				return resp, nil
			}
			discard(resp)
			challenged := strings.Fields(ch.Param("scope"))
			if at.stepUps >= a.o.MaxStepUps {
				return nil, &Error{Op: "step-up authorization",
					Err:  fmt.Errorf("the server still answers 403 insufficient_scope (scope %q) after %d re-authorizations", strings.Join(challenged, " "), at.stepUps),
					Hint: "the account or client may not be allowed those scopes"}
			}
			at.stepUps++
			want := union(a.lastScopes(tok), challenged)
			a.event(EventStepUp, strings.Join(want, " "))
			tok, p, err = a.authorize(ctx, ch, dpopOffered, tok, want)
			if err != nil {
				return nil, err
			}
			at.fresh = true
		default:
			return resp, nil
		}
	}
}

// discard drains a little of resp's body, so the connection can be
// reused, and closes it.
func discard(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// prepare clones req with a fresh body and the token.
func (a *Authorizer) prepare(req *http.Request, getBody func() (io.ReadCloser, error), tok *Token, p prover) (*http.Request, error) {
	r := req.Clone(req.Context())
	if getBody != nil {
		body, err := getBody()
		if err != nil {
			return nil, err
		}
		r.Body, r.GetBody = body, getBody
	}
	if tok == nil {
		return r, nil
	}
	if p != nil && strings.EqualFold(tok.TokenType, "DPoP") {
		proof, err := p.Proof(r.Method, r.URL.String(), tok.AccessToken)
		if err != nil {
			return nil, &Error{Op: "making a DPoP proof", Err: err}
		}
		r.Header.Set("Authorization", "DPoP "+tok.AccessToken)
		r.Header.Set("DPoP", proof)
		return r, nil
	}
	r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	return r, nil
}

// challenge picks the Bearer or DPoP challenge of a 401 or 403, and says
// whether a DPoP one was offered.
func (a *Authorizer) challenge(resp *http.Response) (*Challenge, bool) {
	var picked *Challenge
	dpop := false
	for _, c := range a.fl.parseChallenges(resp.Header.Values("WWW-Authenticate")) {
		scheme := strings.ToLower(c.Scheme)
		if scheme != "bearer" && scheme != "dpop" {
			continue
		}
		if scheme == "dpop" {
			dpop = true
		}
		if picked == nil || picked.Param("resource_metadata") == "" && picked.Param("error") == "" && (c.Param("resource_metadata") != "" || c.Param("error") != "") {
			c := c
			picked = &c
		}
	}
	return picked, dpop
}

// lastScopes are the scopes the current token was asked for or granted.
func (a *Authorizer) lastScopes(tok *Token) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := slices.Clone(a.scopes)
	if tok != nil {
		s = union(s, strings.Fields(tok.Scope))
	}
	return s
}

// union returns the scopes of a and then those of b not in a.
func union(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	for _, s := range slices.Concat(a, b) {
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// lock takes the flow lock, or gives up when ctx ends.
func (a *Authorizer) lock(ctx context.Context) error {
	select {
	case a.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (a *Authorizer) unlock() { <-a.sem }

// load reads the stored token on first use.
func (a *Authorizer) load() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.loaded {
		return
	}
	a.loaded = true
	if a.o.Store == nil {
		return
	}
	issuer, err := a.o.Store.Issuer(a.resource)
	if err != nil || issuer == "" {
		return
	}
	tok, err := a.o.Store.Token(issuer, a.resource)
	if err != nil || tok == nil || !a.mine(tok) {
		return
	}
	a.tokenSecrets(tok)
	if len(tok.DPoPKey) > 0 {
		p, err := a.fl.loadDPoP(tok.DPoPKey)
		if err != nil {
			return // a token bound to a lost key is of no use
		}
		a.dpop = p
	}
	a.tok = tok
	a.scopes = strings.Fields(tok.Scope)
}

// state returns the token in use and its DPoP key.
func (a *Authorizer) state() (*Token, prover) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.tok, a.dpop
}

// current returns the token to send, refreshing an expired one; nil when
// there is none (the server's 401 starts the flow then).
func (a *Authorizer) current(ctx context.Context) (*Token, prover) {
	a.load()
	tok, p := a.state()
	if tok == nil || tok.Valid(a.now()) {
		return tok, p
	}
	if tok.RefreshToken == "" || a.lock(ctx) != nil {
		return nil, nil
	}
	defer a.unlock()
	if cur, cp := a.state(); cur != tok {
		// Another request refreshed it meanwhile.
		return cur, cp
	}
	if err := a.refreshLocked(ctx, tok, nil); err != nil {
		a.event(EventRefreshFailed, errorText(err))
		return nil, nil
	}
	return a.state()
}

// errorText is an error for an event: Error never holds secrets.
func errorText(err error) string { return err.Error() }

// refreshLocked refreshes tok using its issuer's metadata (fetched when not
// known yet). The flow lock is held.
func (a *Authorizer) refreshLocked(ctx context.Context, tok *Token, asm *ServerMetadata) error {
	if asm == nil {
		a.mu.Lock()
		asm = a.asm
		a.mu.Unlock()
	}
	if asm == nil || asm.Issuer != tok.Issuer {
		var err error
		if asm, err = a.fl.serverMetadata(ctx, a.fetcher, tok.Issuer); err != nil {
			return err
		}
	}
	reg, err := a.registration(ctx, asm, "")
	if err != nil {
		return err
	}
	_, p := a.state()
	tc, err := a.tokenClient(asm, reg, p)
	if err != nil {
		return err
	}
	nt, err := a.fl.refresh(ctx, tc, tok.RefreshToken, nil)
	if err != nil {
		return err
	}
	if nt.RefreshToken == "" {
		// The server keeps the old refresh token valid (no rotation).
		nt.RefreshToken = tok.RefreshToken
	}
	if nt.Scope == "" {
		nt.Scope = tok.Scope
	}
	a.keep(nt, asm, p, strings.Fields(tok.Scope))
	a.event(EventTokenRefreshed, asm.Issuer)
	return nil
}

// mine reports whether a stored token was obtained the way this command
// asks for one: with the same grant and, when a client ID is given, by
// that client. A token from a browser sign-in is not used by a command
// that names client credentials, nor the other way round.
func (a *Authorizer) mine(t *Token) bool {
	grant := t.Grant
	if grant == "" {
		grant = GrantAuthorizationCode
	}
	if grant != a.o.Grant {
		return false
	}
	return a.o.Client.ClientID == "" || t.ClientID == a.o.Client.ClientID
}

// keep makes t the token in use, and stores it.
func (a *Authorizer) keep(t *Token, asm *ServerMetadata, p prover, requested []string) {
	t.Issuer, t.Resource = asm.Issuer, a.resource
	t.Grant, t.ClientID = a.o.Grant, a.o.Client.ClientID
	if t.TokenType == "" {
		t.TokenType = "Bearer"
	}
	if !strings.EqualFold(t.TokenType, "DPoP") {
		p = nil
	}
	if p != nil {
		t.DPoPKey = p.MarshalKey()
	} else {
		t.DPoPKey = nil
	}
	if t.Scope == "" && len(requested) > 0 {
		t.Scope = strings.Join(requested, " ")
	}
	a.tokenSecrets(t)
	a.pin(asm.Issuer)
	a.mu.Lock()
	a.tok, a.dpop, a.asm = t, p, asm
	a.scopes = union(requested, strings.Fields(t.Scope))
	a.mu.Unlock()
	if a.o.Store != nil {
		if err := a.o.Store.SaveToken(t); err != nil {
			a.event(EventStoreFailed, errorText(err))
			return
		}
		a.event(EventTokenStored, asm.Issuer)
	}
}

// needsBrowser reports whether the grant needs a user at a browser.
func (a *Authorizer) needsBrowser() bool { return a.o.Grant == GrantAuthorizationCode }

// interactionRequired is the error for a flow that needs a browser where
// there is none.
func (a *Authorizer) interactionRequired() error {
	hint := a.o.Hint
	if hint == "" {
		hint = "sign in on a machine with a browser, or use --grant client-credentials with --client-id and --client-secret"
	}
	return &Error{Err: ErrInteractionRequired, Hint: hint}
}

// authorize obtains a new token after the server refused used (401 with
// challenge ch), or asked for more scopes (want, on a 403). It rediscovers
// the authorization server (it may have changed), then refreshes when it
// can and a refresh can help, else runs the grant.
func (a *Authorizer) authorize(ctx context.Context, ch *Challenge, dpopOffered bool, used *Token, want []string) (*Token, prover, error) {
	if err := a.lock(ctx); err != nil {
		return nil, nil, err
	}
	defer a.unlock()
	if cur, p := a.state(); cur != nil && cur != used && want == nil && cur.Valid(a.now()) {
		// Another request got a new token while this one waited.
		return cur, p, nil
	}
	stepUp := want != nil
	a.event(EventAuthorizationRequired, a.server.Redacted())
	if used == nil {
		// Nothing was sent: an expired token whose refresh failed before
		// discovery may refresh once the metadata is known.
		if cur, _ := a.state(); cur != nil && cur.RefreshToken != "" {
			used = cur
		}
	}
	canRefresh := !stepUp && used != nil && used.RefreshToken != ""
	if a.needsBrowser() && !a.o.Interactive && !canRefresh {
		return nil, nil, a.interactionRequired()
	}
	prm, asm, err := a.discover(ctx, ch)
	if err != nil {
		return nil, nil, err
	}
	if err := a.checkIssuer(asm); err != nil {
		return nil, nil, err
	}
	if a.o.Store != nil {
		if old, _ := a.o.Store.Issuer(a.resource); old != "" && old != asm.Issuer {
			a.event(EventServerChanged, fmt.Sprintf("%s → %s", old, asm.Issuer))
			_, _ = a.o.Store.DeleteToken(old, a.resource)
		}
	}
	if used != nil && used.Issuer != "" && used.Issuer != asm.Issuer {
		a.event(EventServerChanged, fmt.Sprintf("%s → %s", used.Issuer, asm.Issuer))
		canRefresh = false
		a.mu.Lock()
		a.scopes = nil
		a.mu.Unlock()
	}
	if canRefresh {
		if err := a.refreshLocked(ctx, used, asm); err == nil {
			tok, p := a.state()
			return tok, p, nil
		} else if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		} else {
			a.event(EventRefreshFailed, errorText(err))
		}
		if a.needsBrowser() && !a.o.Interactive {
			return nil, nil, a.interactionRequired()
		}
	}
	scopes := union(a.fl.selectScopes(ch, prm, asm), a.o.Scopes)
	if stepUp {
		scopes = union(want, scopes)
	}
	tok, p, err := a.obtain(ctx, ch, dpopOffered, prm, asm, scopes)
	if err != nil {
		return nil, nil, err
	}
	a.keep(tok, asm, p, scopes)
	a.event(EventTokenObtained, asm.Issuer)
	tok, p = a.state()
	return tok, p, nil
}

// discover finds the resource's and its authorization server's metadata.
func (a *Authorizer) discover(ctx context.Context, ch *Challenge) (*ResourceMetadata, *ServerMetadata, error) {
	prm, err := a.fl.resourceMetadata(ctx, a.fetcher, ch)
	if err != nil {
		return nil, nil, a.wrap("discovering the protected resource metadata", err)
	}
	var asm *ServerMetadata
	if prm == nil {
		// A 2025-03-26 server: the authorization server is the server's
		// origin.
		if asm, err = a.fl.legacyMetadata(ctx, a.fetcher); err != nil {
			return nil, nil, a.wrap("discovering the authorization server", err)
		}
	} else {
		if len(prm.AuthorizationServers) == 0 {
			return nil, nil, &Error{Op: "discovering the authorization server", Err: fmt.Errorf("the resource metadata at %s names no authorization server", prm.URL)}
		}
		if asm, err = a.fl.serverMetadata(ctx, a.fetcher, prm.AuthorizationServers[0]); err != nil {
			return nil, nil, a.wrap("discovering the authorization server", err)
		}
	}
	if asm == nil || asm.Issuer == "" {
		return nil, nil, &Error{Op: "discovering the authorization server", Err: errors.New("no issuer in its metadata")}
	}
	a.mu.Lock()
	a.prm, a.asm = prm, asm
	a.mu.Unlock()
	return prm, asm, nil
}

// wrap makes err an [*Error] for op, unless it is one already or the
// context ended (a timeout or an interrupt stays what it is).
func (a *Authorizer) wrap(op string, err error) error {
	var ae *Error
	switch {
	case errors.As(err, &ae), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return &Error{Op: op, Err: err}
}

// registration returns the client's registration with asm: the
// pre-registered client, the stored one, or a new one (redirectURI is the
// loopback redirect for a new dynamic registration; "" for grants without
// a redirect).
func (a *Authorizer) registration(ctx context.Context, asm *ServerMetadata, redirectURI string) (*Registration, error) {
	cc := a.o.Client
	if cc.ClientID == "" && a.o.Store != nil {
		reg, err := a.o.Store.Registration(asm.Issuer)
		if err == nil && reg != nil && reg.Issuer == asm.Issuer && a.reusable(reg, redirectURI) {
			a.secret(reg.ClientSecret)
			return reg, nil
		}
	}
	if err := a.checkIssuer(asm); err != nil {
		return nil, err
	}
	if redirectURI != "" {
		cc.RedirectURIs = []string{redirectURI}
	}
	if len(cc.GrantTypes) == 0 {
		cc.GrantTypes = a.grantTypes()
	}
	reg, err := a.fl.register(ctx, a.fetcher, asm, cc)
	if err != nil {
		return nil, a.wrap("registering the client", err)
	}
	reg.Issuer = asm.Issuer
	a.secret(reg.ClientSecret)
	if reg.Kind != "pre-registered" {
		a.event(EventClientRegistered, asm.Issuer)
		if a.o.Store != nil {
			if err := a.o.Store.SaveRegistration(reg); err != nil {
				a.event(EventStoreFailed, errorText(err))
			}
		}
	}
	return reg, nil
}

// confidential reports whether the client is pre-registered with a
// secret or a key: credentials that must reach only their issuer.
func (a *Authorizer) confidential() bool {
	cc := a.o.Client
	return cc.ClientID != "" && (cc.ClientSecret != "" || len(cc.ClientKey) > 0)
}

// pinnedIssuer is the issuer a confidential client's credentials belong
// to, and where that was said: --issuer, else the store; "" when neither
// says (first use).
func (a *Authorizer) pinnedIssuer() (issuer, from string) {
	if !a.confidential() {
		return "", ""
	}
	if a.o.Client.Issuer != "" {
		return a.o.Client.Issuer, "as --issuer says"
	}
	if a.o.Store != nil {
		if iss, err := a.o.Store.ClientIssuer(a.o.Client.ClientID); err == nil && iss != "" {
			return iss, "where they were first used"
		}
	}
	return "", ""
}

// checkIssuer refuses an authorization server that is not the one the
// client's credentials are pinned to, before anything is sent to it: a
// server that starts naming another issuer does not get them, whoever
// runs that issuer. Issuers are compared as strings, like RFC 8414's
// issuer check.
func (a *Authorizer) checkIssuer(asm *ServerMetadata) error {
	pinned, from := a.pinnedIssuer()
	if pinned == "" || pinned == asm.Issuer {
		return nil
	}
	hint := a.o.IssuerHint
	if hint == "" {
		hint = "if the server moved on purpose, forget the old authorization server with mcpctl auth logout, or name the new one with --issuer URL"
	}
	return &Error{Op: "checking the authorization server",
		Err: fmt.Errorf("%s names the authorization server %s, but the credentials of client %q belong to %s (%s); they are not sent to another one",
			a.server.Redacted(), asm.Issuer, a.o.Client.ClientID, pinned, from),
		Hint: hint}
}

// pin remembers, on first success, the issuer a confidential client's
// credentials were used with.
func (a *Authorizer) pin(issuer string) {
	if !a.confidential() || a.o.Client.Issuer != "" || a.o.Store == nil {
		return
	}
	if err := a.o.Store.PinClient(a.o.Client.ClientID, issuer); err != nil {
		a.event(EventStoreFailed, errorText(err))
	}
}

// reusable reports whether a stored registration serves: its secret has
// not expired, and a dynamic one knows the redirect URI.
func (a *Authorizer) reusable(reg *Registration, redirectURI string) bool {
	if !reg.SecretExpiresAt.IsZero() && !a.now().Before(reg.SecretExpiresAt) {
		return false
	}
	if redirectURI == "" || reg.Kind != "dynamic" {
		return true
	}
	return slices.Contains(reg.RedirectURIs, redirectURI)
}

// grantTypes are the grant types to register for the grant in use.
func (a *Authorizer) grantTypes() []string {
	switch a.o.Grant {
	case GrantClientCredentials:
		return []string{"client_credentials"}
	case GrantJWTBearer, GrantTokenExchange:
		return []string{"urn:ietf:params:oauth:grant-type:jwt-bearer"}
	}
	return []string{"authorization_code", "refresh_token"}
}

// tokenClient builds the token endpoint's client for reg.
func (a *Authorizer) tokenClient(asm *ServerMetadata, reg *Registration, p prover) (*TokenClient, error) {
	resource := a.resource
	a.mu.Lock()
	if a.prm != nil && a.prm.Resource != "" {
		resource = a.prm.Resource
	}
	a.mu.Unlock()
	tc := &TokenClient{HTTP: a.fetcher.HTTP, Metadata: asm, Registration: reg, Resource: resource, Now: a.o.Now, KeyID: a.o.Client.KeyID}
	if d, ok := p.(*DPoP); ok {
		tc.DPoP = d
	}
	if len(a.o.Client.ClientKey) > 0 {
		key, alg, err := a.fl.parseKey(a.o.Client.ClientKey, "")
		if err != nil {
			return nil, &Error{Op: "reading --client-key", Err: err}
		}
		tc.Key, tc.Alg = key, alg
	}
	return tc, nil
}

// useDPoP decides whether to bind the new token with DPoP, and makes the
// key.
func (a *Authorizer) useDPoP(dpopOffered bool, prm *ResourceMetadata, asm *ServerMetadata) (prover, error) {
	algs := asm.DPoPSigningAlgValuesSupported
	switch a.o.DPoP {
	case DPoPNever:
		return nil, nil
	case DPoPAlways:
		if len(algs) == 0 {
			algs = []string{"ES256"}
		}
	default:
		asked := dpopOffered || prm != nil && (prm.DPoPBoundAccessTokensRequired || len(prm.DPoPSigningAlgValuesSupported) > 0)
		if !asked || len(algs) == 0 {
			return nil, nil
		}
	}
	p, err := a.fl.newDPoP(algs)
	if err != nil {
		return nil, &Error{Op: "making a DPoP key", Err: err}
	}
	return p, nil
}

// obtain runs the grant.
func (a *Authorizer) obtain(ctx context.Context, ch *Challenge, dpopOffered bool, prm *ResourceMetadata, asm *ServerMetadata, scopes []string) (*Token, prover, error) {
	p, err := a.useDPoP(dpopOffered, prm, asm)
	if err != nil {
		return nil, nil, err
	}
	var tok *Token
	switch a.o.Grant {
	case GrantAuthorizationCode:
		tok, err = a.authorizationCode(ctx, asm, scopes, p)
	case GrantClientCredentials, GrantJWTBearer, GrantTokenExchange:
		var reg *Registration
		if reg, err = a.registration(ctx, asm, ""); err != nil {
			return nil, nil, err
		}
		var tc *TokenClient
		if tc, err = a.tokenClient(asm, reg, p); err != nil {
			return nil, nil, err
		}
		switch a.o.Grant {
		case GrantClientCredentials:
			tok, err = a.fl.clientCredentials(ctx, tc, scopes)
		case GrantJWTBearer:
			if a.o.Assertion == "" {
				return nil, nil, &Error{Op: "the jwt-bearer grant", Err: errors.New("no assertion given"), Hint: "pass --assertion env:VAR or file:PATH"}
			}
			tok, err = a.fl.jwtBearer(ctx, tc, a.o.Assertion, scopes)
		default:
			var grant string
			if grant, err = a.idJAG(ctx, asm, tc.Resource, scopes); err != nil {
				return nil, nil, err
			}
			tok, err = a.fl.jwtBearer(ctx, tc, grant, scopes)
		}
	default:
		return nil, nil, &Error{Op: "choosing the grant", Err: fmt.Errorf("unknown grant %q", a.o.Grant),
			Hint: "use authorization-code, client-credentials, jwt-bearer or token-exchange"}
	}
	if err != nil {
		return nil, nil, a.wrap("token request", err)
	}
	if tok == nil || tok.AccessToken == "" {
		return nil, nil, &Error{Op: "token request", Err: errors.New("the token endpoint returned no access token")}
	}
	return tok, p, nil
}

// idJAG exchanges the identity provider's ID token for an ID-JAG.
func (a *Authorizer) idJAG(ctx context.Context, asm *ServerMetadata, resource string, scopes []string) (string, error) {
	if a.o.IDToken == "" || a.o.IDPTokenEndpoint == "" {
		return "", &Error{Op: "the token-exchange grant", Err: errors.New("no ID token or identity provider token endpoint given"),
			Hint: "pass --id-token env:VAR and --idp-token-endpoint URL"}
	}
	grant, err := a.fl.exchangeIDJAG(ctx, IDJAGRequest{HTTP: a.fetcher.HTTP, TokenEndpoint: a.o.IDPTokenEndpoint,
		ClientID: a.o.IDPClientID, ClientSecret: a.o.IDPClientSecret, IDToken: a.o.IDToken,
		Audience: asm.Issuer, Resource: resource, Scopes: scopes})
	if err != nil {
		return "", a.wrap("token exchange at the identity provider", err)
	}
	a.secret(grant)
	return grant, nil
}

// authorizationCode runs the browser flow: loopback, registration,
// authorization, code exchange.
func (a *Authorizer) authorizationCode(ctx context.Context, asm *ServerMetadata, scopes []string, p prover) (*Token, error) {
	if !a.o.Interactive {
		return nil, a.interactionRequired()
	}
	// A dynamic registration knows its redirect URI: listen on its port
	// again if it is free, so the registration serves once more.
	port := 0
	if a.o.Client.ClientID == "" && a.o.Store != nil {
		if reg, _ := a.o.Store.Registration(asm.Issuer); reg != nil {
			port = redirectPort(reg.RedirectURIs)
		}
	}
	lb, err := a.fl.listen(port)
	if err != nil && port != 0 {
		lb, err = a.fl.listen(0)
	}
	if err != nil {
		return nil, &Error{Op: "listening for the authorization redirect", Err: err}
	}
	defer lb.Close()
	reg, err := a.registration(ctx, asm, lb.RedirectURI())
	if err != nil {
		return nil, err
	}
	tc, err := a.tokenClient(asm, reg, p)
	if err != nil {
		return nil, err
	}
	code, verifier, err := a.fl.authorize(ctx, AuthCodeRequest{Metadata: asm, Registration: reg, Scopes: scopes,
		Resource: tc.Resource, Open: a.o.Open, Prompt: a.o.Prompt, Paste: a.o.Paste}, lb)
	if err != nil {
		return nil, a.wrap("authorization", err)
	}
	a.secret(code)
	a.secret(verifier)
	return a.fl.exchange(ctx, tc, code, verifier, lb.RedirectURI())
}

// redirectPort is the port of the first loopback redirect URI, or 0.
func redirectPort(uris []string) int {
	for _, s := range uris {
		u, err := url.Parse(s)
		if err != nil {
			continue
		}
		var port int
		if _, err := fmt.Sscanf(u.Port(), "%d", &port); err == nil && port > 0 {
			return port
		}
	}
	return 0
}

// probe sends an unauthenticated request to the server to learn its
// challenge: a JSON-RPC ping, which a protected server refuses with 401 and
// an unprotected one answers harmlessly. Nil when there was no challenge.
func (a *Authorizer) probe(ctx context.Context) (*Challenge, bool, error) {
	body := `{"jsonrpc":"2.0","id":0,"method":"ping"}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.o.ServerURL, strings.NewReader(body))
	if err != nil {
		return nil, false, &Error{Op: "reaching the server", Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := a.base.RoundTrip(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, false, ctx.Err()
		}
		return nil, false, &Error{Op: "reaching the server", Err: err}
	}
	defer discard(resp)
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		return nil, false, nil
	}
	ch, dpop := a.challenge(resp)
	return ch, dpop, nil
}

// Login runs the authorization flow now, whatever is stored, and stores
// the token: `mcpctl auth login`. The server is probed for its challenge
// (its scope and resource metadata URL) first.
func (a *Authorizer) Login(ctx context.Context) (*StoreEntry, error) {
	a.load()
	if a.needsBrowser() && !a.o.Interactive {
		return nil, a.interactionRequired()
	}
	ch, dpopOffered, err := a.probe(ctx)
	if err != nil {
		return nil, err
	}
	if err := a.lock(ctx); err != nil {
		return nil, err
	}
	defer a.unlock()
	prm, asm, err := a.discover(ctx, ch)
	if err != nil {
		return nil, err
	}
	if err := a.checkIssuer(asm); err != nil {
		return nil, err
	}
	if a.o.Store != nil {
		if old, _ := a.o.Store.Issuer(a.resource); old != "" && old != asm.Issuer {
			a.event(EventServerChanged, fmt.Sprintf("%s → %s", old, asm.Issuer))
			_, _ = a.o.Store.DeleteToken(old, a.resource)
		}
	}
	scopes := union(a.fl.selectScopes(ch, prm, asm), a.o.Scopes)
	tok, p, err := a.obtain(ctx, ch, dpopOffered, prm, asm, scopes)
	if err != nil {
		return nil, err
	}
	a.keep(tok, asm, p, scopes)
	a.event(EventTokenObtained, asm.Issuer)
	return a.Status()
}

// Token returns a valid access token for the server: the stored one,
// refreshed when it has expired, else a new one from the flow (which, for
// the browser flow, needs Interactive): `mcpctl auth token`. The token is
// given to Options.Secret too; the caller decides where it goes.
func (a *Authorizer) Token(ctx context.Context) (*Token, error) {
	if tok, _ := a.current(ctx); tok != nil && tok.Valid(a.now()) {
		return tok, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if _, err := a.Login(ctx); err != nil {
		return nil, err
	}
	tok, _ := a.state()
	return tok, nil
}

// Status describes the token for the server (no secrets): the one in use,
// else the stored one; nil when there is none.
func (a *Authorizer) Status() (*StoreEntry, error) {
	a.load()
	tok, _ := a.state()
	if tok == nil {
		return nil, nil
	}
	d := &storeData{}
	if a.o.Store != nil {
		if reg, err := a.o.Store.Registration(tok.Issuer); err == nil && reg != nil {
			d.Registrations = []Registration{*reg}
		}
	}
	e := d.entry(*tok)
	if e.Registration == "" && a.o.Client.ClientID != "" {
		e.Registration, e.ClientID = "pre-registered", a.o.Client.ClientID
	}
	return &e, nil
}

// Logout forgets the server's tokens, in memory and in the store, and
// reports whether there was one. Registrations are kept: they identify
// mcpctl, not the user. The issuer a pre-registered client (Client.ClientID)
// was pinned to is forgotten too: the next sign-in pins it again, to the
// issuer the server names then.
func (a *Authorizer) Logout() (bool, error) {
	a.load()
	a.mu.Lock()
	had := a.tok != nil
	a.tok, a.dpop, a.scopes = nil, nil, nil
	a.mu.Unlock()
	if a.o.Store == nil {
		return had, nil
	}
	removed, err := a.o.Store.DeleteToken("", a.resource)
	if err != nil {
		return had || removed, err
	}
	if id := a.o.Client.ClientID; id != "" {
		unpinned, err := a.o.Store.UnpinClient(id)
		return had || removed || unpinned, err
	}
	return had || removed, nil
}
