// Package demosdk serves mcpctl's demo server through the official Go SDK,
// for the test servers: they offer the demo's tools, resources and prompts
// on stdio and on every HTTP transport the SDK implements.
//
// The behaviour is the demo's own ([demo.Server.Handle] answers every
// request); this package only registers it with an SDK server. It must
// never be imported by the mcpctl binary, which does not link the SDK.
package demosdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/internal/demo"
)

// NewServer returns an SDK server offering what the demo server offers.
func NewServer() *mcp.Server {
	d := demo.NewServer()
	s := mcp.NewServer(&mcp.Implementation{Name: demo.Name, Title: demo.Title, Version: demo.Version}, &mcp.ServerOptions{
		Instructions: demo.Instructions,
		PageSize:     demo.PageSize,
		CompletionHandler: func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return forward[mcp.CompleteResult](ctx, d, "completion/complete", req.Params, nil)
		},
	})

	for _, t := range listAll[mcp.Tool](d, "tools/list", "tools") {
		s.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return forward[mcp.CallToolResult](ctx, d, "tools/call", req.Params, progress(req))
		})
	}
	readResource := func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return forward[mcp.ReadResourceResult](ctx, d, "resources/read", req.Params, nil)
	}
	for _, r := range listAll[mcp.Resource](d, "resources/list", "resources") {
		s.AddResource(r, readResource)
	}
	for _, rt := range listAll[mcp.ResourceTemplate](d, "resources/templates/list", "resourceTemplates") {
		s.AddResourceTemplate(rt, readResource)
	}
	for _, p := range listAll[mcp.Prompt](d, "prompts/list", "prompts") {
		s.AddPrompt(p, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return forward[mcp.GetPromptResult](ctx, d, "prompts/get", req.Params, nil)
		})
	}
	return s
}

// listAll returns every item of a demo list, across its pages. The demo's
// lists are fixed, so an error is a bug in the demo: it panics.
func listAll[T any](d *demo.Server, method, key string) []*T {
	var all []*T
	cursor := ""
	for {
		params, _ := json.Marshal(map[string]any{}) // an empty map always marshals
		if cursor != "" {
			params, _ = json.Marshal(map[string]string{"cursor": cursor})
		}
		data, err := d.Handle(context.Background(), method, params, nil)
		if err != nil {
			panic(fmt.Sprintf("demosdk: %s: %v", method, err))
		}
		var page map[string]json.RawMessage
		var items []*T
		if err := json.Unmarshal(data, &page); err != nil {
			panic(fmt.Sprintf("demosdk: decoding %s: %v", method, err))
		}
		if err := json.Unmarshal(page[key], &items); err != nil {
			panic(fmt.Sprintf("demosdk: decoding %s: %v", method, err))
		}
		all = append(all, items...)
		if err := json.Unmarshal(page["nextCursor"], &cursor); err != nil || cursor == "" {
			return all
		}
	}
}

// forward has the demo answer a request and decodes its result into the
// SDK's type; a demo error becomes the same JSON-RPC error.
func forward[T any](ctx context.Context, d *demo.Server, method string, params any, notify demo.Notifier) (*T, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("encoding %s params: %w", method, err)
	}
	data, err := d.Handle(ctx, method, raw, notify)
	if err != nil {
		var rpcErr *demo.Error
		if errors.As(err, &rpcErr) {
			return nil, &jsonrpc.Error{Code: int64(rpcErr.Code), Message: rpcErr.Message, Data: rpcErr.Data}
		}
		return nil, err
	}
	var res T
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, fmt.Errorf("decoding the demo's %s result: %w", method, err)
	}
	return &res, nil
}

// progress sends the demo's progress notifications through the SDK session
// of req.
func progress(req *mcp.CallToolRequest) demo.Notifier {
	return func(ctx context.Context, method string, params any) error {
		if method != "notifications/progress" {
			return nil
		}
		var p mcp.ProgressNotificationParams
		data, err := json.Marshal(params)
		if err == nil {
			err = json.Unmarshal(data, &p)
		}
		if err != nil {
			return fmt.Errorf("converting a progress notification: %w", err)
		}
		return req.Session.NotifyProgress(ctx, &p)
	}
}
