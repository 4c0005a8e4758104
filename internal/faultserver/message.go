package faultserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpctl/mcpctl/client"
)

// message is one incoming JSON-RPC message. A request has a method and an
// id, a notification a method only, a response neither.
type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
}

func (m *message) isRequest() bool { return m.Method != "" && len(m.ID) > 0 }

// parseMessages decodes a message or a batch of them. Anything else is
// reported as an error.
func parseMessages(data []byte) ([]message, error) {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		var batch []message
		if err := json.Unmarshal(data, &batch); err != nil {
			return nil, err
		}
		return batch, nil
	}
	var m message
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	return []message{m}, nil
}

// object is shorthand for the messages below.
type object = map[string]any

// mustJSON encodes v, which is always one of the plain values built here.
func mustJSON(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("faultserver: encoding %T: %v", v, err))
	}
	return data
}

// response is the answer to the request with the given id; result is
// already encoded, so modes can send JSON that encoding/json would refuse
// or repair (invalid UTF-8, deep nesting).
func response(id json.RawMessage, result []byte) []byte {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	b.Write(id)
	b.WriteString(`,"result":`)
	b.Write(result)
	b.WriteString("}")
	return b.Bytes()
}

// errorResponse is a JSON-RPC error answer.
func errorResponse(id json.RawMessage, code int, msg string) []byte {
	return mustJSON(object{"jsonrpc": "2.0", "id": id, "error": object{"code": code, "message": msg}})
}

func notification(method string, params any) []byte {
	return mustJSON(object{"jsonrpc": "2.0", "method": method, "params": params})
}

func request(id any, method string, params any) []byte {
	return mustJSON(object{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

// logMessage is a notifications/message at level info.
func logMessage(data string) []byte {
	return notification("notifications/message", object{"level": "info", "logger": "faultserver", "data": data})
}

// textResult is a tools/call result with one text block.
func textResult(text string) []byte {
	return mustJSON(object{"content": []any{object{"type": "text", "text": text}}})
}

// supportedVersions are the revisions initialize accepts from the client,
// mcpctl's own; others get the latest.
func supportedVersions() []string { return client.SupportedProtocolVersions() }

func negotiate(params json.RawMessage) string {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(params, &p) // a bad request gets the latest version
	if slices.Contains(supportedVersions(), p.ProtocolVersion) {
		return p.ProtocolVersion
	}
	return supportedVersions()[0]
}

// faultTool is the one tool every mode offers; its call triggers the
// call-time faults.
func faultTool() object {
	return object{
		"name":        "fault",
		"description": "Misbehaves as the server's mode says.",
		"inputSchema": object{"type": "object", "properties": object{"message": object{"type": "string"}}},
	}
}

// parseSize reads a byte count: a number with an optional unit, KiB, MiB
// or GiB (powers of 1024) or KB, MB or GB (powers of 1000).
func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	mult := int64(1)
	num := strings.TrimSpace(s)
	for _, u := range units {
		if strings.HasSuffix(num, u.suffix) {
			mult, num = u.mult, strings.TrimSpace(strings.TrimSuffix(num, u.suffix))
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("invalid size %q: want a number of bytes with an optional unit (KiB, MiB, GiB, KB, MB, GB)", s)
	}
	return n * mult, nil
}

// sizeFlag is a flag.Value holding a byte count.
type sizeFlag struct{ n int64 }

func (f *sizeFlag) String() string { return strconv.FormatInt(f.n, 10) }

func (f *sizeFlag) Set(s string) error {
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	f.n = n
	return nil
}
