package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// site is a test HTTP server on 127.0.0.1 that serves fixed routes (404
// for the rest) and records the paths asked for, in order.
type site struct {
	*httptest.Server
	mu      sync.Mutex
	paths   []string
	headers []http.Header
	routes  map[string]http.HandlerFunc
}

func newSite(t *testing.T) *site {
	t.Helper()
	s := &site{routes: map[string]http.HandlerFunc{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.paths = append(s.paths, r.URL.Path)
		s.headers = append(s.headers, r.Header.Clone())
		h := s.routes[r.URL.Path]
		s.mu.Unlock()
		if h == nil {
			http.NotFound(w, r)
			return
		}
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *site) handle(path string, h http.HandlerFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.routes[path] = h
}

func (s *site) json(path string, v any) {
	s.handle(path, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	})
}

func (s *site) requested() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.paths...)
}

func asDocument(base, issuer string) map[string]any {
	return map[string]any{
		"issuer":                           issuer,
		"authorization_endpoint":           base + "/authorize",
		"token_endpoint":                   base + "/token",
		"registration_endpoint":            base + "/register",
		"response_types_supported":         []string{"code"},
		"code_challenge_methods_supported": []string{"S256"},
	}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestDiscoveryScenarios replays the conformance suite's discovery
// scenarios (auth/metadata-default, -var1, -var2, -var3, resource-mismatch,
// metadata-issuer-mismatch) and checks which URLs are asked for, in order.
func TestDiscoveryScenarios(t *testing.T) {
	tests := []struct {
		name     string
		prmPath  string // where the MCP server serves its PRM
		inHeader bool   // whether the 401 names it
		// rootResource: the PRM's resource is the origin, not /mcp.
		rootResource     bool
		resourceOverride string
		asPrefix         string // the issuer's path
		asMetadataPath   string
		issuerOverride   string
		wantPRM, wantAS  []string
		wantErr          string
	}{
		{
			name:    "metadata-default",
			prmPath: "/.well-known/oauth-protected-resource/mcp", inHeader: true,
			asMetadataPath: "/.well-known/oauth-authorization-server",
			wantPRM:        []string{"/.well-known/oauth-protected-resource/mcp"},
			wantAS:         []string{"/.well-known/oauth-authorization-server"},
		},
		{
			name:           "metadata-var1",
			prmPath:        "/.well-known/oauth-protected-resource/mcp",
			asMetadataPath: "/.well-known/openid-configuration",
			wantPRM:        []string{"/.well-known/oauth-protected-resource/mcp"},
			wantAS:         []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"},
		},
		{
			name:    "metadata-var2",
			prmPath: "/.well-known/oauth-protected-resource", rootResource: true,
			asPrefix: "/tenant1", asMetadataPath: "/.well-known/oauth-authorization-server/tenant1",
			wantPRM: []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"},
			wantAS:  []string{"/.well-known/oauth-authorization-server/tenant1"},
		},
		{
			name:    "metadata-var3",
			prmPath: "/custom/metadata/location.json", inHeader: true,
			asPrefix: "/tenant1", asMetadataPath: "/tenant1/.well-known/openid-configuration",
			wantPRM: []string{"/custom/metadata/location.json"},
			wantAS: []string{
				"/.well-known/oauth-authorization-server/tenant1",
				"/.well-known/openid-configuration/tenant1",
				"/tenant1/.well-known/openid-configuration",
			},
		},
		{
			name:    "resource-mismatch",
			prmPath: "/.well-known/oauth-protected-resource/mcp", inHeader: true,
			resourceOverride: "https://evil.example.com/mcp",
			asMetadataPath:   "/.well-known/oauth-authorization-server",
			wantPRM:          []string{"/.well-known/oauth-protected-resource/mcp"},
			wantErr:          `is for "https://evil.example.com/mcp"`,
		},
		{
			name:    "resource-mismatch without header",
			prmPath: "/.well-known/oauth-protected-resource/mcp",
			// The path-based document is wrong: the root one is not tried.
			resourceOverride: "https://evil.example.com/mcp",
			asMetadataPath:   "/.well-known/oauth-authorization-server",
			wantPRM:          []string{"/.well-known/oauth-protected-resource/mcp"},
			wantErr:          "protected resource mismatch",
		},
		{
			name:    "metadata-issuer-mismatch",
			prmPath: "/.well-known/oauth-protected-resource/mcp", inHeader: true,
			asMetadataPath: "/.well-known/oauth-authorization-server",
			issuerOverride: "https://attacker.example.com",
			wantPRM:        []string{"/.well-known/oauth-protected-resource/mcp"},
			wantAS:         []string{"/.well-known/oauth-authorization-server"},
			wantErr:        `names the issuer "https://attacker.example.com"`,
		},
		{
			name:    "issuer with trailing slash differs",
			prmPath: "/.well-known/oauth-protected-resource/mcp", inHeader: true,
			asMetadataPath: "/.well-known/oauth-authorization-server",
			issuerOverride: "SLASH",
			wantPRM:        []string{"/.well-known/oauth-protected-resource/mcp"},
			wantAS:         []string{"/.well-known/oauth-authorization-server"},
			wantErr:        "not using it",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			as := newSite(t)
			issuer := as.URL + tt.asPrefix
			docIssuer := issuer
			switch tt.issuerOverride {
			case "":
			case "SLASH":
				docIssuer = issuer + "/"
			default:
				docIssuer = tt.issuerOverride
			}
			as.json(tt.asMetadataPath, asDocument(as.URL, docIssuer))

			mcp := newSite(t)
			resource := mcp.URL + "/mcp"
			if tt.rootResource {
				resource = mcp.URL
			}
			if tt.resourceOverride != "" {
				resource = tt.resourceOverride
			}
			mcp.json(tt.prmPath, map[string]any{"resource": resource, "authorization_servers": []string{issuer}})

			var ch *Challenge
			if tt.inHeader {
				chs := ParseChallenges([]string{fmt.Sprintf(`Bearer resource_metadata="%s%s"`, mcp.URL, tt.prmPath)})
				ch = &chs[0]
			}
			var events []string
			f := &Fetcher{HTTP: &http.Client{}, ServerURL: mcp.URL + "/mcp", OnEvent: func(e string, d any) {
				events = append(events, e+": "+d.(string))
			}}
			ctx := testCtx(t)
			err := func() error {
				prm, err := f.ResourceMetadata(ctx, ch)
				if err != nil {
					return err
				}
				if prm == nil {
					return errors.New("no PRM")
				}
				if prm.URL != mcp.URL+tt.prmPath {
					t.Errorf("prm.URL = %q, want %q", prm.URL, mcp.URL+tt.prmPath)
				}
				asm, err := f.ServerMetadata(ctx, prm.AuthorizationServers[0])
				if err != nil {
					return err
				}
				if asm.URL != as.URL+tt.asMetadataPath || asm.Issuer != issuer || asm.TokenEndpoint != as.URL+"/token" {
					t.Errorf("asm = %+v", asm)
				}
				return nil
			}()
			if tt.wantErr == "" && err != nil {
				t.Fatalf("discovery: %v", err)
			}
			if tt.wantErr != "" {
				var ae *Error
				if !errors.As(err, &ae) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("discovery error = %v, want an *Error with %q", err, tt.wantErr)
				}
			}
			if diff := cmp.Diff(tt.wantPRM, mcp.requested()); diff != "" {
				t.Errorf("MCP server requests (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantAS, as.requested()); diff != "" {
				t.Errorf("authorization server requests (-want +got):\n%s", diff)
			}
			if len(events) != len(tt.wantPRM)+len(tt.wantAS) {
				t.Errorf("events = %q, want one per request", events)
			}
		})
	}
}

