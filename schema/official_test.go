package schema_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpctl/mcpctl/schema"
)

// TestOfficialSchemasMatchShared checks that the embedded official schemas
// are byte-identical to the copies kept beside the repository
// (../shared/mcp-schema from the repository root). Without that folder the
// test skips on a developer's machine and fails in CI (CI=true), so a
// missing folder can never pass unnoticed there.
func TestOfficialSchemasMatchShared(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "mcp-schema") // the repository root is ".."
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the official schemas to compare with are missing in CI: %v", err)
		}
		t.Skipf("no %s beside the repository to compare with: %v", dir, err)
	}
	for _, v := range schema.OfficialVersions() {
		embedded, err := schema.OfficialSchema(v)
		if err != nil {
			t.Fatal(err)
		}
		shared, err := os.ReadFile(filepath.Join(dir, v, "schema.json"))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s: embedded, but %s has no schema for it", v, dir)
				continue
			}
			t.Fatal(err)
		}
		if !bytes.Equal(embedded, shared) {
			t.Errorf("%s: the embedded schema (%d bytes) differs from %s (%d bytes); copy it into schema/mcp/%s/", v, len(embedded), dir, len(shared), v)
		}
	}
}

func TestOfficialSchemaUnknownVersion(t *testing.T) {
	if _, err := schema.OfficialSchema("2099-01-01"); err == nil {
		t.Error("OfficialSchema(2099-01-01) succeeded, want an error")
	}
}
