package client

import (
	"encoding/json"
	"fmt"
)

// The builders below are the one place JSON-RPC messages are written, for
// the client itself and for commands that print a message instead of
// sending it (mcpctl sign request). Each returns one compact JSON value with
// no newline, as [transport.Connection.Write] wants it.

// NewRequest encodes a JSON-RPC request. id must be a string or an integer
// (JSON-RPC allows both; MCP forbids null); params may be nil (omitted), a
// json.RawMessage (compacted, not re-ordered) or any value for
// encoding/json.
func NewRequest(id any, method string, params any) (json.RawMessage, error) {
	rawID, err := encodeID(id)
	if err != nil {
		return nil, err
	}
	p, err := encodeParams(method, params)
	if err != nil {
		return nil, err
	}
	return assemble(rawID, method, p), nil
}

// NewNotification encodes a JSON-RPC notification; params as for
// [NewRequest].
func NewNotification(method string, params any) (json.RawMessage, error) {
	p, err := encodeParams(method, params)
	if err != nil {
		return nil, err
	}
	return assemble(nil, method, p), nil
}

// NewResponse encodes the answer to the request with id: its result, or,
// when rpcErr is not nil, that error. A nil result is sent as {}, the empty
// result MCP expects (ping).
func NewResponse(id json.RawMessage, result any, rpcErr *RPCError) (json.RawMessage, error) {
	reply := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result,omitempty"`
		Error   *RPCError       `json:"error,omitempty"`
	}{JSONRPC: "2.0", ID: id}
	if rpcErr != nil {
		reply.Error = rpcErr
	} else {
		if result == nil {
			result = struct{}{}
		}
		reply.Result = result
	}
	data, err := json.Marshal(reply)
	if err != nil {
		return nil, fmt.Errorf("encoding the answer to request %s: %w", id, err)
	}
	return data, nil
}

// CallToolParams are the params of tools/call as mcpctl sends them. Arguments
// are kept as bytes so that a signature can cover exactly what is sent.
type CallToolParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Meta      map[string]any  `json:"_meta,omitempty"`
}

// MarshalArguments encodes tool arguments as [Client.CallTool] sends them:
// nil is the empty object.
func MarshalArguments(args map[string]any) (json.RawMessage, error) {
	if args == nil {
		return json.RawMessage("{}"), nil
	}
	data, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("encoding the arguments: %w", err)
	}
	return data, nil
}

// NewCallToolRequest encodes a complete tools/call request with id, exactly
// as [Client.CallToolWith] would send it (opts.Sign included).
func NewCallToolRequest(id any, name string, args json.RawMessage, opts CallOptions) (json.RawMessage, error) {
	params, err := callToolParams(name, args, opts)
	if err != nil {
		return nil, err
	}
	rawID, err := encodeID(id)
	if err != nil {
		return nil, err
	}
	return assemble(rawID, "tools/call", params), nil
}

// callToolParams encodes the params of tools/call. The arguments are put in
// their wire form once — compact, with encoding/json's escaping — and those
// bytes are both given to opts.Sign and sent: encoding/json writes a
// json.RawMessage by compacting and escaping it, which changes nothing in
// bytes already in that form, so the signed bytes are the sent bytes by
// construction, not by two encoders staying in step.
func callToolParams(name string, args json.RawMessage, opts CallOptions) (json.RawMessage, error) {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	wire, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("the arguments of tool %q are not valid JSON: %w", name, err)
	}
	meta := make(map[string]any, len(opts.Meta)+2)
	for k, v := range opts.Meta {
		meta[k] = v
	}
	if opts.ProgressToken != "" {
		meta["progressToken"] = opts.ProgressToken
	}
	if opts.Sign != nil {
		sig, err := opts.Sign(name, wire)
		if err != nil {
			return nil, fmt.Errorf("signing the call of tool %q: %w", name, err)
		}
		meta["signature"] = sig
	}
	if len(meta) == 0 {
		meta = nil
	}
	data, err := json.Marshal(CallToolParams{Name: name, Arguments: wire, Meta: meta})
	if err != nil {
		return nil, fmt.Errorf("encoding the call of tool %q: %w", name, err)
	}
	return data, nil
}

// encodeID encodes a request id: a string or an integer.
func encodeID(id any) (json.RawMessage, error) {
	switch id.(type) {
	case string, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
	default:
		return nil, fmt.Errorf("a JSON-RPC request id must be a string or an integer, got %T", id)
	}
	return json.Marshal(id)
}

// encodeParams encodes params for a message; nil stays nil (omitted).
func encodeParams(method string, params any) (json.RawMessage, error) {
	if params == nil {
		return nil, nil
	}
	if raw, ok := params.(json.RawMessage); ok && raw == nil {
		return nil, nil
	}
	data, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("encoding the params of %s: %w", method, err)
	}
	return data, nil
}

// assemble writes a request (id set) or a notification (id nil) from
// encoded parts, without re-encoding params: a 100 MB argument is copied
// once, into the message.
func assemble(id json.RawMessage, method string, params json.RawMessage) json.RawMessage {
	m, _ := json.Marshal(method) // a string always encodes
	n := len(`{"jsonrpc":"2.0","id":,"method":,"params":}`) + len(id) + len(m) + len(params)
	b := make([]byte, 0, n)
	b = append(b, `{"jsonrpc":"2.0"`...)
	if id != nil {
		b = append(b, `,"id":`...)
		b = append(b, id...)
	}
	b = append(b, `,"method":`...)
	b = append(b, m...)
	if params != nil {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	return append(b, '}')
}
