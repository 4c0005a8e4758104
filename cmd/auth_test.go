package cmd

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/auth"
	"github.com/mcpctl/mcpctl/config"
	"github.com/mcpctl/mcpctl/transport"
)

func TestExitCodeAuth(t *testing.T) {
	t.Parallel()
	authErr := &auth.Error{Err: auth.ErrInteractionRequired, Hint: "run: mcpctl auth login --url U"}
	// What http.Client and the transport make of an error the Authorizer
	// returns from RoundTrip.
	viaTransport := &transport.ConnectError{URL: "http://h/mcp", Err: &url.Error{Op: "Post", URL: "http://h/mcp", Err: authErr}}
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"auth error", authErr, ExitAuth},
		{"through the transport", fmt.Errorf("connecting: %w", viaTransport), ExitAuth},
		{"401", &transport.HTTPError{Status: 401, Method: "POST", URL: "u"}, ExitAuth},
		{"403", fmt.Errorf("x: %w", &transport.HTTPError{Status: 403, Method: "POST", URL: "u"}), ExitAuth},
		{"500", &transport.HTTPError{Status: 500, Method: "POST", URL: "u"}, ExitError},
		{"timeout wins", &auth.Error{Op: "authorization", Err: context.DeadlineExceeded}, ExitTimeout},
	}
	for _, tt := range tests {
		if got := exitCode(tt.err, false); got != tt.want {
			t.Errorf("%s: exitCode(%v) = %d, want %d", tt.name, tt.err, got, tt.want)
		}
	}
	if !strings.Contains(exitCodeHelp(), "8    authorization required") {
		t.Error("the exit-code help does not list 8")
	}
}

// A protected server, no token, no browser: exit 8 at once, with the
// command to run, and no flow started.
func TestUnauthorizedWithoutBrowserExits8(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://`+r.Host+`/.well-known/oauth-protected-resource"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()
	state := t.TempDir()
	ios, _, _, errOut := Test()
	f := NewFactory(ios)
	f.Environ = func() []string { return []string{"CI=true", "HOME=" + state, "XDG_STATE_HOME=" + state} }
	f.Getwd = func() (string, error) { return state, nil }
	start := time.Now()
	code := runWith(context.Background(), f, []string{"list", "--url", srv.URL + "/mcp"})
	if code != ExitAuth {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, ExitAuth, errOut)
	}
	if !strings.Contains(errOut.String(), "mcpctl auth login --url "+srv.URL+"/mcp") {
		t.Errorf("stderr does not name the login command:\n%s", errOut)
	}
	if n := strings.Count(strings.TrimSpace(errOut.String()), "\n"); n != 0 {
		t.Errorf("want one error line, got:\n%s", errOut)
	}
	if hits.Load() > 2 {
		t.Errorf("%d requests: the flow should stop at the first 401", hits.Load())
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("took %s", d)
	}
}

func TestAuthFlagValidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"list", "--url", "http://127.0.0.1:1/mcp", "--grant", "password"}, "invalid --grant"},
		{[]string{"list", "--url", "http://127.0.0.1:1/mcp", "--dpop", "maybe"}, "invalid --dpop"},
		{[]string{"list", "--url", "http://127.0.0.1:1/mcp", "--grant", "client-credentials"}, "needs --client-id"},
		{[]string{"list", "--url", "http://127.0.0.1:1/mcp", "--grant", "jwt-bearer"}, "needs --assertion"},
		{[]string{"list", "--url", "http://127.0.0.1:1/mcp", "--grant", "token-exchange", "--id-token", "env:X"}, "--idp-token-endpoint"},
		{[]string{"list", "--url", "http://127.0.0.1:1/mcp", "--client-metadata-url", "ftp://x"}, "invalid --client-metadata-url"},
		{[]string{"list", "--client-id", "x", "--", "cmd"}, "apply to --url servers only"},
		{[]string{"list", "--url", "http://127.0.0.1:1/mcp", "--client-id", "c", "--client-secret", "env:NOPE"}, "--client-secret"},
	}
	for _, tt := range tests {
		ios, _, _, errOut := Test()
		f := NewFactory(ios)
		dir := t.TempDir()
		f.Environ = func() []string { return []string{"HOME=" + dir} }
		f.Getwd = func() (string, error) { return dir, nil }
		if code := runWith(context.Background(), f, tt.args); code != ExitUsage || !strings.Contains(errOut.String(), tt.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tt.args, code, errOut, ExitUsage, tt.want)
		}
	}
}

func TestInteractive(t *testing.T) {
	t.Parallel()
	tests := []struct {
		env       []string
		stdin     bool
		stderr    bool
		wantInter bool
	}{
		{nil, false, false, false},
		{nil, true, false, true},
		{nil, false, true, true},
		{[]string{"CI=true"}, true, true, false},
		{[]string{"BROWSER=/bin/follow"}, false, false, true},
		{[]string{"CI=true", "BROWSER=/bin/follow"}, false, false, false},
		{[]string{"CI=false"}, true, false, true},
	}
	for _, tt := range tests {
		ios, _, _, _ := Test()
		ios.SetStdinTTY(tt.stdin)
		ios.SetStderrTTY(tt.stderr)
		f := NewFactory(ios)
		f.Environ = func() []string { return tt.env }
		if got := f.interactive(); got != tt.wantInter {
			t.Errorf("env %q, stdin tty %v, stderr tty %v: interactive = %v, want %v", tt.env, tt.stdin, tt.stderr, got, tt.wantInter)
		}
	}
}

