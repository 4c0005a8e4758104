// Command sdkclient makes the batch benchmark's calls with the official Go
// SDK's client: start the server through mcp.CommandTransport, connect
// (initialize), N tools/call of echo one after the other, each waiting for
// its answer, then close the session and wait for the server. It is what a
// Go program that uses the SDK pays for the same round trips, read loop and
// all, beside mcpctl's batch (scripts/bench-batch.sh).
//
// Usage: sdkclient N SERVER [ARGS...]
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: sdkclient N SERVER [ARGS...]")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[1])
	if err != nil || n < 0 {
		fmt.Fprintln(os.Stderr, "sdkclient: N must be a count of calls")
		os.Exit(2)
	}
	if err := run(n, os.Args[2], os.Args[3:]); err != nil {
		fmt.Fprintln(os.Stderr, "sdkclient:", err)
		os.Exit(1)
	}
}

func run(n int, server string, args []string) error {
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "sdkclient", Version: "1.0.0"}, nil)
	cmd := exec.Command(server, args...)
	cmd.Stderr = os.Stderr
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return err
	}
	for i := 1; i <= n; i++ {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{
			Name:      "echo",
			Arguments: map[string]any{"message": "hello " + strconv.Itoa(i)},
		})
		if err != nil {
			session.Close()
			return fmt.Errorf("call %d: %w", i, err)
		}
		if res.IsError || len(res.Content) != 1 {
			session.Close()
			return fmt.Errorf("call %d: unexpected result", i)
		}
	}
	return session.Close()
}
