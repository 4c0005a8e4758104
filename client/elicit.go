package client

import (
	"context"
	"encoding/json"
	"fmt"
)

// Elicitation answers a server's elicitation/create requests without asking
// anyone, for scripts and CI (client/elicitation.mdx).
type Elicitation struct {
	// Action is "accept", "decline" or "cancel".
	Action string
	// Answers are the field values sent with accept. Fields the requested
	// schema gives a default for and Answers leaves out get that default
	// (SEP-1034: clients SHOULD pre-fill defaults).
	Answers map[string]any
}

// Capability is what a client declares for this kind of answer: form mode
// only, since a non-interactive answer cannot open a URL.
func (e *Elicitation) Capability() map[string]any {
	return map[string]any{"form": map[string]any{}}
}

// Handler answers elicitation/create.
func (e *Elicitation) Handler() RequestHandler {
	return func(ctx context.Context, params json.RawMessage) (any, error) {
		var req struct {
			Mode            string `json:"mode"`
			Message         string `json:"message"`
			RequestedSchema struct {
				Properties map[string]struct {
					Default json.RawMessage `json:"default"`
				} `json:"properties"`
			} `json:"requestedSchema"`
		}
		if err := json.Unmarshal(params, &req); err != nil {
			return nil, &RPCError{Code: CodeInvalidParams, Message: "elicitation/create params: " + err.Error()}
		}
		// A missing mode means form; mcpctl declared nothing else.
		if req.Mode != "" && req.Mode != "form" {
			return nil, &RPCError{Code: CodeInvalidParams, Message: fmt.Sprintf("elicitation mode %q was not declared by this client (it declares form only)", req.Mode)}
		}
		if e.Action != "accept" {
			return map[string]any{"action": e.Action}, nil
		}
		content := map[string]any{}
		for name, prop := range req.RequestedSchema.Properties {
			if len(prop.Default) > 0 {
				content[name] = prop.Default
			}
		}
		for name, v := range e.Answers {
			content[name] = v
		}
		return map[string]any{"action": "accept", "content": content}, nil
	}
}
