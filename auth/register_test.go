package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestRegisterPreRegistered(t *testing.T) {
	tests := []struct {
		name      string
		supported []string
		secret    string
		key       []byte
		want      string
	}{
		{"pre-registration scenario", []string{"client_secret_basic"}, "pre-registered-secret", nil, AuthClientSecretBasic},
		{"basic preferred", []string{"client_secret_post", "client_secret_basic"}, "s3cr3t", nil, AuthClientSecretBasic},
		{"post when only post", []string{"client_secret_post", "none"}, "s3cr3t", nil, AuthClientSecretPost},
		{"absent list means basic", nil, "s3cr3t", nil, AuthClientSecretBasic},
		{"public client", []string{"none", "client_secret_basic"}, "", nil, AuthNone},
		{"public client, server lists no none", []string{"client_secret_basic"}, "", nil, AuthNone},
		{"key", []string{"client_secret_basic", "private_key_jwt"}, "", []byte("PEM"), AuthPrivateKeyJWT},
		{"key and secret, key not supported", []string{"client_secret_post"}, "s3cr3t", []byte("PEM"), AuthClientSecretPost},
		{"secret, nothing matching: basic", []string{"private_key_jwt"}, "s3cr3t", nil, AuthClientSecretBasic},
	}
	for _, tt := range tests {
		var events []string
		f := &Fetcher{ServerURL: "https://mcp.example.com/mcp", OnEvent: func(e string, d any) { events = append(events, e+": "+d.(string)) }}
		asm := &ServerMetadata{Issuer: "https://as.example.com", TokenEndpointAuthMethodsSupported: tt.supported, RegistrationEndpoint: "https://as.example.com/register", ClientIDMetadataDocumentSupported: true}
		reg, err := f.Register(testCtx(t), asm, ClientConfig{ClientID: "cid", ClientSecret: tt.secret, ClientKey: tt.key, ClientMetadataURL: "https://app.example.com/client.json"})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		want := &Registration{Issuer: "https://as.example.com", ClientID: "cid", ClientSecret: tt.secret, AuthMethod: tt.want, Kind: KindPreRegistered}
		if diff := cmp.Diff(want, reg); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
		if len(events) != 1 || (tt.secret != "" && strings.Contains(events[0], tt.secret)) {
			t.Errorf("%s: events %q", tt.name, events)
		}
	}
}

// TestRegisterMetadataDocument replays auth/basic-cimd: the URL is the
// client_id and nothing is fetched or posted.
func TestRegisterMetadataDocument(t *testing.T) {
	as := newSite(t)
	const cimd = "https://conformance-test.local/client-metadata.json"
	asm := &ServerMetadata{Issuer: as.URL, ClientIDMetadataDocumentSupported: true, RegistrationEndpoint: as.URL + "/register", TokenEndpointAuthMethodsSupported: []string{"none"}}
	f := &Fetcher{ServerURL: "http://127.0.0.1:1/mcp"}
	reg, err := f.Register(testCtx(t), asm, ClientConfig{ClientMetadataURL: cimd})
	if err != nil {
		t.Fatal(err)
	}
	want := &Registration{Issuer: as.URL, ClientID: cimd, AuthMethod: AuthNone, Kind: KindMetadataDocument}
	if diff := cmp.Diff(want, reg); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(as.requested()) != 0 {
		t.Errorf("requests: %q", as.requested())
	}

	for _, bad := range []string{"http://app.example.com/c.json", "https://app.example.com", "https://app.example.com/", "https://app.example.com/c.json#x", "https://u:p@app.example.com/c.json"} {
		_, err := f.Register(testCtx(t), asm, ClientConfig{ClientMetadataURL: bad})
		var ae *Error
		if !errors.As(err, &ae) {
			t.Errorf("ClientMetadataURL %q: err = %v, want an *Error", bad, err)
		}
	}

	// Not supported: dynamic registration instead.
	asm.ClientIDMetadataDocumentSupported = false
	as.json("/register", map[string]any{"client_id": "dyn"})
	reg, err = f.Register(testCtx(t), asm, ClientConfig{ClientMetadataURL: cimd})
	if err != nil || reg.Kind != KindDynamic || reg.ClientID != "dyn" {
		t.Fatalf("Register = %+v, %v", reg, err)
	}

	// A key with private_key_jwt supported.
	asm.ClientIDMetadataDocumentSupported = true
	asm.TokenEndpointAuthMethodsSupported = []string{"none", "private_key_jwt"}
	reg, err = f.Register(testCtx(t), asm, ClientConfig{ClientMetadataURL: cimd, ClientKey: []byte("PEM")})
	if err != nil || reg.AuthMethod != AuthPrivateKeyJWT {
		t.Fatalf("Register = %+v, %v", reg, err)
	}
}

