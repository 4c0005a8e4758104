package authserver

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk-extra-chars"

func challengeOf(v string) string {
	sum := sha256.Sum256([]byte(v))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// noFollow is a client that shows redirects instead of following them.
var noFollow = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func getJSON(t *testing.T, u string) map[string]any {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", u, resp.StatusCode)
	}
	var doc map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// postForm posts a token request, with HTTP Basic client authentication
// when user is not empty, and returns the status and decoded body.
func postForm(t *testing.T, u string, form url.Values, user, pass string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if user != "" {
		req.SetBasicAuth(url.QueryEscape(user), url.QueryEscape(pass))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, body
}

// register registers a client with the given token endpoint auth method.
func register(t *testing.T, s *Server, method string) (id, secret string) {
	t.Helper()
	body := `{"redirect_uris":["http://127.0.0.1/callback"],"token_endpoint_auth_method":"` + method + `","client_name":"test"}`
	resp, err := http.Post(s.base()+"/register", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("register: %d %s", resp.StatusCode, b)
	}
	var doc struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return doc.ClientID, doc.ClientSecret
}

// authorize runs /authorize and returns the query of the redirect.
func authorize(t *testing.T, s *Server, clientID, challenge, scope string) url.Values {
	t.Helper()
	q := url.Values{
		"response_type":         {"code"},
		"client_id":             {clientID},
		"redirect_uri":          {"http://127.0.0.1:54321/callback"},
		"code_challenge":        {challenge},
		"code_challenge_method": {"S256"},
		"state":                 {"st4te"},
		"resource":              {s.URL()},
		"scope":                 {scope},
	}
	resp, err := noFollow.Get(s.base() + "/authorize?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("authorize: %d, want 302", resp.StatusCode)
	}
	loc, err := resp.Location()
	if err != nil {
		t.Fatal(err)
	}
	if loc.Host != "127.0.0.1:54321" || loc.Path != "/callback" {
		t.Fatalf("redirected to %s, want the client's redirect URI", loc)
	}
	return loc.Query()
}

func codeForm(s *Server, code, v string) url.Values {
	return url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {code},
		"redirect_uri":  {"http://127.0.0.1:54321/callback"},
		"code_verifier": {v},
		"resource":      {s.URL()},
	}
}

// mcpStatus posts a JSON-RPC request with the token and returns the status
// and the WWW-Authenticate header.
func mcpStatus(t *testing.T, s *Server, token, method string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL(), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"`+method+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate")
}

// okMCP answers every request 200, standing in for an MCP server.
var okMCP = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
})

func TestMetadata(t *testing.T) {
	s := StartTest(t, Config{ScopesSupported: []string{"read", "write"}})
	prm := getJSON(t, s.base()+"/.well-known/oauth-protected-resource/mcp")
	if prm["resource"] != s.URL() {
		t.Errorf("resource = %v, want %s", prm["resource"], s.URL())
	}
	if as := prm["authorization_servers"].([]any); len(as) != 1 || as[0] != s.base() {
		t.Errorf("authorization_servers = %v", as)
	}
	md := getJSON(t, s.base()+"/.well-known/oauth-authorization-server")
	for k, want := range map[string]any{
		"issuer":                 s.base(),
		"authorization_endpoint": s.base() + "/authorize",
		"token_endpoint":         s.base() + "/token",
		"registration_endpoint":  s.base() + "/register",
		"authorization_response_iss_parameter_supported": true,
	} {
		if md[k] != want {
			t.Errorf("%s = %v, want %v", k, md[k], want)
		}
	}
	if m := md["code_challenge_methods_supported"].([]any); len(m) != 1 || m[0] != "S256" {
		t.Errorf("code_challenge_methods_supported = %v", m)
	}

	s2 := StartTest(t, Config{NoRegistration: true, Issuer: "https://elsewhere.example"})
	md2 := getJSON(t, s2.base()+"/.well-known/oauth-authorization-server")
	if _, ok := md2["registration_endpoint"]; ok {
		t.Error("registration_endpoint offered with NoRegistration")
	}
	if md2["issuer"] != "https://elsewhere.example" {
		t.Errorf("issuer = %v, want the override", md2["issuer"])
	}
}

