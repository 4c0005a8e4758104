package testserver

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The headers mode serves tools whose arguments carry x-mcp-header
// annotations (2026-07-28 basic/transports/streamable-http, "Custom
// Headers from Tool Parameters", SEP-2243): one tool whose annotations are
// valid, and one tool for each constraint an annotation can break, which
// a modern client must exclude and `mcpctl validate` reports.
//
// The SDK refuses to register most broken annotations (AddTool panics, as
// a careful server library should), so each broken tool is registered with
// a valid inputSchema and its broken one is put in its place as tools/list
// answers: what a server built otherwise would send.

// headersTools are the tools of the headers mode: name, description and
// the inputSchema tools/list shows.
var headersTools = []struct {
	name, description, inputSchema string
}{
	{"route", "Routes a query to a region; region, priority and the nested tenant id are mirrored into Mcp-Param-* headers.",
		`{"type":"object","properties":{` +
			`"region":{"type":"string","x-mcp-header":"Region"},` +
			`"priority":{"type":"integer","x-mcp-header":"Priority"},` +
			`"dry_run":{"type":"boolean","x-mcp-header":"Dry-Run"},` +
			`"tenant":{"type":"object","properties":{"id":{"type":"string","x-mcp-header":"Tenant-Id"}}},` +
			`"query":{"type":"string"}},"required":["region","query"]}`},
	{"bad_name", "Its x-mcp-header has a space, which no HTTP field name has.",
		`{"type":"object","properties":{"tenant":{"type":"string","x-mcp-header":"Tenant Id"}}}`},
	{"dup_header", "Two arguments are mirrored into the same header, ignoring case.",
		`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"region"}}}`},
	{"number_header", "A number argument is annotated; only string, integer and boolean may be mirrored.",
		`{"type":"object","properties":{"ratio":{"type":"number","x-mcp-header":"Ratio"}}}`},
	{"items_header", "The annotation is under items, not on a property reached through properties alone.",
		`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string","x-mcp-header":"Tag"}}}}`},
}

func headersMode(ctx context.Context, e *env) int {
	s := newServer(e.mode, nil)
	shown := map[string]json.RawMessage{}
	for _, t := range headersTools {
		shown[t.name] = json.RawMessage(t.inputSchema)
		registered := json.RawMessage(t.inputSchema)
		if t.name != "route" {
			registered = emptyObject()
		}
		s.AddTool(&mcp.Tool{Name: t.name, Description: t.description, InputSchema: registered},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return text(req.Params.Name + " " + strings.TrimSpace(string(req.Params.Arguments))), nil
			})
	}
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			list, ok := res.(*mcp.ListToolsResult)
			if err != nil || method != "tools/list" || !ok {
				return res, err
			}
			// Copies: the server keeps the registered tools.
			tools := make([]*mcp.Tool, len(list.Tools))
			for i, t := range list.Tools {
				c := *t
				c.InputSchema = shown[t.Name]
				tools[i] = &c
			}
			out := *list
			out.Tools = tools
			return &out, nil
		}
	})
	return e.exitStatus(e.serve(ctx, s))
}
