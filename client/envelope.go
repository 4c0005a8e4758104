package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// envelope is the top level of one JSON-RPC message. The raw fields are
// sub-slices of the message: splitting a 50 MB response costs no copy.
type envelope struct {
	ID     json.RawMessage // nil when absent; "null" when null
	Method string
	Params json.RawMessage
	Result json.RawMessage
	Error  json.RawMessage
}

func (e *envelope) isRequest() bool      { return e.Method != "" && e.ID != nil }
func (e *envelope) isNotification() bool { return e.Method != "" && e.ID == nil }
func (e *envelope) isResponse() bool     { return e.Method == "" && (e.Result != nil || e.Error != nil) }

var errNotObject = errors.New("message is not a JSON object")

// parseEnvelope splits a JSON-RPC message into its top-level members. It
// checks structure only; members are validated when they are decoded.
func parseEnvelope(data []byte) (envelope, error) {
	var env envelope
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		if i < len(data) && data[i] == '[' {
			return env, errors.New("message is a JSON-RPC batch, not one message")
		}
		return env, errNotObject
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return env, nil
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return env, fmt.Errorf("expected a member name at offset %d", i)
		}
		end, err := skipString(data, i)
		if err != nil {
			return env, err
		}
		rawKey := data[i:end]
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return env, fmt.Errorf("expected ':' at offset %d", i)
		}
		i = skipSpace(data, i+1)
		vend, err := skipValue(data, i)
		if err != nil {
			return env, err
		}
		value := data[i:vend]
		key := string(rawKey[1 : len(rawKey)-1])
		if bytes.IndexByte(rawKey, '\\') >= 0 {
			if err := json.Unmarshal(rawKey, &key); err != nil {
				return env, err
			}
		}
		switch key {
		case "id":
			env.ID = value
		case "method":
			if err := json.Unmarshal(value, &env.Method); err != nil {
				return env, fmt.Errorf("method is not a string: %s", truncate(value, 40))
			}
		case "params":
			env.Params = value
		case "result":
			env.Result = value
		case "error":
			env.Error = value
		}
		i = skipSpace(data, vend)
		if i >= len(data) {
			return env, errors.New("unexpected end of message")
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return env, nil
		default:
			return env, fmt.Errorf("unexpected %q at offset %d", data[i], i)
		}
	}
}

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the offset just past the string starting at data[i].
func skipString(data []byte, i int) (int, error) {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, errors.New("unterminated string")
}

// skipValue returns the offset just past the JSON value starting at data[i].
func skipValue(data []byte, i int) (int, error) {
	if i >= len(data) {
		return 0, errors.New("unexpected end of message")
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				end, err := skipString(data, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, errors.New("unterminated object or array")
	default:
		j := i
		for j < len(data) {
			switch data[j] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				if j == i {
					return 0, fmt.Errorf("unexpected %q at offset %d", data[j], j)
				}
				return j, nil
			}
			j++
		}
		return j, nil
	}
}

// nestingDepth returns the deepest nesting of objects and arrays in data,
// counting the outermost as 1, without recursion and without allocating:
// a message nested 100,000 levels deep is measured, never decoded.
func nestingDepth(data []byte) int {
	depth, deepest := 0, 0
	for j := 0; j < len(data); j++ {
		switch data[j] {
		case '"':
			end, err := skipString(data, j)
			if err != nil {
				return deepest
			}
			j = end - 1
		case '{', '[':
			depth++
			if depth > deepest {
				deepest = depth
			}
		case '}', ']':
			depth--
		}
	}
	return deepest
}

// splitArray returns the elements of the JSON array in data, as sub-slices.
func splitArray(data []byte) ([]json.RawMessage, error) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return nil, errors.New("not a JSON array")
	}
	var elems []json.RawMessage
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return elems, nil
	}
	for {
		end, err := skipValue(data, i)
		if err != nil {
			return nil, err
		}
		elems = append(elems, data[i:end])
		i = skipSpace(data, end)
		if i >= len(data) {
			return nil, errors.New("unterminated array")
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case ']':
			return elems, nil
		default:
			return nil, fmt.Errorf("unexpected %q at offset %d", data[i], i)
		}
	}
}

// truncate shortens b for error messages.
func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}
