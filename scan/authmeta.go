package scan

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpctl/mcpctl/auth"
)

// CheckAuthMetadata fetches an HTTP server's protected resource metadata
// (RFC 9728) and that of each authorization server it names (RFC 8414),
// with package auth's discovery, and reports what contradicts itself: a
// document for another resource, no authorization server, an issuer
// other than the one named, an authorization server that serves no
// metadata or no PKCE S256, scopes the resource lists that its
// authorization servers do not, and DPoP-bound tokens required where no
// authorization server issues them. A server without metadata gives
// nothing. The requests carry no credential.
func CheckAuthMetadata(ctx context.Context, s *Server, c *http.Client, endpoint string) []Finding {
	ck := &checker{server: s}
	report := func(field, format string, args ...any) {
		ck.add(AuthMetadata, "", "endpoint", endpoint, field, fmt.Sprintf(format, args...))
	}
	f := &auth.Fetcher{HTTP: c, ServerURL: endpoint}
	prm, err := f.ResourceMetadata(ctx, nil)
	switch {
	case err != nil:
		report("oauth-protected-resource", "%v", err)
		return ck.findings
	case prm == nil:
		return nil
	}
	// Scopes are judged only when every authorization server lists its
	// own: an absent list says nothing about what it offers.
	var asScopes []string
	judgeScopes, fetched, dpop := true, 0, false
	for _, issuer := range prm.AuthorizationServers {
		asm, err := f.ServerMetadata(ctx, issuer)
		if err != nil {
			report("authorization_servers", "%v", err)
			continue
		}
		fetched++
		if err := asm.CheckPKCE(); err != nil {
			report("authorization_servers", "%s: %v", issuer, err)
		}
		judgeScopes = judgeScopes && asm.ScopesSupported != nil
		asScopes = append(asScopes, asm.ScopesSupported...)
		dpop = dpop || len(asm.DPoPSigningAlgValuesSupported) > 0
	}
	if fetched > 0 && prm.DPoPBoundAccessTokensRequired && !dpop {
		report("dpop_bound_access_tokens_required", "the resource requires DPoP-bound tokens, but no authorization server lists dpop_signing_alg_values_supported")
	}
	if fetched > 0 && judgeScopes {
		var missing []string
		for _, sc := range prm.ScopesSupported {
			if !slices.Contains(asScopes, sc) {
				missing = append(missing, sc)
			}
		}
		if len(missing) > 0 {
			report("scopes_supported", "the resource lists scopes its authorization servers do not offer: %s", strings.Join(missing, " "))
		}
	}
	return ck.findings
}
