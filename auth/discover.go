package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Fetcher fetches authorization metadata for one MCP server under the
// spec's security rules: HTTPS except for loopback hosts, and no
// link-local, cloud-metadata or other private address unless the MCP
// server's own URL is one (SSRF). [Fetcher.CheckURL] states the rules.
//
// Every fetch is a GET with Accept: application/json whose body is read up
// to [MaxMetadataSize]; redirects are followed only within the origin
// (each hop checked, at most 5). When HTTP's transport is an
// *http.Transport (or nil: the default one), its dialer also refuses
// link-local, cloud-metadata and unspecified addresses that a host name
// resolves to; another RoundTripper is trusted to apply its own rules.
// Nothing a Fetcher sends carries a credential.
type Fetcher struct {
	// HTTP sends the requests; it carries no MCP credentials.
	HTTP *http.Client
	// ServerURL is the MCP server's URL (what --url says).
	ServerURL string
	// OnEvent, if set, is told about each step ("resource metadata",
	// "authorization server metadata", "client registered", with the URL
	// as detail). Never a secret.
	//
	// The detail is a string: for a fetch, the URL and its outcome
	// ("https://…/.well-known/oauth-protected-resource/mcp: 404 Not
	// Found"); for a registration, its kind, endpoint and client_id.
	OnEvent func(event string, detail any)
	// ProtocolVersion, if set, is sent as MCP-Protocol-Version with every
	// metadata request (the 2025-03-26 text asks for it during discovery,
	// so that a server may answer by version).
	ProtocolVersion string
}

// MaxMetadataSize bounds the body of a metadata document or registration
// response that a [Fetcher] reads.
const MaxMetadataSize = 1 << 20

// Event names passed to Fetcher.OnEvent.
const (
	EventResourceMetadata = "resource metadata"
	EventServerMetadata   = "authorization server metadata"
	EventClientRegistered = "client registered"
)

func (f *Fetcher) event(name, detail string) {
	if f.OnEvent != nil {
		f.OnEvent(name, detail)
	}
}

// client is f.HTTP with the redirect rule and, when its transport allows,
// the dial rule. done releases the idle connections of a cloned transport.
func (f *Fetcher) client() (c *http.Client, done func()) {
	base := f.HTTP
	if base == nil {
		base = http.DefaultClient
	}
	cp := *base
	cp.CheckRedirect = f.checkRedirect
	cp.Transport, done = f.withDialRule(base.Transport)
	return &cp, done
}

// withDialRule returns rt with the dial rule when rt is (or routes to)
// *http.Transport values, which are cloned; done releases the clones' idle
// connections.
func (f *Fetcher) withDialRule(rt http.RoundTripper) (http.RoundTripper, func()) {
	var tr *http.Transport
	switch t := rt.(type) {
	case nil:
		if dt, ok := http.DefaultTransport.(*http.Transport); ok {
			tr = dt.Clone()
		}
	case *http.Transport:
		tr = t.Clone()
	case *originRouter:
		same, doneSame := f.withDialRule(t.same)
		other, doneOther := f.withDialRule(t.other)
		return &originRouter{server: t.server, same: same, other: other}, func() { doneSame(); doneOther() }
	}
	if tr == nil {
		return rt, func() {}
	}
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: f.dialControl(f.serverKind())}
	tr.DialContext = d.DialContext
	return tr, tr.CloseIdleConnections
}

// errCrossOrigin is the cause when a metadata URL redirects to another
// origin: the document would not be the one the URL names.
var errCrossOrigin = errors.New("redirected to another origin")

// checkRedirect follows a redirect only within the first request's origin
// and only to a URL that CheckURL allows.
func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return errors.New("stopped after 5 redirects")
	}
	if originOf(req.URL) != originOf(via[0].URL) {
		return fmt.Errorf("%w: %s", errCrossOrigin, req.URL.Redacted())
	}
	return f.CheckURL(req.URL.String())
}

