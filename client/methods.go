package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// MaxPages bounds pagination: a list stops with an error after this many
// pages, even when the cursors never repeat, so a server that invents a
// fresh cursor forever cannot keep mcpctl busy or growing forever. Together
// with [MaxListItems] and the transport's message size limit it bounds the
// memory a list takes.
const MaxPages = 1000

// MaxListItems bounds the items of one list across all its pages (10,000
// pages of 200 tools once took 1.3 GB); a list stops with an error at the
// page that reaches it.
const MaxListItems = 100_000

// ListKind describes one of the lists a server may offer.
type ListKind struct {
	// Kind is the word users type: tools, resources, templates, prompts.
	Kind string
	// Capability is the server capability that announces the list.
	Capability string
	// Method is the paginated method.
	Method string
	// Key is the member of each page's result holding the items.
	Key string
}

// ListMethods returns the lists a server may offer, in display order. It
// is the one capability→method table of mcpctl; the slice is a fresh copy.
func ListMethods() []ListKind {
	return []ListKind{
		{Kind: "tools", Capability: "tools", Method: "tools/list", Key: "tools"},
		{Kind: "resources", Capability: "resources", Method: "resources/list", Key: "resources"},
		{Kind: "templates", Capability: "resources", Method: "resources/templates/list", Key: "resourceTemplates"},
		{Kind: "prompts", Capability: "prompts", Method: "prompts/list", Key: "prompts"},
	}
}

// LookupList returns the entry of [ListMethods] whose Kind is kind.
func LookupList(kind string) (ListKind, bool) {
	for _, l := range ListMethods() {
		if l.Kind == kind {
			return l, true
		}
	}
	return ListKind{}, false
}

// ListAll follows nextCursor from the first page of method to the last and
// returns the items under key of every page, each as the JSON the server
// sent. It is the paginator behind [Client.ListTools] and the others: one
// deadline, [Options.Timeout], bounds the whole list across its pages, and
// [MaxPages] and [MaxListItems] end a list that never ends. On error the
// items received so far are returned with it.
func (c *Client) ListAll(ctx context.Context, method, key string) ([]json.RawMessage, error) {
	return listAll[json.RawMessage](ctx, c, method, key)
}

// listAll is [Client.ListAll] decoding items into T.
func listAll[T any](ctx context.Context, c *Client, method, key string) ([]T, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	var (
		all    []T
		cursor string
		seen   = map[string]bool{}
	)
	for page := 1; ; page++ {
		var params json.RawMessage
		if cursor != "" {
			var err error
			if params, err = json.Marshal(map[string]string{"cursor": cursor}); err != nil {
				return all, fmt.Errorf("encoding the cursor of %s: %w", method, err)
			}
		}
		raw, err := c.call(ctx, method, params)
		if err != nil {
			var te *TimeoutError
			if errors.As(err, &te) && page > 1 {
				te.After = c.opts.Timeout
				te.Detail = fmt.Sprintf("the timeout bounds the whole list, and %d pages (%d items) had arrived", page-1, len(all))
			}
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
			return all, &ProtocolError{Method: method, Msg: fmt.Sprintf("the server repeated cursor %q on page %d; stopping pagination (the server's pagination never ends)", truncate([]byte(cursor), 80), page)}
		}
		if page >= MaxPages {
			return all, &ProtocolError{Method: method, Msg: fmt.Sprintf("stopped after %d pages, mcpctl's page limit (client.MaxPages), with %d items: the server's pagination does not end", MaxPages, len(all))}
		}
		if len(all) >= MaxListItems {
			return all, &ProtocolError{Method: method, Msg: fmt.Sprintf("stopped after %d items on %d pages, mcpctl's list limit (client.MaxListItems), and the server announced more", len(all), page)}
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

// CallOptions are optional settings of a single tools/call.
type CallOptions struct {
	// ProgressToken, when non-empty, is sent as params._meta.progressToken so
	// the server may report progress; notifications arrive through
	// [Options.OnNotification].
	ProgressToken string
	// Meta is merged into params._meta.
	Meta map[string]any
	// Sign, when set, signs the call: it receives the tool name and the
	// arguments exactly as they are sent (the same bytes), and its result
	// is sent as params._meta.signature. An error stops the call before
	// anything is sent.
	Sign func(tool string, arguments json.RawMessage) (signature any, err error)
}

// CallTool calls a tool with arguments encoded by [MarshalArguments]. A
// tool that ran and failed is not an error here: check
// [CallToolResult.IsError].
func (c *Client) CallTool(ctx context.Context, name string, args map[string]any, opts CallOptions) (*CallToolResult, error) {
	data, err := MarshalArguments(args)
	if err != nil {
		return nil, fmt.Errorf("calling tool %q: %w", name, err)
	}
	return c.CallToolWith(ctx, name, data, opts)
}

// CallToolWith calls a tool with arguments already encoded as a JSON object
// (empty means {}). The arguments are put in wire form once; opts.Sign sees
// those bytes and they are the bytes sent. The result keeps the bytes the
// transport read in Raw, without a copy.
func (c *Client) CallToolWith(ctx context.Context, name string, args json.RawMessage, opts CallOptions) (*CallToolResult, error) {
	params, err := callToolParams(name, args, opts)
	if err != nil {
		return nil, err
	}
	raw, err := c.call(ctx, "tools/call", params)
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
