//go:build unix

package cmd

import (
	"context"
	"errors"
	"os"
	"syscall"
	"testing"
	"time"
)

// The run's context catches no signal until something waits on it; then
// the first signal cancels it (and what was derived from it) and the
// second closes hurry.
func TestSignalContext(t *testing.T) {
	// Not parallel: it sends SIGHUP to the test process, which only this
	// test catches.
	c := newSignalContext()
	defer c.stop()
	if c.sigs != nil {
		t.Fatal("signals caught before anything waited on the context")
	}
	if c.Err() != nil {
		t.Fatalf("Err = %v before any signal", c.Err())
	}
	ctx, cancel := context.WithTimeout(c, time.Hour)
	defer cancel()
	if c.sigs == nil {
		t.Fatal("deriving a context did not start catching signals")
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	<-ctx.Done()
	if !errors.Is(ctx.Err(), context.Canceled) || !errors.Is(c.Err(), context.Canceled) {
		t.Fatalf("after one signal: Err = %v, derived Err = %v, want context.Canceled", c.Err(), ctx.Err())
	}
	select {
	case <-c.hurry:
		t.Fatal("hurried after one signal")
	default:
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	<-c.hurry
}
