package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// seenRequest is what a test token endpoint received.
type seenRequest struct {
	Header http.Header
	Form   url.Values
}

// tokenServer is a token endpoint on 127.0.0.1 that records each request
// and answers with reply (nil: a fixed Bearer token).
type tokenServer struct {
	*httptest.Server
	mu    sync.Mutex
	seen  []seenRequest
	reply func(w http.ResponseWriter, r *http.Request, n int)
}

func newTokenServer(t *testing.T, reply func(w http.ResponseWriter, r *http.Request, n int)) *tokenServer {
	t.Helper()
	ts := &tokenServer{reply: reply}
	ts.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		ts.mu.Lock()
		ts.seen = append(ts.seen, seenRequest{Header: r.Header.Clone(), Form: r.PostForm})
		n := len(ts.seen)
		ts.mu.Unlock()
		if ts.reply != nil {
			ts.reply(w, r, n)
			return
		}
		writeJSON(w, 200, map[string]any{"access_token": "AT", "token_type": "Bearer", "expires_in": 3600})
	}))
	t.Cleanup(ts.Close)
	return ts
}

func (ts *tokenServer) requests() []seenRequest {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]seenRequest(nil), ts.seen...)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (ts *tokenServer) client(reg Registration) *TokenClient {
	return &TokenClient{
		HTTP:         ts.Client(),
		Metadata:     &ServerMetadata{Issuer: ts.URL, TokenEndpoint: ts.URL + "/token"},
		Registration: &reg,
		Resource:     "https://mcp.example.com/mcp",
		Now:          func() time.Time { return time.Unix(1_700_000_000, 0) },
	}
}

func TestClientAuthentication(t *testing.T) {
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		reg       Registration
		key       crypto.Signer
		wantBasic string // the Authorization header, "" for none
		wantForm  map[string]string
		absent    []string
	}{
		{
			name:     "none",
			reg:      Registration{ClientID: "public-client", AuthMethod: "none"},
			wantForm: map[string]string{"client_id": "public-client"},
			absent:   []string{"client_secret", "client_assertion"},
		},
		{
			name: "client_secret_basic form-encodes before base64",
			reg:  Registration{ClientID: "a b:c", ClientSecret: "s&e/cret+", AuthMethod: "client_secret_basic"},
			// RFC 6749 §2.3.1: form-encoded id ":" form-encoded secret.
			wantBasic: "Basic " + base64.StdEncoding.EncodeToString([]byte("a+b%3Ac:s%26e%2Fcret%2B")),
			absent:    []string{"client_id", "client_secret"},
		},
		{
			name:     "client_secret_post",
			reg:      Registration{ClientID: "cid", ClientSecret: "sec", AuthMethod: "client_secret_post"},
			wantForm: map[string]string{"client_id": "cid", "client_secret": "sec"},
		},
		{
			name:      "default with a secret is basic",
			reg:       Registration{ClientID: "cid", ClientSecret: "sec"},
			wantBasic: "Basic " + base64.StdEncoding.EncodeToString([]byte("cid:sec")),
		},
		{
			name:     "default without a secret is none",
			reg:      Registration{ClientID: "cid"},
			wantForm: map[string]string{"client_id": "cid"},
		},
		{
			name:     "private_key_jwt",
			reg:      Registration{ClientID: "jwt-client", AuthMethod: "private_key_jwt"},
			key:      ecKey,
			wantForm: map[string]string{"client_id": "jwt-client", "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"},
			absent:   []string{"client_secret"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTokenServer(t, nil)
			c := ts.client(tt.reg)
			c.Key = tt.key
			c.KeyID = "k1"
			// The real clock: the assertion is checked for expiry below.
			c.Now = nil
			if _, err := c.ClientCredentials(context.Background(), []string{"a", "b"}); err != nil {
				t.Fatal(err)
			}
			got := ts.requests()[0]
			if h := got.Header.Get("Authorization"); h != tt.wantBasic {
				t.Errorf("Authorization = %q, want %q", h, tt.wantBasic)
			}
			for k, v := range tt.wantForm {
				if g := got.Form.Get(k); g != v {
					t.Errorf("form %s = %q, want %q", k, g, v)
				}
			}
			for _, k := range tt.absent {
				if got.Form.Has(k) {
					t.Errorf("form has %s, want it absent", k)
				}
			}
			if tt.key == nil {
				return
			}
			var claims jwt.MapClaims
			tok, err := jwt.ParseWithClaims(got.Form.Get("client_assertion"), &claims, func(*jwt.Token) (any, error) {
				return &ecKey.PublicKey, nil
			}, jwt.WithValidMethods([]string{"ES256"}), jwt.WithAudience(ts.URL), jwt.WithIssuer("jwt-client"), jwt.WithSubject("jwt-client"), jwt.WithIssuedAt(), jwt.WithExpirationRequired())
			if err != nil {
				t.Fatalf("client assertion does not verify: %v", err)
			}
			if tok.Header["kid"] != "k1" {
				t.Errorf("kid = %v", tok.Header["kid"])
			}
			if aud, ok := claims["aud"].(string); !ok || aud != ts.URL {
				t.Errorf("aud = %#v, want the issuer as a single string", claims["aud"])
			}
			if jti, _ := claims["jti"].(string); len(jti) < 16 {
				t.Errorf("jti = %q", jti)
			}
		})
	}
}

