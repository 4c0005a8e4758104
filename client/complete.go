package client

import (
	"context"
	"encoding/json"
	"fmt"
)

// CompletionRef says what a completion/complete request completes an
// argument of: a prompt (Type "ref/prompt", Name) or a resource template
// (Type "ref/resource", URI, the template as listed).
type CompletionRef struct {
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
	URI  string `json:"uri,omitempty"`
}

// PromptRef is the [CompletionRef] of the prompt named name.
func PromptRef(name string) CompletionRef { return CompletionRef{Type: "ref/prompt", Name: name} }

// TemplateRef is the [CompletionRef] of the resource template uriTemplate.
func TemplateRef(uriTemplate string) CompletionRef {
	return CompletionRef{Type: "ref/resource", URI: uriTemplate}
}

// Completion is the completion member of a completion/complete result:
// at most 100 values, and, when the server knows them, how many there are
// in all and whether more exist than were sent.
type Completion struct {
	Values  []string `json:"values"`
	Total   *int     `json:"total,omitempty"`
	HasMore bool     `json:"hasMore,omitempty"`
}

// CompleteResult is the result of completion/complete.
type CompleteResult struct {
	Completion Completion `json:"completion"`

	// Raw is the result as the server sent it.
	Raw json.RawMessage `json:"-"`
}

// Complete asks the server for values of the argument arg of ref that
// begin as value does (completion/complete). given holds the arguments
// already given, sent as context.arguments so that the server can narrow
// its answer (a repository's branches once its owner and name are known);
// nil or empty sends none. The server must have declared the
// "completions" capability; callers check [Client.HasCapability] to say so
// plainly before asking.
func (c *Client) Complete(ctx context.Context, ref CompletionRef, arg, value string, given map[string]string) (*CompleteResult, error) {
	params := map[string]any{
		"ref":      ref,
		"argument": map[string]string{"name": arg, "value": value},
	}
	if len(given) > 0 {
		params["context"] = map[string]any{"arguments": given}
	}
	raw, err := c.Call(ctx, "completion/complete", params)
	if err != nil {
		return nil, err
	}
	res := &CompleteResult{Raw: raw}
	if err := json.Unmarshal(raw, res); err != nil {
		return nil, &ProtocolError{Method: "completion/complete", Msg: "result is not a CompleteResult: " + err.Error(), Result: raw}
	}
	if res.Completion.Values == nil {
		return nil, &ProtocolError{Method: "completion/complete", Msg: fmt.Sprintf("result has no completion.values: %.200s", raw), Result: raw}
	}
	return res, nil
}
