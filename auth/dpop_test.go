package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// verifyProof checks a DPoP proof as a server would (RFC 9449 §4.3) with
// the public key in its own header, and returns its claims and jwk.
func verifyProof(t *testing.T, proof string) (jwt.MapClaims, map[string]any) {
	t.Helper()
	claims, jwk, err := checkProof(proof)
	if err != nil {
		t.Fatal(err)
	}
	return claims, jwk
}

// checkProof is verifyProof for handlers, which must not call t.Fatal.
func checkProof(proof string) (jwt.MapClaims, map[string]any, error) {
	var claims jwt.MapClaims
	var jwk map[string]any
	_, err := jwt.ParseWithClaims(proof, &claims, func(tok *jwt.Token) (any, error) {
		if tok.Header["typ"] != "dpop+jwt" {
			return nil, fmt.Errorf("typ = %v", tok.Header["typ"])
		}
		var ok bool
		if jwk, ok = tok.Header["jwk"].(map[string]any); !ok {
			return nil, fmt.Errorf("no jwk header")
		}
		if _, private := jwk["d"]; private {
			return nil, fmt.Errorf("the jwk header holds the private key")
		}
		return publicKeyFromJWK(jwk)
	}, jwt.WithValidMethods([]string{"ES256", "ES384", "EdDSA"}), jwt.WithIssuedAt())
	if err != nil {
		return nil, nil, fmt.Errorf("proof does not verify: %w", err)
	}
	iat, _ := claims.GetIssuedAt()
	if iat == nil || time.Since(iat.Time).Abs() > time.Minute {
		return nil, nil, fmt.Errorf("iat = %v", iat)
	}
	if jti, _ := claims["jti"].(string); len(jti) < 16 {
		return nil, nil, fmt.Errorf("jti = %q", jti)
	}
	return claims, jwk, nil
}

func publicKeyFromJWK(jwk map[string]any) (any, error) {
	dec := func(name string) []byte {
		s, _ := jwk[name].(string)
		b, _ := base64.RawURLEncoding.DecodeString(s)
		return b
	}
	switch jwk["kty"] {
	case "EC":
		curve := map[any]elliptic.Curve{"P-256": elliptic.P256(), "P-384": elliptic.P384()}[jwk["crv"]]
		if curve == nil {
			return nil, fmt.Errorf("crv %v", jwk["crv"])
		}
		return ecdsa.ParseUncompressedPublicKey(curve, append(append([]byte{4}, dec("x")...), dec("y")...))
	case "OKP":
		return ed25519.PublicKey(dec("x")), nil
	}
	return nil, fmt.Errorf("kty %v", jwk["kty"])
}

func TestDPoPProof(t *testing.T) {
	for _, alg := range []string{"ES256", "ES384", "EdDSA"} {
		t.Run(alg, func(t *testing.T) {
			d, err := NewDPoP([]string{alg})
			if err != nil {
				t.Fatal(err)
			}
			if d.Alg() != alg {
				t.Fatalf("Alg = %s", d.Alg())
			}
			proof, err := d.Proof("POST", "https://Server.example.com:8443/mcp?x=1#frag", "the-access-token")
			if err != nil {
				t.Fatal(err)
			}
			claims, jwk := verifyProof(t, proof)
			sum := sha256.Sum256([]byte("the-access-token"))
			want := map[string]any{
				"htm": "POST",
				"htu": "https://Server.example.com:8443/mcp",
				"ath": base64.RawURLEncoding.EncodeToString(sum[:]),
			}
			for k, v := range want {
				if claims[k] != v {
					t.Errorf("%s = %v, want %v", k, claims[k], v)
				}
			}
			if _, ok := claims["nonce"]; ok {
				t.Error("nonce present before any was given")
			}
			strs := map[string]string{}
			for k, v := range jwk {
				strs[k], _ = v.(string)
			}
			if JWKThumbprint(strs) != d.Thumbprint() {
				t.Error("the proof's jwk is not the key's")
			}

			// No ath without a token; a fresh jti each time.
			p2, _ := d.Proof("GET", "https://server.example.com/", "")
			c2, _ := verifyProof(t, p2)
			if _, ok := c2["ath"]; ok {
				t.Error("ath without an access token")
			}
			if c2["jti"] == claims["jti"] {
				t.Error("jti reused")
			}

			// Round trip through the store's JWK.
			saved := d.MarshalKey()
			var m map[string]string
			if err := json.Unmarshal(saved, &m); err != nil || m["d"] == "" {
				t.Fatalf("MarshalKey = %s, %v", saved, err)
			}
			back, err := LoadDPoP(saved)
			if err != nil {
				t.Fatal(err)
			}
			if back.Thumbprint() != d.Thumbprint() || back.Alg() != alg {
				t.Error("LoadDPoP gave another key")
			}
			p3, _ := back.Proof("GET", "https://server.example.com/", "")
			if _, jwk3 := verifyProof(t, p3); jwk3["x"] != jwk["x"] {
				t.Error("the loaded key signs with another public key")
			}
		})
	}
}

