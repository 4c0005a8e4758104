package transport

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"time"
)

// sseEvent is one dispatched server-sent event.
type sseEvent struct {
	// Type is the event field; "" means the default type, "message".
	Type string
	// Data is the data fields joined with "\n". Never empty: events with
	// empty data are not dispatched (their id and retry still count).
	Data []byte
	// ID is the last event ID at the time the event was dispatched.
	ID string
}

// sseReader parses a text/event-stream body following the WHATWG HTML
// "event stream interpretation" rules: CRLF, LF and CR line endings; ':'
// comments; the fields event, data, id and retry; a blank line dispatches.
//
// Lines have no length limit and an event's data is accumulated once, so a
// single 50 MB message costs about twice its size in memory, not more.
type sseReader struct {
	r *bufio.Reader

	// lastID is the last event ID string: what a reconnection sends as
	// Last-Event-ID. It is updated when an event is dispatched (even one
	// without data) and outlives events and, when a stream is resumed, the
	// connection (the caller seeds it). idBuf is the id field being read.
	lastID string
	idBuf  string
	// retry is the last valid retry field; retrySet tells whether there was
	// one.
	retry    time.Duration
	retrySet bool

	// The event being built.
	data      []byte
	hasData   bool
	eventType string

	line    []byte // the current line, reused
	afterCR bool   // the last line ended with CR: skip one LF
	started bool   // the byte-order mark check is done
}

// newSSEReader returns a parser of r whose last event ID starts as lastID.
func newSSEReader(r io.Reader, lastID string) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 64<<10), lastID: lastID, idBuf: lastID}
}

// Next returns the next event with data. At the end of input it returns
// io.EOF (or the read error); an event not terminated by a blank line is
// discarded, as the standard requires.
func (p *sseReader) Next() (sseEvent, error) {
	for {
		line, err := p.readLine()
		if err != nil {
			p.data, p.hasData, p.eventType = p.data[:0], false, ""
			return sseEvent{}, err
		}
		if len(line) == 0 {
			p.lastID = p.idBuf
			// Each data line appended a "\n"; the last one is removed.
			// WHATWG dispatches "data:" with an empty value as an empty
			// message; MCP uses such events only to prime resumption
			// (an id, a retry), so they are not dispatched here.
			if !p.hasData || len(p.data) == 1 {
				p.data, p.hasData, p.eventType = p.data[:0], false, ""
				continue
			}
			ev := sseEvent{Type: p.eventType, ID: p.lastID}
			ev.Data = p.data[:len(p.data)-1]
			// The caller owns ev.Data: start a fresh buffer.
			p.data, p.hasData, p.eventType = nil, false, ""
			return ev, nil
		}
		p.field(line)
	}
}

// field processes one non-blank line.
func (p *sseReader) field(line []byte) {
	if line[0] == ':' {
		return // comment
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "event":
		p.eventType = string(value)
	case "data":
		p.data = append(p.data, value...)
		p.data = append(p.data, '\n')
		p.hasData = true
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			p.idBuf = string(value)
		}
	case "retry":
		if len(value) == 0 {
			return
		}
		for _, b := range value {
			if b < '0' || b > '9' {
				return
			}
		}
		ms, err := strconv.ParseInt(string(value), 10, 64)
		if err != nil || ms > int64(24*time.Hour/time.Millisecond) {
			return // absurd values are ignored rather than overflowing
		}
		p.retry, p.retrySet = time.Duration(ms)*time.Millisecond, true
	}
}

// readLine returns the next line without its terminator. The slice is valid
// until the next call. A final line with no terminator is not a line: at the
// end of input it is dropped and the error returned.
func (p *sseReader) readLine() ([]byte, error) {
	p.line = p.line[:0]
	if !p.started {
		p.started = true
		// A leading byte-order mark is not part of the first line. Peek
		// waits for three bytes, which any real first line has.
		if b, _ := p.r.Peek(3); bytes.Equal(b, []byte("\xEF\xBB\xBF")) {
			p.r.Discard(3)
		}
	}
	for {
		if p.r.Buffered() == 0 {
			if _, err := p.r.Peek(1); err != nil {
				return nil, err
			}
		}
		buf, _ := p.r.Peek(p.r.Buffered())
		if p.afterCR {
			p.afterCR = false
			if buf[0] == '\n' {
				p.r.Discard(1)
				continue
			}
		}
		end := bytes.IndexByte(buf, '\n')
		search := buf
		if end >= 0 {
			search = buf[:end]
		}
		if cr := bytes.IndexByte(search, '\r'); cr >= 0 {
			end = cr
		}
		if end >= 0 {
			p.line = append(p.line, buf[:end]...)
			p.afterCR = buf[end] == '\r'
			p.r.Discard(end + 1)
			return p.line, nil
		}
		p.line = append(p.line, buf...)
		p.r.Discard(len(buf))
	}
}
