package main

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestPingTool calls ping through a real client session.
func TestPingTool(t *testing.T) {
	session := connect(t)
	res, err := session.CallTool(context.Background(), &mcp.CallToolParams{
		Name:      "ping",
		Arguments: map[string]any{},
	})
	if err != nil {
		t.Fatalf("calling ping: %v", err)
	}
	if res.IsError {
		t.Fatalf("ping returned an error: %s", textOf(res))
	}
	// TODO(ping): check the result once the handler does real work.
	t.Logf("result: %s", textOf(res))
}
