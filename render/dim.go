package render

import (
	"bytes"
	"io"
	"sync"
	"unicode/utf8"
)

// FlushWriter is an io.Writer that may hold back the end of its input until
// more arrives; Flush writes what it holds.
type FlushWriter interface {
	io.Writer
	Flush() error
}

// maxPartialLine bounds how much of an unfinished line a [DimWriter] holds:
// a server that never writes a newline still gets its stderr shown, and
// memory stays small.
const maxPartialLine = 64 << 10

// StderrWriter returns a writer for a server's stderr lines, going to w.
//
// When neither tty nor color is set (stderr is piped) it passes bytes
// through to w unchanged and Flush does nothing. Otherwise it works line by
// line: each complete line is sanitised ([Sanitize]: a server's escape
// sequences are shown, not obeyed) and, when color is set, wrapped in the
// faint style. An unfinished line is held until its newline arrives, Flush
// is called, or it grows past 64 KiB. Holding partial lines keeps the
// style's escape sequences from landing inside a multi-byte character, and
// a character split between two writes from looking invalid. Call Flush
// when the stream ends.
//
// The writer may be used from several goroutines; each Write reaches w as
// a single Write, so lines from one writer never interleave with lines
// written to w elsewhere mid-line.
func StderrWriter(w io.Writer, tty, color bool) FlushWriter {
	if !tty && !color {
		return passThrough{w}
	}
	d := &dimWriter{w: w}
	if color {
		d.sp = spanOf(newStyles(newRenderer(w, true)).dim)
	}
	return d
}

// DimWriter is [StderrWriter] for a destination that is a terminal exactly
// when it has colour: StderrWriter(w, color, color).
func DimWriter(w io.Writer, color bool) FlushWriter { return StderrWriter(w, color, color) }

type passThrough struct{ w io.Writer }

func (p passThrough) Write(b []byte) (int, error) { return p.w.Write(b) }
func (passThrough) Flush() error                  { return nil }

type dimWriter struct {
	mu      sync.Mutex
	w       io.Writer
	sp      span
	partial []byte // unfinished line held back
	buf     []byte // output being assembled, reused between writes
}

// eachLine calls line with each complete line of p, the first joined to
// the unfinished line held in *partial (which it empties), and returns what
// follows the last newline. A line is only valid during its call.
func eachLine(partial *[]byte, p []byte, line func([]byte)) (rest []byte) {
	rest = p
	for {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			return rest
		}
		l := rest[:i]
		rest = rest[i+1:]
		if len(*partial) > 0 {
			*partial = append(*partial, l...)
			l = *partial
			*partial = (*partial)[:0]
		}
		line(l)
	}
}

func (d *dimWriter) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.buf = d.buf[:0]
	rest := eachLine(&d.partial, p, d.appendLine)
	d.partial = append(d.partial, rest...)
	if len(d.partial) > maxPartialLine {
		cut := runeBoundary(d.partial)
		d.appendStyled(d.partial[:cut])
		d.partial = append(d.partial[:0], d.partial[cut:]...)
	}
	if len(d.buf) == 0 {
		return len(p), nil
	}
	_, err := d.w.Write(d.buf)
	if cap(d.buf) > 1<<20 {
		d.buf = nil // do not keep a burst's buffer for the life of the server
	}
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes a held partial line, styled, without adding a newline.
func (d *dimWriter) Flush() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.partial) == 0 {
		return nil
	}
	d.buf = d.buf[:0]
	d.appendStyled(d.partial)
	d.partial = d.partial[:0]
	_, err := d.w.Write(d.buf)
	return err
}

// appendLine adds one line, given without its "\n", keeping a "\r\n" end
// outside the style.
func (d *dimWriter) appendLine(line []byte) {
	end := "\n"
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line, end = line[:n-1], "\r\n"
	}
	d.appendStyled(line)
	d.buf = append(d.buf, end...)
}

func (d *dimWriter) appendStyled(b []byte) {
	if len(b) == 0 {
		return
	}
	d.buf = append(d.buf, d.sp.pre...)
	d.buf = appendSanitized(d.buf, b)
	d.buf = append(d.buf, d.sp.post...)
}

// runeBoundary returns the length of the longest prefix of b that does not
// end inside a UTF-8 encoded character.
func runeBoundary(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if utf8.FullRune(b[i:]) {
				return len(b)
			}
			return i
		}
	}
	return len(b)
}
