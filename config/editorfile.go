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
// Claude Code's ~/.claude.json with its projects. The person who named the
// file is its reader, so its servers have the user scope, not the project
// one that asks for trust.
func ReadEditorFile(h Host, path string) ([]Server, []*Problem, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var top map[string]json.RawMessage
	clean := stripJSONC(data)
	if err := json.Unmarshal(clean, &top); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, notObjectError(clean, err))
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
	var problems []*Problem
	servers, err := parseEditorFile(src, data, h, &problems)
	if err != nil {
		return nil, problems, fmt.Errorf("%s: %w", path, err)
	}
	for i := range servers {
		servers[i].Scope = ScopeUser
	}
	return servers, problems, nil
}
