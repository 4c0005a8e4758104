package proxy

import (
	"bufio"
	"errors"
	"io"
	"time"
)

// relayBuffer is the size of the relay's read buffer: a frame smaller than
// this is read and written in one piece.
const relayBuffer = 64 << 10

// WriteError is a relay's failure to write to its destination: the side
// reading it went away.
type WriteError struct{ Err error }

func (e *WriteError) Error() string { return "writing: " + e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// relay copies src to dst as the bytes arrive, unchanged, and sends each
// line (a frame) to tap just before its last byte is written. Bytes are
// written as soon as they are read, so a frame larger than the buffer
// flows through in pieces and is never held whole for the relay's sake;
// only the tap's copy of it is (up to the tap's limit). It returns nil at
// the end of src, a [*WriteError] when dst fails, or src's error.
func relay(dst io.Writer, src io.Reader, dir Direction, tap *Tap) error {
	br := bufio.NewReaderSize(src, relayBuffer)
	limit := tap.FrameLimit()
	var (
		parts [][]byte // copies of the frame's pieces so far, up to limit
		kept  int
		size  int64
	)
	emit := func() {
		tap.Send(frameOf(dir, join(parts, kept), size))
		parts, kept, size = nil, 0, 0
	}
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			if room := limit - kept; room > 0 {
				piece := chunk[:min(room, len(chunk))]
				parts = append(parts, append([]byte(nil), piece...))
				kept += len(piece)
			}
			size += int64(len(chunk))
			if chunk[len(chunk)-1] == '\n' {
				// Tapped before its last byte is written: the answer the
				// frame provokes, relayed by the other direction's
				// goroutine, then always reaches the tap after it.
				emit()
			}
			if _, werr := dst.Write(chunk); werr != nil {
				return &WriteError{werr}
			}
		}
		switch {
		case err == nil, errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if size > 0 {
				// A last frame without its newline is still a frame.
				emit()
			}
			return nil
		default:
			return err
		}
	}
}

// join returns the pieces of a frame as one slice of n bytes. A frame
// larger than the read buffer comes in pieces that are each copied once
// and joined once into a slice of exactly its size: growing one slice as
// the pieces come would leave a trail of ever larger garbage slices, as
// much again as the frame, before the collector catches up.
func join(parts [][]byte, n int) []byte {
	if len(parts) == 1 {
		return parts[0]
	}
	out := make([]byte, 0, n)
	for i, p := range parts {
		out = append(out, p...)
		parts[i] = nil
	}
	return out
}

// frameOf makes the frame of a line: its bytes without the line ending.
func frameOf(dir Direction, line []byte, size int64) Frame {
	if n := len(line); n > 0 && int64(n) == size && line[n-1] == '\n' {
		line, size = line[:n-1], size-1
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line, size = line[:n-1], size-1
		}
	}
	return Frame{Time: time.Now(), Dir: dir, Data: line, Size: size}
}
