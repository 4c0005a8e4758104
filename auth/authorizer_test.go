package auth

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeAS stands in for discovery, registration and the token endpoint:
// the orchestration is tested here, the steps in their own files.
type fakeAS struct {
	t      *testing.T
	issuer string // what the resource metadata names (may change)

	mu         sync.Mutex
	n          int
	grants     []string   // "authorization_code", "refresh_token", "client_credentials", ...
	scopes     [][]string // the scopes of each grant
	registered []string   // issuers registered with
	prmFetches int
	expiresIn  time.Duration
	valid      map[string][]string // token → scopes the resource accepts
	pending    []string            // the scopes of the last authorization request
	authorized int                 // authorization requests (browser visits)
}

func newFakeAS(t *testing.T) *fakeAS {
	return &fakeAS{t: t, issuer: "https://as.example", valid: map[string][]string{}, expiresIn: time.Hour}
}

func (f *fakeAS) issue(grant string, scopes []string) *Token {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	f.grants = append(f.grants, grant)
	f.scopes = append(f.scopes, slices.Clone(scopes))
	at := fmt.Sprintf("access-token-%d", f.n)
	f.valid[at] = slices.Clone(scopes)
	return &Token{AccessToken: at, TokenType: "Bearer", RefreshToken: fmt.Sprintf("refresh-token-%d", f.n),
		Scope: strings.Join(scopes, " "), Expiry: time.Now().Add(f.expiresIn)}
}

func (f *fakeAS) grantList() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.grants)
}

func (f *fakeAS) scopesOf(token string) ([]string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.valid[token]
	return s, ok
}

type fakeLoopback struct{}

func (fakeLoopback) RedirectURI() string { return "http://127.0.0.1:45678/callback" }
func (fakeLoopback) Close() error        { return nil }

// testChallenges parses `Scheme k="v", k="v"`, one challenge per value:
// enough for the tests' own headers.
func testChallenges(values []string) []Challenge {
	var out []Challenge
	for _, v := range values {
		scheme, rest, _ := strings.Cut(strings.TrimSpace(v), " ")
		c := Challenge{Scheme: scheme, Params: map[string]string{}}
		for _, p := range strings.Split(rest, ",") {
			k, val, ok := strings.Cut(strings.TrimSpace(p), "=")
			if ok {
				c.Params[strings.ToLower(k)] = strings.Trim(val, `"`)
			}
		}
		out = append(out, c)
	}
	return out
}

