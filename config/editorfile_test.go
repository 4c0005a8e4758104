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
