package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPipeRoundTrip(t *testing.T) {
	ctx := context.Background()
	a, b := NewPipe()
	defer a.Close()
	defer b.Close()

	// Write then Read from one goroutine must not deadlock: queues are
	// unbounded.
	var sent []string
	for i := range 100 {
		msg := fmt.Sprintf(`{"id":%d}`, i)
		sent = append(sent, msg)
		if err := a.Write(ctx, json.RawMessage(msg), WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for range sent {
		msg, err := b.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(msg))
	}
	if diff := cmp.Diff(sent, got); diff != "" {
		t.Errorf("a→b (-sent +got):\n%s", diff)
	}

	// And the other way.
	if err := b.Write(ctx, json.RawMessage(`{"back":true}`), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if msg, err := a.Read(ctx); err != nil || string(msg) != `{"back":true}` {
		t.Errorf("b→a Read = %s, %v", msg, err)
	}
}

// TestPipeHandsOver checks that a message crosses the pipe without being
// copied: a large result must not cost twice its size.
func TestPipeHandsOver(t *testing.T) {
	ctx := context.Background()
	a, b := NewPipe()
	defer a.Close()
	defer b.Close()
	sent := json.RawMessage(`{"data":"` + strings.Repeat("x", 1<<20) + `"}`)
	if err := a.Write(ctx, sent, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := b.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(sent) || &got[0] != &sent[0] {
		t.Errorf("Read returned a copy of the written message, want the same slice")
	}
}

func TestPipeClose(t *testing.T) {
	ctx := context.Background()
	a, b := NewPipe()
	for _, m := range []string{`{"id":1}`, `{"id":2}`} {
		if err := a.Write(ctx, json.RawMessage(m), WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}

	// The peer drains what was queued, then sees EOF, and cannot write.
	var got []string
	for {
		msg, err := b.Read(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("Read = %v, want messages then io.EOF", err)
		}
		got = append(got, string(msg))
	}
	if diff := cmp.Diff([]string{`{"id":1}`, `{"id":2}`}, got); diff != "" {
		t.Errorf("drained (-want +got):\n%s", diff)
	}
	if err := b.Write(ctx, json.RawMessage(`{}`), WriteOptions{}); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("Write to a closed peer = %v, want io.ErrClosedPipe", err)
	}

	// The closed end itself reports ErrClosed.
	if _, err := a.Read(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("Read after Close = %v, want ErrClosed", err)
	}
	if err := a.Write(ctx, json.RawMessage(`{}`), WriteOptions{}); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Close = %v, want ErrClosed", err)
	}
	if err := a.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

func TestPipeUnblocks(t *testing.T) {
	tests := []struct {
		name    string
		unblock func(a, b Connection, cancel context.CancelFunc)
		want    error
	}{
		{"context", func(a, b Connection, cancel context.CancelFunc) { cancel() }, context.Canceled},
		{"own close", func(a, b Connection, cancel context.CancelFunc) { b.Close() }, ErrClosed},
		{"peer close", func(a, b Connection, cancel context.CancelFunc) { a.Close() }, io.EOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := NewPipe()
			defer a.Close()
			defer b.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			errc := make(chan error)
			go func() {
				_, err := b.Read(ctx)
				errc <- err
			}()
			tt.unblock(a, b, cancel)
			if err := <-errc; !errors.Is(err, tt.want) {
				t.Errorf("blocked Read = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestPipeConcurrent runs a client and an echo server on the two ends, with
// reading and writing on separate goroutines on each side; run with -race.
func TestPipeConcurrent(t *testing.T) {
	const n = 1000
	ctx := context.Background()
	client, server := NewPipe()

	var wg sync.WaitGroup
	wg.Go(func() { // server: echo until the client closes
		for {
			msg, err := server.Read(ctx)
			if err != nil {
				if !errors.Is(err, io.EOF) {
					t.Errorf("server Read: %v", err)
				}
				server.Close()
				return
			}
			if err := server.Write(ctx, msg, WriteOptions{}); err != nil {
				t.Errorf("server Write: %v", err)
			}
		}
	})
	wg.Go(func() { // client writer
		for i := range n {
			if err := client.Write(ctx, json.RawMessage(fmt.Sprintf(`{"id":%d}`, i)), WriteOptions{}); err != nil {
				t.Errorf("client Write: %v", err)
				return
			}
		}
	})
	for i := range n {
		msg, err := client.Read(ctx)
		if err != nil {
			t.Fatalf("client Read %d: %v", i, err)
		}
		if want := fmt.Sprintf(`{"id":%d}`, i); string(msg) != want {
			t.Fatalf("client Read %d = %s, want %s", i, msg, want)
		}
	}
	client.Close()
	wg.Wait()
}
