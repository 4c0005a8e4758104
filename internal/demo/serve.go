package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/transport"
)

// Serve runs a new demo server (see [NewServer]) over conn until the peer
// closes the connection, which returns nil, or ctx is done, which returns
// ctx.Err(). Serve closes conn before it returns.
func Serve(ctx context.Context, conn transport.Connection) error {
	defer conn.Close()
	err := NewServer().Run(ctx, &sdkTransport{conn: conn})
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("demo server: %w", err)
	}
	return err
}

// sdkTransport presents a transport.Connection as an mcp.Transport, so
// the SDK's server can run over mcpctl's connections.
type sdkTransport struct {
	conn transport.Connection
}

// Connect implements mcp.Transport.
func (t *sdkTransport) Connect(context.Context) (mcp.Connection, error) {
	return &sdkConn{conn: t.conn}, nil
}

// sdkConn adapts a transport.Connection to mcp.Connection: it decodes and
// encodes JSON-RPC messages, and serialises writes because the SDK writes
// from several goroutines while transport.Connection allows one writer at a
// time.
type sdkConn struct {
	conn    transport.Connection
	writeMu sync.Mutex
}

// Read implements mcp.Connection.
func (c *sdkConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	data, err := c.conn.Read(ctx)
	if errors.Is(err, transport.ErrClosed) {
		// Closed on our side (by Serve's caller or by the SDK itself): for
		// the SDK that is the end of the stream, not a failure.
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

// Write implements mcp.Connection.
func (c *sdkConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding message: %w", err)
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	return c.conn.Write(ctx, data)
}

// Close implements mcp.Connection.
func (c *sdkConn) Close() error { return c.conn.Close() }

// SessionID implements mcp.Connection; an in-process connection has no
// session ID.
func (c *sdkConn) SessionID() string { return "" }
