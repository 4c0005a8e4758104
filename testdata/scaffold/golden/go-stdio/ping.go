package main

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// PingInput are the arguments of the ping tool.
// The tool's inputSchema is derived from this type: json tags name the
// properties (omitempty makes one optional), jsonschema tags describe them.
type PingInput struct {
}

// addPingTool registers the ping tool on s.
func addPingTool(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{
		Name:        "ping",
		Description: "TODO: say what ping does and when to use it; the model reads this.",
	}, handlePing)
}

// handlePing runs the ping tool.
// The SDK has already checked the arguments against the inputSchema. An
// error it returns reaches the client as a result with isError: true.
func handlePing(ctx context.Context, req *mcp.CallToolRequest, in PingInput) (*mcp.CallToolResult, any, error) {
	// TODO(ping): do the tool's work here.
	// This stub only echoes its arguments, a valid result the generated
	// test accepts.
	return &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("ping is not implemented yet; it got %+v", in)}},
	}, nil, nil
}
