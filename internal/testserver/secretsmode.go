package testserver

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The secrets mode serves a tool whose inputSchema marks arguments
// writeOnly (JSON Schema: the value is sent, never shown back), for the
// audit trail, which must mask their values.

// secretsSchema is login's inputSchema: password and profile.token are
// writeOnly, user and profile.region are not.
const secretsSchema = `{"type":"object","properties":{` +
	`"user":{"type":"string"},` +
	`"password":{"type":"string","writeOnly":true},` +
	`"profile":{"type":"object","properties":{"region":{"type":"string"},"token":{"type":"string","writeOnly":true}}}},` +
	`"required":["user","password"]}`

func secretsMode(ctx context.Context, e *env) int {
	s := newServer(e.mode, nil)
	s.AddTool(&mcp.Tool{Name: "login", Description: "Logs in; the password and the profile's token are writeOnly.", InputSchema: json.RawMessage(secretsSchema)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct {
				User string `json:"user"`
			}
			_ = json.Unmarshal(req.Params.Arguments, &args)
			return text("logged in " + args.User), nil
		})
	return e.exitStatus(e.serve(ctx, s))
}
