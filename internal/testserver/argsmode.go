package testserver

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The args mode serves tools whose inputSchemas exercise how mcpctl
// checks argument names: undeclared keys, additionalProperties, dotted
// keys into nested objects. Every tool answers with the arguments it
// received, as JSON text, so a script sees exactly what was sent.
var argsTools = []struct{ name, description, schema string }{
	// links mirrors server-everything's get-resource-links: one optional
	// integer, additionalProperties absent.
	{"links", "Returns count resource links (additionalProperties absent).",
		`{"type":"object","properties":{"count":{"type":"integer","minimum":1,"maximum":10}}}`},
	{"open", "Takes name and any other argument (additionalProperties: true).",
		`{"type":"object","properties":{"name":{"type":"string"}},"additionalProperties":true}`},
	{"labels", "Takes name and any other string argument (additionalProperties: a schema).",
		`{"type":"object","properties":{"name":{"type":"string"}},"additionalProperties":{"type":"string"}}`},
	// place has a nested object, and a property whose name holds a dot
	// beside an object property named by its first part.
	{"place", "Takes metadata.location and metadata.count; a.b is a property of its own, a is an object.",
		`{"type":"object","properties":{` +
			`"metadata":{"type":"object","properties":{"location":{"type":"string"},"count":{"type":"integer"}}},` +
			`"a.b":{"type":"string"},` +
			`"a":{"type":"object","properties":{"b":{"type":"integer"},"c":{"type":"integer"}}}}}`},
}

func argsMode(ctx context.Context, e *env) int {
	s := newServer(e.mode, nil)
	for _, t := range argsTools {
		s.AddTool(&mcp.Tool{Name: t.name, Description: t.description, InputSchema: json.RawMessage(t.schema)},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return text(string(req.Params.Arguments)), nil
			})
	}
	return e.exitStatus(e.serve(ctx, s))
}