func TestRegisterDynamic(t *testing.T) {
	tests := []struct {
		name       string
		supported  []string
		grants     []string
		answer     map[string]any
		status     int
		wantMethod string // asked for
		want       *Registration
	}{
		{
			name:       "public native client (metadata-default)",
			supported:  []string{"none"},
			answer:     map[string]any{"client_id": "test-client-id", "client_secret": "test-client-secret", "client_name": "mcpctl"},
			status:     201,
			wantMethod: AuthNone,
			want:       &Registration{ClientID: "test-client-id", ClientSecret: "test-client-secret", AuthMethod: AuthNone, Kind: KindDynamic, RedirectURIs: []string{"http://127.0.0.1:5555/callback"}},
		},
		{
			name:       "token-endpoint-auth-basic",
			supported:  []string{"client_secret_basic"},
			answer:     map[string]any{"client_id": "c", "client_secret": "s3cr3t", "token_endpoint_auth_method": "client_secret_basic", "redirect_uris": []string{"http://127.0.0.1:5555/callback"}, "client_secret_expires_at": 2000000000.5},
			status:     201,
			wantMethod: AuthClientSecretBasic,
			want:       &Registration{ClientID: "c", ClientSecret: "s3cr3t", AuthMethod: AuthClientSecretBasic, Kind: KindDynamic, RedirectURIs: []string{"http://127.0.0.1:5555/callback"}, SecretExpiresAt: time.Unix(2000000000, 0).UTC()},
		},
		{
			name:       "token-endpoint-auth-post",
			supported:  []string{"client_secret_post"},
			answer:     map[string]any{"client_id": "c", "client_secret": "s3cr3t", "token_endpoint_auth_method": "client_secret_post", "client_secret_expires_at": 0},
			status:     200,
			wantMethod: AuthClientSecretPost,
			want:       &Registration{ClientID: "c", ClientSecret: "s3cr3t", AuthMethod: AuthClientSecretPost, Kind: KindDynamic, RedirectURIs: []string{"http://127.0.0.1:5555/callback"}},
		},
		{
			name:       "no list: public",
			answer:     map[string]any{"client_id": "c"},
			status:     201,
			wantMethod: AuthNone,
			want:       &Registration{ClientID: "c", AuthMethod: AuthNone, Kind: KindDynamic, RedirectURIs: []string{"http://127.0.0.1:5555/callback"}},
		},
		{
			name:       "client credentials only: confidential",
			supported:  []string{"none", "client_secret_basic"},
			grants:     []string{"client_credentials"},
			answer:     map[string]any{"client_id": "c", "client_secret": "s3cr3t"},
			status:     201,
			wantMethod: AuthClientSecretBasic,
			want:       &Registration{ClientID: "c", ClientSecret: "s3cr3t", AuthMethod: AuthClientSecretBasic, Kind: KindDynamic, RedirectURIs: []string{"http://127.0.0.1:5555/callback"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			as := newSite(t)
			var got map[string]any
			var ctype string
			as.handle("/register", func(w http.ResponseWriter, r *http.Request) {
				ctype = r.Header.Get("Content-Type")
				b, _ := io.ReadAll(r.Body)
				_ = json.Unmarshal(b, &got)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				_ = json.NewEncoder(w).Encode(tt.answer)
			})
			asm := &ServerMetadata{Issuer: as.URL, RegistrationEndpoint: as.URL + "/register", TokenEndpointAuthMethodsSupported: tt.supported}
			var events []string
			f := &Fetcher{ServerURL: "http://127.0.0.1:1/mcp", OnEvent: func(e string, d any) { events = append(events, e+": "+d.(string)) }}
			cc := ClientConfig{RedirectURIs: []string{"http://127.0.0.1:5555/callback"}, GrantTypes: tt.grants, Scope: "mcp:basic"}
			reg, err := f.Register(testCtx(t), asm, cc)
			if err != nil {
				t.Fatal(err)
			}
			tt.want.Issuer = as.URL
			if diff := cmp.Diff(tt.want, reg); diff != "" {
				t.Errorf("registration (-want +got):\n%s", diff)
			}
			grants := []any{"authorization_code", "refresh_token"}
			responseTypes := []any{"code"}
			if tt.grants != nil {
				grants = []any{"client_credentials"}
				responseTypes = []any{}
			}
			wantBody := map[string]any{
				"client_name":                "mcpctl",
				"redirect_uris":              []any{"http://127.0.0.1:5555/callback"},
				"grant_types":                grants,
				"response_types":             responseTypes,
				"token_endpoint_auth_method": tt.wantMethod,
				"application_type":           "native",
				"scope":                      "mcp:basic",
			}
			if diff := cmp.Diff(wantBody, got); diff != "" {
				t.Errorf("registration request (-want +got):\n%s", diff)
			}
			if ctype != "application/json" {
				t.Errorf("Content-Type %q", ctype)
			}
			if len(events) != 1 || strings.Contains(events[0], "s3cr3t") || strings.Contains(events[0], "test-client-secret") {
				t.Errorf("events %q", events)
			}
		})
	}
}

func TestRegisterFailures(t *testing.T) {
	t.Run("none possible", func(t *testing.T) {
		f := &Fetcher{ServerURL: "https://mcp.example.com/mcp"}
		_, err := f.Register(testCtx(t), &ServerMetadata{Issuer: "https://as.example.com"}, ClientConfig{})
		var ae *Error
		if !errors.As(err, &ae) || ae.Hint != "pass --client-id (and --client-secret) of a client registered with https://as.example.com" {
			t.Fatalf("err = %#v", err)
		}
	})
	t.Run("CIMD wanted but not supported, no DCR", func(t *testing.T) {
		f := &Fetcher{ServerURL: "https://mcp.example.com/mcp"}
		_, err := f.Register(testCtx(t), &ServerMetadata{Issuer: "https://as.example.com"}, ClientConfig{ClientMetadataURL: "https://app.example.com/c.json"})
		if err == nil || !strings.Contains(err.Error(), "client metadata documents") || !strings.Contains(err.Error(), "--client-id") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("nil metadata", func(t *testing.T) {
		f := &Fetcher{}
		if _, err := f.Register(testCtx(t), nil, ClientConfig{}); err == nil {
			t.Fatal("no error")
		}
	})
	for _, tt := range []struct {
		name    string
		handler http.HandlerFunc
		wantErr string
	}{
		{"refused with an OAuth error", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(400)
			fmt.Fprint(w, `{"error":"invalid_redirect_uri","error_description":"loopback not allowed"}`)
		}, `invalid_redirect_uri`},
		{"no client_id", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"client_secret":"s3cr3t"}`) }, "no client_id"},
		{"not JSON", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `<html>`) }, "not a registration"},
		{"redirect not followed", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
		}, "307"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			as := newSite(t)
			as.handle("/register", tt.handler)
			f := &Fetcher{ServerURL: "http://127.0.0.1:1/mcp"}
			_, err := f.Register(testCtx(t), &ServerMetadata{Issuer: as.URL, RegistrationEndpoint: as.URL + "/register"}, ClientConfig{})
			var ae *Error
			if !errors.As(err, &ae) || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "s3cr3t") {
				t.Fatalf("err = %v, want an *Error with %q", err, tt.wantErr)
			}
			if diff := cmp.Diff([]string{"/register"}, as.requested()); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("registration endpoint refused by the SSRF rule", func(t *testing.T) {
		f := &Fetcher{ServerURL: "https://mcp.example.com/mcp"}
		_, err := f.Register(testCtx(t), &ServerMetadata{Issuer: "https://as.example.com", RegistrationEndpoint: "http://169.254.169.254/register"}, ClientConfig{})
		if err == nil || !strings.Contains(err.Error(), "cloud metadata") {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestRegisterPerIssuer replays the core of auth/authorization-server-
// migration: a registration belongs to the issuer it was made with, and a
// new issuer gets a new registration.
func TestRegisterPerIssuer(t *testing.T) {
	as1, as2 := newSite(t), newSite(t)
	as1.json("/register", map[string]any{"client_id": "as1-client-id", "client_secret": "as1-secret"})
	as2.json("/register", map[string]any{"client_id": "as2-client-id", "client_secret": "as2-secret"})
	f := &Fetcher{ServerURL: "http://127.0.0.1:1/mcp"}
	r1, err := f.Register(testCtx(t), &ServerMetadata{Issuer: as1.URL, RegistrationEndpoint: as1.URL + "/register"}, ClientConfig{})
	if err != nil {
		t.Fatal(err)
	}
	r2, err := f.Register(testCtx(t), &ServerMetadata{Issuer: as2.URL, RegistrationEndpoint: as2.URL + "/register"}, ClientConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if r1.Issuer != as1.URL || r2.Issuer != as2.URL || r2.ClientID != "as2-client-id" {
		t.Errorf("registrations %+v, %+v", r1, r2)
	}
}
