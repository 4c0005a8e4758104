package config

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReadEditorFile(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, file, data string
		want             []string // name=transport
	}{
		{"mcpServers", "mcp.json", `{"mcpServers": {"b": {"command": "x", "args": ["1"]}, "a": {"url": "https://h.example/mcp"}}}`, []string{"a=auto", "b=stdio"}},
		{"VS Code", "vscode.json", `// comments allowed
{"servers": {"v": {"type": "http", "url": "https://h.example/mcp",}}, "inputs": []}`, []string{"v=http"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.file)
			if err := os.WriteFile(path, []byte(tt.data), 0o600); err != nil {
				t.Fatal(err)
			}
			servers, problems, err := ReadEditorFile(Host{}, path)
			if err != nil || len(problems) > 0 {
				t.Fatalf("ReadEditorFile: %v %v", err, problems)
			}
			var got []string
			for _, s := range servers {
				got = append(got, s.Name+"="+s.Transport)
				if s.Scope != ScopeUser || s.File != path {
					t.Errorf("server %s: scope %q, file %q", s.Name, s.Scope, s.File)
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("servers %q, want %q", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("servers %q, want %q", got, tt.want)
				}
			}
		})
	}
	if _, _, err := ReadEditorFile(Host{}, filepath.Join(dir, "missing.json")); err == nil {
		t.Error("a missing file: no error")
	}
}

// TestReadEditorFileOfAProject: a file named as a project's (.mcp.json,
// .cursor/mcp.json, .vscode/mcp.json) is the repository's wherever it is,
// so naming it to mcpctl scan --file gives its servers the project scope,
// which asks for trust before anything is started or expanded; the user's
// own file of the same shape keeps the user scope.
func TestReadEditorFileOfAProject(t *testing.T) {
	repo := t.TempDir()
	home := t.TempDir()
	entry := `{"mcpServers": {"evil": {"command": "sh", "args": ["-c", "touch marker"]}}}`
	for _, tc := range []struct{ rel, path, scope, dir string }{
		{".mcp.json", filepath.Join(repo, ".mcp.json"), ScopeProject, repo},
		{"a", filepath.Join(repo, ".cursor", "mcp.json"), ScopeProject, repo},
		{"b", filepath.Join(repo, ".vscode", "mcp.json"), ScopeProject, repo},
		{"c", filepath.Join(home, ".cursor", "mcp.json"), ScopeUser, ""},
		{"d", filepath.Join(repo, "mine.json"), ScopeUser, ""},
	} {
		if err := os.MkdirAll(filepath.Dir(tc.path), 0o700); err != nil {
			t.Fatal(err)
		}
		data := entry
		if filepath.Base(filepath.Dir(tc.path)) == ".vscode" {
			data = `{"servers": {"evil": {"command": "sh", "args": ["-c", "touch marker"]}}}`
		}
		if err := os.WriteFile(tc.path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		servers, _, err := ReadEditorFile(Host{Home: home, Cwd: repo}, tc.path)
		if err != nil || len(servers) != 1 {
			t.Fatalf("%s: ReadEditorFile = %v, %v", tc.path, servers, err)
		}
		s := servers[0]
		if s.Scope != tc.scope || s.Dir != tc.dir {
			t.Errorf("%s: scope %q, dir %q; want %q, %q", tc.path, s.Scope, s.Dir, tc.scope, tc.dir)
		}
		if tc.scope == ScopeProject {
			if _, err := s.Expand(Expander{}); err == nil {
				t.Errorf("%s: an untrusted entry expanded", tc.path)
			}
		}
	}
	// Named relative to the working directory, the file is the one the
	// project's search finds, so a trust given there holds.
	servers, _, err := ReadEditorFile(Host{Home: home, Cwd: repo}, ".mcp.json")
	if err != nil || len(servers) != 1 || servers[0].File != filepath.Join(repo, ".mcp.json") || servers[0].Scope != ScopeProject {
		t.Errorf("ReadEditorFile(.mcp.json) = %+v, %v", servers, err)
	}
}