// fetchResult is the outcome of one metadata GET.
type fetchResult struct {
	url    string
	status int
	body   []byte
}

// notFound reports whether the URL holds no document (any 4xx): probing
// goes on to the next URL.
func (r *fetchResult) notFound() bool { return r.status >= 400 && r.status < 500 }

// get fetches u; err is set for what is not an HTTP answer (a refused URL,
// a network error, a body too large). The event is sent in every case.
func (f *Fetcher) get(ctx context.Context, c *http.Client, event, u string) (*fetchResult, error) {
	if err := f.CheckURL(u); err != nil {
		f.event(event, u+": refused")
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	req.Header.Set("Accept", "application/json")
	if f.ProtocolVersion != "" {
		req.Header.Set("MCP-Protocol-Version", f.ProtocolVersion)
	}
	resp, err := c.Do(req)
	if err != nil {
		f.event(event, u+": "+err.Error())
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	defer resp.Body.Close()
	body, err := readBounded(resp.Body)
	f.event(event, u+": "+resp.Status)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	return &fetchResult{url: u, status: resp.StatusCode, body: body}, nil
}

func readBounded(r io.Reader) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r, MaxMetadataSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading the answer: %w", err)
	}
	if len(body) > MaxMetadataSize {
		return nil, fmt.Errorf("the answer is larger than %d bytes", MaxMetadataSize)
	}
	return body, nil
}

// decode reads a 200 answer's JSON object into v; the error names the URL
// and what the server sent.
func (r *fetchResult) decode(v any) error {
	if r.status != http.StatusOK {
		return fmt.Errorf("GET %s: %d %s%s", r.url, r.status, http.StatusText(r.status), oauthErrorSuffix(r.body))
	}
	body := bytes.TrimSpace(r.body)
	if len(body) == 0 || body[0] != '{' {
		return fmt.Errorf("GET %s: the answer is not a JSON object", r.url)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("GET %s: the answer is not valid metadata: %w", r.url, err)
	}
	return nil
}

// oauthErrorSuffix quotes an RFC 6749 error body ({"error", "error_description"})
// when there is one. Other bodies are not echoed: they may be long pages.
func oauthErrorSuffix(body []byte) string {
	var e struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if json.Unmarshal(body, &e) != nil || e.Error == "" {
		return ""
	}
	s := fmt.Sprintf(" (error %q", truncate(e.Error, 100))
	if e.Description != "" {
		s += fmt.Sprintf(": %q", truncate(e.Description, 300))
	}
	return s + ")"
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// ResourceMetadata discovers the server's Protected Resource Metadata
// (RFC 9728): from ch's resource_metadata parameter when ch is not nil and
// has one, else the path-based then the root well-known URL. It checks
// that the metadata's resource matches the server (refusing a mismatch).
// It returns (nil, nil) when no URL served metadata (a 2025-03-26 server).
//
// "Matches" is [ResourceMatches]: the server's origin with the server's
// path or a parent of it. A resource_metadata URL that answers 404 falls
// back to the well-known URLs; any other failure of it is an error. Among
// the well-known URLs a 4xx means "not here"; when none serves a document
// and one failed otherwise (5xx, not JSON, refused), that failure is the
// error rather than (nil, nil). The document must name a resource and at
// least one authorization server.
func (f *Fetcher) ResourceMetadata(ctx context.Context, ch *Challenge) (*ResourceMetadata, error) {
	const op = "discovering the protected resource metadata"
	srv, err := parseAbsolute(f.ServerURL)
	if err != nil {
		return nil, &Error{Op: op, Err: err}
	}
	c, done := f.client()
	defer done()

	if ch != nil {
		if u := ch.Param("resource_metadata"); u != "" {
			r, err := f.get(ctx, c, EventResourceMetadata, u)
			if err != nil {
				return nil, &Error{Op: op, Err: fmt.Errorf("the server's WWW-Authenticate resource_metadata: %w", err)}
			}
			if r.status != http.StatusNotFound {
				return f.resourceDocument(r)
			}
		}
	}

	var urls []string
	if p := strings.TrimSuffix(srv.EscapedPath(), "/"); p != "" {
		urls = append(urls, wellKnown(srv, "oauth-protected-resource"))
	}
	urls = append(urls, originOf(srv)+"/.well-known/oauth-protected-resource")
	prm, err := firstDocument(ctx, f, c, EventResourceMetadata, urls, func(r *fetchResult) (*ResourceMetadata, bool, error) {
		prm, err := f.resourceDocument(r)
		var ae *Error
		// A wrong document is never skipped over.
		final := errors.As(err, &ae) && errors.Is(ae.Err, errResourceMismatch)
		return prm, final, err
	})
	if err != nil && ctx.Err() != nil {
		return nil, &Error{Op: op, Err: err}
	}
	return prm, err
}

// firstDocument fetches urls in order and returns what accept makes of the
// first answer that is there: a "not here" (4xx) answer moves on to the
// next URL, and so does a failed fetch or a document accept refuses,
// unless accept says its refusal is final. When no URL gives a document it
// returns the first error met, or (nil, nil) when every URL said "not
// here". The end of ctx ends the search with its error.
func firstDocument[T any](ctx context.Context, f *Fetcher, c *http.Client, event string, urls []string, accept func(*fetchResult) (doc *T, final bool, err error)) (*T, error) {
	var firstErr error
	for _, u := range urls {
		r, err := f.get(ctx, c, event, u)
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			firstErr = cmpErr(firstErr, err)
			continue
		}
		if r.notFound() {
			continue
		}
		doc, final, err := accept(r)
		if err != nil {
			if final {
				return nil, err
			}
			firstErr = cmpErr(firstErr, err)
			continue
		}
		return doc, nil
	}
	return nil, firstErr
}

