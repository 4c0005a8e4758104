package policy

import (
	"encoding/base64"
	"encoding/json"
	"strings"
)

// JWTScopes returns the scopes a JWT bearer token grants: its "scope"
// claim (a space-separated string, as OAuth 2.0 and `mcpctl sign jwt`
// write it) and its "scp" claim (a list, or a space-separated string). ok
// is false when token is not a JWT whose claims can be decoded; the token's
// signature is not checked: the server does that, and the policy only asks
// what the credential claims.
func JWTScopes(token string) (scopes []string, ok bool) {
	parts := strings.Split(strings.TrimSpace(token), ".")
	if len(parts) != 3 {
		return nil, false
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return nil, false
	}
	var claims map[string]json.RawMessage
	if err := json.Unmarshal(payload, &claims); err != nil {
		return nil, false
	}
	scopes = []string{}
	for _, name := range []string{"scope", "scp"} {
		raw, found := claims[name]
		if !found {
			continue
		}
		var s string
		var list []string
		switch {
		case json.Unmarshal(raw, &s) == nil:
			scopes = append(scopes, strings.Fields(s)...)
		case json.Unmarshal(raw, &list) == nil:
			scopes = append(scopes, list...)
		}
	}
	return scopes, true
}
