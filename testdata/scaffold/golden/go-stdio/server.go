package main

import "github.com/modelcontextprotocol/go-sdk/mcp"

// serverName and serverVersion are what the server reports in initialize.
const (
	serverName    = "demo-srv"
	serverVersion = "0.1.0"
)

// newServer builds the MCP server with every tool of the project. The tools
// are registered by addTools in tools_gen.go, which mcpctl scaffold tool
// regenerates from .mcpctl-scaffold.json.
func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: serverName, Version: serverVersion}, nil)
	addTools(s)
	return s
}
