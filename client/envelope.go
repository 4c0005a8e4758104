package client

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpctl/mcpctl/internal/jsonscan"
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
	switch i := jsonscan.Space(data, 0); {
	case i < len(data) && data[i] == '[':
		return env, errors.New("message is a JSON-RPC batch, not one message")
	case i >= len(data) || data[i] != '{':
		return env, errNotObject
	}
	var bad error
	err := jsonscan.Members(data, func(m jsonscan.Member) bool {
		key, ok := m.Key()
		if !ok {
			// Said as the decoder says it.
			bad = json.Unmarshal(m.Name, &key)
			return false
		}
		switch key {
		case "id":
			env.ID = m.Value
		case "method":
			if err := json.Unmarshal(m.Value, &env.Method); err != nil {
				bad = fmt.Errorf("method is not a string: %s", truncate(m.Value, 40))
				return false
			}
		case "params":
			env.Params = m.Value
		case "result":
			env.Result = m.Value
		case "error":
			env.Error = m.Value
		}
		return true
	})
	if bad != nil {
		return env, bad
	}
	return env, err
}

// nestingDepth returns the deepest nesting of objects and arrays in data,
// counting the outermost as 1, without recursion and without allocating:
// a message nested 100,000 levels deep is measured, never decoded.
func nestingDepth(data []byte) int {
	depth, deepest := 0, 0
	for j := 0; j < len(data); j++ {
		switch data[j] {
		case '"':
			end := jsonscan.StringEnd(data, j)
			if end < 0 {
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
	var elems []json.RawMessage
	err := jsonscan.Elements(data, func(e []byte) bool {
		elems = append(elems, e)
		return true
	})
	if err != nil {
		return nil, err
	}
	return elems, nil
}

// truncate shortens b for error messages.
func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}