func TestGrants(t *testing.T) {
	tests := []struct {
		name string
		run  func(*TokenClient) (*Token, error)
		want map[string]string
		none []string
	}{
		{
			name: "authorization_code",
			run: func(c *TokenClient) (*Token, error) {
				return c.Exchange(context.Background(), "the-code", "the-verifier", "http://127.0.0.1:5555/callback")
			},
			want: map[string]string{"grant_type": "authorization_code", "code": "the-code", "code_verifier": "the-verifier", "redirect_uri": "http://127.0.0.1:5555/callback"},
			none: []string{"scope"},
		},
		{
			name: "refresh_token with scopes",
			run: func(c *TokenClient) (*Token, error) {
				return c.Refresh(context.Background(), "RT-old", []string{"mcp:read", "mcp:write"})
			},
			want: map[string]string{"grant_type": "refresh_token", "refresh_token": "RT-old", "scope": "mcp:read mcp:write"},
		},
		{
			name: "refresh_token without scopes",
			run: func(c *TokenClient) (*Token, error) {
				return c.Refresh(context.Background(), "RT-old", nil)
			},
			want: map[string]string{"grant_type": "refresh_token", "refresh_token": "RT-old"},
			none: []string{"scope"},
		},
		{
			name: "client_credentials",
			run: func(c *TokenClient) (*Token, error) {
				return c.ClientCredentials(context.Background(), []string{"s1"})
			},
			want: map[string]string{"grant_type": "client_credentials", "scope": "s1"},
		},
		{
			name: "jwt-bearer",
			run: func(c *TokenClient) (*Token, error) {
				return c.JWTBearer(context.Background(), "eyJ.assertion.x", nil)
			},
			want: map[string]string{"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer", "assertion": "eyJ.assertion.x"},
			none: []string{"scope"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTokenServer(t, nil)
			c := ts.client(Registration{ClientID: "cid"})
			tok, err := tt.run(c)
			if err != nil {
				t.Fatal(err)
			}
			got := ts.requests()[0]
			if ct := got.Header.Get("Content-Type"); ct != "application/x-www-form-urlencoded" {
				t.Errorf("Content-Type = %q", ct)
			}
			tt.want["resource"] = "https://mcp.example.com/mcp"
			tt.want["client_id"] = "cid"
			for k, v := range tt.want {
				if g := got.Form.Get(k); g != v {
					t.Errorf("form %s = %q, want %q", k, g, v)
				}
			}
			for _, k := range tt.none {
				if got.Form.Has(k) {
					t.Errorf("form has %s = %q, want none", k, got.Form.Get(k))
				}
			}
			if tok.AccessToken != "AT" || tok.TokenType != "Bearer" || tok.Issuer != ts.URL || tok.Resource != "https://mcp.example.com/mcp" {
				t.Errorf("token = %+v", tok)
			}
			if want := time.Unix(1_700_000_000+3600, 0); !tok.Expiry.Equal(want) {
				t.Errorf("Expiry = %v, want %v", tok.Expiry, want)
			}
		})
	}
}

