package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/transport"
)

// sdkTransport presents a transport.Connection as an mcp.Transport, so the
// official SDK's client can talk to the demo over an in-memory pipe.
type sdkTransport struct {
	conn transport.Connection
}

// Connect implements mcp.Transport.
func (t *sdkTransport) Connect(context.Context) (mcp.Connection, error) {
	return &sdkConn{conn: t.conn}, nil
}

// sdkConn adapts a transport.Connection to mcp.Connection; it serialises
// writes because the SDK writes from several goroutines while
// transport.Connection allows one writer at a time.
type sdkConn struct {
	conn    transport.Connection
	writeMu sync.Mutex
}

func (c *sdkConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	data, err := c.conn.Read(ctx)
	if errors.Is(err, transport.ErrClosed) {
		return nil, io.EOF
	}
	if err != nil {
		return nil, err
	}
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		return nil, fmt.Errorf("decoding message: %w", err)
	}
	return msg, nil
}

func (c *sdkConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding message: %w", err)
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	return c.conn.Write(ctx, data, transport.WriteOptions{})
}

func (c *sdkConn) Close() error      { return c.conn.Close() }
func (c *sdkConn) SessionID() string { return "" }

// serve runs Serve on one end of a pipe and returns the other end and a
// channel that receives Serve's result.
func serve(ctx context.Context) (transport.Connection, <-chan error) {
	serverEnd, clientEnd := transport.NewPipe()
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, serverEnd) }()
	return clientEnd, done
}

// TestServe connects the SDK's client with its default protocol version,
// which is newer than the demo's: the client's server/discover probe must be
// refused so that it falls back to initialize and agrees on 2025-11-25.
func TestServe(t *testing.T) {
	conn, done := serve(t.Context())
	client := mcp.NewClient(&mcp.Implementation{Name: "serve-test", Version: "0"}, nil)
	cs, err := client.Connect(t.Context(), &sdkTransport{conn: conn}, nil)
	if err != nil {
		t.Fatal(err)
	}
	init := cs.InitializeResult()
	if init.ServerInfo.Name != Name || init.ProtocolVersion != ProtocolVersions()[0] {
		t.Errorf("server %q speaking %q, want %q speaking %q", init.ServerInfo.Name, init.ProtocolVersion, Name, ProtocolVersions()[0])
	}
	n := 0
	for _, err := range cs.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 12 {
		t.Errorf("listed %d tools, want 12 over two pages of %d", n, PageSize)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 2, "b": 3}})
	if err != nil {
		t.Fatal(err)
	}
	wantText("5")(t, res)
	if err := cs.SetLoggingLevel(t.Context(), &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Errorf("logging/setLevel: %v", err)
	}
	if err := cs.Ping(t.Context(), nil); err != nil {
		t.Errorf("ping: %v", err)
	}

	cs.Close() // closes conn: the server sees EOF
	if err := <-done; err != nil {
		t.Errorf("Serve returned %v after the client closed, want nil", err)
	}
}

func TestServeStopsWhenContextDone(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	conn, done := serve(ctx)
	ping := json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if err := conn.Write(t.Context(), ping, transport.WriteOptions{}); err != nil {
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

// TestServeRaw sends messages one by one on a raw pipe and checks each
// answer: what an SDK client never sends is covered here.
func TestServeRaw(t *testing.T) {
	tests := []struct {
		name, send string
		want       string // substring of the answer; "" for no answer
	}{
		{"initialize with a known version", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`, `"protocolVersion":"2025-03-26"`},
		{"initialize twice", `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}`, `"code":-32600`},
		{"initialized needs no answer", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, ""},
		{"ping", `{"jsonrpc":"2.0","id":"p","method":"ping"}`, `{"jsonrpc":"2.0","id":"p","result":{}}`},
		{"unknown method", `{"jsonrpc":"2.0","id":3,"method":"server/discover"}`, `"code":-32601`},
		{"second page", `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"cursor":"OA"}}`, `"name":"upper"`},
		{"bad cursor", `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"cursor":"nonsense"}}`, `"code":-32602`},
		{"unknown tool", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"nope"}}`, `unknown tool \"nope\"`},
		{"null arguments", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"fail","arguments":null}}`, `"isError":true`},
		{"bad log level", `{"jsonrpc":"2.0","id":8,"method":"logging/setLevel","params":{"level":"loud"}}`, `"code":-32602`},
		{"unknown resource", `{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"demo://nope"}}`, `{"code":-32002,"message":"Resource not found","data":{"uri":"demo://nope"}}`},
		{"unknown prompt", `{"jsonrpc":"2.0","id":10,"method":"prompts/get","params":{"name":"nope"}}`, `"code":-32602`},
		{"not JSON", `{"jsonrpc"`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700`},
		{"not JSON-RPC", `{"hello":"world"}`, `"id":null,"error":{"code":-32600`},
		{"batch", `[{"jsonrpc":"2.0","id":11,"method":"ping"}]`, `"code":-32600`},
		{"a response is ignored", `{"jsonrpc":"2.0","id":12,"result":{}}`, ""},
		{"cancelling nothing", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`, ""},
	}
	conn, done := serve(t.Context())
	for _, tt := range tests {
		if err := conn.Write(t.Context(), json.RawMessage(tt.send), transport.WriteOptions{}); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if tt.want == "" {
			continue // checked by the next answer being the next case's
		}
		got, err := conn.Read(t.Context())
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !strings.Contains(string(got), tt.want) {
			t.Errorf("%s: got %s, want it to contain %s", tt.name, got, tt.want)
		}
	}
	conn.Close()
	if err := <-done; err != nil {
		t.Errorf("Serve returned %v, want nil", err)
	}
}