func TestNewDPoPAlgorithm(t *testing.T) {
	tests := []struct {
		supported []string
		want      string
	}{
		{nil, "ES256"},
		{[]string{"RS256", "ES384", "ES256"}, "ES256"},
		{[]string{"PS256", "EdDSA"}, "EdDSA"},
		{[]string{"RS256", "none"}, ""},
	}
	for _, tt := range tests {
		d, err := NewDPoP(tt.supported)
		if tt.want == "" {
			if err == nil {
				t.Errorf("%v: no error", tt.supported)
			}
			continue
		}
		if err != nil || d.Alg() != tt.want {
			t.Errorf("%v: alg %v, %v; want %s", tt.supported, d, err, tt.want)
		}
	}
}

func TestLoadDPoPRejects(t *testing.T) {
	d, _ := NewDPoP(nil)
	var m map[string]string
	json.Unmarshal(d.MarshalKey(), &m)
	other, _ := NewDPoP(nil)
	var o map[string]string
	json.Unmarshal(other.MarshalKey(), &o)
	m["x"] = o["x"]
	mismatched, _ := json.Marshal(m)
	for name, in := range map[string]string{
		"not JSON":   "{",
		"public key": string(other.PublicJWK()),
		"RSA":        `{"kty":"RSA","d":"AQAB"}`,
		"mismatch":   string(mismatched),
	} {
		if _, err := LoadDPoP([]byte(in)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// RFC 7638 §3.1: the example RSA key's thumbprint.
func TestJWKThumbprintRFC7638(t *testing.T) {
	jwk := map[string]string{
		"kty": "RSA",
		"n":   "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
		"e":   "AQAB",
		"alg": "RS256",
		"kid": "2011-04-29",
	}
	if got, want := JWKThumbprint(jwk), "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"; got != want {
		t.Errorf("thumbprint = %s, want %s", got, want)
	}
}

func TestDPoPNoncePerOrigin(t *testing.T) {
	d, _ := NewDPoP(nil)
	d.SetNonce("https://as.example.com/token", "n-as")
	d.SetNonce("https://mcp.example.com:443/mcp", "n-rs")
	for target, want := range map[string]any{
		"https://AS.example.com/other": "n-as",
		"https://mcp.example.com:443/": "n-rs",
		"https://mcp.example.com/mcp":  nil, // another origin string: no nonce
		"http://as.example.com/token":  nil,
	} {
		p, _ := d.Proof("POST", target, "")
		c, _ := verifyProof(t, p)
		if c["nonce"] != want {
			t.Errorf("%s: nonce = %v, want %v", target, c["nonce"], want)
		}
	}
}

// TestDPoPTokenRequest runs a token endpoint that requires DPoP with a
// nonce, as the conformance suite's auth/dpop-nonce does.
func TestDPoPTokenRequest(t *testing.T) {
	for _, requireNonce := range []bool{false, true} {
		t.Run(fmt.Sprint("nonce=", requireNonce), func(t *testing.T) {
			var endpoint string
			var proofs []jwt.MapClaims
			var jkt string
			ts := newTokenServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
				claims, jwk, err := checkProof(r.Header.Get("DPoP"))
				if err != nil {
					t.Error(err)
					writeJSON(w, 400, map[string]string{"error": "invalid_dpop_proof"})
					return
				}
				proofs = append(proofs, claims)
				if claims["htm"] != "POST" || claims["htu"] != endpoint {
					t.Errorf("htm %v htu %v, want POST %s", claims["htm"], claims["htu"], endpoint)
				}
				if requireNonce && claims["nonce"] != "server-nonce" {
					w.Header().Set("DPoP-Nonce", "server-nonce")
					writeJSON(w, 400, map[string]string{"error": "use_dpop_nonce"})
					return
				}
				strs := map[string]string{}
				for k, v := range jwk {
					strs[k], _ = v.(string)
				}
				jkt = JWKThumbprint(strs)
				writeJSON(w, 200, map[string]any{"access_token": "bound", "token_type": "DPoP", "expires_in": 60})
			})
			endpoint = ts.URL + "/token"
			c := ts.client(Registration{ClientID: "cid"})
			d, _ := NewDPoP([]string{"ES256"})
			c.DPoP = d
			tok, err := c.Exchange(context.Background(), "code", "verifier", "http://127.0.0.1:1/callback")
			if err != nil {
				t.Fatal(err)
			}
			wantRequests := 1
			if requireNonce {
				wantRequests = 2
			}
			if len(proofs) != wantRequests {
				t.Fatalf("%d token requests, want %d", len(proofs), wantRequests)
			}
			if requireNonce && proofs[0]["jti"] == proofs[1]["jti"] {
				t.Error("the retry reused the proof")
			}
			if tok.TokenType != "DPoP" || jkt != d.Thumbprint() {
				t.Errorf("token type %s, bound to %s, want DPoP bound to %s", tok.TokenType, jkt, d.Thumbprint())
			}
			back, err := LoadDPoP(tok.DPoPKey)
			if err != nil || back.Thumbprint() != d.Thumbprint() {
				t.Errorf("Token.DPoPKey does not restore the key: %v", err)
			}
		})
	}
}

// TestDPoPNonceRetriedOnce: a server that keeps asking for a new nonce
// gets one retry, then its error.
func TestDPoPNonceRetriedOnce(t *testing.T) {
	ts := newTokenServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("DPoP-Nonce", fmt.Sprint("nonce-", n))
		writeJSON(w, 400, map[string]string{"error": "use_dpop_nonce"})
	})
	c := ts.client(Registration{ClientID: "cid"})
	c.DPoP, _ = NewDPoP(nil)
	_, err := c.ClientCredentials(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "use_dpop_nonce") {
		t.Fatalf("err = %v", err)
	}
	if n := len(ts.requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

func TestDPoPApplyAndObserve(t *testing.T) {
	d, _ := NewDPoP(nil)
	var challenged bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		claims, _, err := checkProof(r.Header.Get("DPoP"))
		if err != nil {
			t.Error(err)
		}
		if sum := sha256.Sum256([]byte("tok")); claims["ath"] != base64.RawURLEncoding.EncodeToString(sum[:]) || claims["htu"] != "http://"+r.Host+"/mcp" {
			t.Errorf("ath %v htu %v", claims["ath"], claims["htu"])
		}
		if r.Header.Get("Authorization") != "DPoP tok" {
			t.Errorf("Authorization = %q", r.Header.Get("Authorization"))
		}
		if claims["nonce"] != "rs-nonce" {
			challenged = true
			w.Header().Set("DPoP-Nonce", "rs-nonce")
			w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce", error_description="fresh nonce"`)
			w.WriteHeader(401)
			return
		}
		w.WriteHeader(200)
	}))
	defer srv.Close()
	do := func() *http.Response {
		req, _ := http.NewRequest("POST", srv.URL+"/mcp?q=1", nil)
		if err := d.Apply(req, "tok"); err != nil {
			t.Fatal(err)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	resp := do()
	if !d.Observe(resp) || !challenged {
		t.Fatalf("Observe did not see the nonce challenge (status %d)", resp.StatusCode)
	}
	if resp := do(); resp.StatusCode != 200 || d.Observe(resp) {
		t.Errorf("retry: status %d", resp.StatusCode)
	}
	if err := d.Apply(&http.Request{}, ""); err == nil {
		t.Error("Apply without a token: no error")
	}
}
