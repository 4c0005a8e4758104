package auth

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// RFC 7636 Appendix B.
func TestPKCEChallengeRFC7636(t *testing.T) {
	if got, want := PKCEChallenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"), "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"; got != want {
		t.Errorf("challenge = %s, want %s", got, want)
	}
}

func TestNewPKCE(t *testing.T) {
	unreserved := regexp.MustCompile(`^[A-Za-z0-9._~-]{43,128}$`)
	v1, c1 := NewPKCE()
	v2, _ := NewPKCE()
	if !unreserved.MatchString(v1) || v1 == v2 || c1 != PKCEChallenge(v1) {
		t.Errorf("NewPKCE = %q %q, %q", v1, c1, v2)
	}
}

func newLoopback(t *testing.T) *Loopback {
	t.Helper()
	l, err := ListenLoopback(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// follower is an Open func that acts as the browser and the
// authorization server at once: it checks the authorization request and
// sends the browser to the redirect URI with the response edit makes.
// The page the loopback answers with is sent on pages.
func follower(t *testing.T, edit func(q url.Values), pages chan<- string) func(string) error {
	return func(authURL string) error {
		u, err := url.Parse(authURL)
		if err != nil {
			return err
		}
		req := u.Query()
		resp := url.Values{"code": {"the-code"}, "state": {req.Get("state")}}
		if edit != nil {
			edit(resp)
		}
		cb, err := url.Parse(req.Get("redirect_uri"))
		if err != nil {
			return err
		}
		cb.RawQuery = resp.Encode()
		r, err := http.Get(cb.String())
		if err != nil {
			return err
		}
		defer r.Body.Close()
		b, _ := io.ReadAll(r.Body)
		if pages != nil {
			pages <- string(b)
		}
		return nil
	}
}

func TestAuthorizeCode(t *testing.T) {
	const issuer = "https://as.example.com"
	tests := []struct {
		name    string
		md      ServerMetadata
		edit    func(q url.Values)
		wantErr string
		page    string
	}{
		{
			name: "iss-supported",
			md:   ServerMetadata{AuthorizationResponseIssParameterSupported: true},
			edit: func(q url.Values) { q.Set("iss", issuer) },
			page: "Signed in",
		},
		{name: "iss-not-advertised", page: "Signed in"},
		{
			name:    "iss-supported-missing",
			md:      ServerMetadata{AuthorizationResponseIssParameterSupported: true},
			wantErr: "no iss parameter",
			page:    "Sign-in failed",
		},
		{
			name:    "iss-wrong-issuer",
			md:      ServerMetadata{AuthorizationResponseIssParameterSupported: true},
			edit:    func(q url.Values) { q.Set("iss", "https://evil.example.com") },
			wantErr: `issuer "https://evil.example.com"`,
		},
		{
			name:    "iss-unexpected",
			edit:    func(q url.Values) { q.Set("iss", "https://evil.example.com") },
			wantErr: `issuer "https://evil.example.com"`,
		},
		{
			name:    "iss-normalized",
			md:      ServerMetadata{AuthorizationResponseIssParameterSupported: true},
			edit:    func(q url.Values) { q.Set("iss", issuer+"/") },
			wantErr: "not \"https://as.example.com\"",
		},
		{
			name: "error response",
			edit: func(q url.Values) {
				q.Del("code")
				q.Set("error", "access_denied")
				q.Set("error_description", "the user said no")
			},
			wantErr: "access_denied: the user said no",
		},
		{
			name:    "no code",
			edit:    func(q url.Values) { q.Del("code"); q.Set("error", "") },
			wantErr: "neither a code nor an error",
		},
		{
			name:    "duplicated code",
			edit:    func(q url.Values) { q.Add("code", "other") },
			wantErr: "appears 2 times",
		},
		{name: "PKCE not advertised", md: ServerMetadata{CodeChallengeMethodsSupported: []string{}}, wantErr: "does not advertise code_challenge_methods_supported"},
		{name: "PKCE plain only", md: ServerMetadata{CodeChallengeMethodsSupported: []string{"plain"}}, wantErr: "does not support PKCE with S256"},
		{name: "2025-03-26 default endpoints", md: ServerMetadata{CodeChallengeMethodsSupported: []string{}, Legacy: true}, page: "Signed in"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLoopback(t)
			md := tt.md
			md.Issuer = issuer
			md.AuthorizationEndpoint = "https://as.example.com/authorize?tenant=t1"
			if md.CodeChallengeMethodsSupported == nil {
				md.CodeChallengeMethodsSupported = []string{"plain", "S256"}
			}
			pages := make(chan string, 1)
			var prompt strings.Builder
			opened := make(chan string, 1)
			open := follower(t, tt.edit, pages)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			code, verifier, err := AuthorizeCode(ctx, AuthCodeRequest{
				Metadata:     &md,
				Registration: &Registration{ClientID: "cid"},
				Scopes:       []string{"mcp:read", "mcp:write"},
				Resource:     "https://mcp.example.com/mcp",
				Redirect:     l,
				Open: func(u string) error {
					opened <- u
					return open(u)
				},
				Prompt: &prompt,
			})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				var ae *Error
				if !errors.As(err, &ae) {
					t.Errorf("err is %T, want *Error", err)
				}
				if tt.name == "error response" {
					var re *ResponseError
					if !errors.As(err, &re) || re.Code != "access_denied" {
						t.Errorf("no ResponseError access_denied in %v", err)
					}
				}
			} else if err != nil {
				t.Fatal(err)
			} else if code != "the-code" {
				t.Errorf("code = %q", code)
			}
			if tt.page != "" {
				if page := <-pages; !strings.Contains(page, tt.page) {
					t.Errorf("page = %q, want %q", page, tt.page)
				}
			}
			if err != nil && strings.Contains(tt.name, "PKCE") {
				return // refused before any URL was made
			}
			authURL := <-opened
			if !strings.Contains(prompt.String(), "Opening "+authURL) {
				t.Errorf("prompt = %q", prompt.String())
			}
			if err != nil {
				return
			}
			u, _ := url.Parse(authURL)
			q := u.Query()
			want := map[string]string{
				"tenant":                "t1",
				"response_type":         "code",
				"client_id":             "cid",
				"redirect_uri":          l.RedirectURI(),
				"code_challenge":        PKCEChallenge(verifier),
				"code_challenge_method": "S256",
				"scope":                 "mcp:read mcp:write",
				"resource":              "https://mcp.example.com/mcp",
			}
			for k, v := range want {
				if q.Get(k) != v {
					t.Errorf("authorization request %s = %q, want %q", k, q.Get(k), v)
				}
			}
			if len(q.Get("state")) < 32 {
				t.Errorf("state = %q", q.Get("state"))
			}
		})
	}
}

