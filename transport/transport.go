// Package transport moves JSON-RPC messages between mcpctl and an MCP server.
//
// A [Transport] knows how to reach a server; [Transport.Connect] returns a
// [Connection] that reads and writes whole messages. Messages are raw JSON
// values (one JSON-RPC object each) so that an inspector sees exactly the bytes
// the server sent; decoding them is the client's business.
//
// Implementations: [Command] (a child process speaking newline-delimited JSON
// on stdio), [StreamableHTTP] (Streamable HTTP, MCP 2025-03-26 and later),
// [SSE] (the legacy HTTP+SSE transport of 2024-11-05), [Auto] (an HTTP URL
// whose transport is detected; [NewHTTPTransport] picks one of the three by
// name), [NewPipe] (an in-memory pair for tests and the built-in demo
// server) and [Trace] (a wrapper that records every message).
package transport

import (
	"context"
	"encoding/json"
	"errors"
)

// Transport connects to an MCP server.
type Transport interface {
	// Connect establishes a connection. The context bounds the connection
	// attempt only; the returned Connection lives until Close.
	Connect(ctx context.Context) (Connection, error)
}

// Connection is a bidirectional stream of JSON-RPC messages.
//
// Concurrency: Read must not be called concurrently with itself, and Write
// must not be called concurrently with itself, but one goroutine may Read while
// another Writes. Close may be called at any time from any goroutine, more than
// once; it unblocks pending Read and Write calls.
type Connection interface {
	// Read returns the next message. It returns an error wrapping io.EOF when
	// the peer closed the stream cleanly, and ctx.Err() when ctx is done.
	// The returned slice is owned by the caller.
	Read(ctx context.Context) (json.RawMessage, error)
	// Write sends one message. msg must be a single compact JSON value with
	// no newline.
	Write(ctx context.Context, msg json.RawMessage) error
	// Close releases the connection and anything it started (for a child
	// process: stdin closed, grace period, SIGTERM, SIGKILL).
	Close() error
}

// ErrClosed is returned by Read and Write after Close.
var ErrClosed = errors.New("connection closed")

// ConcurrentWriter is implemented by connections whose Write may be called
// from several goroutines at once, relaxing the rule on [Connection]. HTTP
// connections are: each message is its own POST, and a POST whose answer is
// slow must not hold back the answer to a request the server sent meanwhile
// (an elicitation during a tool call).
type ConcurrentWriter interface {
	// WritesConcurrently reports whether Write may be called concurrently.
	WritesConcurrently() bool
}

// writesConcurrently reports whether conn declares [ConcurrentWriter].
func writesConcurrently(conn Connection) bool {
	cw, ok := conn.(ConcurrentWriter)
	return ok && cw.WritesConcurrently()
}
