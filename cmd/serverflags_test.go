package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/config"
	"github.com/mcpctl/mcpctl/transport"
)

// A command built without the root still keeps --timeout over a named
// server's own timeout: whether the flag was given comes from the command.
func TestGivenFlagsWithoutRoot(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(t, "~/.config/mcpctl/config.yaml", "servers:\n  slow:\n    command: srv\n    timeout: 5s\n    max-message-size: 1MiB\n    inherit-env: true\n")
	ios, _, _, _ := Test()
	f := e.factory(ios)
	tests := []struct {
		args        []string
		wantTimeout time.Duration
		wantSize    int64
		wantInherit bool
	}{
		{[]string{"-s", "slow", "--timeout", "3s"}, 3 * time.Second, 1 << 20, true},
		{[]string{"-s", "slow"}, 5 * time.Second, 1 << 20, true},
		{[]string{"-s", "slow", "--max-message-size", "2MiB", "--inherit-env=false"}, 5 * time.Second, 2 << 20, false},
	}
	for _, tt := range tests {
		var got *ListOptions
		cmd := NewCmdList(f, func(o *ListOptions) error { got = o; return nil })
		cmd.SetArgs(tt.args)
		cmd.SetOut(ios.Out)
		cmd.SetErr(ios.ErrOut)
		if err := cmd.ExecuteContext(context.Background()); err != nil {
			t.Fatal(err)
		}
		r, err := f.resolve(&got.Server)
		if err != nil {
			t.Fatal(err)
		}
		if r.Timeout != tt.wantTimeout || r.MaxMessageSize != tt.wantSize || r.InheritEnv != tt.wantInherit {
			t.Errorf("%q: timeout %s, size %d, inherit %v; want %s, %d, %v", tt.args, r.Timeout, r.MaxMessageSize, r.InheritEnv, tt.wantTimeout, tt.wantSize, tt.wantInherit)
		}
	}
}

func TestServerFlagValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args     []string
		wantSize int64
		wantErr  string
	}{
		{args: []string{"--demo"}, wantSize: 0},
		{args: []string{"--demo", "--max-message-size", "512KB"}, wantSize: 512000},
		{args: []string{"--demo", "--max-message-size", "1GiB"}, wantSize: 1 << 30},
		{args: []string{"--demo", "--max-message-size", "lots"}, wantErr: `invalid size "lots"`},
		{args: []string{"--url", "http://127.0.0.1:1/mcp", "--inherit-env"}, wantErr: "--inherit-env applies to stdio servers"},
	}
	for _, tt := range tests {
		ios, _, _, _ := Test()
		var got *ListOptions
		cmd := NewCmdList(NewFactory(ios), func(o *ListOptions) error {
			got = o
			return o.Server.validate()
		})
		cmd.SetArgs(tt.args)
		cmd.SetOut(ios.Out)
		cmd.SetErr(ios.ErrOut)
		err := cmd.ExecuteContext(context.Background())
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%q: error %v, want %q", tt.args, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got.Server.MaxMessageSize != tt.wantSize {
			t.Errorf("%q: size %d, error %v; want %d", tt.args, got.Server.MaxMessageSize, err, tt.wantSize)
		}
	}
	// The help shows the default.
	ios, _, _, _ := Test()
	cmd := NewCmdList(NewFactory(ios), nil)
	if def := cmd.Flags().Lookup("max-message-size").DefValue; def != "256MiB" {
		t.Errorf("--max-message-size default shown as %q, want 256MiB", def)
	}
}

// Malformed -H and -e name at most the header or variable, never a value.
func TestMalformedFlagsHideValues(t *testing.T) {
	t.Parallel()
	const secret = "s3cr3t-VALUE_42"
	tests := []struct {
		arg  string
		want string
		fn   func(string) (string, string, error)
	}{
		{"X-Api-Key " + secret, `invalid -H "X-Api-Key …": expected 'Name: value'`, parseHeader},
		{"X-Api-Key=" + secret, `invalid -H "X-Api-Key …"`, parseHeader},
		{secret, `invalid -H argument (not shown: it may hold a secret)`, parseHeader},
		{": " + secret, `invalid -H argument`, parseHeader},
		{"API_KEY:" + secret, `invalid -e "API_KEY …": expected KEY=VAL`, parseEnvVar},
		{"API_KEY:" + secret + "=x", `invalid -e "API_KEY …"`, parseEnvVar},
		{"API KEY=" + secret, `invalid -e "API …"`, parseEnvVar},
		{"=" + secret, `invalid -e argument`, parseEnvVar},
		{secret, `invalid -e argument`, parseEnvVar},
	}
	for _, tt := range tests {
		_, _, err := tt.fn(tt.arg)
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("%q: error %v, want %q and no value", tt.arg, err, tt.want)
		}
		if exitCode(err, false) != ExitUsage {
			t.Errorf("%q: not a usage error", tt.arg)
		}
	}
	for _, ok := range []struct{ arg, name, value string }{
		{"X-Api-Key: abc", "X-Api-Key", "abc"},
		{"Authorization:Bearer t:k", "Authorization", "Bearer t:k"},
	} {
		if n, v, err := parseHeader(ok.arg); err != nil || n != ok.name || v != ok.value {
			t.Errorf("parseHeader(%q) = %q, %q, %v", ok.arg, n, v, err)
		}
	}
	if n, v, err := parseEnvVar("A_1=x=y"); err != nil || n != "A_1" || v != "x=y" {
		t.Errorf("parseEnvVar = %q, %q, %v", n, v, err)
	}
}