func cmpErr(first, next error) error {
	if first != nil {
		return first
	}
	return next
}

var errResourceMismatch = errors.New("protected resource mismatch")

// resourceDocument decodes and checks one PRM answer.
func (f *Fetcher) resourceDocument(r *fetchResult) (*ResourceMetadata, error) {
	const op = "discovering the protected resource metadata"
	var prm ResourceMetadata
	if err := r.decode(&prm); err != nil {
		return nil, &Error{Op: op, Err: err}
	}
	prm.URL = r.url
	if prm.Resource == "" {
		return nil, &Error{Op: op, Err: fmt.Errorf("the metadata at %s has no \"resource\"", r.url)}
	}
	if !ResourceMatches(prm.Resource, f.ServerURL) {
		return nil, &Error{
			Op:   op,
			Err:  fmt.Errorf("%w: the metadata at %s is for %q, not for the MCP server %s; not authorizing", errResourceMismatch, r.url, prm.Resource, f.ServerURL),
			Hint: "check --url; the server's metadata names another resource",
		}
	}
	if len(prm.AuthorizationServers) == 0 {
		return nil, &Error{Op: op, Err: fmt.Errorf("the metadata at %s lists no authorization_servers", r.url)}
	}
	return &prm, nil
}

// Resource returns the RFC 8707 resource parameter for the server: prm's
// resource as the server wrote it, when prm is not nil (ResourceMetadata
// has checked that it matches; some authorization servers compare it
// byte for byte with their own configuration), else
// CanonicalResource(f.ServerURL).
func (f *Fetcher) Resource(prm *ResourceMetadata) (string, error) {
	if prm != nil && prm.Resource != "" {
		return prm.Resource, nil
	}
	return CanonicalResource(f.ServerURL)
}

