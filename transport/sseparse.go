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
// An event's data is held about once: a data line longer than spill bytes
// is not grown by appending (which copies it at each doubling and leaves
// the old arrays to the GC) but read straight into the event's data, in
// chunks of growing size that are joined once, into a slice of the exact
// size, when the event is dispatched. With max set, an event whose data (or
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

	// The event being built: its data fields joined with "\n".
	data      eventData
	hasData   bool
	eventType string

	// line is the current line, reused; a data line streamed into data
	// keeps its start only (at least sniffLen bytes, for a cut).
	line    []byte
	lineLen int  // the length of the current line so far
	afterCR bool // the last line ended with CR: skip one LF
	started bool // the byte-order mark check is done

	// spill is the length beyond which a data line is read into data
	// directly rather than into line. streaming tells that the current
	// line is such a line; lineStart is the length data had before it
	// (and its separator).
	spill     int
	streaming bool
	lineStart int64
}

// defaultSpill is sseReader.spill: lines up to it are read whole, which
// costs little; beyond, a data line goes straight into the event's data.
const defaultSpill = 64 << 10

// newSSEReader returns a parser of r whose last event ID starts as lastID.
func newSSEReader(r io.Reader, lastID string) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 64<<10), lastID: lastID, idBuf: lastID, spill: defaultSpill}
}

// eventData accumulates the data of an event in chunks of growing size, as
// [readChunked] reads a body: nothing is copied while the data grows, and
// take joins the chunks once into a slice of the exact size.
type eventData struct {
	chunks [][]byte // the last one may have room left
	n      int64    // bytes held
	// first is the first chunk, kept from one event to the next: small
	// events, the usual ones, then allocate only their own copy.
	first []byte
}

// write appends b.
func (d *eventData) write(b []byte) {
	for len(b) > 0 {
		k := len(d.chunks)
		if k == 0 || len(d.chunks[k-1]) == cap(d.chunks[k-1]) {
			var c []byte
			switch {
			case k == 0 && d.first != nil:
				c = d.first[:0]
			case k == 0:
				c = make([]byte, 0, firstChunk)
				d.first = c
			default:
				c = make([]byte, 0, min(2*cap(d.chunks[k-1]), maxChunk))
			}
			d.chunks = append(d.chunks, c)
			k++
		}
		last := d.chunks[k-1]
		m := min(len(b), cap(last)-len(last))
		d.chunks[k-1] = append(last, b[:m]...)
		d.n += int64(m)
		b = b[m:]
	}
}

// writeByte appends c.
func (d *eventData) writeByte(c byte) { d.write([]byte{c}) }

// head returns a copy of the first n bytes held (fewer if fewer are).
func (d *eventData) head(n int64) []byte {
	out := make([]byte, 0, min(n, d.n))
	for _, c := range d.chunks {
		if int64(len(out)) >= n {
			break
		}
		out = append(out, c[:min(int64(len(c)), n-int64(len(out)))]...)
	}
	return out
}

// take returns the data held, in a slice of its own of the exact size,
// and empties d. Each chunk but the reused first one is released as it is
// copied (see [joinChunks]).
func (d *eventData) take() []byte {
	var out []byte
	switch len(d.chunks) {
	case 0:
	case 1:
		// Small: copied, the chunk is reused.
		out = make([]byte, d.n)
		copy(out, d.chunks[0])
	default:
		out = joinChunks(d.chunks, d.n) // first still holds the first chunk
	}
	d.reset()
	return out
}

// reset forgets the data held, keeping the first chunk for the next event.
func (d *eventData) reset() {
	clear(d.chunks)
	d.chunks, d.n = d.chunks[:0], 0
}

