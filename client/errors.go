package client

import (
	"encoding/json"
	"fmt"
	"time"
)

// Standard JSON-RPC and MCP error codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	CodeNotFound       = -32002 // resource not found
)

// RPCError is a JSON-RPC error object, as answered by the server (or sent by
// a client handler).
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string {
	s := fmt.Sprintf("server error %d: %s", e.Code, e.Message)
	if len(e.Data) > 0 && string(e.Data) != "null" {
		s += " (data: " + truncate(e.Data, 200) + ")"
	}
	return s
}

// TimeoutError reports a request that got no answer in time. The client has
// already sent notifications/cancelled for it.
type TimeoutError struct {
	Method string
	After  time.Duration
	// Cancelled says notifications/cancelled was sent; it is not for
	// initialize, which must not be cancelled.
	Cancelled bool
}

func (e *TimeoutError) Error() string {
	sent := ""
	if e.Cancelled {
		sent = "sent notifications/cancelled; "
	}
	return fmt.Sprintf("%s timed out after %s with no answer from the server (%sraise --timeout if the server is just slow)", e.Method, e.After, sent)
}

// VersionError reports a server that answered initialize with a protocol
// revision mcpctl does not speak.
type VersionError struct {
	Offered, Answered string
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("server answered initialize with protocol version %q, which mcpctl does not support (supported: %v; offered %q); try --protocol-version with one of the supported versions", e.Answered, SupportedProtocolVersions, e.Offered)
}

// ProtocolError reports a message from the server that breaks the protocol
// badly enough that the request it belongs to cannot complete.
type ProtocolError struct {
	Method string
	Msg    string
}

func (e *ProtocolError) Error() string {
	if e.Method == "" {
		return "protocol error: " + e.Msg
	}
	return fmt.Sprintf("protocol error in %s: %s", e.Method, e.Msg)
}