// ServerMetadata discovers the metadata of the authorization server whose
// issuer identifier is issuer: RFC 8414 with path insertion, then OpenID
// Connect discovery (path insertion, then path appending), in the spec's
// order. It checks that the document's issuer equals issuer.
//
// For an issuer without a path the URLs are <issuer>/.well-known/
// oauth-authorization-server then <issuer>/.well-known/openid-configuration.
// A 4xx answer means "try the next URL". The issuer comparison is simple
// string comparison (RFC 8414 §3.3, the 2026-07-28 text): a mismatch is
// refused at once. Every endpoint the document names must pass
// [Fetcher.CheckURL]. PKCE support is not checked here (the client
// credentials grant does not need it): see [ServerMetadata.CheckPKCE].
func (f *Fetcher) ServerMetadata(ctx context.Context, issuer string) (*ServerMetadata, error) {
	op := "discovering the authorization server " + issuer
	iu, err := parseAbsolute(issuer)
	if err != nil {
		return nil, &Error{Op: op, Err: fmt.Errorf("the authorization server identifier: %w", err)}
	}
	if iu.RawQuery != "" || iu.Fragment != "" {
		return nil, &Error{Op: op, Err: fmt.Errorf("the issuer %q has a query or fragment (RFC 8414 §2 forbids both)", issuer)}
	}
	if err := f.CheckURL(issuer); err != nil {
		return nil, &Error{Op: op, Err: err}
	}
	urls := ServerMetadataURLs(iu)
	c, done := f.client()
	defer done()
	asm, err := firstDocument(ctx, f, c, EventServerMetadata, urls, func(r *fetchResult) (*ServerMetadata, bool, error) {
		var asm ServerMetadata
		if err := r.decode(&asm); err != nil {
			return nil, false, err
		}
		if asm.Issuer != issuer {
			return nil, true, fmt.Errorf("the metadata at %s names the issuer %q, not %q; not using it (RFC 8414 §3.3)", r.url, asm.Issuer, issuer)
		}
		if err := f.checkEndpoints(&asm); err != nil {
			return nil, true, fmt.Errorf("the metadata at %s: %w", r.url, err)
		}
		asm.URL = r.url
		return &asm, false, nil
	})
	if err == nil && asm == nil {
		err = fmt.Errorf("no metadata at %s", strings.Join(urls, ", "))
	}
	if err != nil {
		return nil, &Error{Op: op, Err: err}
	}
	return asm, nil
}

// ServerMetadataURLs lists the well-known URLs of an issuer in the order
// the MCP spec has them tried.
func ServerMetadataURLs(issuer *url.URL) []string {
	p := strings.TrimSuffix(issuer.EscapedPath(), "/")
	if p == "" {
		o := originOf(issuer)
		return []string{o + "/.well-known/oauth-authorization-server", o + "/.well-known/openid-configuration"}
	}
	return []string{
		wellKnown(issuer, "oauth-authorization-server"),
		wellKnown(issuer, "openid-configuration"),
		originOf(issuer) + p + "/.well-known/openid-configuration",
	}
}

// checkEndpoints applies CheckURL to every endpoint of asm.
func (f *Fetcher) checkEndpoints(asm *ServerMetadata) error {
	for _, e := range []struct{ name, url string }{
		{"authorization_endpoint", asm.AuthorizationEndpoint},
		{"token_endpoint", asm.TokenEndpoint},
		{"registration_endpoint", asm.RegistrationEndpoint},
	} {
		if e.url == "" {
			continue
		}
		if err := f.CheckURL(e.url); err != nil {
			return fmt.Errorf("%s: %w", e.name, err)
		}
	}
	return nil
}

// CheckPKCE reports whether m allows the authorization code grant with
// PKCE S256: code_challenge_methods_supported must list S256 (an absent
// list means no PKCE, and the spec says to refuse). Metadata built from
// the 2025-03-26 defaults (Legacy, no document) passes: that revision
// made PKCE mandatory for every server.
func (m *ServerMetadata) CheckPKCE() error {
	if m.Legacy && m.URL == "" {
		return nil
	}
	if slices.Contains(m.CodeChallengeMethodsSupported, "S256") {
		return nil
	}
	if len(m.CodeChallengeMethodsSupported) == 0 {
		return fmt.Errorf("the authorization server %s does not advertise PKCE (no code_challenge_methods_supported); refusing to authorize without it", m.Issuer)
	}
	return fmt.Errorf("the authorization server %s does not support PKCE S256 (code_challenge_methods_supported: %s)", m.Issuer, strings.Join(m.CodeChallengeMethodsSupported, ", "))
}

