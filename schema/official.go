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

// officialVersions are the revisions embedded, oldest first: the folders
// under mcp/, so that the list is not written out a second time (schema
// may not import client, whose list a client test checks this one
// against). Set once, never changed.
var officialVersions = embeddedVersions()

// embeddedVersions lists the folders of officialFS's mcp/, oldest first:
// revisions are dates, and ReadDir sorts by name.
func embeddedVersions() []string {
	entries, err := officialFS.ReadDir("mcp")
	if err != nil {
		panic("schema: the embedded official schemas are missing: " + err.Error())
	}
	versions := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.IsDir() {
			versions = append(versions, e.Name())
		}
	}
	return versions
}

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
