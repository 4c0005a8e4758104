package testserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The -era values. The official SDK serves both protocol eras on one
// server; the test server narrows that so scripts can face each kind of
// server a client meets.
const (
	// eraLegacy: server/discover is an unknown method (-32601), as it is
	// to every server written before 2026-07-28.
	eraLegacy = "legacy"
	// eraModern: initialize is refused, as a server that speaks only
	// 2026-07-28 and later does; server/discover and per-request _meta
	// work.
	eraModern = "modern"
	// eraDual: both, as the SDK serves by default.
	eraDual = "dual"
)

// applyEra narrows s to the era -era names.
func applyEra(s *mcp.Server, era string) error {
	var refuse string
	switch era {
	case eraDual:
		return nil
	case eraLegacy:
		refuse = "server/discover"
	case eraModern:
		refuse = "initialize"
	default:
		return fmt.Errorf("unknown -era %q (want legacy, modern or dual)", era)
	}
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == refuse {
				if era == eraModern {
					return nil, &jsonrpc.Error{Code: -32022, Message: "this server speaks only protocol 2026-07-28 (no initialize)",
						Data: []byte(`{"supported":["2026-07-28"],"requested":"initialize"}`)}
				}
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: " + method}
			}
			return next(ctx, method, req)
		}
	})
	return nil
}