func (f *fakeAS) flow() flow {
	return flow{
		parseChallenges:   testChallenges,
		canonicalResource: func(s string) (string, error) { return s, nil },
		resourceMetadata: func(ctx context.Context, fe *Fetcher, ch *Challenge) (*ResourceMetadata, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.prmFetches++
			return &ResourceMetadata{Resource: fe.ServerURL, AuthorizationServers: []string{f.issuer}}, nil
		},
		serverMetadata: func(ctx context.Context, fe *Fetcher, issuer string) (*ServerMetadata, error) {
			return &ServerMetadata{Issuer: issuer, TokenEndpoint: issuer + "/token", DPoPSigningAlgValuesSupported: []string{"ES256"}}, nil
		},
		legacyMetadata: func(ctx context.Context, fe *Fetcher) (*ServerMetadata, error) {
			return nil, errors.New("not used")
		},
		register: func(ctx context.Context, fe *Fetcher, asm *ServerMetadata, cc ClientConfig) (*Registration, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			if cc.ClientID != "" {
				return &Registration{ClientID: cc.ClientID, ClientSecret: cc.ClientSecret, Kind: "pre-registered"}, nil
			}
			f.registered = append(f.registered, asm.Issuer)
			return &Registration{ClientID: "dyn-" + asm.Issuer, ClientSecret: "dyn-secret-value", Kind: "dynamic", RedirectURIs: cc.RedirectURIs}, nil
		},
		selectScopes: func(ch *Challenge, prm *ResourceMetadata, asm *ServerMetadata) []string {
			if ch != nil {
				return strings.Fields(ch.Param("scope"))
			}
			return nil
		},
		listen: func(port int) (redirector, error) { return fakeLoopback{}, nil },
		authorize: func(ctx context.Context, r AuthCodeRequest, lb redirector) (string, string, error) {
			if r.Registration == nil || r.Metadata == nil || r.Resource == "" {
				return "", "", errors.New("incomplete request")
			}
			f.mu.Lock()
			f.pending = slices.Clone(r.Scopes)
			f.authorized++
			f.mu.Unlock()
			return "the-code", "the-verifier", nil
		},
		parseKey: func([]byte, string) (crypto.Signer, string, error) { return nil, "", errors.New("no key in tests") },
		exchange: func(ctx context.Context, tc *TokenClient, code, verifier, redirectURI string) (*Token, error) {
			if code != "the-code" || redirectURI != (fakeLoopback{}).RedirectURI() {
				return nil, errors.New("bad code or redirect")
			}
			return f.issue("authorization_code", scopesOf(tc, f)), nil
		},
		refresh: func(ctx context.Context, tc *TokenClient, rt string, scopes []string) (*Token, error) {
			if !strings.HasPrefix(rt, "refresh-token-") {
				return nil, errors.New("invalid_grant")
			}
			tok := f.issue("refresh_token", nil)
			tok.Scope = ""
			return tok, nil
		},
		clientCredentials: func(ctx context.Context, tc *TokenClient, scopes []string) (*Token, error) {
			return f.issue("client_credentials", scopes), nil
		},
		jwtBearer: func(ctx context.Context, tc *TokenClient, assertion string, scopes []string) (*Token, error) {
			return f.issue("jwt_bearer:"+assertion, scopes), nil
		},
		exchangeIDJAG: func(ctx context.Context, r IDJAGRequest) (string, error) { return "id-jag-value", nil },
		newDPoP:       func([]string) (prover, error) { return &fakeProver{}, nil },
		loadDPoP:      func([]byte) (prover, error) { return &fakeProver{}, nil },
	}
}

// scopesOf returns the scopes of the last authorization request, which a
// real authorization server remembers with the code.
func scopesOf(tc *TokenClient, f *fakeAS) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.pending)
}

type fakeProver struct {
	mu    sync.Mutex
	n     int
	nonce string
}

func (p *fakeProver) Proof(method, target, at string) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	return fmt.Sprintf("proof-%d-nonce=%s", p.n, p.nonce), nil
}
func (p *fakeProver) SetNonce(target, nonce string) { p.mu.Lock(); p.nonce = nonce; p.mu.Unlock() }
func (p *fakeProver) MarshalKey() []byte            { return []byte(`{"kty":"EC"}`) }

// resource is a protected MCP endpoint for the tests: no token → 401 with
// scope "basic"; a token the fake AS did not issue → 401; a token without
// the scopes need gives for the body → 403 insufficient_scope.
type resource struct {
	as   *fakeAS
	need func(body string) []string

	mu     sync.Mutex
	auths  []string
	bodies []string
	status []int
}

func (rs *resource) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	auth := r.Header.Get("Authorization")
	status := rs.answer(w, r, string(body), auth)
	rs.mu.Lock()
	rs.auths = append(rs.auths, auth)
	rs.bodies = append(rs.bodies, string(body))
	rs.status = append(rs.status, status)
	rs.mu.Unlock()
}

