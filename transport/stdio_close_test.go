//go:build unix

package transport

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestCommandCloseBehindBlockedWrite: a server that stopped reading cannot
// see its stdin close, so Close, finding a write blocked on the full pipe,
// sends SIGTERM without waiting out the grace period first.
func TestCommandCloseBehindBlockedWrite(t *testing.T) {
	const grace = time.Minute // long enough that waiting it out fails the test
	c := helper(t, "deaf")
	c.Grace = grace
	conn := connect(t, c)
	pid, _ := readPID(t, conn)
	big := json.RawMessage(`"` + strings.Repeat("x", 4<<20) + `"`)
	errc := make(chan error, 1)
	go func() { errc <- conn.Write(context.Background(), big, WriteOptions{}) }()
	sc := conn.(*stdioConn)
	for !sc.writing.Load() {
		time.Sleep(time.Millisecond)
	}
	closed := make(chan error, 1)
	go func() { closed <- conn.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close = %v, want nil", err)
		}
	case <-time.After(grace / 2):
		t.Fatalf("Close waited for a server that does not read its stdin to notice it closing")
	}
	if err := <-errc; !errors.Is(err, ErrClosed) {
		t.Errorf("the blocked Write = %v, want ErrClosed", err)
	}
	if !gone(pid) {
		t.Errorf("server pid %d still running after Close", pid)
	}
}
