package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"unicode/utf8"
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
// nil is the empty object. The bytes are those of json.Marshal, but a
// large string value is encoded straight into a buffer of the exact size,
// so a 100 MB argument costs its size once here, not the several times
// encoding/json's growing buffer and final copy cost.
func MarshalArguments(args map[string]any) (json.RawMessage, error) {
	if args == nil {
		return json.RawMessage("{}"), nil
	}
	keys := slices.Sorted(maps.Keys(args)) // the order json.Marshal gives a map
	parts := make([][]byte, 0, 2*len(keys))
	big := make(map[int]string)
	n := len(keys) + 1 // braces and commas
	for _, k := range keys {
		key, err := json.Marshal(k)
		if err != nil {
			return nil, fmt.Errorf("encoding the arguments: %w", err)
		}
		parts = append(parts, key)
		n += len(key) + 1
		if str, ok := args[k].(string); ok && len(str) >= bigString {
			if size, ok := stringWireSize(str); ok {
				big[len(parts)] = str
				parts = append(parts, nil)
				n += size
				continue
			}
		}
		v, err := json.Marshal(args[k])
		if err != nil {
			return nil, fmt.Errorf("encoding the arguments: %w", err)
		}
		parts = append(parts, v)
		n += len(v)
	}
	b := make([]byte, 0, n)
	b = append(b, '{')
	for i := 0; i < len(parts); i += 2 {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(b, parts[i]...), ':')
		if str, ok := big[i+1]; ok {
			b = appendWireString(b, str)
		} else {
			b = append(b, parts[i+1]...)
		}
	}
	return append(b, '}'), nil
}

// bigString is the length from which MarshalArguments encodes a string
// itself rather than through encoding/json.
const bigString = 64 << 10

// stringWireSize returns the length of s as encoding/json encodes it (HTML
// characters, U+2028 and U+2029 escaped, invalid UTF-8 as \ufffd), or
// false when s holds a control character other than \n, \r and \t, whose
// escapes have differed between Go releases: encoding/json then encodes it.
func stringWireSize(s string) (int, bool) {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
				n += 2
			case c < 0x20:
				return 0, false
			case c == '<' || c == '>' || c == '&':
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1, r == '\u2028', r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n, true
}

// appendWireString appends s as encoding/json encodes it, for a string
// stringWireSize accepted.
func appendWireString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			var esc string
			switch c {
			case '"':
				esc = `\"`
			case '\\':
				esc = `\\`
			case '\n':
				esc = `\n`
			case '\r':
				esc = `\r`
			case '\t':
				esc = `\t`
			case '<', '>', '&':
				esc = `\u00` + string(hex[c>>4]) + string(hex[c&0xf])
			default:
				i++
				continue
			}
			b = append(append(b, s[start:i]...), esc...)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		var esc string
		switch {
		case r == utf8.RuneError && size == 1:
			esc = `\ufffd`
		case r == '\u2028':
			esc = `\u2028`
		case r == '\u2029':
			esc = `\u2029`
		default:
			i += size
			continue
		}
		b = append(append(b, s[start:i]...), esc...)
		i += size
		start = i
	}
	return append(append(b, s[start:]...), '"')
}

// isWireForm reports whether data, valid JSON, is already in the form
// json.Marshal gives a json.RawMessage (compact, HTML characters, U+2028
// and U+2029 escaped), so that re-encoding it would copy it unchanged.
func isWireForm(data []byte) bool {
	inString, escaped := false, false
	for i, c := range data {
		switch {
		case c == '<' || c == '>' || c == '&':
			return false
		case c == 0xe2 && i+2 < len(data) && data[i+1] == 0x80 && data[i+2]&^1 == 0xa8:
			return false
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			return false
		}
	}
	return json.Valid(data)
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
	return assemble(rawID, "tools/call", params.joined()), nil
}

// wireParams are a request's encoded params in parts which, joined, are
// the params (no parts: none). The arguments of a tool call are one part:
// the very bytes encoded for them, which whoever else needs them keeps too
// (the session's record of the call, the signature), so the params and
// the message refer to them rather than copy them.
type wireParams [][]byte

// oneParams is p as wireParams; nil stays none.
func oneParams(p json.RawMessage) wireParams {
	if p == nil {
		return nil
	}
	return wireParams{p}
}

// joined returns the params in one buffer, copying only when there are
// several parts.
func (p wireParams) joined() json.RawMessage {
	switch len(p) {
	case 0:
		return nil
	case 1:
		return p[0]
	}
	return bytes.Join(p, nil)
}

// joinBelow is the size of params under which a message is assembled in
// one buffer; larger params are referred to, not copied.
const joinBelow = 64 << 10

// assembleParts is assemble of params in parts: one buffer for small
// params, else the parts of the message around the params' own.
func assembleParts(id json.RawMessage, method string, params wireParams) [][]byte {
	size := 0
	for _, p := range params {
		size += len(p)
	}
	if size < joinBelow {
		return [][]byte{assemble(id, method, params.joined())}
	}
	m, _ := json.Marshal(method) // a string always encodes
	head := make([]byte, 0, len(`{"jsonrpc":"2.0","id":,"method":,"params":`)+len(id)+len(m))
	head = append(head, `{"jsonrpc":"2.0"`...)
	if id != nil {
		head = append(append(head, `,"id":`...), id...)
	}
	head = append(append(append(head, `,"method":`...), m...), `,"params":`...)
	parts := make([][]byte, 0, len(params)+2)
	parts = append(append(append(parts, head), params...), []byte("}"))
	return parts
}

// callToolParams encodes the params of tools/call. The arguments are put in
// their wire form once — compact, with encoding/json's escaping — and those
// bytes are both given to opts.Sign and sent: encoding/json writes a
// json.RawMessage by compacting and escaping it, which changes nothing in
// bytes already in that form, so the signed bytes are the sent bytes by
// construction, not by two encoders staying in step. The arguments are
// the params' middle part, not copied.
func callToolParams(name string, args json.RawMessage, opts CallOptions) (wireParams, error) {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	// Arguments already in wire form (those of MarshalArguments) are used
	// as they are: re-encoding would copy them unchanged.
	wire := args
	if !isWireForm(args) {
		var err error
		if wire, err = json.Marshal(args); err != nil {
			return nil, fmt.Errorf("the arguments of tool %q are not valid JSON: %w", name, err)
		}
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
	// As json.Marshal(CallToolParams{…}) writes it, around the arguments.
	rawName, err := json.Marshal(name)
	if err != nil {
		return nil, fmt.Errorf("encoding the call of tool %q: %w", name, err)
	}
	var rawMeta []byte
	if meta != nil {
		if rawMeta, err = json.Marshal(meta); err != nil {
			return nil, fmt.Errorf("encoding the call of tool %q: %w", name, err)
		}
	}
	head := make([]byte, 0, len(`{"name":,"arguments":`)+len(rawName))
	head = append(append(append(head, `{"name":`...), rawName...), `,"arguments":`...)
	tail := make([]byte, 0, len(`,"_meta":}`)+len(rawMeta))
	if rawMeta != nil {
		tail = append(append(tail, `,"_meta":`...), rawMeta...)
	}
	return wireParams{head, wire, append(tail, '}')}, nil
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