// No secret given on the command line appears in the final error line.
func TestErrorLineRedacted(t *testing.T) {
	t.Parallel()
	const secret = "s3cr3t-token-value"
	missing := filepath.Join(t.TempDir(), secret)
	tests := [][]string{
		// The command line names the secret; the error echoes it.
		{"list", "-e", "TOKEN=" + secret, "--", missing},
		{"list", "--bearer", "env:TOKEN", "--", missing},
	}
	for _, args := range tests {
		ios, _, _, errOut := Test()
		f := NewFactory(ios)
		f.Environ = func() []string { return []string{"TOKEN=" + secret} }
		code := runWith(context.Background(), f, args)
		if code == ExitOK {
			t.Errorf("%q: exit 0", args)
		}
		if strings.Contains(errOut.String(), secret) {
			t.Errorf("%q: stderr shows the secret:\n%s", args, errOut)
		}
	}
	// The --bearer case above fails as a usage error before starting the
	// server; the -e case must have printed the path redacted.
	ios, _, _, errOut := Test()
	f := NewFactory(ios)
	f.Environ = func() []string { return nil }
	runWith(context.Background(), f, []string{"list", "-e", "TOKEN=" + secret, "--", missing})
	if !strings.Contains(errOut.String(), transport.Redacted) {
		t.Errorf("stderr does not show %s:\n%s", transport.Redacted, errOut)
	}
}

// Keys loaded through the Factory read its environment and join its
// redactor.
func TestFactoryLoadKey(t *testing.T) {
	t.Parallel()
	ios, _, _, _ := Test()
	f := NewFactory(ios)
	f.Environ = func() []string { return []string{"K=first-key", "K=the-key-value"} }
	key, err := f.LoadKey("sign-key", "env:K")
	if err != nil || string(key) != "the-key-value" {
		t.Fatalf("LoadKey = %q, %v", key, err)
	}
	if got := f.Redactor().String("echo the-key-value"); got != "echo "+transport.Redacted {
		t.Errorf("redacted: %q", got)
	}
	if _, err := f.LoadKey("sign-key", "env:NOPE"); err == nil || !strings.Contains(err.Error(), "--sign-key: key environment variable NOPE is not set") || exitCode(err, false) != ExitUsage {
		t.Errorf("unset: %v", err)
	}
}

// noFiles returns a Factory whose file-reading hooks fail the test.
func noFiles(t *testing.T, ios *IOStreams, env ...string) *Factory {
	f := NewFactory(ios)
	f.Environ = func() []string { return env }
	f.Getwd = func() (string, error) { t.Error("the working directory was asked for"); return "/", nil }
	f.LoadConfig = func(string, bool, config.LookupEnv) (*config.Config, error) {
		t.Error("the config file was read")
		return nil, errors.New("no config file in this test")
	}
	f.Discover = func(config.Host, *config.Config) *config.Catalog {
		t.Error("the editors' files were read")
		return &config.Catalog{}
	}
	return f
}

// A one-shot command reads no config or editor file when the command line
// and the environment give everything, and version reads nothing at all.
func TestOneShotReadsNoFiles(t *testing.T) {
	t.Parallel()
	settings := []string{"MCPCTL_OUTPUT=text", "MCPCTL_TIMEOUT=5s", "MCPCTL_PROTOCOL_VERSION=2025-06-18"}
	missing := filepath.Join(t.TempDir(), "no-such-server")
	// A server that answers, so that the whole run is covered, not only
	// the part before a failed connection.
	s := mcp.NewServer(&mcp.Implementation{Name: "no-files", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}}}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{JSONResponse: true}))
	t.Cleanup(srv.Close)
	tests := []struct {
		args []string
		env  []string
		want int
	}{
		{[]string{"version"}, nil, ExitOK},
		{[]string{"list", "--demo"}, settings, ExitOK},
		{[]string{"list", "--demo", "-o", "json", "--timeout", "5s", "--protocol-version", "2025-06-18"}, nil, ExitOK},
		{[]string{"list", "--url", srv.URL}, settings, ExitOK},
		{[]string{"list", "--url", srv.URL, "-o", "json", "--timeout", "5s", "--protocol-version", "2025-06-18"}, nil, ExitOK},
		{[]string{"list", "--url", "http://127.0.0.1:1/mcp"}, settings, ExitError},
		{[]string{"list", "--", missing}, settings, ExitError},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			ios, _, _, errOut := Test()
			if code := runWith(context.Background(), noFiles(t, ios, tt.env...), tt.args); code != tt.want {
				t.Errorf("exit %d, want %d: %s", code, tt.want, errOut)
			}
		})
	}
}

