package testserver

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The load-fuzz mode is the target of mcpctl bench and mcpctl fuzz: an echo
// tool whose answer waits -delay (so a test can make the server slower on
// purpose), tools with seeded defects that fuzzing must find, and one tool
// annotated destructive that both commands must refuse by default.
//
//   - echo(message): answers with message after -delay.
//   - limit(n, label): n is an integer from 0 to 100; n = 100, the upper
//     bound, crashes the server (exit status 3) without answering.
//   - lookup(key, limit): key is a string; the empty string hangs the call
//     until it is cancelled.
//   - shape(kind, size, tags, point): well-behaved, with an enum, bounds,
//     an array and a nested object, to exercise generation; invalid
//     arguments give an isError result.
//   - wipe(): annotated destructiveHint: true.

// loadFuzzFlags are the flags of the load-fuzz mode.
type loadFuzzFlags struct {
	delay time.Duration
}

func (f *loadFuzzFlags) register(fs *flag.FlagSet) {
	fs.DurationVar(&f.delay, "delay", 0, "how long the load-fuzz mode's echo tool waits before answering")
}

// limitCrashMessage is what limit writes to stderr as it crashes.
const limitCrashMessage = "fatal: limit: n at its upper bound"

func loadFuzzMode(ctx context.Context, e *env) int {
	s := newServer(e.mode, nil)
	delay := e.loadFuzz.delay
	s.AddTool(&mcp.Tool{
		Name:        "echo",
		Description: "Answers with message.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct{ Message string }
		_ = json.Unmarshal(req.Params.Arguments, &args)
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return text(args.Message), nil
	})
	s.AddTool(&mcp.Tool{
		Name:        "limit",
		Description: "Counts to n (0 to 100).",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"n":{"type":"integer","minimum":0,"maximum":100},` +
			`"label":{"type":"string","maxLength":20}},"required":["n"]}`),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args map[string]any
		_ = json.Unmarshal(req.Params.Arguments, &args)
		if n, ok := args["n"].(float64); ok && n == 100 {
			// The seeded defect: an off-by-one at the declared bound.
			fmt.Fprintln(e.stderr, limitCrashMessage)
			os.Exit(exitCrash)
		}
		return text(fmt.Sprintf("counted to %v", args["n"])), nil
	})
	s.AddTool(&mcp.Tool{
		Name:        "lookup",
		Description: "Looks key up.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"key":{"type":"string","maxLength":40},` +
			`"limit":{"type":"integer","minimum":1,"maximum":5}},"required":["key"]}`),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args map[string]any
		_ = json.Unmarshal(req.Params.Arguments, &args)
		if k, ok := args["key"].(string); ok && k == "" {
			// The seeded defect: an empty key waits for ever.
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return text(fmt.Sprintf("no entry for %v", args["key"])), nil
	})
	s.AddTool(&mcp.Tool{
		Name:        "shape",
		Description: "Describes a shape.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"kind":{"type":"string","enum":["circle","square"]},` +
			`"size":{"type":"number","exclusiveMinimum":0,"maximum":10},` +
			`"tags":{"type":"array","items":{"type":"string","minLength":1},"maxItems":3},` +
			`"point":{"type":"object","properties":{"x":{"type":"integer"},"y":{"type":"integer"}},"required":["x","y"]},` +
			`"at":{"type":"string","format":"date-time"}},"required":["kind"]}`),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args map[string]any
		if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
			return toolError("arguments are not an object"), nil
		}
		if k := args["kind"]; k != "circle" && k != "square" {
			return toolError(fmt.Sprintf("unknown kind %v", k)), nil
		}
		return text(fmt.Sprintf("a %v", args["kind"])), nil
	})
	destructive := true
	s.AddTool(&mcp.Tool{
		Name:        "wipe",
		Description: "Deletes everything.",
		InputSchema: emptyObject(),
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &destructive},
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("wiped"), nil
	})
	return e.exitStatus(e.serve(ctx, s))
}

// toolError is a text result with isError: true.
func toolError(msg string) *mcp.CallToolResult {
	r := text(msg)
	r.IsError = true
	return r
}
