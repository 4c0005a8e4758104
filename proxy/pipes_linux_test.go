package proxy

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/internal/pipeio"
	"github.com/mcpctl/mcpctl/internal/pipeio/pipeiotest"
)

// TestStdioRelaysPipesExactly is TestStdioRelaysBytesExactly with the
// host's ends as a host hands them over, blocking pipes, which the shim
// relays with raw calls: the bytes still come back exactly, and the ends
// are still blocking once the shim is done.
func TestStdioRelaysPipesExactly(t *testing.T) {
	inR, inW := pipeiotest.InheritedPipe(t)
	outR, outW := pipeiotest.InheritedPipe(t)
	relaysExactly(t, inR, inW, outR, outW)
}

// The same with the ends a host written on Node hands its servers,
// connected Unix sockets.
func TestStdioRelaysSocketsExactly(t *testing.T) {
	inR, inW := pipeiotest.InheritedSockets(t)
	outR, outW := pipeiotest.InheritedSockets(t)
	relaysExactly(t, inR, inW, outR, outW)
}

// relaysExactly runs the shim over cat with In and Out as given, the host
// writing inW and reading outR.
func relaysExactly(t *testing.T, inR, inW, outR, outW *os.File) {
	t.Helper()
	big := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"text":"` + strings.Repeat("x", 300<<10) + `"}}`
	input := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}` + "\n" +
		`{ "jsonrpc" : "2.0", "id" : "a\u00e9", "method":"ping" }` + "\r\n" +
		"not json at all \x00\xff\n" + big + "\n" + `{"jsonrpc":"2.0","id":10,"method":"ping"}`
	go func() {
		io.WriteString(inW, input)
		inW.Close()
	}()
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(outR)
		got <- b
	}()
	rec := &recorder{}
	tap := NewTap(rec, 0, 0)
	s := &Stdio{Args: []string{"cat"}, In: inR, Out: outW, Stderr: io.Discard, Tap: tap}
	code, err := s.Run()
	tap.Close()
	if err != nil || code != 0 {
		t.Fatalf("Run = %d, %v; want 0, nil", code, err)
	}
	outW.Close()
	if b := <-got; string(b) != input {
		t.Fatalf("the host read %d bytes, not the %d it wrote, or not the same ones", len(b), len(input))
	}
	if n := len(rec.frames); n != 10 {
		t.Errorf("%d frames seen, want 5 each way", n)
	}
	if pipeiotest.Nonblocking(t, inR) || pipeiotest.Nonblocking(t, outW) {
		t.Error("the host's ends were left non-blocking")
	}
}

