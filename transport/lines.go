package transport

import (
	"bytes"
	"errors"
	"io"
)

const (
	// lineBufSize is the read buffer of a [LineReader]: one pipe's worth,
	// so a typical read fills it in one system call and a line shorter than
	// it costs one exactly sized allocation.
	lineBufSize = 64 << 10
	// maxLineChunk caps the pieces a long line is collected in (see
	// pieceSize): a 100 MB line takes about a hundred allocations.
	maxLineChunk = 1 << 20
	// maxEmptyReads is how many reads returning nothing and no error
	// [LineReader] tolerates before giving up, as bufio does.
	maxEmptyReads = 100
)

// LineReader splits a byte stream into newline-terminated lines, none
// longer than a limit: the framing of the stdio transport, and of any input
// of newline-delimited messages (a batch's NDJSON). It is separate from the
// process handling so that it can be tested and fuzzed over any io.Reader.
// A LineReader is not safe for concurrent use.
//
// Memory: a line that fits the read buffer is copied once into a slice of
// exactly its length. A longer line is collected in pieces and then copied
// once into an exactly sized slice, so reading it costs about twice its
// size in allocations, at most twice its size at the peak, and its size
// once Next returns (the pieces are garbage by then). A line over the limit
// is never buffered beyond the limit: from the moment it crosses it, its
// bytes are read and dropped.
type LineReader struct {
	r     io.Reader
	limit int64
	what  string // names a line in MessageTooLargeError

	buf        []byte // buf[start:end] has been read but not yet returned
	start, end int
	err        error // what ended r; reported once buf is used up
	skip       bool  // the rest of an over-limit line, up to its newline, is to be dropped
}

// NewLineReader returns a LineReader over r that accepts lines of at most
// limit bytes (not counting the newline); limit <= 0 means
// [DefaultMaxMessageSize]. what names a line in errors ("stdio line").
func NewLineReader(r io.Reader, limit int64, what string) *LineReader {
	if limit <= 0 {
		limit = DefaultMaxMessageSize
	}
	return &LineReader{r: r, limit: limit, what: what, buf: make([]byte, lineBufSize)}
}

// Next returns the next line without its newline (a trailing "\r" is left
// to the caller). The slice is the caller's. An unterminated last line is
// returned as a line when the stream ends with io.EOF, and the next call
// returns the error; after any other read error the partial line is
// dropped and the error returned.
//
// A line longer than the limit is reported as a [*MessageTooLargeError] as
// soon as it crosses the limit, without waiting for its end; the following
// call first drops the rest of it, up to and including its newline, and
// then returns the line after it.
func (l *LineReader) Next() ([]byte, error) {
	if l.skip {
		if err := l.skipLine(); err != nil {
			return nil, err
		}
	}
	var (
		pieces  [][]byte // the collected start of a line longer than buf
		cur     []byte   // the last piece, being filled
		stashed int64    // bytes in pieces and cur
		scanned int      // bytes of buf[start:end] known to hold no newline
	)
	for {
		data := l.buf[l.start:l.end]
		if i := bytes.IndexByte(data[scanned:], '\n'); i >= 0 {
			i += scanned
			l.start += i + 1
			if stashed+int64(i) > l.limit {
				return nil, l.tooLarge()
			}
			if cur != nil {
				pieces = append(pieces, cur)
			}
			return join(pieces, data[:i], stashed), nil
		}
		scanned = len(data)
		if stashed+int64(len(data)) > l.limit {
			l.start = l.end
			l.skip = true
			return nil, l.tooLarge()
		}
		if l.err != nil {
			l.start = l.end
			if errors.Is(l.err, io.EOF) && stashed+int64(len(data)) > 0 {
				if cur != nil {
					pieces = append(pieces, cur)
				}
				return join(pieces, data, stashed), nil
			}
			return nil, l.err
		}
		if l.end == len(l.buf) {
			if l.start > 0 {
				// Make room by moving the line's start to the front,
				// as bufio does, so a short line that straddles two
				// reads costs no piece.
				copy(l.buf, data)
				l.start, l.end = 0, len(data)
			} else {
				// The line fills the whole buffer: move it out.
				for len(data) > 0 {
					if len(cur) == cap(cur) {
						if cur != nil {
							pieces = append(pieces, cur)
						}
						cur = make([]byte, 0, pieceSize(stashed, l.limit-stashed))
					}
					k := copy(cur[len(cur):cap(cur)], data)
					cur = cur[:len(cur)+k]
					data = data[k:]
					stashed += int64(k)
				}
				l.start, l.end, scanned = 0, 0, 0
			}
		}
		l.fill()
	}
}

// pieceSize is the capacity of the next piece of a line of which stashed
// bytes are collected: an eighth of that, so the unused tail of the last
// piece wastes at most an eighth of the line, in whole buffers between
// lineBufSize and maxLineChunk, and never more than the limit leaves room
// for (remaining >= 1 whenever a piece is needed).
func pieceSize(stashed, remaining int64) int {
	n := min(max(stashed/8/lineBufSize*lineBufSize, lineBufSize), maxLineChunk)
	return int(min(n, remaining))
}

// join copies pieces and tail into one slice of exactly their total length.
func join(pieces [][]byte, tail []byte, stashed int64) []byte {
	line := make([]byte, stashed+int64(len(tail)))
	n := 0
	for _, p := range pieces {
		n += copy(line[n:], p)
	}
	copy(line[n:], tail)
	return line
}

// skipLine drops input up to and including the next newline.
func (l *LineReader) skipLine() error {
	for {
		if i := bytes.IndexByte(l.buf[l.start:l.end], '\n'); i >= 0 {
			l.start += i + 1
			l.skip = false
			return nil
		}
		l.start, l.end = 0, 0
		if l.err != nil {
			return l.err
		}
		l.fill()
	}
}

// fill reads once into the free end of buf, recording the error that ends
// the stream.
func (l *LineReader) fill() {
	for range maxEmptyReads {
		n, err := l.r.Read(l.buf[l.end:])
		if n < 0 || n > len(l.buf)-l.end {
			l.err = errors.New("invalid count from Read")
			return
		}
		l.end += n
		if err != nil {
			l.err = err
			return
		}
		if n > 0 {
			return
		}
	}
	l.err = io.ErrNoProgress
}

func (l *LineReader) tooLarge() error {
	return &MessageTooLargeError{What: l.what, Limit: l.limit}
}