func TestAuthorizationCodeFlow(t *testing.T) {
	for _, method := range []string{"none", "client_secret_basic", "client_secret_post"} {
		t.Run(method, func(t *testing.T) {
			s := StartTest(t, Config{MCP: okMCP})
			id, secret := register(t, s, method)
			if (secret != "") != (method != "none") || (secret != "" && !strings.HasPrefix(secret, ClientSecretPrefix)) {
				t.Fatalf("secret %q for %s", secret, method)
			}
			back := authorize(t, s, id, challengeOf(verifier), "read")
			if back.Get("state") != "st4te" || back.Get("iss") != s.base() || !strings.HasPrefix(back.Get("code"), CodePrefix) {
				t.Fatalf("redirect query %v", back)
			}
			form := codeForm(s, back.Get("code"), verifier)
			user, pass := "", ""
			switch method {
			case "client_secret_basic":
				user, pass = id, secret
			case "client_secret_post":
				form.Set("client_id", id)
				form.Set("client_secret", secret)
			default:
				form.Set("client_id", id)
			}
			status, tok := postForm(t, s.base()+"/token", form, user, pass)
			if status != http.StatusOK {
				t.Fatalf("token: %d %v", status, tok)
			}
			at, _ := tok["access_token"].(string)
			if !strings.HasPrefix(at, AccessTokenPrefix) || tok["token_type"] != "Bearer" || tok["scope"] != "read" {
				t.Fatalf("token response %v", tok)
			}
			if status, _ := mcpStatus(t, s, at, "tools/list"); status != http.StatusOK {
				t.Errorf("MCP with the token: %d", status)
			}
			// The code is spent.
			if status, body := postForm(t, s.base()+"/token", form, user, pass); status != http.StatusBadRequest || body["error"] != "invalid_grant" {
				t.Errorf("second use of the code: %d %v", status, body)
			}
			var last Request
			for _, r := range s.Requests() {
				if r.Path == "/token" {
					last = r
					break
				}
			}
			if last.GrantType != "authorization_code" || last.ClientAuth != method || last.ClientID != id || last.Resource != s.URL() {
				t.Errorf("recorded %+v", last)
			}
		})
	}
}

func TestTokenRefusals(t *testing.T) {
	tests := []struct {
		name      string
		change    func(form url.Values)
		wantError string
	}{
		{"wrong verifier", func(f url.Values) { f.Set("code_verifier", strings.Repeat("x", 43)) }, "invalid_grant"},
		{"short verifier", func(f url.Values) { f.Set("code_verifier", "short") }, "invalid_grant"},
		{"other redirect", func(f url.Values) { f.Set("redirect_uri", "http://127.0.0.1:1/other") }, "invalid_grant"},
		{"other resource", func(f url.Values) { f.Set("resource", "http://127.0.0.1:1/mcp") }, "invalid_target"},
		{"unknown code", func(f url.Values) { f.Set("code", CodePrefix+"nope") }, "invalid_grant"},
		{"unknown grant", func(f url.Values) { f.Set("grant_type", "password") }, "unsupported_grant_type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := StartTest(t, Config{})
			id, _ := register(t, s, "none")
			back := authorize(t, s, id, challengeOf(verifier), "")
			form := codeForm(s, back.Get("code"), verifier)
			form.Set("client_id", id)
			tt.change(form)
			status, body := postForm(t, s.base()+"/token", form, "", "")
			if status != http.StatusBadRequest || body["error"] != tt.wantError {
				t.Errorf("got %d %v, want 400 %s", status, body, tt.wantError)
			}
		})
	}
}

func TestClientAuthentication(t *testing.T) {
	s := StartTest(t, Config{Clients: map[string]string{"conf": "s3cret", "pub": ""}})
	cc := url.Values{"grant_type": {"client_credentials"}, "resource": {s.URL()}}
	tests := []struct {
		name       string
		form       url.Values
		user, pass string
		wantStatus int
	}{
		{"basic", cc, "conf", "s3cret", http.StatusOK},
		{"post", merge(cc, url.Values{"client_id": {"conf"}, "client_secret": {"s3cret"}}), "", "", http.StatusOK},
		{"wrong secret", cc, "conf", "nope", http.StatusUnauthorized},
		{"secret left out", merge(cc, url.Values{"client_id": {"conf"}}), "", "", http.StatusUnauthorized},
		{"unknown client", cc, "who", "x", http.StatusUnauthorized},
		{"public client", merge(cc, url.Values{"client_id": {"pub"}}), "", "", http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := postForm(t, s.base()+"/token", tt.form, tt.user, tt.pass)
			if status != tt.wantStatus {
				t.Fatalf("got %d %v, want %d", status, body, tt.wantStatus)
			}
			if status == http.StatusOK {
				if _, ok := body["refresh_token"]; ok {
					t.Error("client_credentials issued a refresh token")
				}
			}
		})
	}
}