// TestAuthorizeCodeIgnoresForgedState: responses that do not carry the
// request's state (forged, missing, doubled; codes and errors alike) are
// answered with an error page and do not end the run, which takes the
// right one after them.
func TestAuthorizeCodeIgnoresForgedState(t *testing.T) {
	l := newLoopback(t)
	md := &ServerMetadata{Issuer: "https://as.example.com", AuthorizationEndpoint: "https://as.example.com/authorize", CodeChallengeMethodsSupported: []string{"S256"}}
	forged := []func(q url.Values){
		func(q url.Values) { q.Set("state", "forged") },
		func(q url.Values) { q.Del("state") },
		func(q url.Values) { q.Add("state", "forged") },
		func(q url.Values) { q.Del("code"); q.Set("error", "access_denied"); q.Set("state", "forged") },
	}
	var pages []string
	open := func(authURL string) error {
		for _, edit := range forged {
			page := make(chan string, 1)
			if err := follower(t, edit, page)(authURL); err != nil {
				return err
			}
			pages = append(pages, <-page)
		}
		return follower(t, nil, nil)(authURL)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan error, 1)
	code, _, err := AuthorizeCode(ctx, AuthCodeRequest{
		Metadata:     md,
		Registration: &Registration{ClientID: "cid"},
		Redirect:     l,
		Open: func(u string) error {
			err := open(u)
			done <- err
			return err
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if code != "the-code" {
		t.Errorf("code = %q", code)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for i, p := range pages {
		if !strings.Contains(p, "state does not match") {
			t.Errorf("forged response %d: page %q", i, p)
		}
	}
}

func TestAuthorizeCodeTimeout(t *testing.T) {
	l := newLoopback(t)
	ctx, cancel := context.WithCancel(context.Background())
	var prompt lineWriter
	prompt.lines = make(chan string, 10)
	go func() {
		<-prompt.lines // the URL is printed: nobody answers; give up
		cancel()
	}()
	_, _, err := AuthorizeCode(ctx, AuthCodeRequest{
		Metadata:     &ServerMetadata{Issuer: "http://127.0.0.1:1", AuthorizationEndpoint: "http://127.0.0.1:1/authorize", CodeChallengeMethodsSupported: []string{"S256"}},
		Registration: &Registration{ClientID: "cid"},
		Redirect:     l,
		Prompt:       &prompt,
	})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "no answer from the browser") {
		t.Fatalf("err = %v", err)
	}
}

// lineWriter sends what is written to it on lines.
type lineWriter struct{ lines chan string }

func (w *lineWriter) Write(p []byte) (int, error) {
	w.lines <- string(p)
	return len(p), nil
}

func TestAuthorizeCodePaste(t *testing.T) {
	l := newLoopback(t)
	pr, pw := io.Pipe()
	defer pw.Close()
	prompt := &lineWriter{lines: make(chan string, 10)}
	type result struct {
		code string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		code, _, err := AuthorizeCode(context.Background(), AuthCodeRequest{
			Metadata:     &ServerMetadata{Issuer: "https://as.example.com", AuthorizationEndpoint: "https://as.example.com/authorize", CodeChallengeMethodsSupported: []string{"S256"}},
			Registration: &Registration{ClientID: "cid"},
			Redirect:     l,
			Prompt:       prompt,
			Paste:        pr,
		})
		done <- result{code, err}
	}()
	first := <-prompt.lines
	if !strings.HasPrefix(first, "Open this URL to sign in: ") {
		t.Fatalf("first line = %q", first)
	}
	u, _ := url.Parse(strings.TrimSpace(strings.TrimPrefix(first, "Open this URL to sign in: ")))
	state := u.Query().Get("state")
	if line := <-prompt.lines; !strings.Contains(line, "paste") {
		t.Errorf("second line = %q", line)
	}
	fmt.Fprintln(pw, "not a URL at all")
	if line := <-prompt.lines; !strings.Contains(line, "not the redirect address") {
		t.Errorf("after junk: %q", line)
	}
	fmt.Fprintf(pw, "  %s?code=pasted-code&state=%s  \n", l.RedirectURI(), state)
	r := <-done
	if r.err != nil || r.code != "pasted-code" {
		t.Fatalf("AuthorizeCode = %q, %v", r.code, r.err)
	}
}

func TestLoopbackReceiver(t *testing.T) {
	l := newLoopback(t)
	if !strings.HasPrefix(l.RedirectURI(), "http://127.0.0.1:") || !strings.HasSuffix(l.RedirectURI(), "/callback") {
		t.Fatalf("RedirectURI = %s", l.RedirectURI())
	}
	base := strings.TrimSuffix(l.RedirectURI(), "/callback")
	get := func(path string) int {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := get("/favicon.ico"); s != 404 {
		t.Errorf("favicon: %d", s)
	}
	if s := get("/callback"); s != 400 {
		t.Errorf("callback without parameters: %d", s)
	}
	// Not armed: no run waits.
	if s := get("/callback?code=a&state=s"); s != 409 {
		t.Errorf("response before a run: %d", s)
	}
	// A response with another state is refused and leaves the run
	// waiting; the first with its state is taken; a second one while it
	// waits is not.
	l.arm("s")
	for _, forged := range []string{"/callback?code=x&state=forged", "/callback?error=access_denied", "/callback?code=x&state=s&state=t"} {
		if s := get(forged); s != 400 {
			t.Errorf("%s: %d, want 400", forged, s)
		}
	}
	first := make(chan int, 1)
	go func() { first <- get("/callback?code=a&state=s") }()
	cb := <-l.results
	if s := get("/callback?code=b&state=s"); s != 409 {
		t.Errorf("second response: %d", s)
	}
	cb.reply <- "ok"
	if s := <-first; s != 200 {
		t.Errorf("first response: %d", s)
	}
	if err := l.Close(); err != nil {
		t.Error(err)
	}
	if _, err := http.Get(l.RedirectURI()); err == nil {
		t.Error("receiver still answers after Close")
	}
	if _, err := ListenLoopback(70000); err == nil {
		t.Error("port 70000 accepted")
	}
}

func TestBrowserEnv(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "args")
	script := filepath.Join(dir, "follow")
	// A $BROWSER that records its arguments and exits at once, as the
	// conformance driver's follower does.
	if err := os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > "+out+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	const target = "https://as.example.com/authorize?a=1&b=2"
	tests := []struct {
		env  string
		want []string
	}{
		{env: script, want: []string{target}},
		{env: script + " --new-tab", want: []string{"--new-tab", target}},
		{env: script + " --url=%s --x", want: []string{"--url=" + target, "--x"}},
		{env: filepath.Join(dir, "missing") + string(os.PathListSeparator) + script, want: []string{target}},
	}
	for _, tt := range tests {
		os.Remove(out)
		if err := runBrowserEnv(tt.env, target); err != nil {
			t.Errorf("%s: %v", tt.env, err)
			continue
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			got = append(got, sc.Text())
		}
		f.Close()
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("%s: args %q, want %q", tt.env, got, tt.want)
		}
	}
	if err := runBrowserEnv(filepath.Join(dir, "missing"), target); err == nil {
		t.Error("a missing command: no error")
	}
	// BrowserOpener reads $BROWSER from the lookup it is given, not from
	// the process environment.
	open := BrowserOpener(func(k string) (string, bool) {
		if k == "BROWSER" {
			return script + " --from-lookup", true
		}
		return "", false
	})
	os.Remove(out)
	if err := open(target); err != nil {
		t.Fatalf("BrowserOpener: %v", err)
	}
	if data, err := os.ReadFile(out); err != nil || string(data) != "--from-lookup\n"+target+"\n" {
		t.Errorf("BrowserOpener ran $BROWSER with %q, %v; want --from-lookup and the URL", data, err)
	}
	for _, bad := range []string{"file:///etc/passwd", "javascript:alert(1)", "/relative"} {
		if err := open(bad); err == nil || !strings.Contains(err.Error(), "not an http(s) URL") {
			t.Errorf("opening %q: %v", bad, err)
		}
	}
}

// TestLoopbackCloseLetsThePageOut: closing the receiver as soon as
// AuthorizeCode returns still shows the browser its page.
func TestLoopbackCloseLetsThePageOut(t *testing.T) {
	for i := 0; i < 5; i++ {
		l, err := ListenLoopback(0)
		if err != nil {
			t.Fatal(err)
		}
		pages := make(chan string, 1)
		openErr := make(chan error, 1)
		open := follower(t, nil, pages)
		_, _, err = AuthorizeCode(context.Background(), AuthCodeRequest{
			Metadata:     &ServerMetadata{Issuer: "https://as.example.com", AuthorizationEndpoint: "https://as.example.com/authorize", CodeChallengeMethodsSupported: []string{"S256"}},
			Registration: &Registration{ClientID: "cid"},
			Redirect:     l,
			Open:         func(u string) error { err := open(u); openErr <- err; return err },
		})
		l.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := <-openErr; err != nil {
			t.Fatalf("the browser got no page: %v", err)
		}
		if page := <-pages; !strings.Contains(page, "Signed in") {
			t.Fatalf("page = %q", page)
		}
	}
}
