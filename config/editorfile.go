package config

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// ReadEditorFile reads the servers of one editor's MCP file named on the
// command line (mcpctl scan --file): VS Code's layout (servers, inputs)
// when the file has a servers member and no mcpServers, else the common
// mcpServers one (Claude Desktop, Claude Code, Cursor, Windsurf), and
// Claude Code's ~/.claude.json with its projects. A relative name is read
// from h.Cwd. A file named as a project's (.mcp.json, .cursor/mcp.json,
// .vscode/mcp.json) that is not one of the user's own is the repository's
// wherever it is, and naming it is no approval of what it runs: its
// servers have the project scope, which asks for trust (see
// [TrustStore.Mark]). Any other file is the user's, who named it.
func ReadEditorFile(h Host, name string) ([]Server, []*Problem, error) {
	// Errors name the file as the user did; the rest goes by its path.
	path := name
	if !filepath.IsAbs(path) && h.Cwd != "" {
		path = filepath.Join(h.Cwd, path)
	}
	path = filepath.Clean(path)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var top map[string]json.RawMessage
	clean := stripJSONC(data)
	if err := json.Unmarshal(clean, &top); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, notObjectError(clean, err))
	}
	src := Source{Origin: OriginClaudeCode, Scope: ScopeUser, Path: path, Found: true, format: formatMcpServers}
	_, hasServers := top["servers"]
	_, hasMCPServers := top["mcpServers"]
	switch {
	case hasServers && !hasMCPServers:
		src.Origin, src.format = OriginVSCode, formatVSCode
	case filepath.Base(path) == ".claude.json":
		src.format = formatClaudeJSON
	}
	if dir, ok := projectFileDir(h, path); ok {
		if err := checkProjectFile(path); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		src.Scope, src.Dir = ScopeProject, dir
	}
	var problems []*Problem
	servers, err := parseEditorFile(src, data, h, &problems)
	if err != nil {
		return nil, problems, fmt.Errorf("%s: %w", name, err)
	}
	for i := range servers {
		servers[i].Scope = src.Scope
	}
	return servers, problems, nil
}

// projectFileDir returns the project folder of path when the file is named
// as a project's and is not one of the user's own files.
func projectFileDir(h Host, path string) (string, bool) {
	for _, s := range Sources(h, "") {
		if s.Scope == ScopeUser && filepath.Clean(s.Path) == path {
			return "", false
		}
	}
	dir, base := filepath.Dir(path), filepath.Base(path)
	switch {
	case base == ".mcp.json":
		return dir, true
	case base == "mcp.json" && (filepath.Base(dir) == ".cursor" || filepath.Base(dir) == ".vscode"):
		return filepath.Dir(dir), true
	}
	return "", false
}
