package demo_test

import (
	"slices"
	"testing"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/internal/demo"
)

// The demo server keeps its own error codes and versions because client's
// tests import it (client cannot be imported back); they must be client's.
func TestTablesAreClients(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name      string
		demo, cli int
	}{
		{"CodeParseError", demo.CodeParseError, client.CodeParseError},
		{"CodeInvalidRequest", demo.CodeInvalidRequest, client.CodeInvalidRequest},
		{"CodeMethodNotFound", demo.CodeMethodNotFound, client.CodeMethodNotFound},
		{"CodeInvalidParams", demo.CodeInvalidParams, client.CodeInvalidParams},
		{"CodeInternalError", demo.CodeInternalError, client.CodeInternalError},
		{"CodeResourceNotFound", demo.CodeResourceNotFound, client.CodeNotFound},
	} {
		if c.demo != c.cli {
			t.Errorf("demo.%s = %d, client's code is %d", c.name, c.demo, c.cli)
		}
	}
	if got, want := demo.ProtocolVersions(), client.SupportedProtocolVersions(); !slices.Equal(got, want) {
		t.Errorf("demo.ProtocolVersions() = %v, client.SupportedProtocolVersions() = %v", got, want)
	}
}
