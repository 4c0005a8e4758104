// Command echoserver is the server of the batch benchmark: the official Go
// SDK's stdio server with one tool, echo(message), which answers with the
// message as text. It is as small as a go-sdk server gets, so the benchmark
// measures the client, not the server (docs/performance.md).
//
// With -poll it reads stdin through the runtime's poller (pipeio.Stdin)
// instead of the blocking os.Stdin of mcp.StdioTransport, which a Go 1.26
// stop-the-world can stall for up to a minute (scripts/soak-batch.sh
// compares the two).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/internal/pipeio"
)

type echoArgs struct {
	Message string `json:"message" jsonschema:"the text to return"`
}

func main() {
	poll := flag.Bool("poll", false, "read stdin through the runtime's poller")
	flag.Parse()
	s := mcp.NewServer(&mcp.Implementation{Name: "echoserver", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Returns the message unchanged."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Message}}}, nil, nil
		})
	var t mcp.Transport = &mcp.StdioTransport{}
	if *poll {
		stdin, restore := pipeio.Stdin()
		defer restore()
		t = &mcp.IOTransport{Reader: stdin, Writer: os.Stdout}
	}
	if err := s.Run(context.Background(), t); err != nil {
		fmt.Fprintln(os.Stderr, "echoserver:", err)
		os.Exit(1)
	}
}
