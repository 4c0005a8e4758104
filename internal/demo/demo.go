// Package demo is the MCP server behind mcpctl --demo.
//
// The server runs inside mcpctl, so the README's examples work on a machine
// with nothing else installed. It shows every kind of thing a server can
// offer: tools with input and output schemas, every content type (text, image,
// audio, resource links, embedded resources), tool errors, progress
// notifications and cancellation, resources, a resource template, prompts,
// argument completion and pagination (the tool list comes in two pages).
//
// Everything it returns is deterministic, so its output can be used in golden
// files. [NewServer] builds the server; [Serve] runs it over a
// [transport.Connection].
package demo

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Identity of the demo server, as sent in its initialize result.
const (
	// Name is the server's programmatic name.
	Name = "mcpctl-demo"
	// Title is the server's display name.
	Title = "mcpctl demo server"
	// Version is the server's version.
	Version = "1.0.0"
)

// PageSize is the number of items per page of every list the server returns.
// It is smaller than the number of tools so that tools/list needs two pages.
const PageSize = 8

// instructions is sent to clients in the initialize result.
const instructions = `This is mcpctl's built-in demo server. It runs inside mcpctl, needs no network and always gives the same answers.

Tools: echo, upper and count_words work on text; add and weather return structured content with an output schema; random_number is seeded and deterministic; image, audio, resource_link and embedded return each non-text content type; fail returns a tool error (isError); sleep waits, reports progress when given a progress token and stops when cancelled.

Resources: demo://readme (Markdown) and demo://logo.png (PNG image); the template demo://greeting/{name} greets anyone. Prompts: review_code and summarize. Argument completion is available for prompt arguments and the greeting template.`

// NewServer returns a new demo server with all its tools, resources and
// prompts registered. Each call returns an independent server; nothing is
// computed until a client asks for it.
func NewServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{
		Name:    Name,
		Title:   Title,
		Version: Version,
	}, &mcp.ServerOptions{
		Instructions:      instructions,
		PageSize:          PageSize,
		CompletionHandler: complete,
	})
	s.AddReceivingMiddleware(nullArgumentsAsEmpty)
	addTools(s)
	addResources(s)
	addPrompts(s)
	return s
}

// nullArgumentsAsEmpty treats a tools/call with "arguments": null like one
// without arguments. The SDK (v1.8.0) panics while applying schema defaults
// to null arguments, and a panic in a handler would take mcpctl down with the
// in-process server.
func nullArgumentsAsEmpty(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil &&
			bytes.Equal(bytes.TrimSpace(call.Params.Arguments), []byte("null")) {
			call.Params.Arguments = json.RawMessage("{}")
		}
		return next(ctx, method, req)
	}
}
