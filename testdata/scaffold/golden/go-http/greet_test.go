package main

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGreetTool calls greet through a real client session.
func TestGreetTool(t *testing.T) {
	session := connect(t)
	res, err := session.CallTool(context.Background(), &mcp.CallToolParams{
		Name: "greet",
		Arguments: map[string]any{
			"name": "example",
		},
	})
	if err != nil {
		t.Fatalf("calling greet: %v", err)
	}
	if res.IsError {
		t.Fatalf("greet returned an error: %s", textOf(res))
	}
	if got, want := textOf(res), "Hello, example!"; got != want {
		t.Errorf("greet said %q, want %q", got, want)
	}
}