func merge(a, b url.Values) url.Values {
	m := url.Values{}
	for k, v := range a {
		m[k] = v
	}
	for k, v := range b {
		m[k] = v
	}
	return m
}

// clock is a settable test clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestExpiryAndRefreshRotation(t *testing.T) {
	clk := &clock{now: time.Unix(1_700_000_000, 0)}
	s := StartTest(t, Config{MCP: okMCP, TokenLifetime: 2 * time.Second, Now: clk.Now})
	id, _ := register(t, s, "none")
	back := authorize(t, s, id, challengeOf(verifier), "read write")
	form := codeForm(s, back.Get("code"), verifier)
	form.Set("client_id", id)
	_, tok := postForm(t, s.base()+"/token", form, "", "")
	if tok["expires_in"] != float64(2) {
		t.Fatalf("expires_in = %v, want 2", tok["expires_in"])
	}
	at, rt := tok["access_token"].(string), tok["refresh_token"].(string)
	if !strings.HasPrefix(rt, RefreshTokenPrefix) {
		t.Fatalf("refresh token %q", rt)
	}
	clk.Add(2 * time.Second)
	status, www := mcpStatus(t, s, at, "tools/list")
	if status != http.StatusUnauthorized || !strings.Contains(www, `error="invalid_token"`) || !strings.Contains(www, `resource_metadata="`+s.base()+`/.well-known/oauth-protected-resource/mcp"`) {
		t.Fatalf("expired token: %d %q", status, www)
	}

	refresh := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {id}}
	status, tok2 := postForm(t, s.base()+"/token", refresh, "", "")
	if status != http.StatusOK || tok2["refresh_token"] == rt || tok2["scope"] != "read write" {
		t.Fatalf("refresh: %d %v", status, tok2)
	}
	if status, _ := mcpStatus(t, s, tok2["access_token"].(string), "tools/list"); status != http.StatusOK {
		t.Errorf("MCP with the refreshed token: %d", status)
	}
	// Rotation: the old refresh token is spent.
	if status, body := postForm(t, s.base()+"/token", refresh, "", ""); status != http.StatusBadRequest || body["error"] != "invalid_grant" {
		t.Errorf("old refresh token: %d %v", status, body)
	}
	// A refresh may narrow the scope, never widen it.
	narrow := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok2["refresh_token"].(string)}, "client_id": {id}, "scope": {"admin"}}
	if status, body := postForm(t, s.base()+"/token", narrow, "", ""); status != http.StatusBadRequest || body["error"] != "invalid_scope" {
		t.Errorf("widening refresh: %d %v", status, body)
	}

	// ExpireAccessTokens ends the current tokens at once.
	s.ExpireAccessTokens()
	if status, _ := mcpStatus(t, s, tok2["access_token"].(string), "tools/list"); status != http.StatusUnauthorized {
		t.Errorf("after ExpireAccessTokens: %d, want 401", status)
	}
}

func TestMCPChallenges(t *testing.T) {
	s := StartTest(t, Config{MCP: okMCP, ChallengeScope: "read", ToolScope: "write", Clients: map[string]string{"c": "s"}})
	_, tok := postForm(t, s.base()+"/token", url.Values{"grant_type": {"client_credentials"}, "scope": {"read"}, "resource": {s.URL()}}, "c", "s")
	readOnly := tok["access_token"].(string)
	_, tok = postForm(t, s.base()+"/token", url.Values{"grant_type": {"client_credentials"}, "scope": {"read write"}, "resource": {s.URL()}}, "c", "s")
	readWrite := tok["access_token"].(string)
	_, tok = postForm(t, s.base()+"/token", url.Values{"grant_type": {"client_credentials"}, "scope": {"read write"}, "resource": {"http://127.0.0.1:1/mcp"}}, "c", "s")
	otherResource := tok["access_token"].(string)

	tests := []struct {
		name, token, method string
		wantStatus          int
		wantWWW             []string
	}{
		{"no token", "", "initialize", 401, []string{`resource_metadata="`, `scope="read"`}},
		{"unknown token", AccessTokenPrefix + "nope", "initialize", 401, []string{`error="invalid_token"`}},
		{"other resource", otherResource, "initialize", 401, []string{`error="invalid_token"`}},
		{"read token lists", readOnly, "tools/list", 200, nil},
		{"read token calls", readOnly, "tools/call", 403, []string{`error="insufficient_scope"`, `scope="read write"`}},
		{"write token calls", readWrite, "tools/call", 200, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, www := mcpStatus(t, s, tt.token, tt.method)
			if status != tt.wantStatus {
				t.Fatalf("status %d, want %d (WWW-Authenticate %q)", status, tt.wantStatus, www)
			}
			for _, w := range tt.wantWWW {
				if !strings.Contains(www, w) {
					t.Errorf("WWW-Authenticate %q lacks %s", www, w)
				}
			}
		})
	}
	var calls []string
	for _, r := range s.Requests() {
		if r.Path == "/mcp" {
			calls = append(calls, r.RPCMethod)
		}
	}
	if len(calls) != len(tests) {
		t.Errorf("recorded MCP methods %v, want %d", calls, len(tests))
	}
}

