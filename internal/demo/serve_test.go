package demo

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/transport"
)

// serve runs Serve on one end of a pipe and returns the other end and a
// channel that receives Serve's result.
func serve(ctx context.Context) (transport.Connection, <-chan error) {
	serverEnd, clientEnd := transport.NewPipe()
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, serverEnd) }()
	return clientEnd, done
}

func TestServe(t *testing.T) {
	conn, done := serve(t.Context())
	client := mcp.NewClient(&mcp.Implementation{Name: "serve-test", Version: "0"}, nil)
	cs, err := client.Connect(t.Context(), &sdkTransport{conn: conn}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := cs.InitializeResult().ServerInfo.Name; got != Name {
		t.Errorf("server name = %q, want %q", got, Name)
	}
	n := 0
	for _, err := range cs.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n <= PageSize {
		t.Errorf("listed %d tools, want more than one page of %d", n, PageSize)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 2, "b": 3}})
	if err != nil {
		t.Fatal(err)
	}
	wantText("5")(t, res)

	cs.Close() // closes conn: the server sees EOF
	if err := <-done; err != nil {
		t.Errorf("Serve returned %v after the client closed, want nil", err)
	}
}

func TestServeStopsWhenContextDone(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	conn, done := serve(ctx)
	ping := json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if err := conn.Write(t.Context(), ping); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Read(t.Context()); err != nil { // the server is up
		t.Fatal(err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Serve returned %v, want context.Canceled", err)
	}
	if _, err := conn.Read(t.Context()); !errors.Is(err, io.EOF) {
		t.Errorf("client Read after Serve returned: %v, want EOF", err)
	}
}

func TestServeRejectsMalformedMessages(t *testing.T) {
	conn, done := serve(t.Context())
	if err := conn.Write(t.Context(), json.RawMessage(`{"hello":"world"}`)); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil || !strings.Contains(err.Error(), "decoding message") {
		t.Errorf("Serve returned %v, want a decoding error", err)
	}
}