// held returns the bytes of memory d holds, for tests.
func (d *eventData) held() int {
	total := cap(d.first)
	for _, c := range d.chunks[min(1, len(d.chunks)):] {
		total += cap(c)
	}
	return total
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
			p.streaming = false
			if big := p.reported(); big != nil {
				return sseEvent{}, big
			}
			continue
		}
		if p.streaming {
			// A long data line, read into data already.
			p.streaming = false
			p.hasData = true
			p.checkSize()
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
			// WHATWG dispatches "data:" with an empty value as an empty
			// message; MCP uses such events only to prime resumption
			// (an id, a retry), so they are not dispatched here.
			if !p.hasData || p.data.n == 0 {
				p.data.reset()
				p.hasData, p.eventType = false, ""
				continue
			}
			// The caller owns ev.Data: one slice of the exact size, the
			// only copy of the data the parser makes.
			ev := sseEvent{Type: p.eventType, ID: p.lastID, Data: p.data.take()}
			p.hasData, p.eventType = false, ""
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
		p.checkSize()
		if big := p.reported(); big != nil {
			return sseEvent{}, big
		}
	}
}

// checkSize marks the event too large if its data went over max.
func (p *sseReader) checkSize() {
	if p.max > 0 && p.data.n > p.max {
		p.overflow(nil)
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
	p.data.reset()
	p.hasData, p.eventType = false, ""
	p.tooBig, p.head, p.lineCut, p.report, p.streaming = false, nil, false, false, false
}

// overflow marks the current event as too large, keeping the start of its
// data (or of line, the start of a data line cut short) and releasing the
// rest.
func (p *sseReader) overflow(line []byte) {
	if p.tooBig {
		return
	}
	p.tooBig, p.report = true, true
	if p.hasData || !bytes.HasPrefix(line, []byte("data:")) {
		// The data of the lines before: not the separator nor the part
		// of a line cut short that was read into data.
		n := p.data.n
		if p.streaming {
			n = p.lineStart
		}
		p.head = p.data.head(min(n, sniffLen))
	} else {
		value := bytes.TrimPrefix(line[len("data:"):], []byte(" "))
		p.head = bytes.Clone(value[:min(len(value), sniffLen)])
	}
	p.data.reset()
	p.hasData = false
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
		if p.hasData {
			p.data.writeByte('\n')
		}
		p.data.write(value)
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
//
// A data line longer than spill is read into the event's data as it
// arrives, with its separator: readLine then sets streaming and returns
// the line's start only.
func (p *sseReader) readLine() ([]byte, error) {
	p.line, p.lineLen = p.line[:0], 0
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
		if limit >= 0 && p.lineLen+len(seg) > limit {
			// Too long: keep its start, return now, discard the rest
			// later. What is kept does not depend on how reads split
			// the input: there are more than limit bytes by now. line
			// holds the whole line so far when it is shorter than keep.
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
		p.lineLen += len(seg)
		p.keepLine(seg)
		if end >= 0 {
			p.afterCR = buf[end] == '\r'
			p.r.Discard(end + 1)
			return p.line, nil
		}
		p.r.Discard(len(buf))
	}
}

// keepLine adds seg, the next bytes of the current line, to line, or to
// the event's data once the line is a data line longer than spill.
func (p *sseReader) keepLine(seg []byte) {
	if !p.streaming && !p.tooBig && len(p.line)+len(seg) > p.spill {
		// The line just got long: a data line goes to the data from now
		// on, its start included.
		take := max(p.spill-len(p.line), 0)
		p.line = append(p.line, seg[:take]...)
		seg = seg[take:]
		if bytes.HasPrefix(p.line, []byte("data:")) {
			p.streaming, p.lineStart = true, p.data.n
			if p.hasData {
				p.data.writeByte('\n')
			}
			p.data.write(bytes.TrimPrefix(p.line[len("data:"):], []byte(" ")))
		}
	}
	if !p.streaming {
		p.line = append(p.line, seg...)
		return
	}
	p.data.write(seg)
	// Keep the start of the line, for the head of a line cut short.
	if n := sniffLen - len(p.line); n > 0 {
		p.line = append(p.line, seg[:min(n, len(seg))]...)
	}
}