func TestResourceMetadataFallbacks(t *testing.T) {
	t.Run("none: a 2025-03-26 server", func(t *testing.T) {
		mcp := newSite(t)
		f := &Fetcher{ServerURL: mcp.URL + "/mcp"}
		prm, err := f.ResourceMetadata(testCtx(t), nil)
		if prm != nil || err != nil {
			t.Fatalf("ResourceMetadata = %+v, %v; want nil, nil", prm, err)
		}
		want := []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"}
		if diff := cmp.Diff(want, mcp.requested()); diff != "" {
			t.Errorf("requests (-want +got):\n%s", diff)
		}
	})
	t.Run("server at the root tries the root once", func(t *testing.T) {
		mcp := newSite(t)
		f := &Fetcher{ServerURL: mcp.URL + "/"}
		if prm, err := f.ResourceMetadata(testCtx(t), nil); prm != nil || err != nil {
			t.Fatalf("ResourceMetadata = %+v, %v", prm, err)
		}
		if diff := cmp.Diff([]string{"/.well-known/oauth-protected-resource"}, mcp.requested()); diff != "" {
			t.Errorf("requests (-want +got):\n%s", diff)
		}
	})
	t.Run("header URL 404 falls back to well-known", func(t *testing.T) {
		mcp := newSite(t)
		mcp.json("/.well-known/oauth-protected-resource", map[string]any{"resource": mcp.URL, "authorization_servers": []string{"https://as.example.com"}})
		ch := Challenge{Scheme: "Bearer", Params: map[string]string{"resource_metadata": mcp.URL + "/gone"}}
		f := &Fetcher{ServerURL: mcp.URL + "/mcp"}
		prm, err := f.ResourceMetadata(testCtx(t), &ch)
		if err != nil || prm == nil || prm.Resource != mcp.URL {
			t.Fatalf("ResourceMetadata = %+v, %v", prm, err)
		}
		want := []string{"/gone", "/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"}
		if diff := cmp.Diff(want, mcp.requested()); diff != "" {
			t.Errorf("requests (-want +got):\n%s", diff)
		}
	})
	t.Run("a 500 on the path, the root answers", func(t *testing.T) {
		mcp := newSite(t)
		mcp.handle("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 500) })
		mcp.json("/.well-known/oauth-protected-resource", map[string]any{"resource": mcp.URL, "authorization_servers": []string{"https://as.example.com"}})
		f := &Fetcher{ServerURL: mcp.URL + "/mcp"}
		if prm, err := f.ResourceMetadata(testCtx(t), nil); err != nil || prm == nil {
			t.Fatalf("ResourceMetadata = %+v, %v", prm, err)
		}
	})
	t.Run("a 500 and a 404 is an error, not a legacy server", func(t *testing.T) {
		mcp := newSite(t)
		mcp.handle("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(503)
			fmt.Fprint(w, `{"error":"temporarily_unavailable","error_description":"try later"}`)
		})
		f := &Fetcher{ServerURL: mcp.URL + "/mcp"}
		_, err := f.ResourceMetadata(testCtx(t), nil)
		if err == nil || !strings.Contains(err.Error(), "503") || !strings.Contains(err.Error(), "try later") || !strings.Contains(err.Error(), mcp.URL) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("header URL refused by the SSRF rule", func(t *testing.T) {
		mcp := newSite(t)
		ch := Challenge{Scheme: "Bearer", Params: map[string]string{"resource_metadata": "http://169.254.169.254/latest/meta-data/"}}
		f := &Fetcher{ServerURL: mcp.URL + "/mcp"}
		_, err := f.ResourceMetadata(testCtx(t), &ch)
		var ae *Error
		if !errors.As(err, &ae) || !strings.Contains(err.Error(), "cloud metadata") {
			t.Fatalf("err = %v", err)
		}
		if len(mcp.requested()) != 0 {
			t.Errorf("requests: %q", mcp.requested())
		}
	})
	t.Run("document checks", func(t *testing.T) {
		for name, doc := range map[string]string{
			"no resource":       `{"authorization_servers":["https://as.example.com"]}`,
			"no servers":        `{"resource":"RES"}`,
			"not JSON":          `<html>hello</html>`,
			"not an object":     `["x"]`,
			"wrong field types": `{"resource":"RES","authorization_servers":"https://as.example.com"}`,
		} {
			mcp := newSite(t)
			mcp.handle("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
				fmt.Fprint(w, strings.ReplaceAll(doc, "RES", mcp.URL+"/mcp"))
			})
			f := &Fetcher{ServerURL: mcp.URL + "/mcp"}
			if prm, err := f.ResourceMetadata(testCtx(t), nil); err == nil {
				t.Errorf("%s: ResourceMetadata = %+v, want an error", name, prm)
			}
		}
	})
}

func TestFetchRules(t *testing.T) {
	t.Run("headers", func(t *testing.T) {
		mcp := newSite(t)
		f := &Fetcher{ServerURL: mcp.URL + "/mcp", ProtocolVersion: "2025-03-26"}
		if _, err := f.LegacyServerMetadata(testCtx(t)); err != nil {
			t.Fatal(err)
		}
		mcp.mu.Lock()
		h := mcp.headers[0]
		mcp.mu.Unlock()
		if h.Get("Accept") != "application/json" || h.Get("MCP-Protocol-Version") != "2025-03-26" || h.Get("Authorization") != "" {
			t.Errorf("request headers: %v", h)
		}
	})
	t.Run("same-origin redirect followed", func(t *testing.T) {
		mcp := newSite(t)
		mcp.handle("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/moved", http.StatusFound)
		})
		mcp.json("/moved", map[string]any{"resource": mcp.URL + "/mcp", "authorization_servers": []string{"https://as.example.com"}})
		f := &Fetcher{ServerURL: mcp.URL + "/mcp"}
		if prm, err := f.ResourceMetadata(testCtx(t), nil); err != nil || prm == nil {
			t.Fatalf("ResourceMetadata = %+v, %v", prm, err)
		}
	})
	t.Run("cross-origin redirect refused", func(t *testing.T) {
		other := newSite(t)
		other.json("/doc", map[string]any{"issuer": other.URL})
		mcp := newSite(t)
		mcp.handle("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/doc", http.StatusFound)
		})
		f := &Fetcher{ServerURL: mcp.URL + "/mcp"}
		_, err := f.LegacyServerMetadata(testCtx(t))
		if !errors.Is(err, errCrossOrigin) {
			t.Fatalf("err = %v, want a cross-origin refusal", err)
		}
		if len(other.requested()) != 0 {
			t.Errorf("the other origin was asked: %q", other.requested())
		}
	})
	t.Run("body too large", func(t *testing.T) {
		mcp := newSite(t)
		mcp.handle("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
			big := strings.Repeat(" ", MaxMetadataSize)
			fmt.Fprintf(w, `{"issuer":%q}%s`, "x", big)
		})
		f := &Fetcher{ServerURL: mcp.URL + "/mcp"}
		if _, err := f.LegacyServerMetadata(testCtx(t)); err == nil || !strings.Contains(err.Error(), "larger than") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("endpoint refused by the SSRF rule", func(t *testing.T) {
		as := newSite(t)
		doc := asDocument(as.URL, as.URL)
		doc["token_endpoint"] = "http://169.254.169.254/token"
		as.json("/.well-known/oauth-authorization-server", doc)
		f := &Fetcher{ServerURL: "http://127.0.0.1:1/mcp"}
		if _, err := f.ServerMetadata(testCtx(t), as.URL); err == nil || !strings.Contains(err.Error(), "token_endpoint") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("issuer refused by the SSRF rule", func(t *testing.T) {
		f := &Fetcher{ServerURL: "https://mcp.example.com/mcp"}
		_, err := f.ServerMetadata(testCtx(t), "http://127.0.0.1:1")
		var ae *Error
		if !errors.As(err, &ae) || !strings.Contains(err.Error(), "loopback") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("issuer with a query", func(t *testing.T) {
		f := &Fetcher{ServerURL: "http://127.0.0.1:1/mcp"}
		if _, err := f.ServerMetadata(testCtx(t), "http://127.0.0.1:1/?a=b"); err == nil {
			t.Fatal("no error")
		}
	})
	t.Run("cancelled context", func(t *testing.T) {
		mcp := newSite(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		f := &Fetcher{ServerURL: mcp.URL + "/mcp"}
		if _, err := f.ResourceMetadata(ctx, nil); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("no metadata anywhere", func(t *testing.T) {
		as := newSite(t)
		f := &Fetcher{ServerURL: "http://127.0.0.1:1/mcp"}
		_, err := f.ServerMetadata(testCtx(t), as.URL+"/t")
		if err == nil || !strings.Contains(err.Error(), "no metadata at") {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestLegacyServerMetadata replays auth/2025-03-26-oauth-metadata-backcompat
// and auth/2025-03-26-oauth-endpoint-fallback.
func TestLegacyServerMetadata(t *testing.T) {
	t.Run("metadata at the root", func(t *testing.T) {
		mcp := newSite(t)
		doc := asDocument(mcp.URL+"/oauth", mcp.URL)
		mcp.json("/.well-known/oauth-authorization-server", doc)
		f := &Fetcher{ServerURL: mcp.URL + "/mcp"}
		asm, err := f.LegacyServerMetadata(testCtx(t))
		if err != nil {
			t.Fatal(err)
		}
		if !asm.Legacy || asm.URL != mcp.URL+"/.well-known/oauth-authorization-server" || asm.AuthorizationEndpoint != mcp.URL+"/oauth/authorize" {
			t.Errorf("asm = %+v", asm)
		}
		if err := asm.CheckPKCE(); err != nil {
			t.Error(err)
		}
	})
	t.Run("default endpoints", func(t *testing.T) {
		mcp := newSite(t)
		f := &Fetcher{ServerURL: mcp.URL + "/mcp"}
		asm, err := f.LegacyServerMetadata(testCtx(t))
		if err != nil {
			t.Fatal(err)
		}
		want := &ServerMetadata{
			Issuer:                        mcp.URL,
			AuthorizationEndpoint:         mcp.URL + "/authorize",
			TokenEndpoint:                 mcp.URL + "/token",
			RegistrationEndpoint:          mcp.URL + "/register",
			ResponseTypesSupported:        []string{"code"},
			CodeChallengeMethodsSupported: []string{"S256"},
			Legacy:                        true,
		}
		if diff := cmp.Diff(want, asm); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if err := asm.CheckPKCE(); err != nil {
			t.Error(err)
		}
	})
	t.Run("issuer under a path of the origin", func(t *testing.T) {
		// What the backcompat scenario serves: the authorization server
		// mounted at /oauth of the MCP server's origin.
		mcp := newSite(t)
		mcp.json("/.well-known/oauth-authorization-server", asDocument(mcp.URL+"/oauth", mcp.URL+"/oauth"))
		f := &Fetcher{ServerURL: mcp.URL + "/mcp"}
		asm, err := f.LegacyServerMetadata(testCtx(t))
		if err != nil {
			t.Fatal(err)
		}
		if asm.Issuer != mcp.URL+"/oauth" || asm.TokenEndpoint != mcp.URL+"/oauth/token" {
			t.Errorf("asm = %+v", asm)
		}
	})
	t.Run("wrong issuer", func(t *testing.T) {
		mcp := newSite(t)
		mcp.json("/.well-known/oauth-authorization-server", asDocument(mcp.URL, "https://attacker.example.com"))
		f := &Fetcher{ServerURL: mcp.URL + "/mcp"}
		if _, err := f.LegacyServerMetadata(testCtx(t)); err == nil {
			t.Fatal("no error")
		}
	})
}

func TestCheckPKCE(t *testing.T) {
	tests := []struct {
		m  ServerMetadata
		ok bool
	}{
		{ServerMetadata{CodeChallengeMethodsSupported: []string{"plain", "S256"}}, true},
		{ServerMetadata{CodeChallengeMethodsSupported: []string{"plain"}}, false},
		{ServerMetadata{}, false},
		{ServerMetadata{Legacy: true, URL: "http://x/.well-known/oauth-authorization-server"}, false},
		{ServerMetadata{Legacy: true}, true},
	}
	for _, tt := range tests {
		if err := tt.m.CheckPKCE(); (err == nil) != tt.ok {
			t.Errorf("CheckPKCE(%+v) = %v, want ok=%v", tt.m, err, tt.ok)
		}
	}
}

func TestSelectScopes(t *testing.T) {
	chal := func(scope string) *Challenge {
		return &Challenge{Scheme: "Bearer", Params: map[string]string{"scope": scope}}
	}
	prm := &ResourceMetadata{ScopesSupported: []string{"mcp:basic", "mcp:read", "mcp:write"}}
	offline := &ServerMetadata{ScopesSupported: []string{"mcp:basic", OfflineAccess}}
	noOffline := &ServerMetadata{ScopesSupported: []string{"mcp:basic", "mcp:read"}}
	tests := []struct {
		name string
		ch   *Challenge
		prm  *ResourceMetadata
		asm  *ServerMetadata
		want []string
	}{
		{"scope-from-www-authenticate", chal("mcp:basic"), prm, nil, []string{"mcp:basic"}},
		{"scope-from-scopes-supported", nil, prm, nil, []string{"mcp:basic", "mcp:read", "mcp:write"}},
		{"empty scope param falls back", chal("  "), prm, nil, []string{"mcp:basic", "mcp:read", "mcp:write"}},
		{"scope-omitted-when-undefined", nil, &ResourceMetadata{}, &ServerMetadata{}, nil},
		{"all nil", nil, nil, nil, nil},
		{"offline-access-scope", chal("mcp:basic"), &ResourceMetadata{ScopesSupported: []string{"mcp:basic"}}, offline, []string{"mcp:basic", OfflineAccess}},
		{"offline access alone", nil, nil, offline, []string{OfflineAccess}},
		{"offline-access-not-supported", nil, &ResourceMetadata{ScopesSupported: []string{"mcp:basic", "mcp:read"}}, noOffline, []string{"mcp:basic", "mcp:read"}},
		{"offline access challenged but not supported", chal("offline_access mcp:basic"), nil, noOffline, []string{"mcp:basic"}},
		{"offline access challenged and supported goes last once", chal("offline_access mcp:basic"), nil, offline, []string{"mcp:basic", OfflineAccess}},
		{"duplicates dropped", chal("a b a  b c"), nil, nil, []string{"a", "b", "c"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, SelectScopes(tt.ch, tt.prm, tt.asm)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	// The PRM's slice is not modified.
	if diff := cmp.Diff([]string{"mcp:basic", "mcp:read", "mcp:write"}, prm.ScopesSupported); diff != "" {
		t.Errorf("PRM modified: %s", diff)
	}
}

func TestResource(t *testing.T) {
	f := &Fetcher{ServerURL: "HTTPS://MCP.example.com:443/mcp"}
	if r, err := f.Resource(nil); err != nil || r != "https://mcp.example.com/mcp" {
		t.Errorf("Resource(nil) = %q, %v", r, err)
	}
	if r, err := f.Resource(&ResourceMetadata{Resource: "https://mcp.example.com"}); err != nil || r != "https://mcp.example.com" {
		t.Errorf("Resource(prm) = %q, %v", r, err)
	}
}