// LegacyServerMetadata is the 2025-03-26 discovery, for a server with no
// Protected Resource Metadata: the RFC 8414 metadata at the root of the
// server's origin, else the default endpoints (/authorize, /token,
// /register at that origin), marked Legacy.
//
// The issuer of a fetched document must be at the server's origin (that
// revision defined the authorization base URL as the origin; servers
// write it with or without a trailing "/", or with the path their
// authorization server is mounted under); another origin is refused. Only a 4xx answer leads to the
// defaults; other failures are errors. The defaults list S256 in
// CodeChallengeMethodsSupported, since that revision required PKCE.
func (f *Fetcher) LegacyServerMetadata(ctx context.Context) (*ServerMetadata, error) {
	const op = "discovering the authorization server (2025-03-26 fallback)"
	srv, err := parseAbsolute(f.ServerURL)
	if err != nil {
		return nil, &Error{Op: op, Err: err}
	}
	origin := originOf(srv)
	c, done := f.client()
	defer done()
	r, err := f.get(ctx, c, EventServerMetadata, origin+"/.well-known/oauth-authorization-server")
	if err != nil {
		return nil, &Error{Op: op, Err: err}
	}
	if r.notFound() {
		asm := &ServerMetadata{
			Issuer:                        origin,
			AuthorizationEndpoint:         origin + "/authorize",
			TokenEndpoint:                 origin + "/token",
			RegistrationEndpoint:          origin + "/register",
			ResponseTypesSupported:        []string{"code"},
			CodeChallengeMethodsSupported: []string{"S256"},
			Legacy:                        true,
		}
		f.event(EventServerMetadata, "using the default endpoints of "+origin)
		return asm, nil
	}
	var asm ServerMetadata
	if err := r.decode(&asm); err != nil {
		return nil, &Error{Op: op, Err: err}
	}
	if iss, err := parseAbsolute(asm.Issuer); err != nil || originOf(iss) != origin {
		return nil, &Error{Op: op, Err: fmt.Errorf("the metadata at %s names the issuer %q, not one at %s; not using it", r.url, asm.Issuer, origin)}
	}
	if err := f.checkEndpoints(&asm); err != nil {
		return nil, &Error{Op: op, Err: fmt.Errorf("the metadata at %s: %w", r.url, err)}
	}
	asm.URL = r.url
	asm.Legacy = true
	return &asm, nil
}

// OfflineAccess is the OpenID Connect scope that asks for a refresh token.
const OfflineAccess = "offline_access"

// SelectScopes chooses the scopes to request, per the spec's scope
// selection strategy: ch's scope parameter, else the resource metadata's
// scopes_supported, else none; offline_access is added when the
// authorization server lists it in scopes_supported (the 2026-07-28 text)
// and never when it does not. Nil arguments are allowed.
//
// Duplicates are dropped, order is kept, offline_access goes last. Nil is
// returned for no scopes: the scope parameter is then omitted.
func SelectScopes(ch *Challenge, prm *ResourceMetadata, asm *ServerMetadata) []string {
	var base []string
	if ch != nil && strings.TrimSpace(ch.Param("scope")) != "" {
		base = strings.Fields(ch.Param("scope"))
	} else if prm != nil {
		base = prm.ScopesSupported
	}
	offline := asm != nil && slices.Contains(asm.ScopesSupported, OfflineAccess)
	var out []string
	for _, s := range base {
		if s == "" || s == OfflineAccess || slices.Contains(out, s) {
			continue
		}
		out = append(out, s)
	}
	if offline {
		out = append(out, OfflineAccess)
	}
	return out
}