// The shim relays pipes with pipeio and anything else through itself.
func TestShimEnds(t *testing.T) {
	inR, _ := pipeiotest.InheritedPipe(t)
	_, outW := pipeiotest.InheritedPipe(t)
	srvR, srvW := pipeiotest.InheritedPipe(t)
	s := &Stdio{In: inR, Out: outW}
	e := s.ends(srvW, srvR)
	_, inRaw := e.in.(*pipeio.File)
	_, outRaw := e.out.(*pipeio.File)
	if pipeiotest.Nonblocking(t, inR) || pipeiotest.Nonblocking(t, outW) {
		t.Error("the host's ends were made non-blocking")
	}
	e.release()
	if !inRaw || !outRaw {
		t.Errorf("host ends relayed through %T and %T, want *pipeio.File", e.in, e.out)
	}

	// A host that sends the proxy's stdout and stderr to one pipe: the
	// server writes its stderr there itself, through the host's open file
	// description, which must stay blocking while the shim writes its
	// stdout through one of its own.
	s = &Stdio{In: inR, Out: outW, Stderr: outW}
	e = s.ends(srvW, srvR)
	_, outRaw = e.out.(*pipeio.File)
	if !outRaw {
		t.Errorf("stdout shared with stderr relayed through %T, want *pipeio.File", e.out)
	}
	if pipeiotest.Nonblocking(t, outW) {
		t.Error("stdout shared with stderr was made non-blocking")
	}
	e.release()

	// Sockets, as hosts written on Node hand them over: relayed raw,
	// blocking again after release; a stdout socket that is also stderr
	// is left alone, since the server writes its stderr there itself and
	// the socket's description would be non-blocking for it too.
	sockIn, _ := pipeiotest.InheritedSockets(t)
	sockOut, _ := pipeiotest.InheritedSockets(t)
	s = &Stdio{In: sockIn, Out: sockOut}
	e = s.ends(srvW, srvR)
	_, inRaw = e.in.(*pipeio.File)
	_, outRaw = e.out.(*pipeio.File)
	e.release()
	if !inRaw || !outRaw {
		t.Errorf("socket ends relayed through %T and %T, want *pipeio.File", e.in, e.out)
	}
	if pipeiotest.Nonblocking(t, sockIn) || pipeiotest.Nonblocking(t, sockOut) {
		t.Error("release left the host's sockets non-blocking")
	}
	s = &Stdio{In: sockIn, Out: sockOut, Stderr: sockOut}
	e = s.ends(srvW, srvR)
	_, outRaw = e.out.(*pipeio.File)
	if outRaw || pipeiotest.Nonblocking(t, sockOut) {
		t.Error("a stdout socket shared with stderr was made non-blocking")
	}
	e.release()

	// An end already in the poller, as mcpctl's streams hand the shim its
	// stdin: relayed raw as it is, left open by release, and a read still
	// waiting on it ended then.
	polled := pipeio.Reopen(inR)
	if polled == nil {
		t.Fatal("pipeio.Reopen declined a pipe")
	}
	defer polled.Close()
	s = &Stdio{In: polled, Out: outW}
	e = s.ends(srvW, srvR)
	if _, inRaw = e.in.(*pipeio.File); !inRaw {
		t.Errorf("an end in the poller relayed through %T, want *pipeio.File", e.in)
	}
	read := make(chan error, 1)
	go func() {
		_, err := e.in.Read(make([]byte, 1))
		read <- err
	}()
	e.release()
	select {
	case err := <-read:
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("a read waiting on the host's end ended with %v, want a deadline passed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a read waiting on the host's end went on after release")
	}
	if _, err := polled.Stat(); err != nil {
		t.Errorf("release closed an end the shim did not open: %v", err)
	}

	file, err := os.CreateTemp(t.TempDir(), "in")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	var buf bytes.Buffer
	s = &Stdio{In: file, Out: &buf}
	e = s.ends(srvW, srvR)
	defer e.release()
	if e.in != io.Reader(file) || e.out != io.Writer(&buf) {
		t.Errorf("a file and a buffer relayed through %T and %T, want themselves", e.in, e.out)
	}
}

// BenchmarkRelay measures one round trip through the shim, the way a host
// makes sequential calls: write a line, wait for the answer. The server is
// cat; the host's ends are blocking pipes, as a host hands them over.
//
// raw relays every pipe end through pipeio (raw calls on the poller's
// readiness), osfile through the ends' own os.File. paired runs both side
// by side, alternating short blocks of round trips, so that the machine's
// changing load hits both alike; its raw/osfile metric is the median of
// the blocks' ratios.
func BenchmarkRelay(b *testing.B) {
	b.Run("raw", func(b *testing.B) {
		rt := startShim(b, false)
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			rt()
		}
	})
	b.Run("osfile", func(b *testing.B) {
		rt := startShim(b, true)
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			rt()
		}
	})
	b.Run("paired", func(b *testing.B) {
		raw, plain := startShim(b, false), startShim(b, true)
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

// discard is an Observer that does nothing, so that the benchmark
// measures the relay and the tap, not the checks.
type discard struct{}

func (discard) Frame(Frame) {}
func (discard) Event(Event) {}

// startShim starts the shim in front of cat, relaying through os.File
// alone when plain is set, and returns a function making one round trip.
// The shim is stopped when b ends.
func startShim(b *testing.B, plain bool) func() {
	b.Helper()
	inR, inW := pipeiotest.InheritedPipe(b)
	outR, outW := pipeiotest.InheritedPipe(b)
	tap := NewTap(discard{}, 0, 0)
	s := &Stdio{Args: []string{"cat"}, In: inR, Out: outW, Stderr: io.Discard, Tap: tap, plainPipes: plain}
	done := make(chan error, 1)
	go func() {
		_, err := s.Run()
		tap.Close()
		done <- err
	}()
	b.Cleanup(func() {
		inW.Close()
		if err := <-done; err != nil {
			b.Error(err)
		}
	})
	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello, world"}}}` + "\n")
	br := bufio.NewReader(outR)
	return func() {
		if _, err := inW.Write(req); err != nil {
			b.Fatal(err)
		}
		if _, err := br.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
	}
}
