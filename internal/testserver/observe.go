package testserver

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// observer records the messages a server receives, for scripts to check
// (-log) and wait for (-ready).
type observer struct {
	mu        sync.Mutex
	log       *os.File // nil without -log
	readyPath string   // empty without -ready
	stderr    io.Writer
}

func newObserver(logPath, readyPath string, stderr io.Writer) (*observer, error) {
	o := &observer{readyPath: readyPath, stderr: stderr}
	if logPath != "" {
		f, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return nil, fmt.Errorf("opening log: %w", err)
		}
		o.log = f
	}
	return o, nil
}

// received records a message with the given method. It returns once the
// method is on disk, so whatever the message causes happens after it is
// logged. Failures are reported on stderr and otherwise ignored: the server
// keeps serving.
func (o *observer) received(method string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.log != nil {
		_, err := o.log.WriteString(method + "\n")
		if err == nil {
			err = o.log.Sync()
		}
		if err != nil {
			fmt.Fprintf(o.stderr, "testserver: writing log: %v\n", err)
		}
	}
	if method == "tools/call" && o.readyPath != "" {
		if err := os.WriteFile(o.readyPath, nil, 0o644); err != nil {
			fmt.Fprintf(o.stderr, "testserver: creating ready file: %v\n", err)
		}
	}
}

func (o *observer) close() {
	if o.log != nil {
		o.log.Close()
	}
}

// observedTransport wraps an SDK transport so that every request and
// notification read from it is recorded before the SDK sees it. Observing
// the stream rather than using receiving middleware also records messages
// the SDK rejects before dispatch, such as unknown methods.
type observedTransport struct {
	mcp.Transport
	obs *observer
}

// Connect implements mcp.Transport.
func (t *observedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &observedConn{Connection: conn, obs: t.obs}, nil
}

type observedConn struct {
	mcp.Connection
	obs *observer
}

// Read implements mcp.Connection.
func (c *observedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil {
		c.obs.received(req.Method)
	}
	return msg, err
}
