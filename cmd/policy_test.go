package cmd

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/auth"
	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/session"
	"github.com/mcpctl/mcpctl/signing"
)

func writePolicy(t *testing.T, text string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// The check's decisions, one call each, on a terminal and not.
func TestPolicyCheck(t *testing.T) {
	t.Parallel()
	file := writePolicy(t, `
delete_*:
  sensitivity: high
  requires_approval: true
  sensitive_arguments: [token]
db_query:
  required_scopes: [tool:database]
limited:
  rate_limit: 1
`)
	key := []byte("k")
	reader, err := signing.MintJWT(key, signing.JWTClaims{Scopes: []string{"tool:read"}, TTL: time.Minute}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	destructive := &client.Tool{Name: "rm", Annotations: &client.ToolAnnotations{DestructiveHint: &yes}}
	tests := []struct {
		name    string
		tty     bool
		input   string
		o       ServerOptions
		req     session.Call
		wantBy  string
		wantErr string // "" allowed
	}{
		{"approval piped", false, "", ServerOptions{}, session.Call{Name: "delete_user"}, "refused: requires_approval", "pass --approve=delete_user"},
		{"approval given", false, "", ServerOptions{Policy: PolicyOptions{Approve: []string{"delete_*"}}}, session.Call{Name: "delete_user"}, "--approve", ""},
		{"approved at the prompt", true, "y\n", ServerOptions{}, session.Call{Name: "delete_user", Args: json.RawMessage(`{"id":1}`)}, "tty-approved", ""},
		{"declined at the prompt", true, "\n", ServerOptions{}, session.Call{Name: "delete_user"}, "refused: requires_approval", "not approved at the prompt"},
		{"terminal under CI", true, "y\n", ServerOptions{}, session.Call{Name: "delete_user"}, "refused: requires_approval", "no terminal to ask on (or CI=true)"},
		{"prompt at end of input", true, "", ServerOptions{}, session.Call{Name: "delete_user"}, "refused: requires_approval", "not approved"},
		{"annotations fallback", false, "", ServerOptions{}, session.Call{Name: "rm", Tool: destructive}, "refused: requires_approval", `rm (entry "annotations")`},
		{"no entry, no hint", false, "", ServerOptions{}, session.Call{Name: "echo"}, "policy", ""},
		{"scope missing", false, "", ServerOptions{URL: "http://127.0.0.1:1/mcp", Bearer: "env:TOKEN"}, session.Call{Name: "db_query"}, "refused: required_scopes", "missing scope tool:database: the bearer token grants tool:read"},
		{"scope over stdio", false, "", ServerOptions{Command: []string{"x"}}, session.Call{Name: "db_query"}, "refused: required_scopes", "a stdio server is sent no credential"},
		{"read is not governed", false, "", ServerOptions{}, session.Call{Method: "resources/read", Name: "file:///x"}, "policy", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := []string{"TOKEN=" + reader, "XDG_STATE_HOME=" + t.TempDir()}
			if strings.Contains(tt.name, "CI") {
				env = append(env, "CI=true")
			}
			f := featureFactory(tt.tty, tt.input, env...)
			o := tt.o
			o.Policy.File = file
			check, err := testPolicyCheck(f, &o)
			if err != nil {
				t.Fatal(err)
			}
			r := tt.req
			if r.Method == "" {
				r.Method = "tools/call"
			}
			r.Server = "srv"
			d, err := check(context.Background(), &r)
			if d.By != tt.wantBy {
				t.Errorf("By = %q, want %q", d.By, tt.wantBy)
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("error = %v, want it to contain %q", err, tt.wantErr)
			case tt.wantErr != "" && (exitCode(err, false) != ExitPolicy || d.Allowed):
				t.Errorf("exit %d, allowed %v; want %d, refused", exitCode(err, false), d.Allowed, ExitPolicy)
			}
		})
	}
}

func TestPolicyCheckPrompt(t *testing.T) {
	t.Parallel()
	file := writePolicy(t, "rm:\n  sensitivity: high\n  requires_approval: true\n")
	f := featureFactory(true, "yes\n")
	errOut := f.IOStreams.ErrOut.(interface{ String() string })
	check, err := testPolicyCheck(f, &ServerOptions{Policy: PolicyOptions{File: file}})
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	r := &session.Call{Method: "tools/call", Name: "rm", Server: "srv", Args: json.RawMessage("{\"path\":\"/tmp/\x1b[2Jx\"}"),
		Tool: &client.Tool{Name: "rm", Annotations: &client.ToolAnnotations{DestructiveHint: &yes}}}
	if d, err := check(context.Background(), r); err != nil || d.By != "tty-approved" {
		t.Fatalf("decision %+v, %v", d, err)
	}
	for _, want := range []string{`requires approval to call rm on srv`, "sensitivity: high", "annotations: destructiveHint", `arguments:   {"path":"/tmp/^[[2Jx"}`, "Call rm? [y/N] "} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("prompt lacks %q:\n%s", want, errOut)
		}
	}
}

