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

// MaxListItems bounds the items of one list across all its pages, because
// many pages of many items add up to more memory than any one message may
// take; a list stops with an error at the page that reaches it.
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
// sent. It is [Paginate] over this client: one deadline,
// [Options.Timeout], bounds the whole list across its pages, and
// [MaxPages] and [MaxListItems] end a list that never ends. On error the
// items received so far are returned with it; the error is a
// [*PaginationError].
func (c *Client) ListAll(ctx context.Context, method, key string) ([]json.RawMessage, error) {
	return listAll[json.RawMessage](ctx, c, method, key, nil)
}

// ListAllPages is [Client.ListAll] calling onPage with each page the
// server answered, in order, before the page is checked: a caller that
// reports on the pages themselves (a bad page, where pagination stopped)
// sees every page the list was built from.
func (c *Client) ListAllPages(ctx context.Context, method, key string, onPage func(ListPage)) ([]json.RawMessage, error) {
	return listAll[json.RawMessage](ctx, c, method, key, onPage)
}

// listAll is [Client.ListAllPages] decoding items into T, under one
// deadline for the whole list.
func listAll[T any](ctx context.Context, c *Client, method, key string, onPage func(ListPage)) ([]T, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	call := func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
		return c.call(ctx, method, oneParams(params), requestOptions{})
	}
	if c.isModern() && method == "tools/list" {
		call = c.callToolsList
	}
	all, err := paginate[T](ctx, call, method, key, onPage)
	var (
		pe *PaginationError
		te *TimeoutError
	)
	if errors.As(err, &pe) && pe.Page > 1 && errors.As(pe.Err, &te) {
		te.After = c.opts.Timeout
		te.Detail = fmt.Sprintf("the timeout bounds the whole list, and %d pages (%d items) had arrived", pe.Page-1, len(all))
	}
	return all, err
}

// CallFunc sends one request with params already encoded (nil for none)
// and returns its result; [Paginate] calls it once per page.
type CallFunc func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)

// ListPage is one page of a list, as [Paginate] received it.
type ListPage struct {
	// Number is the page's position, from 1.
	Number int
	// Cursor is the cursor sent to get the page, "" for the first.
	Cursor string
	// Result is the result as the server sent it, unchecked.
	Result json.RawMessage
}

// PaginationReason says why [Paginate] stopped before the end of a list.
type PaginationReason int

// The reasons of a [*PaginationError].
const (
	// PaginationRequestFailed: the request for a page failed;
	// [PaginationError.Err] is its error (a [*RPCError], a [*TimeoutError],
	// a lost connection, the context's error).
	PaginationRequestFailed PaginationReason = iota + 1
	// PaginationBadPage: a page's result is not a list result (not an
	// object, no array under the key, an item that does not decode, a
	// nextCursor that is not a string).
	PaginationBadPage
	// PaginationRepeatedCursor: a page's nextCursor is one an earlier page
	// gave, so following it would never end.
	PaginationRepeatedCursor
	// PaginationPageLimit: [MaxPages] pages arrived, each with a new cursor.
	PaginationPageLimit
	// PaginationItemLimit: [MaxListItems] items arrived and the server
	// announced more.
	PaginationItemLimit
)

// String names the reason, as in "repeated cursor".
func (r PaginationReason) String() string {
	switch r {
	case PaginationRequestFailed:
		return "request failed"
	case PaginationBadPage:
		return "bad page"
	case PaginationRepeatedCursor:
		return "repeated cursor"
	case PaginationPageLimit:
		return "page limit"
	case PaginationItemLimit:
		return "item limit"
	}
	return fmt.Sprintf("PaginationReason(%d)", int(r))
}

// PaginationError reports a list that [Paginate] stopped before its end,
// with the page where it stopped and why, so a caller can tell a rejected
// cursor from a repeated one without reading the message. Its message is
// the message of Err.
type PaginationError struct {
	// Method is the list method, such as "tools/list".
	Method string
	// Reason says why the list stopped.
	Reason PaginationReason
	// Page is the page where the list stopped, from 1: the page requested
	// for [PaginationRequestFailed], else the last page received.
	Page int
	// Cursor is the cursor sent to get Page ("" for the first page): for
	// [PaginationRequestFailed], the cursor the server failed to answer.
	Cursor string
	// NextCursor is the nextCursor Page gave, for the reasons that stop at
	// a page announcing more: [PaginationRepeatedCursor] (the repeated
	// cursor), [PaginationPageLimit] and [PaginationItemLimit].
	NextCursor string
	// Items is the number of items received before the list stopped.
	Items int
	// Err is the cause: the request's error for [PaginationRequestFailed],
	// else a [*ProtocolError] describing the page.
	Err error
}

// Error is the message of Err, such as `protocol error in tools/list: the
// server repeated cursor "x" on page 2; stopping pagination (the server's
// pagination never ends)`.
func (e *PaginationError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *PaginationError) Unwrap() error { return e.Err }