func TestAuthorizeOutcomes(t *testing.T) {
	tests := []struct {
		name      string
		cfg       Config
		challenge string
		check     func(t *testing.T, s *Server, q url.Values)
	}{
		{"error", Config{AuthorizeError: "access_denied"}, challengeOf(verifier), func(t *testing.T, s *Server, q url.Values) {
			if q.Get("error") != "access_denied" || q.Get("code") != "" || q.Get("state") != "st4te" {
				t.Errorf("query %v", q)
			}
		}},
		{"no PKCE", Config{}, "", func(t *testing.T, s *Server, q url.Values) {
			if q.Get("error") != "invalid_request" {
				t.Errorf("query %v", q)
			}
		}},
		{"omit iss", Config{OmitIss: true}, challengeOf(verifier), func(t *testing.T, s *Server, q url.Values) {
			if q.Has("iss") || q.Get("code") == "" {
				t.Errorf("query %v", q)
			}
		}},
		{"other issuer", Config{Issuer: "http://127.0.0.1:9/other"}, challengeOf(verifier), func(t *testing.T, s *Server, q url.Values) {
			if q.Get("iss") != "http://127.0.0.1:9/other" {
				t.Errorf("query %v", q)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := StartTest(t, tt.cfg)
			id, _ := register(t, s, "none")
			tt.check(t, s, authorize(t, s, id, tt.challenge, ""))
		})
	}
}

func TestAuthorizeRefusesBadRedirects(t *testing.T) {
	s := StartTest(t, Config{Clients: map[string]string{"pub": ""}})
	for _, redirect := range []string{"https://evil.example/cb", "http://10.0.0.1/cb", "javascript:alert(1)"} {
		q := url.Values{"response_type": {"code"}, "client_id": {"pub"}, "redirect_uri": {redirect},
			"code_challenge": {challengeOf(verifier)}, "code_challenge_method": {"S256"}}
		resp, err := noFollow.Get(s.base() + "/authorize?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("redirect_uri %s: %d, want 400 and no redirect", redirect, resp.StatusCode)
		}
	}
	resp, err := http.Post(s.base()+"/register", "application/json", strings.NewReader(`{"redirect_uris":["https://evil.example/cb"]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("registering a non-loopback redirect: %d, want 400", resp.StatusCode)
	}
}

func TestFollow(t *testing.T) {
	s := StartTest(t, Config{})
	id, _ := register(t, s, "none")
	var got url.Values
	cb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.URL.Query()
		io.WriteString(w, "you may close this window")
	}))
	defer cb.Close()
	q := url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {cb.URL + "/callback"},
		"code_challenge": {challengeOf(verifier)}, "code_challenge_method": {"S256"}, "state": {"xyz"}}
	if err := Follow(context.Background(), http.DefaultTransport, s.base()+"/authorize?"+q.Encode()); err != nil {
		t.Fatal(err)
	}
	if got.Get("state") != "xyz" || !strings.HasPrefix(got.Get("code"), CodePrefix) {
		t.Errorf("callback got %v", got)
	}

	// No redirect, or a failing callback, is an error.
	if err := Follow(context.Background(), http.DefaultTransport, s.base()+"/.well-known/oauth-authorization-server"); err == nil {
		t.Error("Follow of a page that does not redirect succeeded")
	}
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "state mismatch", http.StatusBadRequest)
	}))
	defer failing.Close()
	q.Set("redirect_uri", failing.URL+"/callback")
	if err := Follow(context.Background(), http.DefaultTransport, s.base()+"/authorize?"+q.Encode()); err == nil || !strings.Contains(err.Error(), "400") {
		t.Errorf("Follow to a failing callback: %v", err)
	}
}

func TestRequestString(t *testing.T) {
	r := Request{Method: "POST", Path: "/token", Status: 200, GrantType: "refresh_token", ClientID: "c1", ClientAuth: "none"}
	if got, want := r.String(), "POST /token 200 grant_type=refresh_token client_id=c1 client_auth=none"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