func TestTokenResponse(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		grant   string // "refresh" or "cc"
		want    Token
		wantErr string
	}{
		{
			name: "lower-case type, string expires_in, scope as requested",
			body: `{"access_token":"AT","token_type":"bearer","expires_in":"60"}`,
			want: Token{AccessToken: "AT", TokenType: "Bearer", Scope: "s1 s2", Expiry: time.Unix(1_700_000_060, 0)},
		},
		{
			name: "DPoP type without a proof is refused",
			body: `{"access_token":"AT","token_type":"DPoP"}`, wantErr: "without a DPoP proof",
		},
		{
			name: "granted scope wins, refresh token issued",
			body: `{"access_token":"AT","token_type":"Bearer","scope":"s1","refresh_token":"RT"}`,
			want: Token{AccessToken: "AT", TokenType: "Bearer", Scope: "s1", RefreshToken: "RT"},
		},
		{
			name:  "refresh token kept when not re-issued",
			body:  `{"access_token":"AT2","token_type":"Bearer"}`,
			grant: "refresh",
			want:  Token{AccessToken: "AT2", TokenType: "Bearer", RefreshToken: "RT-old"},
		},
		{
			name:  "refresh token rotated",
			body:  `{"access_token":"AT2","token_type":"Bearer","refresh_token":"RT-new"}`,
			grant: "refresh",
			want:  Token{AccessToken: "AT2", TokenType: "Bearer", RefreshToken: "RT-new"},
		},
		{name: "unknown type", body: `{"access_token":"AT","token_type":"mac"}`, wantErr: `type "mac"`},
		{name: "no access token", body: `{"token_type":"Bearer"}`, wantErr: "no access_token"},
		{name: "not JSON", body: `access_token=AT`, wantErr: "not a JSON token response"},
		{name: "error in a 200", body: `{"error":"bad_verification_code"}`, wantErr: "bad_verification_code"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTokenServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, tt.body)
			})
			c := ts.client(Registration{ClientID: "cid"})
			var tok *Token
			var err error
			if tt.grant == "refresh" {
				tok, err = c.Refresh(context.Background(), "RT-old", nil)
			} else {
				tok, err = c.ClientCredentials(context.Background(), []string{"s1", "s2"})
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				var ae *Error
				if !errors.As(err, &ae) {
					t.Errorf("err is %T, want *Error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.want.Issuer, tt.want.Resource = ts.URL, "https://mcp.example.com/mcp"
			if !tok.Expiry.Equal(tt.want.Expiry) {
				t.Errorf("Expiry = %v, want %v", tok.Expiry, tt.want.Expiry)
			}
			tok.Expiry, tt.want.Expiry = time.Time{}, time.Time{}
			if fmt.Sprintf("%+v", *tok) != fmt.Sprintf("%+v", tt.want) {
				t.Errorf("token = %+v\nwant    %+v", *tok, tt.want)
			}
		})
	}
}