// Paginate follows nextCursor from the first page of method to the last,
// calling call once per page, and returns the items under key of every
// page, each as the JSON the server sent. It is mcpctl's one paginator:
// [Client.ListAll] and the lists of the lint package use it. onPage, when
// not nil, sees each page the server answered before it is checked.
//
// An empty nextCursor ends the list as an absent one does. [MaxPages] and
// [MaxListItems] end a list that never ends. Paginate sets no deadline of
// its own; ctx bounds it. When the list stops early the items received so
// far are returned with a [*PaginationError].
func Paginate(ctx context.Context, call CallFunc, method, key string, onPage func(ListPage)) ([]json.RawMessage, error) {
	return paginate[json.RawMessage](ctx, call, method, key, onPage)
}

// paginate is [Paginate] decoding items into T.
func paginate[T any](ctx context.Context, call CallFunc, method, key string, onPage func(ListPage)) ([]T, error) {
	var (
		all    []T
		cursor string
		seen   = map[string]bool{}
	)
	for page := 1; ; page++ {
		stop := func(reason PaginationReason, next string, err error) ([]T, error) {
			return all, &PaginationError{Method: method, Reason: reason, Page: page, Cursor: cursor, NextCursor: next, Items: len(all), Err: err}
		}
		bad := func(msg string) ([]T, error) {
			return stop(PaginationBadPage, "", &ProtocolError{Method: method, Msg: msg})
		}
		var params json.RawMessage
		if cursor != "" {
			var err error
			if params, err = json.Marshal(map[string]string{"cursor": cursor}); err != nil {
				return all, fmt.Errorf("encoding the cursor of %s: %w", method, err)
			}
		}
		raw, err := call(ctx, method, params)
		if err != nil {
			return stop(PaginationRequestFailed, "", err)
		}
		if onPage != nil {
			onPage(ListPage{Number: page, Cursor: cursor, Result: raw})
		}
		var res struct {
			NextCursor *string `json:"nextCursor"`
		}
		var items map[string]json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return bad("result is not an object: " + truncate(raw, 200))
		}
		if err := json.Unmarshal(raw, &res); err != nil {
			return bad("nextCursor is not a string")
		}
		if list, ok := items[key]; ok && string(list) != "null" {
			var pageItems []T
			if err := json.Unmarshal(list, &pageItems); err != nil {
				return bad(fmt.Sprintf("%s on page %d: %v", key, page, err))
			}
			all = append(all, pageItems...)
		} else {
			return bad(fmt.Sprintf("result on page %d has no %q array", page, key))
		}
		// An empty cursor is taken as the end too: sending it back would only
		// fetch the first page again.
		if res.NextCursor == nil || *res.NextCursor == "" {
			return all, nil
		}
		next := *res.NextCursor
		if seen[next] {
			return stop(PaginationRepeatedCursor, next, &ProtocolError{Method: method, Msg: fmt.Sprintf("the server repeated cursor %q on page %d; stopping pagination (the server's pagination never ends)", truncate([]byte(next), 80), page)})
		}
		if page >= MaxPages {
			return stop(PaginationPageLimit, next, &ProtocolError{Method: method, Msg: fmt.Sprintf("stopped after %d pages, mcpctl's page limit (client.MaxPages), with %d items: the server's pagination does not end", MaxPages, len(all))})
		}
		if len(all) >= MaxListItems {
			return stop(PaginationItemLimit, next, &ProtocolError{Method: method, Msg: fmt.Sprintf("stopped after %d items on %d pages, mcpctl's list limit (client.MaxListItems), and the server announced more", len(all), page)})
		}
		seen[next] = true
		cursor = next
	}
}

// ListTools returns every tool, following pagination to the end.
func (c *Client) ListTools(ctx context.Context) ([]Tool, error) {
	return listAll[Tool](ctx, c, "tools/list", "tools", nil)
}

// ListResources returns every resource, following pagination to the end.
func (c *Client) ListResources(ctx context.Context) ([]Resource, error) {
	return listAll[Resource](ctx, c, "resources/list", "resources", nil)
}

// ListResourceTemplates returns every resource template, following
// pagination to the end.
func (c *Client) ListResourceTemplates(ctx context.Context) ([]ResourceTemplate, error) {
	return listAll[ResourceTemplate](ctx, c, "resources/templates/list", "resourceTemplates", nil)
}

// ListPrompts returns every prompt, following pagination to the end.
func (c *Client) ListPrompts(ctx context.Context) ([]Prompt, error) {
	return listAll[Prompt](ctx, c, "prompts/list", "prompts", nil)
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
	var ro requestOptions
	if c.isModern() {
		hs, err := c.paramHeaders(ctx, name)
		if err != nil {
			return nil, err
		}
		ro.header = ParamHeaderValues(hs, args)
	}
	raw, err := c.call(ctx, "tools/call", params, ro)
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
