package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// fixtures maps the files of testdata/config to where each program keeps
// them, relative to a temporary root holding home/ and home/project/.
var fixtures = []struct{ file, dest string }{
	{"config.yaml", "home/.config/mcpctl/config.yaml"},
	{"claude_desktop_config.json", "home/.config/Claude/claude_desktop_config.json"},
	{"claude.json", "home/.claude.json"},
	{"cursor-mcp.json", "home/.cursor/mcp.json"},
	{"windsurf-mcp_config.json", "home/.codeium/windsurf/mcp_config.json"},
	{"project-mcp.json", "home/project/.mcp.json"},
	{"project-cursor-mcp.json", "home/project/.cursor/mcp.json"},
	{"project-vscode-mcp.json", "home/project/.vscode/mcp.json"},
}

// fixtureHost copies the fixtures into a temporary folder and returns a
// Linux host whose home and project they are. The project is a repository
// (it has .git), so the search for project files stops there.
func fixtureHost(t *testing.T) Host {
	t.Helper()
	root := t.TempDir()
	home := filepath.Join(root, "home")
	project := filepath.Join(home, "project")
	for _, fx := range fixtures {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "config", fx.file))
		if err != nil {
			t.Fatal(err)
		}
		data = []byte(strings.ReplaceAll(string(data), "PROJECT_DIR", project))
		dest := filepath.Join(root, fx.dest)
		if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dest, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(project, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return Host{GOOS: "linux", Home: home, Cwd: project}
}

