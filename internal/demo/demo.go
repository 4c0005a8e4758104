// Package demo is the MCP server behind mcpctl --demo.
//
// The server runs inside mcpctl, so the README's examples work on a machine
// with nothing else installed. It shows every kind of thing a server can
// offer: tools with input and output schemas, every content type (text, image,
// audio, resource links, embedded resources), tool errors, progress
// notifications and cancellation, resources, a resource template, prompts,
// argument completion, logging levels and pagination (the tool list comes in
// two pages).
//
// The server is a small JSON-RPC loop of its own rather than an SDK's: it is
// linked into every mcpctl binary, and an SDK server would add megabytes and
// package initialisation to every start of mcpctl for a feature used only
// with --demo. The tests check it against the official Go SDK's client.
//
// Everything it returns is deterministic, so its output can be used in golden
// files. [Serve] runs a server over a [transport.Connection];
// [Server.Handle] answers one request, for wrapping the demo's behaviour in
// another server (the test servers serve it through the Go SDK).
package demo

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

// Instructions is sent to clients in the initialize result.
const Instructions = `This is mcpctl's built-in demo server. It runs inside mcpctl, needs no network and always gives the same answers.

Tools: echo, upper and count_words work on text; add and weather return structured content with an output schema; random_number is seeded and deterministic; image, audio, resource_link and embedded return each non-text content type; fail returns a tool error (isError); sleep waits, reports progress when given a progress token and stops when cancelled.

Resources: demo://readme (Markdown) and demo://logo.png (PNG image); the template demo://greeting/{name} greets anyone. Prompts: review_code and summarize. Argument completion is available for prompt arguments and the greeting template.`

// ProtocolVersions lists the protocol revisions the server speaks, newest
// first. A client asking for another gets the newest.
func ProtocolVersions() []string {
	return []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}
}
