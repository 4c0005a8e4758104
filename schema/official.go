package schema

import (
	"embed"
	"fmt"
	"slices"
)

// officialFS holds the official schema.json of every protocol revision
// mcpctl speaks, byte for byte as the specification's repository publishes
// them (modelcontextprotocol/modelcontextprotocol, schema/<version>/).
//
//go:embed mcp/*/schema.json
var officialFS embed.FS

// officialVersions are the revisions embedded, oldest first.
var officialVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

// OfficialVersions lists the protocol revisions whose official schema is
// embedded, oldest first.
func OfficialVersions() []string { return slices.Clone(officialVersions) }

// OfficialSchema returns the official schema.json of a protocol revision,
// as published. The bytes are shared: callers must not change them.
func OfficialSchema(version string) ([]byte, error) {
	if !slices.Contains(officialVersions, version) {
		return nil, fmt.Errorf("no official schema for protocol version %q (mcpctl has %v)", version, officialVersions)
	}
	return officialFS.ReadFile("mcp/" + version + "/schema.json")
}