func TestDiscoverEditorFiles(t *testing.T) {
	h := fixtureHost(t)
	cfg, err := Load(DefaultPath(h), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	cat := Discover(h, cfg)
	home, project := h.Home, h.Cwd
	file := func(rel string) string { return filepath.Join(home, rel) }

	vscodeInputs := []Input{{ID: "api-key", Type: "promptString", Description: "Weather API key", Password: true}}
	want := []Server{
		// mcpctl's config, in file order; "broken" is a problem.
		{Name: "shared", Origin: OriginMcpctl, Scope: ScopeConfig, File: file(".config/mcpctl/config.yaml"), Transport: TransportStdio, Command: "mcpctl-shared", Args: []string{"--from", "mcpctl"}},
		{Name: "remote", Origin: OriginMcpctl, Scope: ScopeConfig, File: file(".config/mcpctl/config.yaml"), Transport: TransportHTTP, URL: "https://mcp.example.com/mcp",
			Headers: map[string]string{"Authorization": "Bearer ${API_TOKEN}"}, Timeout: 2 * time.Minute},
		// User files: Claude Code (this project's servers first), Cursor,
		// Claude Desktop, Windsurf.
		{Name: "in-project", Origin: OriginClaudeCode, Scope: ScopeUser, File: file(".claude.json"), Dir: project, Transport: TransportHTTP, URL: "http://127.0.0.1:9000/mcp", Headers: map[string]string{"X-Api-Key": "${env:KEY}"}},
		{Name: "claude-user", Origin: OriginClaudeCode, Scope: ScopeUser, File: file(".claude.json"), Transport: TransportStdio, Command: "uvx", Args: []string{"mcp-server-time"}},
		{Name: "in-project", Origin: OriginClaudeCode, Scope: ScopeUser, File: file(".claude.json"), Transport: TransportStdio, Command: "shadowed-by-the-project-entry"},
		{Name: "cursor-local", Origin: OriginCursor, Scope: ScopeUser, File: file(".cursor/mcp.json"), Transport: TransportStdio, Command: "node", Args: []string{"${userHome}/servers/index.js"}, Env: map[string]string{"TOKEN": "${env:CURSOR_TOKEN}"}},
		{Name: "cursor-remote", Origin: OriginCursor, Scope: ScopeUser, File: file(".cursor/mcp.json"), Transport: TransportAuto, URL: "https://cursor.example.com/sse?token=abc123"},
		{Name: "filesystem", Origin: OriginClaudeDesktop, Scope: ScopeUser, File: file(".config/Claude/claude_desktop_config.json"), Transport: TransportStdio, Command: "npx",
			Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/home/me/Desktop"}, Env: map[string]string{"DEBUG": "1", "PORT": "8080"}},
		{Name: "shared", Origin: OriginClaudeDesktop, Scope: ScopeUser, File: file(".config/Claude/claude_desktop_config.json"), Transport: TransportStdio, Command: "from-claude-desktop"},
		{Name: "windsurf-remote", Origin: OriginWindsurf, Scope: ScopeUser, File: file(".codeium/windsurf/mcp_config.json"), Transport: TransportAuto, URL: "https://windsurf.example.com/mcp", Headers: map[string]string{"Authorization": "Bearer w1nd"}},
		// Project files, last: Claude Code, Cursor, VS Code; names sorted in each.
		{Name: "project-sse", Origin: OriginClaudeCode, Scope: ScopeProject, File: file("project/.mcp.json"), Dir: project, Transport: TransportSSE, URL: "http://localhost:8931/sse"},
		{Name: "shared", Origin: OriginClaudeCode, Scope: ScopeProject, File: file("project/.mcp.json"), Dir: project, Transport: TransportStdio, Command: "from-project", Args: []string{"--port", "${PORT:-3000}"}},
		{Name: "cursor-project", Origin: OriginCursor, Scope: ScopeProject, File: file("project/.cursor/mcp.json"), Dir: project, Transport: TransportStdio, Command: "python3", Args: []string{"${workspaceFolder}/server.py"}, Cwd: "tools"},
		{Name: "vscode-stdio", Origin: OriginVSCode, Scope: ScopeProject, File: file("project/.vscode/mcp.json"), Dir: project, Transport: TransportStdio, Command: "docker",
			Args: []string{"run", "-i", "--rm", "mcp/fetch"}, Env: map[string]string{"URL": "http://a//b"}, Inputs: vscodeInputs},
		{Name: "weather", Origin: OriginVSCode, Scope: ScopeProject, File: file("project/.vscode/mcp.json"), Dir: project, Transport: TransportHTTP, URL: "https://weather.example.com/mcp",
			Headers: map[string]string{"Authorization": "Bearer ${input:api-key}"}, Inputs: vscodeInputs},
	}
	if diff := cmp.Diff(want, cat.Servers, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(Server{}, "Raw")); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}

	var problems []string
	for _, p := range cat.Problems {
		problems = append(problems, p.Origin+"/"+p.Name)
	}
	if diff := cmp.Diff([]string{"mcpctl/broken", "windsurf/bad"}, problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if err := cat.Problems[0]; !strings.Contains(err.Error(), `unknown key "comand"`) {
		t.Errorf("problem = %v, want it to name the unknown key", err)
	}

	// The first definition of a name wins; the rest are shadowed.
	got, shadowed, err := cat.Find("shared")
	if err != nil || got.Origin != OriginMcpctl || len(shadowed) != 2 || shadowed[0].Origin != OriginClaudeDesktop || shadowed[1].Origin != OriginClaudeCode {
		t.Errorf("Find(shared) = %v, %v, %v; want mcpctl's, shadowing claude-desktop's and the project's", got, shadowed, err)
	}
	// scope:NAME picks the first definition of that scope.
	got, shadowed, err = cat.Find("project:shared")
	if err != nil || got.Scope != ScopeProject || got.Command != "from-project" || len(shadowed) != 2 {
		t.Errorf("Find(project:shared) = %v, %v, %v; want the project's, shadowing the other two", got, shadowed, err)
	}
	if _, _, err := cat.Find("project:claude-user"); err == nil || !strings.Contains(err.Error(), "not defined in a project file") {
		t.Errorf("Find(project:claude-user) error = %v, want it to say no project file defines it", err)
	}
	if _, _, err := cat.Find("broken"); err == nil || !strings.Contains(err.Error(), "comand") {
		t.Errorf("Find(broken) error = %v, want the problem", err)
	}
	var nf *NotFoundError
	if _, _, err := cat.Find("nope"); !errors.As(err, &nf) || !strings.Contains(err.Error(), "claude-user") {
		t.Errorf("Find(nope) error = %v, want a NotFoundError listing the names", err)
	}
}

func TestDiscoverWithoutFiles(t *testing.T) {
	h := Host{GOOS: "linux", Home: t.TempDir(), Cwd: t.TempDir()}
	cfg, err := Load(DefaultPath(h), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	cat := Discover(h, cfg)
	if len(cat.Servers) != 0 || len(cat.Problems) != 0 {
		t.Errorf("got servers %v and problems %v from empty folders", cat.Servers, cat.Problems)
	}
	var nf *NotFoundError
	if _, _, err := cat.Find("x"); !errors.As(err, &nf) || !strings.Contains(err.Error(), "none is defined") {
		t.Errorf("Find error = %v", err)
	}
}

func TestDiscoverBrokenFile(t *testing.T) {
	h := Host{GOOS: "linux", Home: t.TempDir()}
	path := filepath.Join(h.Home, ".cursor", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"mcpServers": [}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cat := Discover(h, nil)
	if len(cat.Problems) != 1 || cat.Problems[0].File != path || cat.Problems[0].Name != "" {
		t.Fatalf("problems = %v, want one about %s", cat.Problems, path)
	}
}

func TestSourcesPerOS(t *testing.T) {
	tests := []struct {
		host Host
		want map[string]string // origin → user file path
	}{
		{
			host: Host{GOOS: "linux", Home: "/home/me"},
			want: map[string]string{
				OriginClaudeCode:    "/home/me/.claude.json",
				OriginCursor:        "/home/me/.cursor/mcp.json",
				OriginClaudeDesktop: "/home/me/.config/Claude/claude_desktop_config.json",
				OriginWindsurf:      "/home/me/.codeium/windsurf/mcp_config.json",
				OriginVSCode:        "/home/me/.config/Code/User/mcp.json",
			},
		},
		{
			host: Host{GOOS: "linux", Home: "/home/me", XDGConfigHome: "/xdg"},
			want: map[string]string{
				OriginClaudeDesktop: "/xdg/Claude/claude_desktop_config.json",
				OriginVSCode:        "/xdg/Code/User/mcp.json",
			},
		},
		{
			host: Host{GOOS: "darwin", Home: "/Users/me"},
			want: map[string]string{
				OriginClaudeDesktop: "/Users/me/Library/Application Support/Claude/claude_desktop_config.json",
				OriginCursor:        "/Users/me/.cursor/mcp.json",
				OriginVSCode:        "/Users/me/Library/Application Support/Code/User/mcp.json",
			},
		},
		{
			host: HostFrom([]string{`USERPROFILE=C:\Users\me`, `APPDATA=C:\Users\me\AppData\Roaming`, "HOME=/ignored"}, "", "windows"),
			want: map[string]string{
				OriginClaudeCode:    `C:\Users\me\.claude.json`,
				OriginClaudeDesktop: `C:\Users\me\AppData\Roaming\Claude\claude_desktop_config.json`,
				OriginWindsurf:      `C:\Users\me\.codeium\windsurf\mcp_config.json`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.host.GOOS, func(t *testing.T) {
			got := map[string]string{}
			for _, s := range Sources(tt.host, "cfg") {
				if s.Scope == ScopeUser {
					got[s.Origin] = s.Path
				}
			}
			for origin, want := range tt.want {
				if got[origin] != want {
					t.Errorf("%s: %q, want %q", origin, got[origin], want)
				}
			}
		})
	}
	if got := DefaultPath(Host{GOOS: "linux", Home: "/home/me"}); got != "/home/me/.config/mcpctl/config.yaml" {
		t.Errorf("DefaultPath = %q", got)
	}
	if got := DefaultPath(Host{GOOS: "linux", Home: "/home/me", XDGConfigHome: "/xdg"}); got != "/xdg/mcpctl/config.yaml" {
		t.Errorf("DefaultPath with XDG_CONFIG_HOME = %q", got)
	}
}

func TestProjectFilesInParents(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	sub := filepath.Join(repo, "a", "b")
	for _, d := range []string{filepath.Join(repo, ".git"), sub} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path, name string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(`{"mcpServers": {"`+name+`": {"command": "x"}}}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(repo, ".mcp.json"), "at-root")
	write(filepath.Join(repo, "a", ".mcp.json"), "in-a")
	// Above the repository root: not this project's.
	write(filepath.Join(root, ".mcp.json"), "outside")

	cat := Discover(Host{GOOS: "linux", Home: filepath.Join(root, "home"), Cwd: sub}, nil)
	var names []string
	for _, s := range cat.Servers {
		names = append(names, s.Name)
	}
	if diff := cmp.Diff([]string{"in-a", "at-root"}, names); diff != "" {
		t.Errorf("servers, nearest first (-want +got):\n%s", diff)
	}
}

func TestStripJSONC(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a": 1}`, `{"a": 1}`},
		{`{"a": "http://x//y", // c` + "\n}", `{"a": "http://x//y"      ` + "\n}"},
		{`{"a": [1, 2,], /* b */ }`, `{"a": [1, 2 ]          }`},
		{`{"a": "/* not */", "b": "\",//"}`, `{"a": "/* not */", "b": "\",//"}`},
		{"/* multi\nline */[1]", "        \n       [1]"},
	}
	for _, tt := range tests {
		if got := string(stripJSONC([]byte(tt.in))); got != tt.want {
			t.Errorf("stripJSONC(%q)\n = %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://example.com/mcp", "https://example.com/mcp"},
		{"https://user:pass@example.com/mcp", "https://****@example.com/mcp"},
		{"https://example.com/mcp?token=abc&x=1", "https://example.com/mcp?token=****&x=****"},
		{"https://example.com/mcp?abc#frag", "https://example.com/mcp?****#****"},
		{"http://${HOST}/mcp/${env:PATH_PART}", "http://${HOST}/mcp/${env:PATH_PART}"},
		{"http://a@b/c@d", "http://****@b/c@d"},
	}
	for _, tt := range tests {
		if got := RedactURL(tt.in); got != tt.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTransportOf(t *testing.T) {
	tests := []struct {
		kind, command, url string
		want, wantErr      string
	}{
		{"", "x", "", TransportStdio, ""},
		{"", "", "http://h", TransportAuto, ""},
		{"streamable-http", "", "http://h", TransportHTTP, ""},
		{"SSE", "", "http://h", TransportSSE, ""},
		{"stdio", "", "http://h", "", "needs a command"},
		{"http", "x", "", "", "needs a url"},
		{"", "x", "http://h", "", "both"},
		{"", "", "", "", "neither"},
		{"websocket", "", "ws://h", "", "unknown transport"},
	}
	for _, tt := range tests {
		got, err := transportOf(tt.kind, tt.command, tt.url)
		if got != tt.want || (err == nil) != (tt.wantErr == "") || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("transportOf(%q, %q, %q) = %q, %v; want %q, %q", tt.kind, tt.command, tt.url, got, err, tt.want, tt.wantErr)
		}
	}
}

// Without a home directory, no user file is looked for: relative paths
// would read the working directory's files as the user's.
func TestSourcesWithoutHome(t *testing.T) {
	for _, goos := range []string{"linux", "darwin", "windows"} {
		for _, s := range Sources(Host{GOOS: goos, Cwd: "/w"}, "") {
			// (Project paths of a Windows host are not absolute here.)
			if s.Scope == ScopeUser || goos != "windows" && s.Path != "" && !filepath.IsAbs(s.Path) {
				t.Errorf("%s: source %+v without a home", goos, s)
			}
		}
	}
	if got := DefaultPath(Host{GOOS: "linux"}); got != "" {
		t.Errorf("DefaultPath without a home = %q", got)
	}
}
