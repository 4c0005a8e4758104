package auth

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseChallenges(t *testing.T) {
	type P = map[string]string
	tests := []struct {
		name   string
		values []string
		want   []Challenge
	}{
		{"empty", []string{""}, nil},
		{"bare scheme", []string{"Bearer"}, []Challenge{{"Bearer", P{}}}},
		{"MCP 401", []string{`Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", scope="files:read"`},
			[]Challenge{{"Bearer", P{"resource_metadata": "https://mcp.example.com/.well-known/oauth-protected-resource", "scope": "files:read"}}}},
		{"403 insufficient_scope multi-line", []string{"Bearer error=\"insufficient_scope\",\n\t scope=\"files:write files:read\",\terror_description=\"need write\""},
			[]Challenge{{"Bearer", P{"error": "insufficient_scope", "scope": "files:write files:read", "error_description": "need write"}}}},
		{"scheme case canonical, names lower-cased", []string{`bEaReR Scope="a", REALM=x`},
			[]Challenge{{"Bearer", P{"scope": "a", "realm": "x"}}}},
		{"unknown scheme kept as written", []string{`Newauth realm="apps", type=1`},
			[]Challenge{{"Newauth", P{"realm": "apps", "type": "1"}}}},
		{"two challenges in one value", []string{`Bearer realm="x", scope="a b", DPoP algs="ES256 PS256", error="use_dpop_nonce"`},
			[]Challenge{{"Bearer", P{"realm": "x", "scope": "a b"}}, {"DPoP", P{"algs": "ES256 PS256", "error": "use_dpop_nonce"}}}},
		{"RFC 9110 example", []string{`Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple"`},
			[]Challenge{{"Newauth", P{"realm": "apps", "type": "1", "title": `Login to "apps"`}}, {"Basic", P{"realm": "simple"}}}},
		{"several values", []string{`Basic realm="a"`, `Bearer scope="s"`},
			[]Challenge{{"Basic", P{"realm": "a"}}, {"Bearer", P{"scope": "s"}}}},
		{"token68", []string{`Negotiate YIIB6wYGKwYBBQUCoII==, Bearer realm="r"`},
			[]Challenge{{"Negotiate", P{"": "YIIB6wYGKwYBBQUCoII=="}}, {"Bearer", P{"realm": "r"}}}},
		{"token68 alone", []string{"Basic dXNlcjpwYXNz"}, []Challenge{{"Basic", P{"": "dXNlcjpwYXNz"}}}},
		{"escapes and comma in quotes", []string{`Bearer error_description="a, \"b\" \\ c", scope=x`},
			[]Challenge{{"Bearer", P{"error_description": `a, "b" \ c`, "scope": "x"}}}},
		{"spaces around =", []string{`Bearer realm = "x" , scope= y`},
			[]Challenge{{"Bearer", P{"realm": "x", "scope": "y"}}}},
		{"duplicate param keeps the first", []string{`Bearer scope="a", scope="b"`},
			[]Challenge{{"Bearer", P{"scope": "a"}}}},
		{"empty list elements", []string{`, ,Bearer ,, realm="x",,`},
			[]Challenge{{"Bearer", P{"realm": "x"}}}},
		{"param without challenge is dropped", []string{`realm="x", Bearer scope="s"`},
			[]Challenge{{"Bearer", P{"scope": "s"}}}},
		{"unterminated quote drops the param", []string{`Bearer scope="s", realm="unterminated`},
			[]Challenge{{"Bearer", P{"scope": "s"}}}},
		{"garbage after a value is skipped", []string{`Bearer scope="s" junk, realm=r`},
			[]Challenge{{"Bearer", P{"scope": "s", "realm": "r"}}}},
		{"empty quoted value", []string{`Bearer scope=""`}, []Challenge{{"Bearer", P{"scope": ""}}}},
		{"invalid scheme chars skipped", []string{`"quoted", Bearer`}, []Challenge{{"Bearer", P{}}}},
		{"dpop lower case", []string{`dpop algs="ES256"`}, []Challenge{{"DPoP", P{"algs": "ES256"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseChallenges(tt.values)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseChallenges(%q) (-want +got):\n%s", tt.values, diff)
			}
		})
	}
}

func TestFindChallenge(t *testing.T) {
	chs := ParseChallenges([]string{`Basic realm="a", X-Custom b=c, Bearer scope="s"`})
	if c := FindChallenge(chs, "bearer"); c == nil || c.Param("scope") != "s" {
		t.Errorf("FindChallenge(bearer) = %+v", c)
	}
	if c := FindChallenge(chs, "x-custom"); c == nil || c.Param("b") != "c" {
		t.Errorf("FindChallenge(x-custom) = %+v", c)
	}
	if c := FindChallenge(chs, "DPoP"); c != nil {
		t.Errorf("FindChallenge(DPoP) = %+v, want nil", c)
	}
}

// formatChallenges writes challenges back as a header value: parameters
// as quoted strings, in sorted order.
func formatChallenges(chs []Challenge) string {
	var b strings.Builder
	for i, c := range chs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.Scheme)
		if t, ok := c.Params[""]; ok {
			b.WriteString(" " + t)
			continue
		}
		first := true
		for _, k := range sortedKeys(c.Params) {
			if first {
				b.WriteString(" ")
				first = false
			} else {
				b.WriteString(", ")
			}
			v := strings.ReplaceAll(c.Params[k], `\`, `\\`)
			v = strings.ReplaceAll(v, `"`, `\"`)
			b.WriteString(k + `="` + v + `"`)
		}
	}
	return b.String()
}

func sortedKeys(m map[string]string) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// FuzzParseChallenges checks that any header parses without a panic into
// well-formed challenges, and that what it parses survives being written
// back and parsed again.
func FuzzParseChallenges(f *testing.F) {
	for _, s := range []string{
		`Bearer resource_metadata="https://x/.well-known/oauth-protected-resource", scope="a b"`,
		`Bearer error="insufficient_scope", scope="w", DPoP algs="ES256", error="use_dpop_nonce"`,
		`Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple"`,
		`Negotiate abc==, Basic`,
		`realm="x", , Bearer "`,
		`Bearer a="\`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		chs := ParseChallenges([]string{s})
		for _, c := range chs {
			if c.Scheme == "" || strings.IndexFunc(c.Scheme, func(r rune) bool { return r > 127 || !isTokenChar(byte(r)) }) >= 0 {
				t.Fatalf("scheme %q of %q is not a token", c.Scheme, s)
			}
			for k := range c.Params {
				if k != strings.ToLower(k) {
					t.Fatalf("param name %q of %q is not lower case", k, s)
				}
				if k == "" && len(c.Params) != 1 {
					t.Fatalf("token68 with params in %q: %v", s, c.Params)
				}
			}
		}
		again := ParseChallenges([]string{formatChallenges(chs)})
		if len(chs) == 0 {
			again = nil
		}
		if diff := cmp.Diff(chs, again); diff != "" {
			t.Fatalf("%q parsed, written as %q, parsed again differs (-first +again):\n%s", s, formatChallenges(chs), diff)
		}
	})
}
