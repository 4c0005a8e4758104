package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
)

// MaxInputRounds bounds the rounds of one multi-round request (MRTR,
// 2026-07-28 basic/patterns/mrtr): a server that keeps answering
// input_required is given up on after this many.
const MaxInputRounds = 8

// inputRequired is an InputRequiredResult: what the server asks before it
// can finish a request, and the state it wants back unchanged.
type inputRequired struct {
	ResultType    string `json:"resultType"`
	InputRequests map[string]struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	} `json:"inputRequests"`
	RequestState json.RawMessage `json:"requestState"`
}

// inputRounds answers a modern result of resultType "input_required": each
// of its inputRequests goes to the handler of its method (the same
// [Options.Handlers] that answer a legacy server's requests: elicitation,
// sampling, roots), and the request is sent again — with a new id — with
// params.inputResponses holding the answers by key and params.requestState
// holding the server's state byte for byte (left out when the server sent
// none). It returns the first result that is not input_required, or an
// error after [MaxInputRounds] rounds or when a request has no handler.
// Any other result is returned as it is.
func (c *Client) inputRounds(ctx context.Context, method string, params wireParams, raw json.RawMessage, ro requestOptions) (json.RawMessage, error) {
	for round := 1; ; round++ {
		var ir inputRequired
		if json.Unmarshal(raw, &ir) != nil || ir.ResultType != "input_required" {
			return raw, nil
		}
		if round > MaxInputRounds {
			return raw, nil // checkResultType reports it
		}
		answers := map[string]json.RawMessage{}
		keys := make([]string, 0, len(ir.InputRequests))
		for k := range ir.InputRequests {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			req := ir.InputRequests[k]
			h := c.opts.Handlers[req.Method]
			if h == nil {
				return nil, &ProtocolError{Method: method, Msg: fmt.Sprintf("the server needs input to finish: %s (%q), which this command does not answer", req.Method, k), Result: raw}
			}
			res, err := h(ctx, req.Params)
			var refusal *RPCError
			if errors.As(err, &refusal) {
				// An answer source that refuses (--sample decline): a
				// legacy server would get this error as the answer, but
				// an input round has no place for one, so the request
				// ends here, and the refusal is mcpctl's, not the
				// server's.
				return nil, fmt.Errorf("%s: the server needs input to finish (%s, %q), and mcpctl declined it: %s", method, req.Method, k, refusal.Message)
			}
			if err != nil {
				return nil, fmt.Errorf("%s: answering the server's %s (%q): %w", method, req.Method, k, err)
			}
			b, err := json.Marshal(res)
			if err != nil {
				return nil, fmt.Errorf("%s: encoding the answer to %s: %w", method, req.Method, err)
			}
			answers[k] = b
		}
		next, err := withInputResponses(params.joined(), answers, ir.RequestState)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		if raw, _, err = c.roundTrip(ctx, method, oneParams(next), true, ro); err != nil {
			return nil, err
		}
	}
}

// withInputResponses returns params with inputResponses set to answers and
// requestState set to state as the server wrote it (or removed when state
// is empty); every other member keeps its bytes.
func withInputResponses(params json.RawMessage, answers map[string]json.RawMessage, state json.RawMessage) (json.RawMessage, error) {
	fields := map[string]json.RawMessage{}
	if len(params) > 0 && string(params) != "null" {
		if err := json.Unmarshal(params, &fields); err != nil {
			return nil, fmt.Errorf("params are not a JSON object: %w", err)
		}
	}
	b, err := json.Marshal(answers)
	if err != nil {
		return nil, err
	}
	fields["inputResponses"] = b
	delete(fields, "requestState")
	if len(state) > 0 && string(state) != "null" {
		fields["requestState"] = state
	}
	return marshalObject(fields)
}

// marshalObject encodes a JSON object whose members are already encoded,
// keeping their bytes: unlike json.Marshal it does not rewrite <, > and &
// inside them, so signed arguments and a server's requestState go out as
// they came.
func marshalObject(fields map[string]json.RawMessage) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(fields); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
