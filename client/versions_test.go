package client

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/transport"
)

// The lists of protocol versions that packages below client keep (they
// may not import it) are the one of KnownProtocolVersions.
func TestProtocolVersionsAreOneList(t *testing.T) {
	t.Parallel()
	known := KnownProtocolVersions()
	if !slices.IsSortedFunc(known, func(a, b string) int { return strings.Compare(b, a) }) || len(slices.Compact(slices.Clone(known))) != len(known) {
		t.Errorf("KnownProtocolVersions() = %v, want newest first, each once", known)
	}
	official := slices.Clone(schema.OfficialVersions())
	slices.Reverse(official)
	if diff := cmp.Diff(known, official); diff != "" {
		t.Errorf("embedded official schemas (-client +schema):\n%s", diff)
	}
	if got := SupportedProtocolVersions(); len(got) == 0 || got[0] != LatestProtocolVersion {
		t.Errorf("SupportedProtocolVersions() = %v, want %s first", got, LatestProtocolVersion)
	}
	if got := ModernProtocolVersions(); len(got) == 0 || got[len(got)-1] != ModernProtocolVersion {
		t.Errorf("ModernProtocolVersions() = %v, want %s last (the first of its era)", got, ModernProtocolVersion)
	}
	if transport.StatelessRevision != ModernProtocolVersion {
		t.Errorf("transport.StatelessRevision = %s, client.ModernProtocolVersion = %s", transport.StatelessRevision, ModernProtocolVersion)
	}
	if got := append(ModernProtocolVersions(), SupportedProtocolVersions()...); !slices.Equal(got, known) {
		t.Errorf("modern + supported = %v, want %v", got, known)
	}
}
