package client

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// JSON-RPC error codes: the one table of them in mcpctl. Packages that
// may not import client (transport, the demo server) keep their own names,
// which tests check against these.
const (
	// The JSON-RPC 2.0 codes.
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603

	// CodeNotFound: the resource of resources/read does not exist.
	CodeNotFound = -32002
	// CodeURLElicitationRequired: the server needs the client to complete
	// a URL elicitation first (URLElicitationRequiredError, 2025-11-25).
	CodeURLElicitationRequired = -32042

	// The codes of the modern era (2026-07-28 schema).

	// CodeHeaderMismatch: the HTTP headers do not match the body, or a
	// required one is missing (HeaderMismatchError).
	CodeHeaderMismatch = -32020
	// CodeMissingClientCapability: the request needs a client capability
	// that was not declared (MissingRequiredClientCapabilityError).
	CodeMissingClientCapability = -32021
	// CodeUnsupportedProtocolVersion: the server does not speak the
	// requested revision; data.supported lists those it does.
	CodeUnsupportedProtocolVersion = -32022

	// CodeRefused is what mcpctl's proxy answers a host's request with
	// when its policy refuses it (a server error code of JSON-RPC's
	// reserved range), unless the refusal is a tool result.
	CodeRefused = -32003

	// CodeBusy is what mcpctl answers a server→client request with when
	// [MaxConcurrentServerRequests] handlers are already running.
	CodeBusy = -32000
)

// RPCError is a JSON-RPC error object, as answered by the server (or sent by
// a client handler).
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error reads like `server error -32602: unknown prompt "x"`. The code is
// shown once: a message that carries it already ("MCP error -32602: …", as
// the TypeScript SDK writes them) loses that prefix, and one that still
// names the code is shown after "server error: " alone.
func (e *RPCError) Error() string {
	code := strconv.Itoa(e.Code)
	msg := e.Message
	if rest, ok := strings.CutPrefix(msg, "MCP error "+code+": "); ok {
		msg = rest
	}
	s := fmt.Sprintf("server error %s: %s", code, msg)
	if strings.Contains(msg, code) {
		s = "server error: " + msg
	}
	if len(e.Data) > 0 && string(e.Data) != "null" {
		s += " (data: " + truncate(e.Data, 200) + ")"
	}
	return s
}

// TimeoutError reports a request that got no answer in time. The client has
// already cancelled it: with notifications/cancelled, or in the modern era
// over Streamable HTTP by closing its HTTP request.
type TimeoutError struct {
	Method string
	After  time.Duration
	// Cancelled says the request was cancelled: by notifications/cancelled,
	// or, when ByStream is set, by closing its HTTP request (the modern
	// era over Streamable HTTP). It is not for initialize, which must not
	// be cancelled.
	Cancelled bool
	ByStream  bool
	// Arrived says what the server did send meanwhile that answered no
	// request, such as `a response with id "3" (a string), which matches
	// no request`; empty when nothing of the kind arrived. It tells a
	// server that answers wrongly from one that is just slow.
	Arrived string
	// Detail adds context, such as how many pages of a list arrived.
	Detail string
	// Waiting, when set, is what the request was waiting for instead of
	// the server when the time ran out — "waiting for the browser sign-in
	// (…)" from an HTTP client's authorization step — and replaces "with
	// no answer from the server".
	Waiting string
	// Progress is how many progress notifications the server sent for the
	// request, as its caller counted them; when any, the server did answer
	// (it is working), and the message says the result did not come in
	// time rather than "no answer from the server".
	Progress int
}

// Error reads like `tools/call timed out after 2s with no answer from the
// server; the server did send a response with id "3" (a string), which
// matches no request (sent notifications/cancelled; raise --timeout if the
// server is just slow)`.
func (e *TimeoutError) Error() string {
	var b strings.Builder
	if e.Waiting != "" {
		fmt.Fprintf(&b, "%s timed out after %s %s", e.Method, e.After, e.Waiting)
		return b.String()
	}
	if e.Progress > 0 {
		noun := "notifications"
		if e.Progress == 1 {
			noun = "notification"
		}
		fmt.Fprintf(&b, "%s timed out after %s without a result; the server was still working (it sent %d progress %s)", e.Method, e.After, e.Progress, noun)
	} else {
		fmt.Fprintf(&b, "%s timed out after %s with no answer from the server", e.Method, e.After)
	}
	if e.Detail != "" {
		b.WriteString("; " + e.Detail)
	}
	if e.Arrived != "" {
		b.WriteString("; the server did send " + e.Arrived)
	}
	b.WriteString(" (")
	switch {
	case e.Cancelled && e.ByStream:
		b.WriteString("closed its HTTP request, which cancels it; ")
	case e.Cancelled:
		b.WriteString("sent notifications/cancelled; ")
	}
	switch {
	case e.Arrived != "":
		b.WriteString("the server's answer is at fault, not the timeout)")
	case e.Progress > 0:
		b.WriteString("raise --timeout to give it longer)")
	default:
		b.WriteString("raise --timeout if the server is just slow)")
	}
	return b.String()
}

// ConnectTimeoutError reports a transport that could not connect within
// the request timeout.
type ConnectTimeoutError struct {
	After time.Duration
	// Err is the transport's own error.
	Err error
}

// Error reads like `timed out after 2s: no endpoint event within 2s (is
// this a legacy HTTP+SSE server? try --transport http)`; a "connecting to
// URL: " prefix of the transport's error is left out, as the caller names
// the server.
func (e *ConnectTimeoutError) Error() string {
	msg := e.Err.Error()
	if rest, ok := strings.CutPrefix(msg, "connecting to "); ok {
		if _, after, found := strings.Cut(rest, ": "); found {
			msg = after
		}
	}
	return fmt.Sprintf("timed out after %s: %s", e.After, msg)
}

// Unwrap returns the transport's error.
func (e *ConnectTimeoutError) Unwrap() error { return e.Err }

// VersionError reports a server that answered initialize with a protocol
// revision mcpctl does not speak.
type VersionError struct {
	Offered, Answered string
	// Supported, when set, is what the server said it supports instead of
	// answering with one version: server/discover's supportedVersions, or
	// the data of an unsupported-version error (modern era).
	Supported []string
}

func (e *VersionError) Error() string {
	if e.Supported != nil {
		return fmt.Sprintf("the server does not speak protocol version %q (it supports %s); choose one of those with --protocol-version",
			e.Offered, strings.Join(e.Supported, ", "))
	}
	return fmt.Sprintf("server answered initialize with protocol version %q, which mcpctl does not support (supported: %v; offered %q); try --protocol-version with one of the supported versions", e.Answered, SupportedProtocolVersions(), e.Offered)
}

// ProtocolError reports a message from the server that breaks the protocol
// badly enough that the request it belongs to cannot complete.
type ProtocolError struct {
	Method string
	Msg    string
	// Result is the result the client refused, when the error is about a
	// whole result it received (an unknown resultType, input it cannot
	// give); nil otherwise. lint reads it, to report what was refused.
	Result json.RawMessage
}

func (e *ProtocolError) Error() string {
	if e.Method == "" {
		return "protocol error: " + e.Msg
	}
	return fmt.Sprintf("protocol error in %s: %s", e.Method, e.Msg)
}