func (rs *resource) answer(w http.ResponseWriter, r *http.Request, body, auth string) int {
	if auth == "" {
		w.Header().Set("WWW-Authenticate", `Bearer scope="basic", resource_metadata="http://`+r.Host+`/.well-known/oauth-protected-resource/mcp"`)
		w.WriteHeader(http.StatusUnauthorized)
		return 401
	}
	_, token, _ := strings.Cut(auth, " ")
	scopes, ok := rs.as.scopesOf(token)
	if !ok {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", scope="basic"`)
		w.WriteHeader(http.StatusUnauthorized)
		return 401
	}
	var need []string
	if rs.need != nil {
		need = rs.need(body)
	}
	for _, s := range need {
		if !slices.Contains(scopes, s) {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope=%q`, strings.Join(need, " ")))
			w.WriteHeader(http.StatusForbidden)
			return 403
		}
	}
	fmt.Fprintf(w, "ok:%s", body)
	return 200
}

func (rs *resource) seen() (auths, bodies []string, status []int) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return slices.Clone(rs.auths), slices.Clone(rs.bodies), slices.Clone(rs.status)
}

// setup starts the resource and an Authorizer for it with the fake flow.
func setup(t *testing.T, o Options) (*fakeAS, *resource, *httptest.Server, *Authorizer) {
	t.Helper()
	as := newFakeAS(t)
	rs := &resource{as: as}
	srv := httptest.NewServer(rs)
	t.Cleanup(srv.Close)
	o.ServerURL = srv.URL + "/mcp"
	if o.Base == nil {
		o.Base = srv.Client().Transport
	}
	return as, rs, srv, newAuthorizer(o, as.flow())
}

// reader hides bytes.Reader from http.NewRequest, so the request has no
// GetBody and the Authorizer must buffer the body itself.
type reader struct{ io.Reader }

func post(t *testing.T, a *Authorizer, ctx context.Context, u, body string) (*http.Response, string, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, reader{strings.NewReader(body)})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Transport: a}).Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b), nil
}

func TestAuthorizerUnauthorizedThenRetry(t *testing.T) {
	var secrets []string
	var events []string
	var mu sync.Mutex
	store := NewStore(t.TempDir())
	as, rs, srv, a := setup(t, Options{Interactive: true, Store: store,
		Secret:  func(s string) { mu.Lock(); secrets = append(secrets, s); mu.Unlock() },
		OnEvent: func(e string, d any) { mu.Lock(); events = append(events, e); mu.Unlock() }})
	resp, body, err := post(t, a, context.Background(), srv.URL+"/mcp", `{"method":"tools/list"}`)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || body != `ok:{"method":"tools/list"}` {
		t.Fatalf("answer %d %q, want 200 with the body replayed", resp.StatusCode, body)
	}
	auths, bodies, status := rs.seen()
	if diff := cmp.Diff([]string{"", "Bearer access-token-1"}, auths); diff != "" {
		t.Errorf("Authorization headers (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{401, 200}, status); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if bodies[0] != bodies[1] {
		t.Errorf("the retry's body %q differs from the first %q", bodies[1], bodies[0])
	}
	if diff := cmp.Diff([][]string{{"basic"}}, as.scopes); diff != "" {
		t.Errorf("scopes asked (-want +got):\n%s", diff)
	}
	for _, s := range []string{"access-token-1", "refresh-token-1", "the-code", "the-verifier", "dyn-secret-value"} {
		if !slices.Contains(secrets, s) {
			t.Errorf("secret %q was not reported to Options.Secret", s)
		}
	}
	for _, e := range []string{EventAuthorizationRequired, EventClientRegistered, EventTokenStored, EventTokenObtained} {
		if !slices.Contains(events, e) {
			t.Errorf("event %q not reported (got %q)", e, events)
		}
	}
	for _, e := range events {
		if strings.Contains(e, "access-token") {
			t.Errorf("an event holds a token: %q", e)
		}
	}
	// The next Authorizer (the next mcpctl run) reuses the stored token:
	// no 401, no new grant, the stored registration.
	b := newAuthorizer(Options{ServerURL: a.o.ServerURL, Base: a.o.Base, Store: store, Interactive: false}, as.flow())
	if resp, _, err := post(t, b, context.Background(), srv.URL+"/mcp", `{}`); err != nil || resp.StatusCode != 200 {
		t.Fatalf("second run: %v, %v", resp, err)
	}
	if got := as.grantList(); len(got) != 1 {
		t.Errorf("grants %q: the stored token was not reused", got)
	}
	if _, _, status := rs.seen(); status[len(status)-1] != 200 || len(status) != 3 {
		t.Errorf("statuses %v, want the stored token accepted at once", status)
	}
}

func TestAuthorizerTokenOnlyToItsResource(t *testing.T) {
	as, _, srv, a := setup(t, Options{Interactive: true})
	if _, _, err := post(t, a, context.Background(), srv.URL+"/mcp", `{}`); err != nil {
		t.Fatal(err)
	}
	if len(as.grantList()) != 1 {
		t.Fatal("no token obtained")
	}
	var got []string
	var mu sync.Mutex
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("Authorization")+r.Header.Get("DPoP"))
		mu.Unlock()
	}))
	defer other.Close()
	a2 := newAuthorizer(Options{ServerURL: srv.URL + "/tenant/a/mcp", Base: other.Client().Transport, Interactive: true}, as.flow())
	a2.tok = &Token{AccessToken: "access-token-1", TokenType: "Bearer"}
	a2.loaded = true
	for _, u := range []string{other.URL + "/mcp", other.URL + "/tenant/a/mcp"} {
		if _, _, err := post(t, a, context.Background(), u, `{}`); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for i, h := range got {
		if h != "" {
			t.Errorf("request %d to another origin carried %q", i, h)
		}
	}
	tests := []struct {
		url  string
		want bool
	}{
		{srv.URL + "/tenant/a/mcp", true},
		{srv.URL + "/tenant/a/messages?session=1", true},
		{srv.URL + "/tenant/b/mcp", false},
		{srv.URL + "/mcp", false},
		{strings.Replace(srv.URL, "http://", "https://", 1) + "/tenant/a/mcp", false},
		{other.URL + "/tenant/a/mcp", false},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest("GET", tt.url, nil)
		if got := a2.forResource(req.URL); got != tt.want {
			t.Errorf("forResource(%s) = %v, want %v", tt.url, got, tt.want)
		}
	}
}

func TestAuthorizerRefreshesExpiredToken(t *testing.T) {
	store := NewStore(t.TempDir())
	as, rs, srv, a := setup(t, Options{Interactive: false, Store: store})
	// A token from an earlier run, expired, with a refresh token.
	if err := store.SaveToken(&Token{AccessToken: "old-access", TokenType: "Bearer", RefreshToken: "refresh-token-0", Scope: "basic",
		Expiry: time.Now().Add(-time.Minute), Issuer: as.issuer, Resource: a.Resource()}); err != nil {
		t.Fatal(err)
	}
	resp, _, err := post(t, a, context.Background(), srv.URL+"/mcp", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if diff := cmp.Diff([]string{"refresh_token"}, as.grantList()); diff != "" {
		t.Errorf("grants (-want +got):\n%s", diff)
	}
	auths, _, _ := rs.seen()
	if diff := cmp.Diff([]string{"Bearer access-token-1"}, auths); diff != "" {
		t.Errorf("the expired token was sent, or the refreshed one not (-want +got):\n%s", diff)
	}
	stored, _ := store.Token(as.issuer, a.Resource())
	if stored == nil || stored.AccessToken != "access-token-1" || stored.RefreshToken != "refresh-token-1" || stored.Scope != "basic" {
		t.Errorf("stored after refresh: %+v", stored)
	}
}

func TestAuthorizerStepUpUnion(t *testing.T) {
	as, rs, srv, a := setup(t, Options{Interactive: true})
	rs.need = func(body string) []string {
		if strings.Contains(body, "tools/call") {
			return []string{"write"}
		}
		return []string{"basic"}
	}
	for _, body := range []string{`{"method":"tools/list"}`, `{"method":"tools/call"}`} {
		resp, _, err := post(t, a, context.Background(), srv.URL+"/mcp", body)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 200 {
			t.Fatalf("%s: status %d", body, resp.StatusCode)
		}
	}
	if diff := cmp.Diff([][]string{{"basic"}, {"basic", "write"}}, as.scopes); diff != "" {
		t.Errorf("scopes of the grants (-want +got): the step-up must ask for the union\n%s", diff)
	}
	if _, _, status := rs.seen(); !slices.Equal(status, []int{401, 200, 403, 200}) {
		t.Errorf("statuses %v", status)
	}
}

func TestAuthorizerStepUpLimit(t *testing.T) {
	as, rs, srv, a := setup(t, Options{Interactive: true})
	rs.need = func(string) []string { return []string{"admin"} }
	as.mu.Lock()
	as.valid = map[string][]string{}
	as.mu.Unlock()
	// The fake AS grants what is asked; make it never grant admin.
	fl := as.flow()
	exchange := fl.exchange
	fl.exchange = func(ctx context.Context, tc *TokenClient, code, verifier, redirect string) (*Token, error) {
		tok, err := exchange(ctx, tc, code, verifier, redirect)
		as.mu.Lock()
		as.valid[tok.AccessToken] = []string{"basic"}
		as.mu.Unlock()
		return tok, err
	}
	a.fl = fl
	_, _, err := post(t, a, context.Background(), srv.URL+"/mcp", `{}`)
	var ae *Error
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v, want an *Error", err)
	}
	if n := as.authorized; n != 3 {
		t.Errorf("%d authorization requests, want 3 (one, then two step-ups)", n)
	}
	if _, _, status := rs.seen(); len(status) != 4 {
		t.Errorf("statuses %v, want 401 then three 403", status)
	}
}

func TestAuthorizerNotInteractiveFailsAtOnce(t *testing.T) {
	as, _, srv, a := setup(t, Options{Interactive: false, Hint: "run: mcpctl auth login --url URL"})
	start := time.Now()
	_, _, err := post(t, a, context.Background(), srv.URL+"/mcp", `{}`)
	var ae *Error
	if !errors.As(err, &ae) || !errors.Is(err, ErrInteractionRequired) {
		t.Fatalf("err = %v, want an *Error for ErrInteractionRequired", err)
	}
	if !strings.Contains(err.Error(), "mcpctl auth login --url URL") {
		t.Errorf("error %q does not name the login command", err)
	}
	if as.prmFetches != 0 || as.authorized != 0 {
		t.Errorf("discovery (%d) or authorization (%d) ran; it should fail at once", as.prmFetches, as.authorized)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("took %s", d)
	}
}

func TestAuthorizerClientCredentialsNeedsNoBrowser(t *testing.T) {
	as, _, srv, a := setup(t, Options{Interactive: false, Grant: GrantClientCredentials,
		Client: ClientConfig{ClientID: "cid", ClientSecret: "client-secret-value"}})
	resp, _, err := post(t, a, context.Background(), srv.URL+"/mcp", `{}`)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v", resp, err)
	}
	if diff := cmp.Diff([]string{"client_credentials"}, as.grantList()); diff != "" {
		t.Errorf("grants (-want +got):\n%s", diff)
	}
	if len(as.registered) != 0 {
		t.Errorf("a pre-registered client registered dynamically: %v", as.registered)
	}
}

func TestAuthorizerTokenExchange(t *testing.T) {
	as, _, srv, a := setup(t, Options{Interactive: false, Grant: GrantTokenExchange,
		Client: ClientConfig{ClientID: "cid"}, IDToken: "id-token-value", IDPTokenEndpoint: "https://idp.example/token"})
	resp, _, err := post(t, a, context.Background(), srv.URL+"/mcp", `{}`)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v", resp, err)
	}
	if diff := cmp.Diff([]string{"jwt_bearer:id-jag-value"}, as.grantList()); diff != "" {
		t.Errorf("grants (-want +got):\n%s", diff)
	}
}

func TestAuthorizerFreshTokenRefused(t *testing.T) {
	as, rs, srv, a := setup(t, Options{Interactive: true})
	fl := as.flow()
	exchange := fl.exchange
	fl.exchange = func(ctx context.Context, tc *TokenClient, code, verifier, redirect string) (*Token, error) {
		tok, err := exchange(ctx, tc, code, verifier, redirect)
		as.mu.Lock()
		delete(as.valid, tok.AccessToken) // the resource will not accept it
		as.mu.Unlock()
		return tok, err
	}
	a.fl = fl
	_, _, err := post(t, a, context.Background(), srv.URL+"/mcp", `{}`)
	var ae *Error
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v, want an *Error", err)
	}
	if _, _, status := rs.seen(); !slices.Equal(status, []int{401, 401}) {
		t.Errorf("statuses %v, want exactly two 401s (no loop)", status)
	}
}

func TestAuthorizerServerMigration(t *testing.T) {
	store := NewStore(t.TempDir())
	as, _, srv, a := setup(t, Options{Interactive: true, Store: store})
	if _, _, err := post(t, a, context.Background(), srv.URL+"/mcp", `{}`); err != nil {
		t.Fatal(err)
	}
	// The resource moves to another authorization server and stops
	// accepting the first one's tokens.
	as.mu.Lock()
	as.issuer = "https://as2.example"
	as.valid = map[string][]string{}
	as.mu.Unlock()
	resp, _, err := post(t, a, context.Background(), srv.URL+"/mcp", `{}`)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v", resp, err)
	}
	if diff := cmp.Diff([]string{"https://as.example", "https://as2.example"}, as.registered); diff != "" {
		t.Errorf("registrations (-want +got): the client must register again with the new server\n%s", diff)
	}
	if old, _ := store.Token("https://as.example", a.Resource()); old != nil {
		t.Errorf("the old server's token is still stored")
	}
	if iss, _ := store.Issuer(a.Resource()); iss != "https://as2.example" {
		t.Errorf("binding = %q, want the new issuer", iss)
	}
}

func TestAuthorizerDPoPNonce(t *testing.T) {
	as := newFakeAS(t)
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth, proof := r.Header.Get("Authorization"), r.Header.Get("DPoP")
		mu.Lock()
		seen = append(seen, auth+" | "+proof)
		mu.Unlock()
		switch {
		case auth == "":
			w.Header().Set("WWW-Authenticate", `DPoP resource_metadata="x"`)
			w.WriteHeader(401)
		case !strings.HasSuffix(proof, "nonce=n1"):
			w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce"`)
			w.Header().Set("DPoP-Nonce", "n1")
			w.WriteHeader(401)
		}
	}))
	defer srv.Close()
	fl := as.flow()
	fl.exchange = func(ctx context.Context, tc *TokenClient, code, verifier, redirect string) (*Token, error) {
		return &Token{AccessToken: "dpop-access", TokenType: "DPoP"}, nil
	}
	a := newAuthorizer(Options{ServerURL: srv.URL + "/mcp", Base: srv.Client().Transport, Interactive: true}, fl)
	resp, _, err := post(t, a, context.Background(), srv.URL+"/mcp", `{}`)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v", resp, err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{" | ", "DPoP dpop-access | proof-1-nonce=", "DPoP dpop-access | proof-2-nonce=n1"}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

