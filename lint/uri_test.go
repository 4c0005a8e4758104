package lint

import (
	"strings"
	"testing"
)

func TestCheckURI(t *testing.T) {
	tests := []struct {
		uri  string
		want string // substring of the problem; "" for a valid URI
	}{
		{"file:///project/src/main.rs", ""},
		{"https://example.com/a/b?c=d&e=f#g", ""},
		{"https://user:pw@example.com:8443/x", ""},
		{"http://[::1]:8080/x", ""},
		{"urn:isbn:0451450523", ""},
		{"demo://resource/static/document/architecture.md", ""},
		{"mailto:a@example.com", ""},
		{"data:text/plain;base64,SGVsbG8=", ""},
		{"x:%41%7e", ""},
		{"git+ssh://host/repo.git", ""},
		{"a:", ""},
		{"", "is empty"},
		{"notes/a.txt", "has no scheme"},
		{"/abs/path", "has no scheme"},
		{"?q:x", "has no scheme"},
		{"1abc:x", "a scheme starts with a letter"},
		{"my_app://x", `'_' is not allowed in a scheme`},
		{"file:///my notes.txt", "a space at offset 10"},
		{"x:a\tb", "a tab"},
		{"x:caf\u00e9", "'é'"},
		{"x:a%2", "not a percent-encoding"},
		{"x:a%zz", "not a percent-encoding"},
		{"x:a#b#c", `more than one "#"`},
		{"x:a{b}", `'{'`},
		{"x:a<b>", `'<'`},
		{`x:a"b`, `'"'`},
		{"x:a\\b", `'\\'`},
		{"x:a^b", `'^'`},
		{"x:a`b", "'`'"},
		{"x:a|b", `'|'`},
		{"http://host:80a/", `invalid port "80a"`},
		{"http://[::1/", `without its closing "]"`},
		{"http://ho[st/", `"[" or "]" in its host`},
		{"x:/a[1]", `'[' outside a host`},
		{"x:\x01", "control character U+0001"},
		{"x:\xff", "not valid UTF-8"},
	}
	for _, tt := range tests {
		got := checkURI(tt.uri)
		if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("checkURI(%q) = %q, want %q", tt.uri, got, tt.want)
		}
	}
}

func TestCheckURITemplate(t *testing.T) {
	tests := []struct {
		tmpl string
		want string // substring of the problem; "" for a valid template
	}{
		// RFC 6570 section 1.2 and 3.2 examples.
		{"http://example.com/~{username}/", ""},
		{"http://example.com/dictionary/{term:1}/{term}", ""},
		{"http://example.com/search{?q,lang}", ""},
		{"{var}", ""},
		{"{+path}/here", ""},
		{"here?ref={+path}", ""},
		{"X{#var}", ""},
		{"X{.list*}", ""},
		{"{/var,x}/here", ""},
		{"{;x,y,empty}", ""},
		{"{?x,y,undef}", ""},
		{"?fixed=yes{&x}", ""},
		{"{var:30}", ""},
		{"{var:9999}", ""},
		{"{keys*}", ""},
		{"{a.b.c}", ""},
		{"{%20x}", ""},
		{"{_x1}", ""},
		{"file:///{path}", ""},
		{"demo://resource/dynamic/text/{resourceId}", ""},
		{"x:/caf\u00e9/{id}", ""},  // ucschar in a literal, as in an IRI
		{"x:/\U000F0000/{id}", ""}, // iprivate
		{"x:/a%20b/{id}", ""},
		{"", "is empty"},
		{"x:/{id", "not closed"},
		{"x:/{a{b}}", "not closed"},
		{"x:/id}", `"}" at offset 5 without an opening "{"`},
		{"x:/{}", "it is empty"},
		{"x:/{+}", "an operator but no variable"},
		{"x:/{=a}", `operator '=' is reserved`},
		{"x:/{!a}", "reserved"},
		{"x:/{@a}", "reserved"},
		{"x:/{|a}", "reserved"},
		{"x:/{,a}", "reserved"},
		{"x:/{a,}", "a variable name is empty"},
		{"x:/{a b}", "a space"},
		{"x:/{a-b}", `has '-'`},
		{"x:/{.a.}", "dot at its start or end"},
		{"x:/{a..b}", "two in a row"},
		{"x:/{a:0}", "from 1 to 9999"},
		{"x:/{a:10000}", "from 1 to 9999"},
		{"x:/{a:}", "from 1 to 9999"},
		{"x:/{a:3*}", "from 1 to 9999"},
		{"x:/{a**}", `has '*'`},
		{"x:/{%2}", `has '%'`},
		{"x:/a b/{id}", "a space at offset 4"},
		{"x:/it's/{id}", `'\''`},
		{"x:/a<b/{id}", `'<'`},
		{"x:/a%2/{id}", "not a percent-encoding"},
		{"x:/\xff", "not valid UTF-8"},
		{"x:/\uFFFE", `'\ufffe'`},
	}
	for _, tt := range tests {
		got := checkURITemplate(tt.tmpl)
		if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("checkURITemplate(%q) = %q, want %q", tt.tmpl, got, tt.want)
		}
	}
}
