package client

import (
	"encoding/json"
	"net/http"
)

// RelayHeaders is what a proxy that relays another client's messages over
// Streamable HTTP adds to a message, as that client would have over HTTP:
// for a message of the stateless revision (2026-07-28 and later), whose
// params._meta carries the protocol version, the version to send as
// MCP-Protocol-Version and the Mcp-Method and Mcp-Name headers; "" and nil
// for any other message.
func RelayHeaders(method string, params json.RawMessage) (version string, h http.Header) {
	if method == "" || len(params) == 0 {
		return "", nil
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return "", nil
	}
	if json.Unmarshal(p.Meta[metaProtocolVersion], &version) != nil || version == "" {
		return "", nil
	}
	return version, modernHeaders(method, params)
}
