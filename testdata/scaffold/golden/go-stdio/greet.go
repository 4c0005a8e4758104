package main

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// GreetInput are the arguments of the greet tool.
// The tool's inputSchema is derived from this type: json tags name the
// properties (omitempty makes one optional), jsonschema tags describe them.
type GreetInput struct {
	Name string `json:"name" jsonschema:"Who to greet"`
}

// addGreetTool registers the greet tool on s.
func addGreetTool(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{
		Name:        "greet",
		Description: "Greets someone by name.",
		Annotations: &mcp.ToolAnnotations{
			ReadOnlyHint:  true,
			OpenWorldHint: new(false),
		},
	}, handleGreet)
}

// handleGreet runs the greet tool.
// The SDK has already checked the arguments against the inputSchema. An
// error it returns reaches the client as a result with isError: true.
func handleGreet(ctx context.Context, req *mcp.CallToolRequest, in GreetInput) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: "Hello, " + in.Name + "!"}},
	}, nil, nil
}
