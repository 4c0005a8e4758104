package testserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/internal/demo/demosdk"
)

// serve runs s on the env's stdin and stdout until stdin closes or ctx is
// done.
func (e *env) serve(ctx context.Context, s *mcp.Server) error {
	if err := applyEra(s, e.era); err != nil {
		return err
	}
	if e.http.urlFile != "" {
		return e.serveHTTP(ctx, s)
	}
	t := &observedTransport{
		Transport: &mcp.IOTransport{
			Reader: io.NopCloser(e.stdin),
			Writer: nopWriteCloser{e.stdout},
		},
		obs: e.obs,
	}
	err := s.Run(ctx, t)
	if err != nil && ctx.Err() != nil {
		return nil // asked to stop: not a failure of the server
	}
	return err
}

// nopWriteCloser leaves stdout open when the SDK closes its connection, as
// mcp.StdioTransport does.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// newServer returns an SDK server named after the mode.
func newServer(mode string, opts *mcp.ServerOptions) *mcp.Server {
	return mcp.NewServer(&mcp.Implementation{Name: "testserver-" + mode, Version: "1.0.0"}, opts)
}

// emptyObject is the input schema of tools without arguments.
func emptyObject() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func basicMode(ctx context.Context, e *env) int {
	return e.exitStatus(e.serve(ctx, demosdk.NewServer()))
}

// pagesCount is the number of items of each kind in the pages mode, and
// pagesSize the page size: three pages each.
const (
	pagesCount = 9
	pagesSize  = 3
)

func pagesMode(ctx context.Context, e *env) int {
	s := newServer(e.mode, &mcp.ServerOptions{PageSize: pagesSize})
	for i := 1; i <= pagesCount; i++ {
		name := fmt.Sprintf("tool%02d", i)
		s.AddTool(&mcp.Tool{
			Name:        name,
			Description: fmt.Sprintf("Test tool %d of %d; answers with its name.", i, pagesCount),
			InputSchema: emptyObject(),
		}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text(name), nil
		})

		uri := fmt.Sprintf("test://resource/%02d", i)
		s.AddResource(&mcp.Resource{
			URI:      uri,
			Name:     fmt.Sprintf("resource%02d", i),
			MIMEType: "text/plain",
		}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: uri}}}, nil
		})

		s.AddResourceTemplate(&mcp.ResourceTemplate{
			URITemplate: fmt.Sprintf("test://template/%02d/{id}", i),
			Name:        fmt.Sprintf("template%02d", i),
			MIMEType:    "text/plain",
		}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: req.Params.URI}}}, nil
		})

		prompt := fmt.Sprintf("prompt%02d", i)
		s.AddPrompt(&mcp.Prompt{
			Name:        prompt,
			Description: fmt.Sprintf("Test prompt %d of %d.", i, pagesCount),
		}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: prompt}}}}, nil
		})
	}
	return e.exitStatus(e.serve(ctx, s))
}

// crashMessage is what the crash mode writes to stderr as it crashes.
const crashMessage = "fatal: simulated crash in tool handler"

func crashMode(ctx context.Context, e *env) int {
	s := newServer(e.mode, nil)
	s.AddTool(&mcp.Tool{
		Name:        "crash",
		Description: "Crashes the server (exit status 3) instead of answering. So does calling any other tool.",
		InputSchema: emptyObject(),
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("unreachable: the middleware crashes first")
	})
	crashed := make(chan struct{})
	var once sync.Once
	// Middleware rather than a tool handler, so that calls of unknown tools
	// crash too.
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/call" {
				return next(ctx, method, req)
			}
			once.Do(func() {
				fmt.Fprintln(e.stderr, crashMessage)
				close(crashed)
			})
			<-ctx.Done() // never answer: the process exits first
			return nil, ctx.Err()
		}
	})

	done := make(chan error, 1)
	go func() { done <- e.serve(ctx, s) }()
	select {
	case <-crashed:
		return exitCrash
	case err := <-done:
		return e.exitStatus(err)
	}
}

func hangMode(ctx context.Context, e *env) int {
	s := newServer(e.mode, nil)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "hang",
		Description: "Never answers. Returns only when the call is cancelled or the client goes away.",
		InputSchema: emptyObject(),
	}, func(ctx context.Context, req *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, any, error) {
		if tok := req.Params.GetProgressToken(); tok != nil {
			// Over HTTP the answer's headers and this event go out now,
			// so the client is reading the stream when it gives up.
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Message: "hanging"})
		}
		if e.obs.readyPath != "" {
			// The handler runs: a script that interrupts the client now
			// knows the cancellation has a call to reach (-ready alone is
			// created when the request arrives, perhaps before).
			_ = os.WriteFile(e.obs.readyPath+".started", nil, 0o644)
		}
		<-ctx.Done()
		// Scripts wait for the file, then check the log.
		e.obs.received("hang: cancelled")
		if e.obs.readyPath != "" {
			_ = os.WriteFile(e.obs.readyPath+".cancelled", nil, 0o644)
		}
		return nil, nil, ctx.Err()
	})
	return e.exitStatus(e.serve(ctx, s))
}

