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
// An event's data is held once: the buffer of a single data line becomes
// the event's data without a copy. With max set, an event whose data (or
// any one line) exceeds max bytes is skipped as it is read: Next reports an
// [*eventTooLargeError] as soon as the event goes over the limit; if the
// caller reads on, the rest of the event is discarded, never buffered, and
// the next event follows.
type sseReader struct {
	r *bufio.Reader
	// max limits an event's data and any line; 0 means no limit.
	max int64
	// tooBig: the event being read went over max; head keeps the start of
	// its data (up to sniffLen bytes) for the caller to find its id.
	tooBig bool
	head   []byte
	report bool // tooBig was just set: Next reports it
	// lineCut: the line just read went over max and was cut; discarding:
	// the rest of that line is still to be skipped.
	lineCut    bool
	discarding bool

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

// sniffLen is how much of an oversized event's data is kept, to tell whose
// answer it was.
const sniffLen = 4 << 10

// eventTooLargeError is what Next returns for an event skipped because of
// its size. Head is the start of its data.
type eventTooLargeError struct {
	Head []byte
}

func (e *eventTooLargeError) Error() string { return "SSE event over the size limit" }

// Next returns the next event with data. At the end of input it returns
// io.EOF (or the read error); an event not terminated by a blank line is
// discarded, as the standard requires. An event over the size limit is
// reported as an *eventTooLargeError as soon as it goes over; reading can
// go on.
func (p *sseReader) Next() (sseEvent, error) {
	for {
		line, err := p.readLine()
		if err != nil {
			p.reset()
			return sseEvent{}, err
		}
		if p.lineCut {
			// The start of a line too long to keep: the event is lost.
			p.lineCut = false
			if len(line) > 0 && line[0] != ':' {
				p.overflow(line)
			}
			if big := p.reported(); big != nil {
				return sseEvent{}, big
			}
			continue
		}
		if len(line) == 0 {
			if p.tooBig {
				// The end of an event skipped for its size.
				p.lastID = p.idBuf
				p.reset()
				continue
			}
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
		if p.tooBig {
			// Only the id (and retry) of a skipped event still count.
			if bytes.HasPrefix(line, []byte("id")) || bytes.HasPrefix(line, []byte("retry")) {
				p.field(line)
			}
			continue
		}
		p.field(line)
		if p.max > 0 && int64(len(p.data)) > p.max+1 {
			p.overflow(nil)
			if big := p.reported(); big != nil {
				return sseEvent{}, big
			}
		}
	}
}

// reported returns the error for an event that just went over the limit,
// once.
func (p *sseReader) reported() error {
	if !p.report {
		return nil
	}
	p.report = false
	return &eventTooLargeError{Head: p.head}
}

// reset forgets the event being built.
func (p *sseReader) reset() {
	p.data, p.hasData, p.eventType = p.data[:0], false, ""
	p.tooBig, p.head, p.lineCut, p.report = false, nil, false, false
}

// overflow marks the current event as too large, keeping the start of its
// data (or of line, the start of a data line cut short) and releasing the
// rest.
func (p *sseReader) overflow(line []byte) {
	if p.tooBig {
		return
	}
	p.tooBig, p.report = true, true
	src := p.data
	if len(src) == 0 && bytes.HasPrefix(line, []byte("data:")) {
		src = bytes.TrimPrefix(line[len("data:"):], []byte(" "))
	}
	src = bytes.TrimSuffix(src, []byte("\n")) // the separator data lines get
	p.head = bytes.Clone(src[:min(len(src), sniffLen)])
	p.data, p.hasData = nil, false
	if cap(p.line) > 64<<10 {
		p.line = nil
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
		if !p.hasData && len(value) > 64<<10 {
			// A big single line: its buffer becomes the event's data, so
			// the message is held once. The line buffer starts afresh.
			p.data = append(value, '\n')
			p.line = nil
		} else {
			p.data = append(p.data, value...)
			p.data = append(p.data, '\n')
		}
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
// end of input it is dropped and the error returned. A line longer than
// max is cut: its start (up to sniffLen bytes) is returned at once with
// lineCut set, and the next call first discards the rest of it as it
// arrives.
func (p *sseReader) readLine() ([]byte, error) {
	p.line = p.line[:0]
	limit := -1
	if p.max > 0 {
		limit = int(min(p.max+int64(len("data: \n")), int64(^uint(0)>>1)))
		if p.tooBig {
			// The event is lost already: keep no more than its field name.
			limit = sniffLen
		}
	}
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
		if p.discarding {
			// The rest of a line cut short.
			if end < 0 {
				p.r.Discard(len(buf))
				continue
			}
			p.discarding = false
			p.afterCR = buf[end] == '\r'
			p.r.Discard(end + 1)
			continue
		}
		seg := buf
		if end >= 0 {
			seg = buf[:end]
		}
		if limit >= 0 && len(p.line)+len(seg) > limit {
			// Too long: keep its start, return now, discard the rest
			// later. What is kept does not depend on how reads split
			// the input: there are more than limit bytes by now.
			keep := min(sniffLen, limit+1)
			if len(p.line) < keep {
				p.line = append(p.line, seg[:keep-len(p.line)]...)
			}
			p.line = p.line[:keep]
			p.lineCut = true
			if end >= 0 {
				p.afterCR = buf[end] == '\r'
				p.r.Discard(end + 1)
			} else {
				p.r.Discard(len(buf))
				p.discarding = true
			}
			return p.line, nil
		}
		p.line = append(p.line, seg...)
		if end >= 0 {
			p.afterCR = buf[end] == '\r'
			p.r.Discard(end + 1)
			return p.line, nil
		}
		p.r.Discard(len(buf))
	}
}
