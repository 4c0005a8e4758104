// Command signechoserver is the server of the governance benchmark's
// signing rounds (scripts/bench-govern.sh): bench/echoserver's echo tool
// behind internal/signserver's middleware, which verifies each tools/call
// request's signature and signs each result (docs/signing.md, JCS form).
// The key is the value of $SIGNECHO_KEY.
//
// With SIGNECHO_SELF=1 it does the same cryptography for a host that does
// not sign: it signs each unsigned request itself, with a fresh nonce,
// before the middleware verifies it, and the result is signed as usual.
// The proxy without --sign-key against this mode pays the server's share
// of the signing work, so that the difference from a signing proxy is the
// proxy's own share.
//
// Usage: SIGNECHO_KEY=KEY [SIGNECHO_SELF=1] signechoserver
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/internal/signserver"
	"github.com/mcpctl/mcpctl/signing"
)

type echoArgs struct {
	Message string `json:"message" jsonschema:"the text to return"`
}

func main() {
	key := []byte(os.Getenv("SIGNECHO_KEY"))
	if len(key) == 0 {
		fail(fmt.Errorf("no key: set SIGNECHO_KEY"))
	}
	mw, err := signserver.Middleware(signserver.Options{Key: key, Form: signing.FormJCS})
	if err != nil {
		fail(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "signechoserver", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Returns the message unchanged."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Message}}}, nil, nil
		})
	s.AddReceivingMiddleware(mw)
	if os.Getenv("SIGNECHO_SELF") == "1" {
		// Added after mw, so it runs before it.
		s.AddReceivingMiddleware(selfSign(key))
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fail(err)
	}
}

// selfSign signs an unsigned tools/call request as a signing client would,
// so that the verifying middleware after it finds a valid signature.
func selfSign(key []byte) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/call" {
				return next(ctx, method, req)
			}
			params, ok := req.GetParams().(*mcp.CallToolParamsRaw)
			if !ok || params == nil {
				return next(ctx, method, req)
			}
			if _, signed := params.Meta["signature"]; !signed {
				sig, err := signing.SignRequest(key, signing.FormJCS, "", params.Name, params.Arguments, time.Now())
				if err != nil {
					return nil, err
				}
				if params.Meta == nil {
					params.Meta = mcp.Meta{}
				}
				params.Meta["signature"] = sig
			}
			return next(ctx, method, req)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "signechoserver:", err)
	os.Exit(1)
}
