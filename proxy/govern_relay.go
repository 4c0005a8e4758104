package proxy

import (
	"bufio"
	"context"
	"errors"
	"io"
	"sync"
)

// lineWriter writes whole lines to w, one at a time: with governance on,
// the relay and the goroutines of held calls write to the same stream,
// and no line may be cut into by another.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) write(line []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, err := l.w.Write(line)
	return err
}

// writeMessage writes msg and a line ending in one write.
func (l *lineWriter) writeMessage(msg []byte) error {
	buf := make([]byte, 0, len(msg)+1)
	return l.write(append(append(buf, msg...), '\n'))
}

// stdioOutbox is the shim's [Outbox].
type stdioOutbox struct{ server, host *lineWriter }

func (o stdioOutbox) ToServer(msg []byte) error { return o.server.writeMessage(msg) }
func (o stdioOutbox) ToHost(msg []byte) error   { return o.host.writeMessage(msg) }

// readWhole reads one line, its ending included, as a slice of its own;
// at the end of src it returns the last line without an ending, if any,
// with io.EOF. A line larger than the buffer is gathered in pieces and
// joined once (see [join]), not grown by appending.
func readWhole(br *bufio.Reader) ([]byte, error) {
	chunk, err := br.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return append([]byte(nil), chunk...), err
	}
	parts := [][]byte{append([]byte(nil), chunk...)}
	n := len(chunk)
	for errors.Is(err, bufio.ErrBufferFull) {
		chunk, err = br.ReadSlice('\n')
		parts = append(parts, append([]byte(nil), chunk...))
		n += len(chunk)
	}
	return join(parts, n), err
}

// tapLine sends a whole line to tap, cut to the tap's frame limit.
func tapLine(tap *Tap, dir Direction, line []byte) {
	data := line
	if limit := tap.FrameLimit(); limit > 0 && len(data) > limit {
		data = data[:limit]
	}
	tap.Send(frameOf(dir, data, int64(len(line))))
}

// trimEOL is line without its line ending.
func trimEOL(line []byte) []byte {
	n := len(line)
	if n > 0 && line[n-1] == '\n' {
		n--
		if n > 0 && line[n-1] == '\r' {
			n--
		}
	}
	return line[:n]
}

// relayHostGoverned is the host→server relay with governance on: lines
// are read whole; conn forwards those it takes itself, decided at once
// or on goroutines of their own, so a held call blocks no other frame,
// and the rest are forwarded as they came. Every line the host sent is
// tapped as it arrives.
func relayHostGoverned(ctx context.Context, conn *Conn, server *lineWriter, src io.Reader, tap *Tap) error {
	return relayLines(src, func(line []byte) error {
		tapLine(tap, HostToServer, line)
		run, done := conn.take(ctx, trimEOL(line), nil)
		switch {
		case done:
		case run != nil:
			go run()
		default:
			return server.write(line)
		}
		return nil
	})
}

// relayServerGoverned is the server→host relay with governance on: the
// answers of governed calls and tools/list answers go to conn, which
// writes and taps what the host gets; every other line is tapped and
// relayed as it came.
func relayServerGoverned(conn *Conn, host *lineWriter, src io.Reader, tap *Tap) error {
	return relayLines(src, func(line []byte) error {
		if conn.FromServer(trimEOL(line)) {
			return nil
		}
		tapLine(tap, ServerToHost, line)
		return host.write(line)
	})
}

// relayLines passes each line of src, whole with its ending, to relay,
// until src ends (which is no error) or fails; an error of relay, a
// write's, ends it as a [*WriteError].
func relayLines(src io.Reader, relay func(line []byte) error) error {
	br := bufio.NewReaderSize(src, relayBuffer)
	for {
		line, err := readWhole(br)
		if len(line) > 0 {
			if werr := relay(line); werr != nil {
				return &WriteError{werr}
			}
		}
		switch {
		case err == nil:
		case errors.Is(err, io.EOF):
			return nil
		default:
			return err
		}
	}
}