// The settings the environment leaves open come from the config file, but
// the editors' files are never read for --demo.
func TestDemoReadsNoEditorFiles(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.write(t, "~/.config/mcpctl/config.yaml", "output: json\n")
	ios, _, out, errOut := Test()
	f := e.factory(ios)
	f.Discover = func(config.Host, *config.Config) *config.Catalog {
		t.Error("the editors' files were read")
		return &config.Catalog{}
	}
	if code := runWith(context.Background(), f, []string{"list", "--demo"}); code != ExitOK || !strings.HasPrefix(out.String(), "{") {
		t.Errorf("exit %d, stdout %.40q, stderr %s", code, out, errOut)
	}
}

func TestServersAddRemoveExitCodes(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	dir := t.TempDir() // a folder where the config file should be
	tests := []struct {
		args []string
		want int
	}{
		{[]string{"servers", "add", "x", "--config", dir, "--", "srv"}, ExitError},
		{[]string{"servers", "remove", "x", "--config", dir}, ExitError},
		{[]string{"servers", "add", "two words", "--config", filepath.Join(dir, "c.yaml"), "--", "srv"}, ExitUsage},
		{[]string{"servers", "add", "x", "--config", filepath.Join(dir, "c.yaml"), "-e", "K:V", "--", "srv"}, ExitUsage},
		{[]string{"servers", "remove", "nope", "--config", filepath.Join(dir, "c.yaml")}, ExitUsage},
	}
	for _, tt := range tests {
		ios, _, _, errOut := Test()
		if code := runWith(context.Background(), e.factory(ios), tt.args); code != tt.want {
			t.Errorf("%q: exit %d, want %d: %s", tt.args, code, tt.want, errOut)
		}
	}
}

func TestServersAddSettings(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	path := filepath.Join(t.TempDir(), "c.yaml")
	ios, _, _, errOut := Test()
	args := []string{"servers", "add", "big", "--config", path, "--max-message-size", "1GiB", "--inherit-env", "--timeout", "2m", "--", "srv"}
	if code := runWith(context.Background(), e.factory(ios), args); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"max-message-size: 1GiB", "inherit-env: true", "timeout: 2m0s"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("config lacks %q:\n%s", want, data)
		}
	}
	ios, _, _, errOut = Test()
	args = []string{"servers", "add", "web", "--config", path, "--url", "http://127.0.0.1:1/mcp", "--inherit-env"}
	if code := runWith(context.Background(), e.factory(ios), args); code != ExitUsage {
		t.Errorf("--inherit-env with --url: exit %d: %s", code, errOut)
	}
}

func TestWatchSignals(t *testing.T) {
	t.Parallel()
	sigs := make(chan os.Signal, 2)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	hurry := make(chan struct{})
	done := make(chan struct{})
	go func() { watchSignals(ctx, sigs, cancel, hurry); close(done) }()
	sigs <- syscall.SIGTERM
	<-ctx.Done()
	if got := signalExitCode(ctx, ExitInterrupted); got != ExitTerminated {
		t.Errorf("exit code after SIGTERM = %d, want 143", got)
	}
	select {
	case <-hurry:
		t.Fatal("hurried after one signal")
	default:
	}
	sigs <- os.Interrupt
	<-hurry
	<-done
	if got := signalExitCode(context.Background(), ExitInterrupted); got != ExitInterrupted {
		t.Errorf("exit code without a signal = %d, want %d", got, ExitInterrupted)
	}
}

func TestSecretsAdded(t *testing.T) {
	t.Parallel()
	r := transport.NewRedactor()
	addHeaderSecret(r, "Authorization", "Bearer tok-123456")
	addHeaderSecret(r, "accept", "application/json")
	addEnvSecret(r, "true")
	addEnvSecret(r, "8080")
	addEnvSecret(r, "sk-live-abc")
	got := r.String("Bearer tok-123456 | tok-123456 | application/json | true 8080 | sk-live-abc")
	want := "[redacted] | [redacted] | application/json | true 8080 | [redacted]"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
