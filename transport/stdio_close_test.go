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

// TestCommandCloseAfterFailure: after ShortenGrace, a server that ignores
// both stdin closing and SIGTERM is killed within two short grace periods,
// whether the failure is reported before Close starts or while it waits,
// and through a Trace as well.
func TestCommandCloseAfterFailure(t *testing.T) {
	const grace = time.Minute // long enough that waiting it out fails the test
	for _, tc := range []struct {
		name   string
		traced bool
		during bool // ShortenGrace once Close is waiting, not before
	}{
		{name: "before"},
		{name: "during", during: true},
		{name: "traced", traced: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := helper(t, "stubborn")
			c.Grace = grace
			var tr Transport = c
			if tc.traced {
				tr = &Trace{Transport: c}
			}
			conn, err := tr.Connect(context.Background())
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			t.Cleanup(func() { conn.Close() })
			pid, _ := readPID(t, conn)
			shorten, ok := conn.(GraceShortener)
			if !ok {
				t.Fatalf("%T is not a GraceShortener", conn)
			}
			if !tc.during {
				shorten.ShortenGrace()
			}
			closed := make(chan error, 1)
			go func() { closed <- conn.Close() }()
			if tc.during {
				sc := conn.(*stdioConn)
				for !sc.isClosing() {
					time.Sleep(time.Millisecond)
				}
				shorten.ShortenGrace()
			}
			select {
			case err := <-closed:
				if err != nil {
					t.Errorf("Close = %v, want nil", err)
				}
			case <-time.After(grace / 2):
				t.Fatalf("Close waited out the full grace period after ShortenGrace")
			}
			if !gone(pid) {
				t.Errorf("server pid %d still running after Close", pid)
			}
		})
	}
}
