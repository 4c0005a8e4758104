package client

import (
	"context"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/internal/demo/demosdk"
	"github.com/mcpctl/mcpctl/transport"
)

// serverEnv makes the test binary run the demo server on stdio instead of
// the tests, so stdio tests need no separately built server.
const serverEnv = "MCPCTL_CLIENT_TEST_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(serverEnv) == "1" {
		// The server ends when the client closes stdin; how it ended is the
		// client's business, not this process's exit status.
		_ = demosdk.NewServer().Run(context.Background(), &mcp.StdioTransport{})
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// stdioServer runs this test binary as the demo server.
func stdioServer() *transport.Command {
	return &transport.Command{Path: os.Args[0], Env: []string{serverEnv + "=1"}}
}

// connectStdio connects a client to the demo server in a child process; the
// child is stopped when the test ends.
func connectStdio(tb testing.TB) *Client {
	tb.Helper()
	c, err := Connect(tb.Context(), stdioServer(), Options{ClientInfo: Implementation{Name: "client-bench", Version: "0"}})
	if err != nil {
		tb.Fatalf("Connect to the demo server over stdio: %v", err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

const echoMessage = "hello, benchmark"

// echoArgs are the arguments of every benchmarked call, built once so that
// the figures hold only the call's own allocations.
func echoArgs() map[string]any { return map[string]any{"message": echoMessage} }

func callEcho(b *testing.B, c *Client, args map[string]any) {
	res, err := c.CallTool(b.Context(), "echo", args, CallOptions{})
	if err != nil {
		b.Fatalf("CallTool echo: %v", err)
	}
	if len(res.Content) != 1 || res.Content[0].Text != echoMessage {
		b.Fatalf("CallTool echo returned %s", res.Raw)
	}
}

// BenchmarkCallToolPipe measures one tools/call round trip to the in-process
// demo server: the client's own cost plus the SDK server's.
func BenchmarkCallToolPipe(b *testing.B) {
	c := connectDemo(b, nil)
	args := echoArgs()
	b.ReportAllocs()
	for b.Loop() {
		callEcho(b, c, args)
	}
}

// BenchmarkCallToolStdio measures one tools/call round trip to the demo
// server in a child process.
func BenchmarkCallToolStdio(b *testing.B) {
	c := connectStdio(b)
	args := echoArgs()
	b.ReportAllocs()
	for b.Loop() {
		callEcho(b, c, args)
	}
	b.StopTimer()
	if err := c.Close(); err != nil {
		b.Errorf("Close: %v", err)
	}
}

// BenchmarkConnectStdio measures a whole one-shot session, as a single
// mcpctl command runs it: start the server, handshake, one tools/call, stop
// the server.
func BenchmarkConnectStdio(b *testing.B) {
	args := echoArgs()
	b.ReportAllocs()
	for b.Loop() {
		c, err := Connect(b.Context(), stdioServer(), Options{})
		if err != nil {
			b.Fatalf("Connect: %v", err)
		}
		callEcho(b, c, args)
		if err := c.Close(); err != nil {
			b.Fatalf("Close: %v", err)
		}
	}
}
