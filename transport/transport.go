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
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
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
//
// Reading never waits on writing: Read keeps delivering what the peer sends
// while a Write is blocked because the peer stopped reading, and a blocked
// Write returns when its ctx ends (the message is then not sent; over
// stdio, a message cut short makes later Writes fail) or when Close is
// called. Code that uses a connection keeps the same rule on its side:
// the client drops and counts what it cannot write rather than stop
// reading, and bounds each write by the deadline of the request it
// serves; something relaying between two connections must do the same in
// each direction, since either peer may stop reading.
type Connection interface {
	// Read returns the next message. It returns an error wrapping io.EOF when
	// the peer closed the stream cleanly, and ctx.Err() when ctx is done.
	// The returned slice is owned by the caller.
	Read(ctx context.Context) (json.RawMessage, error)
	// Write sends one message. msg must be a single compact JSON value with
	// no newline. Write hands msg over: a connection may keep it after
	// Write returns (the in-memory pipe gives the very slice to its peer,
	// to avoid copying large messages), so the caller must not modify it
	// afterwards. opts says how to send this message only; concurrent
	// Writes (see [ConcurrentWriter]) each have their own.
	Write(ctx context.Context, msg json.RawMessage, opts WriteOptions) error
	// Close releases the connection and anything it started (for a child
	// process: stdin closed, grace period, SIGTERM, SIGKILL).
	Close() error
}

// PartsWriter is implemented by connections that write a message given in
// parts without joining them first, so that a message holding a large
// member (a tool call's arguments) is sent from where its parts lie
// rather than copied into one buffer. [WriteParts] uses it.
type PartsWriter interface {
	// WriteParts is [Connection.Write] of the message the parts make
	// when joined, under the same rules: the parts are handed over as
	// msg is, and a connection that writes concurrently may be given
	// parts concurrently.
	WriteParts(ctx context.Context, parts [][]byte, opts WriteOptions) error
}

// WriteParts writes on conn the message the parts make when joined: in
// parts when conn is a [PartsWriter], else joined into one buffer.
func WriteParts(ctx context.Context, conn Connection, parts [][]byte, opts WriteOptions) error {
	if len(parts) == 1 {
		return conn.Write(ctx, parts[0], opts)
	}
	if pw, ok := conn.(PartsWriter); ok {
		return pw.WriteParts(ctx, parts, opts)
	}
	return conn.Write(ctx, bytes.Join(parts, nil), opts)
}

// partsSize is the length of the parts joined.
func partsSize(parts [][]byte) int {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	return n
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

// DefaultMaxMessageSize is the largest single message (a stdio line, an HTTP
// body, one SSE event) a connection accepts when its options leave the limit
// at zero. `--max-message-size` changes it.
const DefaultMaxMessageSize int64 = 256 << 20

// MessageTooLargeError reports a message over the size limit. The rest of
// the offending message is discarded without being buffered.
type MessageTooLargeError struct {
	// What names the message: "stdio line", "HTTP response body", "SSE event".
	What string
	// Limit is the limit in bytes.
	Limit int64
}

// Error reads like `stdio line larger than the 256 MiB message size limit
// (raise it with --max-message-size)`.
func (e *MessageTooLargeError) Error() string {
	return fmt.Sprintf("%s larger than the %s message size limit (raise it with --max-message-size)", e.What, FormatSize(e.Limit))
}

// FormatSize writes n bytes the way limits are documented: "256 MiB",
// "1.5 KiB", "17 bytes".
func FormatSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	v := float64(n) / float64(div)
	s := strconv.FormatFloat(v, 'f', 1, 64)
	s = strings.TrimSuffix(s, ".0")
	return s + " " + string("KMGTPE"[exp]) + "iB"
}

// ProtocolVersionSetter is implemented by connections that must know the
// negotiated protocol revision (Streamable HTTP sends it as the
// MCP-Protocol-Version header). The client calls it after initialize; the
// transport never reads it from the messages themselves.
type ProtocolVersionSetter interface {
	SetProtocolVersion(version string)
}

// RequestError is returned by [Connection.Read] when delivering the answer
// to one request failed (its HTTP stream broke and could not be resumed)
// while the connection itself is still usable. The client fails the
// request with ID and keeps reading; any other Read error ends the
// connection.
type RequestError struct {
	// ID is the JSON-RPC id of the request, as the client wrote it.
	ID json.RawMessage
	// Err is what went wrong.
	Err error
}

// Error describes the failure of the request.
func (e *RequestError) Error() string {
	return fmt.Sprintf("request %s: %v", e.ID, e.Err)
}

// Unwrap returns the cause.
func (e *RequestError) Unwrap() error { return e.Err }

// WriteOptions is how one message is sent, besides its bytes: what the
// client decided about the message that the bytes do not say. The zero
// value sends a message plainly.
type WriteOptions struct {
	// Header is sent as HTTP headers of the request carrying the message,
	// by transports that send each message in its own HTTP request
	// (Streamable HTTP). The client uses it for the headers the 2026-07-28
	// revision mirrors from a message (Mcp-Method, Mcp-Name,
	// Mcp-Param-*): the client decides them, the transport only sends
	// them. Headers the transport owns (Content-Type, Accept, the session
	// and version headers) are not overridden. Transports with no request
	// per message (stdio, legacy SSE, the pipe) ignore it. The connection
	// does not modify it.
	Header http.Header
	// Probe marks the message as a probe: a request whose failure says
	// something about the server's protocol era, not about the transport.
	// The client sends its era probe (server/discover) this way. [Auto]
	// POSTs a probe as Streamable HTTP and settles on that transport only
	// when the server answers it; a refusal (400, 404, 405, …) is returned
	// as is and leaves the choice open, so the initialize that follows
	// still falls back to legacy HTTP+SSE when the server needs it. Other
	// transports ignore it.
	Probe bool
}

// Func adapts a function to [Transport].
type Func func(ctx context.Context) (Connection, error)

// Connect calls f.
func (f Func) Connect(ctx context.Context) (Connection, error) { return f(ctx) }