// The rate limit is shared by checks of separate factories (processes).
func TestPolicyCheckRateLimit(t *testing.T) {
	t.Parallel()
	file := writePolicy(t, "add:\n  rate_limit: 2\n")
	state := "XDG_STATE_HOME=" + t.TempDir()
	var codes []int
	for range 3 {
		f := featureFactory(false, "", state)
		check, err := testPolicyCheck(f, &ServerOptions{Policy: PolicyOptions{File: file}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = check(context.Background(), &session.Call{Method: "tools/call", Name: "add", Server: "srv"})
		codes = append(codes, exitCode(err, false))
		if err != nil && !strings.Contains(err.Error(), "rate_limit: 2 calls a minute") {
			t.Errorf("error = %v", err)
		}
	}
	if want := []int{0, 0, ExitPolicy}; !slices.Equal(codes, want) {
		t.Errorf("exit codes %v, want %v", codes, want)
	}
	// --wait waits for the slot, and gives up when the context ends.
	f := featureFactory(false, "", state)
	check, _ := testPolicyCheck(f, &ServerOptions{Policy: PolicyOptions{File: file, Wait: true}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := check(ctx, &session.Call{Method: "tools/call", Name: "add", Server: "srv"}); err != context.Canceled {
		t.Errorf("wait with a cancelled context: %v", err)
	}
}

func TestPolicyNoneFound(t *testing.T) {
	t.Parallel()
	ios, _, _, _ := Test()
	f := NewFactory(ios)
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	f.Environ = func() []string { return []string{"XDG_CONFIG_HOME=" + dir} }
	f.Getwd = func() (string, error) { return dir, nil }
	check, err := testPolicyCheck(f, &ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := check(context.Background(), &session.Call{Method: "tools/call", Name: "x"})
	if err != nil || !d.Allowed || d.By != "" {
		t.Errorf("decision %+v, %v; want allowed with no policy", d, err)
	}
	if _, err := testPolicyCheck(f, &ServerOptions{Policy: PolicyOptions{File: filepath.Join(dir, "none.yaml")}}); exitCode(err, false) != ExitUsage {
		t.Errorf("missing --policy file: %v", err)
	}
}

// Without a bearer token, the scopes are those the stored OAuth token was
// granted.
func TestPolicyOAuthScopes(t *testing.T) {
	t.Parallel()
	file := writePolicy(t, "db_query:\n  required_scopes: [tool:database]\n")
	state := t.TempDir()
	f := featureFactory(false, "", "XDG_STATE_HOME="+state)
	o := &ServerOptions{URL: "http://127.0.0.1:1/mcp", Policy: PolicyOptions{File: file}}
	az, err := f.authorizer(o, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	store := &auth.Store{Dir: filepath.Join(state, "mcpctl")}
	check := func() error {
		t.Helper()
		c, err := testPolicyCheck(featureFactory(false, "", "XDG_STATE_HOME="+state), o)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c(context.Background(), &session.Call{Method: "tools/call", Name: "db_query", Server: "srv"})
		return err
	}
	if err := check(); err == nil || !strings.Contains(err.Error(), "no OAuth token yet") {
		t.Errorf("no token: %v", err)
	}
	tok := &auth.Token{AccessToken: "a", TokenType: "Bearer", Scope: "tool:read", Issuer: "https://as.example", Resource: az.Resource(), Expiry: time.Now().Add(time.Hour)}
	if err := store.SaveToken(tok); err != nil {
		t.Fatal(err)
	}
	if err := check(); err == nil || !strings.Contains(err.Error(), "missing scope tool:database: the OAuth token grants tool:read") {
		t.Errorf("token without the scope: %v", err)
	}
	tok.Scope = "tool:read tool:database"
	if err := store.SaveToken(tok); err != nil {
		t.Fatal(err)
	}
	if err := check(); err != nil {
		t.Errorf("token with the scope: %v", err)
	}
}

// testPolicyCheck is the decision of the policy stage f builds for o.
func testPolicyCheck(f *Factory, o *ServerOptions) (func(context.Context, *session.Call) (session.Decision, error), error) {
	g, err := f.policyGate(o)
	if err != nil {
		return nil, err
	}
	return g.Decide, nil
}
