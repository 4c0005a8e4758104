package transport

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestHTTPErrorString(t *testing.T) {
	tests := []struct {
		name string
		err  *HTTPError
		want string
	}{
		{
			name: "status only",
			err:  &HTTPError{Status: 502, Method: "POST", URL: "http://127.0.0.1:3001/mcp"},
			want: `POST http://127.0.0.1:3001/mcp: 502 Bad Gateway`,
		},
		{
			name: "body",
			err:  &HTTPError{Status: 500, Method: "POST", URL: "http://h/mcp", BodyExcerpt: `oops "quoted"`},
			want: `POST http://h/mcp: 500 Internal Server Error: "oops \"quoted\""`,
		},
		{
			name: "challenge from the map, sorted",
			err: &HTTPError{Status: 401, Method: "GET", URL: "http://h/sse", AuthScheme: "Bearer",
				WWWAuthenticate: map[string]string{"realm": "x", "error": "invalid_token"}},
			want: `GET http://h/sse: 401 Unauthorized (WWW-Authenticate: Bearer error="invalid_token", realm="x")`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestParseWWWAuthenticate(t *testing.T) {
	tests := []struct {
		in         string
		wantScheme string
		want       map[string]string
	}{
		{`Bearer realm="x", error="invalid_token"`, "Bearer", map[string]string{"realm": "x", "error": "invalid_token"}},
		{`Bearer resource_metadata="https://a/.well-known/oauth-protected-resource", scope="mcp:basic mcp:read"`, "Bearer",
			map[string]string{"resource_metadata": "https://a/.well-known/oauth-protected-resource", "scope": "mcp:basic mcp:read"}},
		{`Bearer`, "Bearer", map[string]string{}},
		{`Bearer Error=token68ish , realm = "a \"b\" c"`, "Bearer", map[string]string{"error": "token68ish", "realm": `a "b" c`}},
		{`Bearer realm="a", Basic realm="b"`, "Bearer", map[string]string{"realm": "a"}},
		{`Negotiate abc==`, "Negotiate", map[string]string{}},
		{`Bearer realm="unterminated`, "Bearer", map[string]string{"realm": "unterminated"}},
		{``, "", nil},
	}
	for _, tt := range tests {
		scheme, params := parseWWWAuthenticate(tt.in)
		if scheme != tt.wantScheme {
			t.Errorf("%q: scheme %q, want %q", tt.in, scheme, tt.wantScheme)
		}
		if diff := cmp.Diff(tt.want, params); diff != "" {
			t.Errorf("%q: params (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestExcerpt(t *testing.T) {
	tests := []struct {
		name string
		body string
		html bool
		want string
	}{
		{"collapse", "a\n\n  b\tc\r\n", false, "a b c"},
		{"control characters dropped", "a\x00b\x1b[31mc", false, "ab[31mc"},
		{"html reduced to text", "<!DOCTYPE html>\n<html><head><title>T</title><style>p{}</style></head>\n<body><h1>oops</h1>\n<p>it&amp;broke</p><script>x()</script></body></html>", true, "oops it&broke"},
		{"long cut on a rune boundary", strings.Repeat("é", 150), false, strings.Repeat("é", 100) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := excerpt([]byte(tt.body), tt.html); got != tt.want {
				t.Errorf("excerpt = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestConnectErrorString(t *testing.T) {
	err := &ConnectError{URL: "http://127.0.0.1:1/mcp", Err: &url.Error{Op: "Post", URL: "http://127.0.0.1:1/mcp", Err: fmt.Errorf("dial tcp: %w", syscall.ECONNREFUSED)}}
	if got, want := err.Error(), "connecting to http://127.0.0.1:1/mcp: connection refused"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Error("errors.Is(err, ECONNREFUSED) = false")
	}
}

func TestRedactSecrets(t *testing.T) {
	b, err := newHTTPBase(HTTPOptions{URL: "http://h/", Header: map[string][]string{
		"Authorization": {"Bearer s3cr3t-t0ken"},
		"X-Flag":        {"1"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	got := string(b.redact([]byte("got Bearer s3cr3t-t0ken and s3cr3t-t0ken, flag 1")))
	if want := "got [redacted] and [redacted], flag 1"; got != want {
		t.Errorf("redact = %q, want %q", got, want)
	}
}

func TestNewHTTPBaseRejects(t *testing.T) {
	for _, u := range []string{"", "ftp://h/x", "http:///x", "://bad"} {
		if _, err := newHTTPBase(HTTPOptions{URL: u}); err == nil {
			t.Errorf("newHTTPBase(%q) succeeded", u)
		}
	}
}

func TestNewHTTPTransport(t *testing.T) {
	opts := HTTPOptions{URL: "http://127.0.0.1:9/mcp"}
	for mode, want := range map[string]string{"": "auto", "auto": "auto", "http": "streamable-http", "streamable-http": "streamable-http", "sse": "sse"} {
		tr, err := NewHTTPTransport(mode, opts)
		if err != nil {
			t.Fatalf("%q: %v", mode, err)
		}
		if got := tr.(fmt.Stringer).String(); got != want+" http://127.0.0.1:9/mcp" {
			t.Errorf("%q: String() = %q", mode, got)
		}
	}
	if _, err := NewHTTPTransport("websocket", opts); err == nil {
		t.Error("unknown mode accepted")
	}
}

func TestSameOrigin(t *testing.T) {
	base, _ := url.Parse("http://Example.com/sse")
	for s, want := range map[string]bool{
		"http://example.com:80/messages?x=1": true,
		"/messages":                          true,
		"https://example.com/messages":       false,
		"http://example.com:8080/messages":   false,
		"http://evil.example/messages":       false,
		"//evil.example/messages":            false,
	} {
		u, err := base.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := sameOrigin(u, base); got != want {
			t.Errorf("sameOrigin(%q) = %v, want %v", s, got, want)
		}
	}
}