func TestTokenErrors(t *testing.T) {
	other := newTokenServer(t, nil)
	tests := []struct {
		name     string
		reply    func(w http.ResponseWriter, r *http.Request, n int)
		wantCode string
		wantMsg  string
		notMsg   []string
	}{
		{
			name: "OAuth error, secrets redacted, control characters removed",
			reply: func(w http.ResponseWriter, r *http.Request, n int) {
				writeJSON(w, 400, map[string]string{"error": "invalid_grant", "error_description": "refresh token RT-secret-1 expired\x1b[31m for client secret sec-ret"})
			},
			wantCode: "invalid_grant",
			wantMsg:  "invalid_grant: refresh token [redacted] expired",
			notMsg:   []string{"RT-secret-1", "sec-ret", "\x1b"},
		},
		{
			name: "invalid_client has a hint",
			reply: func(w http.ResponseWriter, r *http.Request, n int) {
				writeJSON(w, 401, map[string]string{"error": "invalid_client"})
			},
			wantCode: "invalid_client",
			wantMsg:  "--client-id",
		},
		{
			name: "HTML error page",
			reply: func(w http.ResponseWriter, r *http.Request, n int) {
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(502)
				io.WriteString(w, "<html>RT-secret-1 bad gateway</html>")
			},
			wantMsg: "502 Bad Gateway, not an OAuth error response",
			notMsg:  []string{"RT-secret-1", "<html>"},
		},
		{
			name: "oversized body",
			reply: func(w http.ResponseWriter, r *http.Request, n int) {
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"access_token":"`+strings.Repeat("x", maxResponseBody)+`"}`)
			},
			wantMsg: "larger than",
		},
		{
			name: "redirect not followed",
			reply: func(w http.ResponseWriter, r *http.Request, n int) {
				http.Redirect(w, r, other.URL+"/token", http.StatusTemporaryRedirect)
			},
			wantMsg: "not sent across redirects",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTokenServer(t, tt.reply)
			c := ts.client(Registration{ClientID: "cid", ClientSecret: "sec-ret", AuthMethod: "client_secret_post"})
			_, err := c.Refresh(context.Background(), "RT-secret-1", nil)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.wantMsg) {
				t.Errorf("error %q does not contain %q", msg, tt.wantMsg)
			}
			for _, s := range tt.notMsg {
				if strings.Contains(msg, s) {
					t.Errorf("error %q contains %q", msg, s)
				}
			}
			var re *ResponseError
			if got := errors.As(err, &re); got != (tt.wantCode != "") || (got && re.Code != tt.wantCode) {
				t.Errorf("ResponseError = %v (%v), want code %q", re, got, tt.wantCode)
			}
		})
	}
	if n := len(other.requests()); n != 0 {
		t.Errorf("the redirect target got %d requests", n)
	}
}

func TestTokenEndpointMustBeSecure(t *testing.T) {
	for _, endpoint := range []string{"http://auth.example.com/token", "ftp://127.0.0.1/token", "http:///token"} {
		c := &TokenClient{Metadata: &ServerMetadata{TokenEndpoint: endpoint}, Registration: &Registration{ClientID: "c"}}
		_, err := c.ClientCredentials(context.Background(), nil)
		if err == nil || !strings.Contains(err.Error(), "refusing to send credentials") {
			t.Errorf("%s: err = %v", endpoint, err)
		}
	}
}

func TestExchangeIDJAG(t *testing.T) {
	tests := []struct {
		name      string
		reply     map[string]any
		method    string
		wantBasic bool
		wantErr   string
	}{
		{name: "post", reply: map[string]any{"access_token": "ID-JAG", "issued_token_type": TokenTypeIDJAG, "token_type": "N_A"}},
		{name: "basic", method: "client_secret_basic", wantBasic: true, reply: map[string]any{"access_token": "ID-JAG", "token_type": "N_A"}},
		{name: "wrong issued type", reply: map[string]any{"access_token": "x", "issued_token_type": "urn:ietf:params:oauth:token-type:access_token"}, wantErr: "not an ID-JAG"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTokenServer(t, func(w http.ResponseWriter, r *http.Request, n int) { writeJSON(w, 200, tt.reply) })
			jag, err := ExchangeIDJAG(context.Background(), IDJAGRequest{
				HTTP: ts.Client(), TokenEndpoint: ts.URL + "/token",
				ClientID: "idp-client", ClientSecret: "idp-secret", AuthMethod: tt.method,
				IDToken: "ID.TOKEN.x", Audience: "https://as.example.com", Resource: "https://mcp.example.com/mcp",
				Scopes: []string{"a", "b"},
			})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || jag != "ID-JAG" {
				t.Fatalf("ExchangeIDJAG = %q, %v", jag, err)
			}
			got := ts.requests()[0]
			want := map[string]string{
				"grant_type":           "urn:ietf:params:oauth:grant-type:token-exchange",
				"requested_token_type": "urn:ietf:params:oauth:token-type:id-jag",
				"subject_token":        "ID.TOKEN.x",
				"subject_token_type":   "urn:ietf:params:oauth:token-type:id_token",
				"audience":             "https://as.example.com",
				"resource":             "https://mcp.example.com/mcp",
				"scope":                "a b",
			}
			if tt.wantBasic {
				if got.Header.Get("Authorization") != basicAuth("idp-client", "idp-secret") {
					t.Errorf("Authorization = %q", got.Header.Get("Authorization"))
				}
			} else {
				want["client_id"], want["client_secret"] = "idp-client", "idp-secret"
			}
			for k, v := range want {
				if g := got.Form.Get(k); g != v {
					t.Errorf("form %s = %q, want %q", k, g, v)
				}
			}
		})
	}
}

func TestParsePrivateKey(t *testing.T) {
	p256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	_, edKey, _ := ed25519.GenerateKey(rand.Reader)
	pkcs8 := func(k any) []byte {
		der, err := x509.MarshalPKCS8PrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	}
	sec1, _ := x509.MarshalECPrivateKey(p256)
	tests := []struct {
		name    string
		pem     []byte
		alg     string
		wantAlg string
		wantErr string
	}{
		{name: "PKCS#8 P-256", pem: pkcs8(p256), wantAlg: "ES256"},
		{name: "PKCS#8 P-384", pem: pkcs8(p384), wantAlg: "ES384"},
		{name: "PKCS#8 RSA", pem: pkcs8(rsaKey), wantAlg: "RS256"},
		{name: "PKCS#8 Ed25519", pem: pkcs8(edKey), wantAlg: "EdDSA"},
		{name: "SEC1", pem: pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: sec1}), wantAlg: "ES256"},
		{name: "PKCS#1", pem: pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rsaKey)}), wantAlg: "RS256"},
		{name: "PKCS#1 labelled PRIVATE KEY", pem: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rsaKey)}), wantAlg: "RS256"},
		{name: "RSA override PS256", pem: pkcs8(rsaKey), alg: "PS256", wantAlg: "PS256"},
		{name: "override that does not fit", pem: pkcs8(p256), alg: "RS256", wantErr: "does not fit"},
		{name: "curve mismatch", pem: pkcs8(p384), alg: "ES256", wantErr: "does not fit"},
		{name: "not PEM", pem: []byte("hello"), wantErr: "no PEM block"},
		{name: "encrypted", pem: pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: []byte{1}}), wantErr: "encrypted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key, alg, err := ParsePrivateKey(tt.pem, tt.alg)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if alg != tt.wantAlg {
				t.Errorf("alg = %s, want %s", alg, tt.wantAlg)
			}
			// The key signs an assertion that verifies with its public key.
			s, err := jwt.NewWithClaims(jwt.GetSigningMethod(alg), jwt.MapClaims{"x": 1}).SignedString(key)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := jwt.Parse(s, func(*jwt.Token) (any, error) { return key.Public(), nil }); err != nil {
				t.Errorf("signature does not verify: %v", err)
			}
		})
	}
}
