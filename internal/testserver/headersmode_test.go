package testserver

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHeaders checks that the headers mode lists its tools with the
// inputSchemas it means to show, the broken ones included, and that the
// SDK's client excludes those it recognises as broken (it does not look
// under items) while the valid tool works.
func TestHeaders(t *testing.T) {
	h := start(t, "headers")
	ctx := t.Context()
	res, err := h.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		b, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(headersTools, func(ht struct{ name, description, inputSchema string }) bool { return ht.name == tool.Name })
		if i < 0 {
			t.Errorf("unexpected tool %q", tool.Name)
			continue
		}
		var got, want any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(headersTools[i].inputSchema), &want); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("tool %q inputSchema (-want +got):\n%s", tool.Name, diff)
		}
	}
	slices.Sort(names)
	if want := []string{"items_header", "route"}; !slices.Equal(names, want) {
		t.Errorf("tools the SDK client keeps = %v, want %v", names, want)
	}
	call, err := h.cs.CallTool(ctx, &mcp.CallToolParams{Name: "route", Arguments: map[string]any{"region": "eu", "query": "q"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := call.Content[0].(*mcp.TextContent).Text; !strings.HasPrefix(got, "route ") || !strings.Contains(got, `"region":"eu"`) {
		t.Errorf("route answered %q", got)
	}
	if code := h.stop(); code != 0 {
		t.Errorf("exit status %d, want 0", code)
	}
}
