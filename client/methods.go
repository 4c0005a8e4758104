package client

import (
	"context"
	"encoding/json"
	"fmt"
)

// maxPages bounds pagination even when cursors never repeat, so a server
// that invents a fresh cursor forever cannot keep mcpctl busy forever.
const maxPages = 10000

// listAll follows nextCursor from the first page to the last and returns the
// items under key from every page.
func listAll[T any](ctx context.Context, c *Client, method, key string) ([]T, error) {
	var (
		all    []T
		cursor string
		seen   = map[string]bool{}
	)
	for page := 1; ; page++ {
		var params any
		if cursor != "" {
			params = map[string]string{"cursor": cursor}
		}
		raw, err := c.Call(ctx, method, params)
		if err != nil {
			return all, err
		}
		var res struct {
			NextCursor *string `json:"nextCursor"`
		}
		var items map[string]json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return all, &ProtocolError{Method: method, Msg: "result is not an object: " + truncate(raw, 200)}
		}
		if err := json.Unmarshal(raw, &res); err != nil {
			return all, &ProtocolError{Method: method, Msg: "nextCursor is not a string"}
		}
		if list, ok := items[key]; ok && string(list) != "null" {
			var pageItems []T
			if err := json.Unmarshal(list, &pageItems); err != nil {
				return all, &ProtocolError{Method: method, Msg: fmt.Sprintf("%s on page %d: %v", key, page, err)}
			}
			all = append(all, pageItems...)
		} else {
			return all, &ProtocolError{Method: method, Msg: fmt.Sprintf("result on page %d has no %q array", page, key)}
		}
		// An empty cursor is taken as the end too: sending it back would only
		// fetch the first page again.
		if res.NextCursor == nil || *res.NextCursor == "" {
			return all, nil
		}
		cursor = *res.NextCursor
		if seen[cursor] {
			return all, &ProtocolError{Method: method, Msg: fmt.Sprintf("the server repeated cursor %q on page %d; stopping pagination (the server's pagination never ends)", cursor, page)}
		}
		if page >= maxPages {
			return all, &ProtocolError{Method: method, Msg: fmt.Sprintf("more than %d pages; stopping pagination", maxPages)}
		}
		seen[cursor] = true
	}
}

// ListTools returns every tool, following pagination to the end.
func (c *Client) ListTools(ctx context.Context) ([]Tool, error) {
	return listAll[Tool](ctx, c, "tools/list", "tools")
}

// ListResources returns every resource, following pagination to the end.
func (c *Client) ListResources(ctx context.Context) ([]Resource, error) {
	return listAll[Resource](ctx, c, "resources/list", "resources")
}

// ListResourceTemplates returns every resource template, following
// pagination to the end.
func (c *Client) ListResourceTemplates(ctx context.Context) ([]ResourceTemplate, error) {
	return listAll[ResourceTemplate](ctx, c, "resources/templates/list", "resourceTemplates")
}

// ListPrompts returns every prompt, following pagination to the end.
func (c *Client) ListPrompts(ctx context.Context) ([]Prompt, error) {
	return listAll[Prompt](ctx, c, "prompts/list", "prompts")
}

// ProgressNotification is the params of notifications/progress.
type ProgressNotification struct {
	ProgressToken json.RawMessage `json:"progressToken"`
	Progress      float64         `json:"progress"`
	Total         *float64        `json:"total,omitempty"`
	Message       string          `json:"message,omitempty"`
}

// CallOptions are optional settings of a single tools/call.
type CallOptions struct {
	// ProgressToken, when non-empty, is sent as params._meta.progressToken so
	// the server may report progress; notifications arrive through
	// [Options.OnNotification].
	ProgressToken string
	// Meta is merged into params._meta (signatures live there).
	Meta map[string]any
}

// CallTool calls a tool. A tool that ran and failed is not an error here:
// check [CallToolResult.IsError].
func (c *Client) CallTool(ctx context.Context, name string, args map[string]any, opts CallOptions) (*CallToolResult, error) {
	if args == nil {
		args = map[string]any{}
	}
	params := map[string]any{"name": name, "arguments": args}
	meta := map[string]any{}
	for k, v := range opts.Meta {
		meta[k] = v
	}
	if opts.ProgressToken != "" {
		meta["progressToken"] = opts.ProgressToken
	}
	if len(meta) > 0 {
		params["_meta"] = meta
	}
	raw, err := c.Call(ctx, "tools/call", params)
	if err != nil {
		return nil, err
	}
	res := &CallToolResult{}
	if err := json.Unmarshal(raw, res); err != nil {
		return nil, &ProtocolError{Method: "tools/call", Msg: "result is not a CallToolResult: " + err.Error()}
	}
	return res, nil
}

// ReadResource reads a resource by URI.
func (c *Client) ReadResource(ctx context.Context, uri string) (*ReadResourceResult, error) {
	raw, err := c.Call(ctx, "resources/read", map[string]string{"uri": uri})
	if err != nil {
		return nil, err
	}
	res := &ReadResourceResult{}
	if err := json.Unmarshal(raw, res); err != nil {
		return nil, &ProtocolError{Method: "resources/read", Msg: "result is not a ReadResourceResult: " + err.Error()}
	}
	return res, nil
}

// GetPrompt gets a prompt with its arguments filled in.
func (c *Client) GetPrompt(ctx context.Context, name string, args map[string]string) (*GetPromptResult, error) {
	params := map[string]any{"name": name}
	if len(args) > 0 {
		params["arguments"] = args
	}
	raw, err := c.Call(ctx, "prompts/get", params)
	if err != nil {
		return nil, err
	}
	res := &GetPromptResult{}
	if err := json.Unmarshal(raw, res); err != nil {
		return nil, &ProtocolError{Method: "prompts/get", Msg: "result is not a GetPromptResult: " + err.Error()}
	}
	return res, nil
}

// Ping checks that the server answers.
func (c *Client) Ping(ctx context.Context) error {
	_, err := c.Call(ctx, "ping", nil)
	return err
}