// bigDefault is the size of the big tool's answer when no size is given.
const bigDefault = 50 * 1024 * 1024

// bigMarker ends the big tool's text, so a test can tell it arrived whole.
const bigMarker = "END"

func bigMode(ctx context.Context, e *env) int {
	s := newServer(e.mode, nil)
	s.AddTool(&mcp.Tool{
		Name: "big",
		Description: fmt.Sprintf("Returns one text block of exactly `bytes` bytes: 'x' repeated, then %q.",
			bigMarker),
		InputSchema: json.RawMessage(fmt.Sprintf(`{
			"type": "object",
			"properties": {
				"bytes": {"type": "integer", "minimum": %d, "maximum": %d, "default": %d}
			}
		}`, len(bigMarker), bigMax, bigDefault)),
	}, big)
	return e.exitStatus(e.serve(ctx, s))
}

// bigMax bounds the big tool's answer.
const bigMax = 1 << 30

// big is a low-level handler: the SDK's typed handlers would hold a second
// copy of the arguments and validate them with a schema library, neither of
// which this needs.
func big(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Bytes *int `json:"bytes"`
	}
	if len(req.Params.Arguments) > 0 {
		if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "big: " + err.Error()}
		}
	}
	n := bigDefault
	if args.Bytes != nil {
		n = *args.Bytes
	}
	if n < len(bigMarker) || n > bigMax {
		return nil, &jsonrpc.Error{
			Code:    jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("big: bytes must be between %d and %d, not %d", len(bigMarker), bigMax, n),
		}
	}
	return text(bigText(n)), nil
}

// bigText returns n bytes: 'x' repeated, then bigMarker. n must be at least
// len(bigMarker).
func bigText(n int) string {
	return strings.Repeat("x", n-len(bigMarker)) + bigMarker
}

// stubbornMessage is written to stderr once stdin has closed.
const stubbornMessage = "testserver: stdin closed; still running until killed"

func stubbornMode(ctx context.Context, e *env) int {
	// run has already ignored the termination signals.
	if err := e.serve(ctx, demosdk.NewServer()); err != nil {
		fmt.Fprintf(e.stderr, "testserver: %s: %v\n", e.mode, err)
	}
	fmt.Fprintln(e.stderr, stubbornMessage)
	// A ticker rather than a bare block: with no timer pending and every
	// goroutine asleep, the runtime would report a deadlock and exit.
	tick := time.NewTicker(time.Hour)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return exitOK
		case <-tick.C:
		}
	}
}

// JSON-RPC error the errors mode's rpc_error tool answers with.
const (
	rpcErrorCode    = -32001
	rpcErrorMessage = "backend unavailable"
)

// toolErrorText is the text of the errors mode's tool_error result.
const toolErrorText = "tool failed: the backend returned no data"

func errorsMode(ctx context.Context, e *env) int {
	s := newServer(e.mode, nil)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "rpc_error",
		Description: fmt.Sprintf("Answers with a JSON-RPC error: code %d, message %q.", rpcErrorCode, rpcErrorMessage),
		InputSchema: emptyObject(),
	}, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
		// The SDK passes a *jsonrpc.Error through as the response's error;
		// any other error would become an isError result.
		return nil, nil, &jsonrpc.Error{Code: rpcErrorCode, Message: rpcErrorMessage}
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:        "tool_error",
		Description: "Returns a tool error: isError true with a text explanation.",
		InputSchema: emptyObject(),
	}, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
		res := text(toolErrorText)
		res.IsError = true
		return res, nil, nil
	})
	// Results that break their own outputSchema. The low-level AddTool
	// leaves the result unchecked, as a buggy server would.
	outputSchema := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
	s.AddTool(&mcp.Tool{
		Name:         "bad_output",
		Description:  "Returns structuredContent that breaks its outputSchema: n is a string.",
		InputSchema:  emptyObject(),
		OutputSchema: outputSchema,
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res := text(`{"n":"seven"}`)
		res.StructuredContent = map[string]any{"n": "seven"}
		return res, nil
	})
	s.AddTool(&mcp.Tool{
		Name:         "no_structured",
		Description:  "Declares an outputSchema but returns no structuredContent.",
		InputSchema:  emptyObject(),
		OutputSchema: outputSchema,
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("7"), nil
	})
	return e.exitStatus(e.serve(ctx, s))
}
