//go:build unix

package transport

import (
	"bytes"
	"context"
	"os"
	"testing"
)

// BenchmarkStdioRoundTrip measures one request/response round trip over a
// real child process's pipes, the way a sequential batch makes its calls:
// write one line, wait for the answer. The child echoes each line back.
// docs/performance.md has its figures, and those of the raw pipe I/O it
// replaced.
func BenchmarkStdioRoundTrip(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	c := &Command{Path: exe, Env: []string{helperEnv + "=echo"}}
	ctx := context.Background()
	conn, err := c.Connect(ctx)
	if err != nil {
		b.Fatalf("Connect: %v", err)
	}
	defer conn.Close()
	roundTrip := func() {
		if err := conn.Write(ctx, roundTripRequest); err != nil {
			b.Fatalf("Write: %v", err)
		}
		got, err := conn.Read(ctx)
		if err != nil {
			b.Fatalf("Read: %v", err)
		}
		if !bytes.Equal(got, roundTripRequest) {
			b.Fatalf("Read = %s, want the request echoed", got)
		}
	}
	roundTrip() // the child is started and answering before the clock runs
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		roundTrip()
	}
}

// roundTripRequest is the size and shape of a small tools/call.
var roundTripRequest = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello, world"},"_meta":{"progressToken":1}}}`)
