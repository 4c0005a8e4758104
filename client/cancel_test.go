package client

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// pollUntil polls until cond holds, for a state no event announces,
// failing the test if it does not within failAfter.
func pollUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(failAfter)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, failAfter)
		}
		time.Sleep(time.Millisecond)
	}
}

// stuckWriter returns a client whose connection has stopped reading: the
// answer to a server ping is blocked in Write, holding the writer. The
// request timeout is failAfter, so a caller that waits for that write
// instead of its own bound takes failAfter.
func stuckWriter(t *testing.T) (*Client, *deafConn) {
	t.Helper()
	conn := newDeafConn()
	c := New(conn, Options{Timeout: failAfter})
	t.Cleanup(func() { c.Close() })
	conn.deaf.Store(true)
	conn.send(t, `{"jsonrpc":"2.0","id":"p1","method":"ping"}`)
	conn.waitBlocked(t)
	return c, conn
}

// TestCancelBehindStuckWrite: Ctrl-C during a call, while the answer to a
// server request is stuck on a server that does not read, returns at once
// instead of queueing notifications/cancelled behind that write.
func TestCancelBehindStuckWrite(t *testing.T) {
	conn := newDeafConn()
	c := New(conn, Options{Timeout: failAfter})
	defer c.Close()
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() {
		_, err := c.Call(ctx, "tools/call", map[string]any{"name": "slow"})
		errc <- err
	}()
	pollUntil(t, "the call is written", func() bool { return len(conn.sent()) > 0 })
	conn.deaf.Store(true)
	conn.send(t, `{"jsonrpc":"2.0","id":"p1","method":"ping"}`)
	conn.waitBlocked(t)

	cancel()
	err := <-errc
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Call = %v, want context.Canceled", err)
	}
	// The ping's answer waits for failAfter: a Call that returned only
	// after it gave up waited for it.
	if conn.blocked.Load() == 0 {
		t.Errorf("Call returned only after the stuck write gave up")
	}
	for _, m := range conn.sent() {
		if strings.Contains(m, "notifications/cancelled") {
			t.Errorf("notifications/cancelled written to a server that does not read: %s", m)
		}
	}
}

// TestTimeoutBehindStuckWrite: a request that cannot even be written
// because the writer is stuck ends at its own deadline, and says that no
// cancellation could be sent.
func TestTimeoutBehindStuckWrite(t *testing.T) {
	c, conn := stuckWriter(t)
	pollUntil(t, "the writer is taken to be stuck", c.writerStuck)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err := c.Call(ctx, "tools/call", map[string]any{"name": "slow"})
	var te *TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("Call = %v, want a *TimeoutError", err)
	}
	if te.Cancelled || !strings.Contains(te.Error(), "the server stopped reading its input, so notifications/cancelled could not be sent") {
		t.Errorf("Call = %q (cancelled %v), want no cancellation, and why", te, te.Cancelled)
	}
	if conn.blocked.Load() == 0 {
		t.Errorf("Call returned only after the stuck write gave up")
	}
}

// TestCloseBehindStuckWrite: Close does not wait for a stuck write; the
// connection's Close ends it.
func TestCloseBehindStuckWrite(t *testing.T) {
	c, conn := stuckWriter(t)
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	pollUntil(t, "the stuck write ends", func() bool { return conn.blocked.Load() == 0 })
}