func TestAuthorizerFlowBoundedByContext(t *testing.T) {
	as, _, srv, a := setup(t, Options{Interactive: true})
	fl := as.flow()
	fl.authorize = func(ctx context.Context, r AuthCodeRequest, lb redirector) (string, string, error) {
		<-ctx.Done() // a user who never comes back
		return "", "", ctx.Err()
	}
	a.fl = fl
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, _, err := post(t, a, ctx, srv.URL+"/mcp", `{}`)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the context's deadline", err)
	}
}

func TestAuthorizerConcurrentRequestsShareOneFlow(t *testing.T) {
	as, _, srv, a := setup(t, Options{Interactive: true})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, _, err := post(t, a, context.Background(), srv.URL+"/mcp", `{}`)
			if err == nil && resp.StatusCode != 200 {
				err = fmt.Errorf("status %d", resp.StatusCode)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if n := len(as.grantList()); n != 1 {
		t.Errorf("%d grants for concurrent requests, want 1", n)
	}
}

func TestAuthorizerLoginStatusLogout(t *testing.T) {
	store := NewStore(t.TempDir())
	as, _, _, a := setup(t, Options{Interactive: true, Store: store})
	e, err := a.Login(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if e == nil || e.Issuer != as.issuer || e.Registration != "dynamic" || !slices.Equal(e.Scopes, []string{"basic"}) {
		t.Errorf("Login status = %+v", e)
	}
	tok, err := a.Token(context.Background())
	if err != nil || tok.AccessToken != "access-token-1" {
		t.Errorf("Token = %v, %v", tok, err)
	}
	had, err := a.Logout()
	if err != nil || !had {
		t.Errorf("Logout = %v, %v", had, err)
	}
	if list, _ := store.List(); len(list) != 0 {
		t.Errorf("tokens after logout: %+v", list)
	}
	if e, _ := a.Status(); e != nil {
		t.Errorf("Status after logout = %+v", e)
	}
}

// TestAuthorizerClientPinnedToIssuer: a pre-registered client's secret is
// used with the issuer it was first used with (kept in the store) or the
// one --issuer names; a server that names another issuer gets an *Error
// before any grant, its old token stays, and Logout forgets the pin.
func TestAuthorizerClientPinnedToIssuer(t *testing.T) {
	tests := []struct {
		name   string
		issuer string // --issuer
		secret string
		moveTo string // the issuer the server names for the second request
		want   string // "" (allowed) or the error's text
	}{
		{name: "first issuer kept", secret: "client-secret-value", moveTo: "https://as2.example", want: `belong to https://as.example (where they were first used)`},
		{name: "issuer flag", issuer: "https://as.example", secret: "client-secret-value", moveTo: "https://as2.example", want: `belong to https://as.example (as --issuer says)`},
		{name: "same issuer", secret: "client-secret-value", moveTo: "https://as.example"},
		{name: "public client not pinned", moveTo: "https://as2.example"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := NewStore(t.TempDir())
			opts := Options{Grant: GrantClientCredentials, Store: store, IssuerHint: "the hint",
				Client: ClientConfig{ClientID: "cid", ClientSecret: tt.secret, Issuer: tt.issuer}}
			as, _, srv, a := setup(t, opts)
			if _, _, err := post(t, a, context.Background(), srv.URL+"/mcp", `{}`); err != nil {
				t.Fatal(err)
			}
			as.mu.Lock()
			as.issuer = tt.moveTo
			as.valid = map[string][]string{}
			as.mu.Unlock()
			// A new run: what the store says decides.
			a = newAuthorizer(a.o, as.flow())
			_, _, err := post(t, a, context.Background(), srv.URL+"/mcp", `{}`)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if n := len(as.grantList()); n != 2 {
					t.Errorf("grants %v, want two", as.grantList())
				}
				return
			}
			var ae *Error
			if !errors.As(err, &ae) || !strings.Contains(err.Error(), tt.want) || ae.Hint != "the hint" {
				t.Fatalf("err = %v, want an *Error with %q and the hint", err, tt.want)
			}
			if strings.Contains(err.Error(), tt.secret) {
				t.Errorf("the error holds the secret: %v", err)
			}
			if diff := cmp.Diff([]string{"client_credentials"}, as.grantList()); diff != "" {
				t.Errorf("grants (-want +got): nothing may reach the new issuer\n%s", diff)
			}
			if old, _ := store.Token("https://as.example", a.Resource()); old == nil {
				t.Errorf("the old issuer's token was deleted for a refused server")
			}
			if tt.issuer != "" {
				return
			}
			if _, err := a.Logout(); err != nil {
				t.Fatal(err)
			}
			if iss, _ := store.ClientIssuer("cid"); iss != "" {
				t.Errorf("pin after Logout = %q", iss)
			}
			if _, _, err := post(t, a, context.Background(), srv.URL+"/mcp", `{}`); err != nil {
				t.Fatalf("after Logout: %v", err)
			}
			if iss, _ := store.ClientIssuer("cid"); iss != tt.moveTo {
				t.Errorf("pin after a new sign-in = %q, want %q", iss, tt.moveTo)
			}
		})
	}
}

