package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// testEnv is a temporary home and working directory for commands that read
// config and editor files.
type testEnv struct {
	home, cwd string
	env       []string
}

func newTestEnv(t *testing.T, env ...string) *testEnv {
	t.Helper()
	root := t.TempDir()
	e := &testEnv{home: filepath.Join(root, "home"), cwd: filepath.Join(root, "project"), env: env}
	// The project is a repository, so the search stops there.
	for _, d := range []string{e.home, filepath.Join(e.cwd, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// write writes a file under the home ("~/…") or the project.
func (e *testEnv) write(t *testing.T, rel, content string) string {
	t.Helper()
	path := filepath.Join(e.cwd, rel)
	if rest, ok := strings.CutPrefix(rel, "~/"); ok {
		path = filepath.Join(e.home, rest)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func (e *testEnv) factory(ios *IOStreams) *Factory {
	f := NewFactory(ios)
	f.Environ = func() []string { return append([]string{"HOME=" + e.home}, e.env...) }
	f.Getwd = func() (string, error) { return e.cwd, nil }
	f.GOOS = "linux"
	return f
}

// execute runs a command line on the whole tree, as run does, with f.
func execute(f *Factory, args ...string) int {
	root := NewCmdRoot(f)
	root.SetArgs(args)
	root.SetIn(f.IOStreams.In)
	root.SetOut(f.IOStreams.Out)
	root.SetErr(f.IOStreams.ErrOut)
	err := root.ExecuteContext(context.Background())
	if err == nil {
		return ExitOK
	}
	f.IOStreams.ErrOut.Write([]byte("error: " + err.Error() + "\n"))
	return exitCode(err, false)
}

const secretsDesktop = `{"mcpServers": {
  "local": {"command": "srv", "args": ["--url", "https://u:argpass@h/x?k=argtok"], "env": {"API_KEY": "env-s3cret", "DEBUG": "1"}},
  "remote": {"url": "https://user:urlpass@mcp.example.com/mcp?token=query-s3cret", "headers": {"Authorization": "Bearer header-s3cret"}}
}}`

func TestServersShowMasksSecrets(t *testing.T) {
	e := newTestEnv(t)
	e.write(t, "~/.config/Claude/claude_desktop_config.json", secretsDesktop)
	secrets := []string{"env-s3cret", "header-s3cret", "query-s3cret", "urlpass", "argpass", "argtok", "=1"}
	for _, name := range []string{"local", "remote"} {
		for _, format := range []string{"text", "json", "yaml"} {
			t.Run(name+" "+format, func(t *testing.T) {
				ios, _, out, errOut := Test()
				if code := execute(e.factory(ios), "servers", "show", name, "-o", format); code != 0 {
					t.Fatalf("exit %d: %s", code, errOut)
				}
				for _, s := range secrets {
					if strings.Contains(out.String(), s) {
						t.Errorf("output shows %q:\n%s", s, out)
					}
				}
				if !strings.Contains(out.String(), "****") {
					t.Errorf("output has no mask:\n%s", out)
				}
			})
		}
	}
	ios, _, out, _ := Test()
	execute(e.factory(ios), "servers", "show", "local")
	for _, want := range []string{"Command: srv --url https://****@h/x?k=****", "API_KEY=****", "DEBUG=****", "claude-desktop"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("show local lacks %q:\n%s", want, out)
		}
	}
	ios, _, out, _ = Test()
	execute(e.factory(ios), "servers", "show", "remote", "-o", "json")
	var d serverDetail
	if err := json.Unmarshal(out.Bytes(), &d); err != nil {
		t.Fatal(err)
	}
	if d.URL != "https://****@mcp.example.com/mcp?token=****" || d.Headers["Authorization"] != "****" || d.Kind != "auto" {
		t.Errorf("show remote -o json = %+v", d)
	}
}

func TestServersList(t *testing.T) {
	e := newTestEnv(t)
	desktop := e.write(t, "~/.config/Claude/claude_desktop_config.json", secretsDesktop)
	project := e.write(t, ".mcp.json", `{"mcpServers": {"local": {"type": "sse", "url": "http://127.0.0.1:1/sse"}}}`)
	broken := e.write(t, "~/.cursor/mcp.json", `{"mcpServers": `)

	ios, _, out, errOut := Test()
	if code := execute(e.factory(ios), "servers"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := strings.Join([]string{
		"local\t" + desktop + "\tstdio\tsrv --url https://****@h/x?k=****\town",
		"local\t" + project + "\tsse\thttp://127.0.0.1:1/sse\tuntrusted",
		"remote\t" + desktop + "\tauto\thttps://****@mcp.example.com/mcp?token=****\town",
	}, "\n") + "\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("piped list (-want +got):\n%s", diff)
	}
	if !strings.Contains(errOut.String(), "warning: "+broken+" (cursor)") {
		t.Errorf("stderr does not report the broken file: %s", errOut)
	}

	ios, _, out, _ = Test()
	ios.SetStdoutTTY(true)
	execute(e.factory(ios), "servers")
	for _, want := range []string{"NAME", "SOURCE", "KIND", "TARGET", "TRUST", "local (shadowed)", "~/.config/Claude/claude_desktop_config.json"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}

	ios, _, out, _ = Test()
	execute(e.factory(ios), "servers", "-o", "json", "--jq", `.servers[] | select(.shadowed) | .origin`)
	if out.String() != "claude-code\n" {
		t.Errorf("--jq shadowed origin = %q", out)
	}
}

func TestServersAddRemove(t *testing.T) {
	e := newTestEnv(t)
	e.write(t, "~/.cursor/mcp.json", `{"mcpServers": {"ev": {"command": "cursor-one"}}}`)
	cfg := filepath.Join(e.home, ".config", "mcpctl", "config.yaml")
	tests := []struct {
		args     []string
		wantCode int
		wantErr  string
	}{
		{[]string{"servers", "add", "ev", "-e", "K=${TOKEN}", "--timeout", "90s", "--", "npx", "-y", "pkg"}, 0, `added server "ev" to ` + cfg + `; it shadows the one in`},
		{[]string{"servers", "add", "ev", "--", "other"}, ExitUsage, "already defined"},
		{[]string{"servers", "add", "ev", "--force", "--", "other"}, 0, "added"},
		{[]string{"servers", "add", "web", "--url", "https://h/mcp", "-H", "Authorization: Bearer ${T}", "--transport", "sse"}, 0, "added"},
		{[]string{"servers", "add", "bad", "--url", "https://h", "--", "cmd"}, ExitUsage, "not both"},
		{[]string{"servers", "add", "bad"}, ExitUsage, "needs --url URL or a command"},
		{[]string{"servers", "add", "bad", "-H", "X: y", "--", "cmd"}, ExitUsage, "-H and --transport apply to --url servers"},
		{[]string{"servers", "add", "--", "cmd"}, ExitUsage, "takes one name"},
		{[]string{"servers", "remove", "nope"}, ExitUsage, `"nope" is not defined`},
		{[]string{"servers", "remove", "web"}, 0, `removed server "web"`},
	}
	for _, tt := range tests {
		ios, _, _, errOut := Test()
		if code := execute(e.factory(ios), tt.args...); code != tt.wantCode || !strings.Contains(errOut.String(), tt.wantErr) {
			t.Errorf("%q: exit %d, stderr %q; want %d, %q", tt.args, code, errOut, tt.wantCode, tt.wantErr)
		}
	}
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := "servers:\n  ev:\n    command: other\n"
	if diff := cmp.Diff(want, string(data)); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	// An editor's server is not mcpctl's to remove.
	if code := execute(e.factory(Must(Test())), "servers", "remove", "ev"); code != 0 {
		t.Fatalf("removing ev: exit %d", code)
	}
	ios, _, _, errOut := Test()
	if code := execute(e.factory(ios), "servers", "remove", "ev"); code != ExitUsage || !strings.Contains(errOut.String(), "mcpctl edits only its own config") {
		t.Errorf("removing cursor's server: exit %d, %s", code, errOut)
	}
}

// Must drops the buffers of [Test].
func Must(ios *IOStreams, _, _, _ *bytes.Buffer) *IOStreams { return ios }

func TestResolveNamedServer(t *testing.T) {
	e := newTestEnv(t, "TOKEN=t0k", "PORT=9000")
	e.write(t, "~/.config/mcpctl/config.yaml", `
servers:
  local:
    command: srv
    args: ["--port", "${PORT}"]
    env: {API_KEY: "${TOKEN}", MODE: config}
    cwd: /srv
    timeout: 5s
  remote:
    url: http://127.0.0.1:${PORT}/mcp
    headers: {Authorization: "Bearer ${env:TOKEN}"}
    transport: sse
  unset:
    command: "${NOT_SET}"
`)
	tests := []struct {
		name    string
		in      ServerOptions
		changed []string
		want    ServerOptions
		wantErr string
	}{
		{
			name: "stdio",
			in:   ServerOptions{Server: "local", Env: []string{"MODE=flag"}, Timeout: time.Minute},
			want: ServerOptions{Server: "local", Command: []string{"srv", "--port", "9000"}, Env: []string{"API_KEY=t0k", "MODE=config", "MODE=flag"}, Cwd: "/srv", Timeout: 5 * time.Second},
		},
		{
			name:    "flags win",
			in:      ServerOptions{Server: "local", Cwd: "/mine", Timeout: time.Minute},
			changed: []string{"timeout"},
			want:    ServerOptions{Server: "local", Command: []string{"srv", "--port", "9000"}, Env: []string{"API_KEY=t0k", "MODE=config"}, Cwd: "/mine", Timeout: time.Minute},
		},
		{
			name: "url",
			in:   ServerOptions{Server: "remote", Transport: "auto", Timeout: time.Minute},
			want: ServerOptions{Server: "remote", URL: "http://127.0.0.1:9000/mcp", Transport: "sse", Timeout: time.Minute,
				NamedHeaders: http.Header{"Authorization": {"Bearer t0k"}}},
		},
		{
			name:    "--transport wins",
			in:      ServerOptions{Server: "remote", Transport: "http", Timeout: time.Minute},
			changed: []string{"transport"},
			want: ServerOptions{Server: "remote", URL: "http://127.0.0.1:9000/mcp", Transport: "http", Timeout: time.Minute,
				NamedHeaders: http.Header{"Authorization": {"Bearer t0k"}}},
		},
		{name: "-H on a stdio server", in: ServerOptions{Server: "local", Headers: []string{"X: y"}, Timeout: time.Minute}, wantErr: "apply to --url servers only"},
		{name: "unset variable", in: ServerOptions{Server: "unset", Timeout: time.Minute}, wantErr: "environment variable NOT_SET is not set"},
		{name: "unknown", in: ServerOptions{Server: "nope", Timeout: time.Minute}, wantErr: `no server named "nope" (known: local, remote, unset; mcpctl servers lists them)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, _ := Test()
			f := e.factory(ios)
			in := tt.in
			for _, name := range tt.changed {
				if in.Given == nil {
					in.Given = map[string]bool{}
				}
				in.Given[name] = true
			}
			got, err := f.resolve(&in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || exitCode(err, false) != ExitUsage {
					t.Fatalf("error = %v, want a usage error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got.Given = nil
			if diff := cmp.Diff(tt.want, *got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

const vscodeInputs = `{
  "inputs": [
    {"type": "promptString", "id": "api-key", "description": "Weather API key", "password": true},
    {"type": "pickString", "id": "region", "description": "Region", "options": ["eu", "us"], "default": "eu"}
  ],
  // comments are allowed
  "servers": {
    "weather": {"type": "http", "url": "http://127.0.0.1:1/mcp?region=${input:region}", "headers": {"X-Api-Key": "${input:api-key}"}},
  }
}`

func TestVSCodeInputs(t *testing.T) {
	e := newTestEnv(t)
	e.write(t, ".vscode/mcp.json", vscodeInputs)
	e.trust(t, "weather")
	o := ServerOptions{Server: "weather", Transport: "auto", Timeout: time.Minute}

	// Without a terminal: an error naming the input and the variable.
	e.env = []string{"MCPCTL_INPUT_REGION=us"}
	ios, _, _, _ := Test()
	_, err := e.factory(ios).resolve(&o)
	if err == nil || !strings.Contains(err.Error(), `headers.X-Api-Key: ${input:api-key}: input "api-key" (Weather API key) must be typed in, but standard input is not a terminal; set MCPCTL_INPUT_API_KEY`) {
		t.Errorf("non-terminal error = %v", err)
	}

	// On a terminal: one line each, in the order the definition uses them
	// (url, then headers); an empty answer takes the default.
	e.env = nil
	ios, in, _, errOut := Test()
	ios.SetStdinTTY(true)
	in.WriteString("\nk3y\nrest")
	got, err := e.factory(ios).resolve(&o)
	if err != nil {
		t.Fatal(err)
	}
	if got.NamedHeaders.Get("X-Api-Key") != "k3y" || got.URL != "http://127.0.0.1:1/mcp?region=eu" {
		t.Errorf("resolved %+v", got)
	}
	if in.String() != "rest" {
		t.Errorf("read past the answers: %q left", in)
	}
	for _, want := range []string{`Weather API key (server "weather"): `, `Region (eu, us) [eu] (server "weather"): `} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("prompts %q lack %q", errOut, want)
		}
	}
	if strings.Contains(errOut.String(), "k3y") {
		t.Errorf("the password was echoed: %q", errOut)
	}

	// In CI: from the environment.
	e.env = []string{"MCPCTL_INPUT_API_KEY=from-env", "MCPCTL_INPUT_REGION=us"}
	ios, _, _, _ = Test()
	got, err = e.factory(ios).resolve(&o)
	if err != nil || got.NamedHeaders.Get("X-Api-Key") != "from-env" || !strings.HasSuffix(got.URL, "region=us") {
		t.Errorf("from the environment: %+v, %v", got, err)
	}
}

func TestServerFlagConflicts(t *testing.T) {
	for _, args := range [][]string{
		{"list", "-s", "x", "--demo"},
		{"list", "-s", "x", "--url", "http://h"},
		{"list", "--server", "x", "--", "srv"},
	} {
		ios, _, _, errOut := Test()
		if code := run(context.Background(), ios, args); code != ExitUsage || !strings.Contains(errOut.String(), "-s x names the server already") {
			t.Errorf("%q: exit %d, %s", args, code, errOut)
		}
	}
}

func TestNamedServerVerbose(t *testing.T) {
	e := newTestEnv(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A server that never answers: enough to see which one was chosen.
	path := e.write(t, ".mcp.json", `{"mcpServers": {"x": {"command": "`+exe+`", "args": ["-test.run=^$"]}}}`)
	user := e.write(t, "~/.cursor/mcp.json", `{"mcpServers": {"x": {"command": "`+exe+`", "args": ["-test.run=^$"]}}}`)
	ios, _, _, errOut := Test()
	execute(e.factory(ios), "connect", "-s", "x", "-v", "--timeout", "100ms", "--server-stderr", "quiet")
	// The user's own definition wins, and the clash is said without -v too.
	for _, want := range []string{
		`using server "x" from ` + user + ` (cursor); it shadows the one in ` + path + " (claude-code)",
		`warning: server "x" is also defined in the project file ` + path + `; using yours from ` + user + ` (-s project:x picks the project's)`,
	} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr %q lacks %q", errOut, want)
		}
	}

	// project:x asks for the project's, which needs trust first.
	ios, _, _, errOut = Test()
	if code := execute(e.factory(ios), "connect", "-s", "project:x", "--timeout", "100ms"); code != ExitUsage ||
		!strings.Contains(errOut.String(), "run `mcpctl servers trust x`") {
		t.Errorf("untrusted project:x: exit %d, %s", code, errOut)
	}
	e.trust(t, "x")
	ios, _, _, errOut = Test()
	execute(e.factory(ios), "connect", "-s", "project:x", "-v", "--timeout", "100ms", "--server-stderr", "quiet")
	if want := `using server "x" from ` + path + " (claude-code)"; !strings.Contains(errOut.String(), want) {
		t.Errorf("stderr %q lacks %q", errOut, want)
	}
}

// trust runs mcpctl servers trust name in e.
func (e *testEnv) trust(t *testing.T, name string) {
	t.Helper()
	ios, _, _, errOut := Test()
	if code := execute(e.factory(ios), "servers", "trust", name); code != 0 {
		t.Fatalf("servers trust %s: exit %d: %s", name, code, errOut)
	}
}