func TestStateDir(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		env  []string
		want string
	}{
		{[]string{"HOME=/h", "XDG_STATE_HOME=/s"}, "/s/mcpctl"},
		{[]string{"HOME=/h", "XDG_STATE_HOME=relative"}, "/h/.local/state/mcpctl"},
		{[]string{"HOME=/h"}, "/h/.local/state/mcpctl"},
	} {
		ios, _, _, _ := Test()
		f := NewFactory(ios)
		f.GOOS = "linux"
		f.Environ = func() []string { return tt.env }
		if got, err := f.stateDir(); err != nil || got != tt.want {
			t.Errorf("%q: stateDir = %q, %v; want %q", tt.env, got, err, tt.want)
		}
	}
}

func TestMergeAuth(t *testing.T) {
	t.Parallel()
	got := mergeAuth(config.Auth{ClientID: "flag"}, config.Auth{ClientID: "def", Grant: "client-credentials", Scope: "a b"})
	want := config.Auth{ClientID: "flag", Grant: "client-credentials", Scope: "a b"}
	if got != want {
		t.Errorf("mergeAuth = %+v, want %+v", got, want)
	}
}

func TestAuthStatusTokenLogout(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	serverURL := "http://127.0.0.1:9/mcp"
	env := []string{"HOME=" + state, "XDG_STATE_HOME=" + state}
	newF := func() (*Factory, *strings.Builder, *strings.Builder) {
		ios, _, out, errOut := Test()
		f := NewFactory(ios)
		f.Environ = func() []string { return env }
		f.Getwd = func() (string, error) { return state, nil }
		o, e := &strings.Builder{}, &strings.Builder{}
		_ = out
		_ = errOut
		ios.Out, ios.ErrOut = o, e
		return f, o, e
	}
	f, _, errOut := newF()
	if code := runWith(context.Background(), f, []string{"auth", "status"}); code != 0 || !strings.Contains(errOut.String(), "no tokens stored") {
		t.Fatalf("status on an empty store: exit %d, stderr %q", code, errOut)
	}
	store := auth.NewStore(filepath.Join(state, "mcpctl"))
	secret := "stored-access-token-value"
	if err := store.SaveToken(&auth.Token{AccessToken: secret, TokenType: "Bearer", RefreshToken: "stored-refresh-value", Scope: "read",
		Expiry: time.Now().Add(time.Hour), Issuer: "https://as.example", Resource: serverURL}); err != nil {
		t.Fatal(err)
	}
	f, out, errOut := newF()
	if code := runWith(context.Background(), f, []string{"auth", "status"}); code != 0 {
		t.Fatalf("status: exit %d, stderr %q", code, errOut)
	}
	if s := out.String(); !strings.Contains(s, "https://as.example") || !strings.Contains(s, "read") || strings.Contains(s, secret) || strings.Contains(s, "stored-refresh-value") {
		t.Errorf("status output:\n%s", s)
	}
	f, out, errOut = newF()
	if code := runWith(context.Background(), f, []string{"auth", "token", "--url", serverURL}); code != 0 || strings.TrimSpace(out.String()) != secret {
		t.Errorf("token: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	f, _, errOut = newF()
	if code := runWith(context.Background(), f, []string{"auth", "logout", "--url", serverURL}); code != 0 || !strings.Contains(errOut.String(), "forgot") {
		t.Errorf("logout: exit %d, stderr %q", code, errOut)
	}
	if list, _ := store.List(); len(list) != 0 {
		t.Errorf("tokens after logout: %+v", list)
	}
	fi, err := os.Stat(filepath.Join(state, "mcpctl", auth.StoreFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("store file: %v, %v", fi, err)
	}
	// No token and no browser: auth token exits 8.
	f, out, errOut = newF()
	env = append(env, "CI=true")
	if code := runWith(context.Background(), f, []string{"auth", "token", "--url", serverURL}); code != ExitAuth || out.Len() != 0 {
		t.Errorf("token without a token: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestServersAddAuthFlags(t *testing.T) {
	e := newTestEnv(t)
	ios, _, _, errOut := Test()
	args := []string{"servers", "add", "prot", "--url", "https://h/mcp", "--client-id", "cid", "--client-secret", "env:PROT_SECRET", "--grant", "client-credentials", "--scope", "read"}
	if code := execute(e.factory(ios), args...); code != 0 {
		t.Fatalf("servers add: exit %d, stderr %q", code, errOut)
	}
	ios, _, out, errOut := Test()
	if code := execute(e.factory(ios), "servers", "show", "prot"); code != 0 {
		t.Fatalf("servers show: exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{"client-id cid", "client-secret env:PROT_SECRET", "grant client-credentials"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("servers show lacks %q:\n%s", want, out)
		}
	}
	ios, _, _, errOut = Test()
	if code := execute(e.factory(ios), "servers", "add", "leak", "--url", "https://h/mcp", "--client-secret", "literal-secret"); code != ExitUsage {
		t.Errorf("a literal secret: exit %d, stderr %q", code, errOut)
	}
	if strings.Contains(errOut.String(), "literal-secret") {
		t.Errorf("the error quotes the secret: %q", errOut)
	}
	_ = errors.New
}