// TestAuthorizerAuthServerBase: requests to the server's origin go
// through Base, all others (metadata, token endpoints elsewhere) through
// AuthServerBase.
func TestAuthorizerAuthServerBase(t *testing.T) {
	var mu sync.Mutex
	var viaBase, viaAuth []string
	record := func(list *[]string) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			mu.Lock()
			*list = append(*list, r.URL.Host)
			mu.Unlock()
			return &http.Response{StatusCode: 204, Body: http.NoBody, Header: http.Header{}, Request: r}, nil
		})
	}
	a := NewAuthorizer(Options{ServerURL: "https://mcp.example:8443/mcp", Base: record(&viaBase), AuthServerBase: record(&viaAuth)})
	c := &http.Client{Transport: a}
	for _, u := range []string{"https://mcp.example:8443/mcp", "https://mcp.example:8443/.well-known/oauth-protected-resource/mcp", "https://as.example/token", "https://mcp.example/other-port", "http://mcp.example:8443/scheme"} {
		resp, err := c.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if diff := cmp.Diff([]string{"mcp.example:8443", "mcp.example:8443"}, viaBase); diff != "" {
		t.Errorf("via Base (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"as.example", "mcp.example", "mcp.example:8443"}, viaAuth); diff != "" {
		t.Errorf("via AuthServerBase (-want +got):\n%s", diff)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
