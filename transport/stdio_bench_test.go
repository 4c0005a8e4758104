//go:build unix

package transport

import (
	"bytes"
	"context"
	"os"
	"slices"
	"testing"
	"time"
)

// BenchmarkStdioRoundTrip measures one request/response round trip over a
// real child process's pipes, the way a sequential batch makes its calls:
// write one line, wait for the answer. The child echoes each line back.
//
// raw reads and writes the pipes with pipeio (raw calls on the poller's
// readiness), osfile through os.File alone. paired runs both side by side,
// alternating short blocks of round trips, so that the machine's changing
// load hits both alike; its raw/osfile metric is the median of the blocks'
// ratios.
func BenchmarkStdioRoundTrip(b *testing.B) {
	b.Run("raw", func(b *testing.B) {
		rt := startEcho(b, false)
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			rt()
		}
	})
	b.Run("osfile", func(b *testing.B) {
		rt := startEcho(b, true)
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			rt()
		}
	})
	b.Run("paired", func(b *testing.B) {
		raw, plain := startEcho(b, false), startEcho(b, true)
		const block = 50
		var rawTime, plainTime time.Duration
		var ratios []float64
		timeBlock := func(rt func(), n int) time.Duration {
			start := time.Now()
			for range n {
				rt()
			}
			return time.Since(start)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i += block {
			n := min(block, b.N-i)
			var r, p time.Duration
			// The order alternates so that neither always runs second.
			if i/block%2 == 0 {
				r, p = timeBlock(raw, n), timeBlock(plain, n)
			} else {
				p, r = timeBlock(plain, n), timeBlock(raw, n)
			}
			rawTime += r
			plainTime += p
			ratios = append(ratios, float64(r)/float64(p))
		}
		b.StopTimer()
		slices.Sort(ratios)
		b.ReportMetric(0, "ns/op") // a pair of round trips; the metrics below say more
		b.ReportMetric(float64(rawTime.Nanoseconds())/float64(b.N), "raw-ns/rt")
		b.ReportMetric(float64(plainTime.Nanoseconds())/float64(b.N), "osfile-ns/rt")
		b.ReportMetric(ratios[len(ratios)/2], "raw/osfile")
	})
}

// roundTripRequest is the size and shape of a small tools/call.
var roundTripRequest = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello, world"},"_meta":{"progressToken":1}}}`)

// startEcho starts the echo helper, with the pipes read and written through
// os.File alone when plain is set, and returns a function making one round
// trip. The child is stopped when b ends.
func startEcho(b *testing.B, plain bool) func() {
	b.Helper()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	c := &Command{Path: exe, Env: []string{helperEnv + "=echo"}, plainPipes: plain}
	ctx := context.Background()
	conn, err := c.Connect(ctx)
	if err != nil {
		b.Fatalf("Connect: %v", err)
	}
	b.Cleanup(func() { conn.Close() })
	rt := func() {
		if err := conn.Write(ctx, roundTripRequest, WriteOptions{}); err != nil {
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
	rt() // the child is started and answering before the clock runs
	return rt
}
