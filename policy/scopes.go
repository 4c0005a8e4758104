package policy

import (
	"strings"

	"github.com/mcpctl/mcpctl/signing"
)

// JWTScopes returns the scopes a JWT bearer token grants: its "scope"
// claim (a space-separated string, as OAuth 2.0 and `mcpctl sign jwt`
// write it) and its "scp" claim (a list, or a space-separated string). ok
// is false when token is not a JWT whose claims can be decoded; the token's
// signature is not checked: the server does that, and the policy only asks
// what the credential claims.
func JWTScopes(token string) (scopes []string, ok bool) {
	_, claims, _, err := signing.InspectJWT(token, nil)
	if err != nil {
		return nil, false
	}
	scopes = []string{}
	for _, name := range []string{"scope", "scp"} {
		switch v := claims[name].(type) {
		case string:
			scopes = append(scopes, strings.Fields(v)...)
		case []any:
			for _, e := range v {
				if s, ok := e.(string); ok {
					scopes = append(scopes, s)
				}
			}
		}
	}
	return scopes, true
}
