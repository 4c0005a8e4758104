package auth

import (
	"context"
	"errors"
	"net/http"
)

// STUB: owned by the discovery helper; replaced wholesale.

// ParseChallenges parses WWW-Authenticate header values (each may hold
// several challenges) into challenges, in order. Malformed parts are
// skipped.
func ParseChallenges(values []string) []Challenge { return nil }

// CanonicalResource returns the canonical URI of an MCP server URL, the
// value of the RFC 8707 resource parameter: scheme and host lower case,
// default port removed, no fragment, no query... as the MCP spec's
// "Canonical Server URI" section says.
func CanonicalResource(serverURL string) (string, error) { return "", errors.New("not implemented") }

// Fetcher fetches authorization metadata for one MCP server under the
// spec's security rules: HTTPS except for loopback hosts, and no
// link-local, cloud-metadata or other private address unless the MCP
// server's own URL is one (SSRF).
type Fetcher struct {
	// HTTP sends the requests; it carries no MCP credentials.
	HTTP *http.Client
	// ServerURL is the MCP server's URL (what --url says).
	ServerURL string
	// OnEvent, if set, is told about each step ("resource metadata",
	// "authorization server metadata", "client registered", with the URL
	// as detail). Never a secret.
	OnEvent func(event string, detail any)
}

// CheckURL reports whether u may be fetched or sent to under the rules of
// [Fetcher]; the error says which rule u breaks.
func (f *Fetcher) CheckURL(u string) error { return errors.New("not implemented") }

// ResourceMetadata discovers the server's Protected Resource Metadata
// (RFC 9728): from ch's resource_metadata parameter when ch is not nil and
// has one, else the path-based then the root well-known URL. It checks
// that the metadata's resource matches the server (refusing a mismatch).
// It returns (nil, nil) when no URL served metadata (a 2025-03-26 server).
func (f *Fetcher) ResourceMetadata(ctx context.Context, ch *Challenge) (*ResourceMetadata, error) {
	return nil, errors.New("not implemented")
}

// ServerMetadata discovers the metadata of the authorization server whose
// issuer identifier is issuer: RFC 8414 with path insertion, then OpenID
// Connect discovery (path insertion, then path appending), in the spec's
// order. It checks that the document's issuer equals issuer.
func (f *Fetcher) ServerMetadata(ctx context.Context, issuer string) (*ServerMetadata, error) {
	return nil, errors.New("not implemented")
}

// LegacyServerMetadata is the 2025-03-26 discovery, for a server with no
// Protected Resource Metadata: the RFC 8414 metadata at the root of the
// server's origin, else the default endpoints (/authorize, /token,
// /register at that origin), marked Legacy.
func (f *Fetcher) LegacyServerMetadata(ctx context.Context) (*ServerMetadata, error) {
	return nil, errors.New("not implemented")
}

// SelectScopes chooses the scopes to request, per the spec's scope
// selection strategy: ch's scope parameter, else the resource metadata's
// scopes_supported, else none; offline_access is added when the
// authorization server lists it in scopes_supported (the 2026-07-28 text)
// and never when it does not. Nil arguments are allowed.
func SelectScopes(ch *Challenge, prm *ResourceMetadata, asm *ServerMetadata) []string { return nil }
