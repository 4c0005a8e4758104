package proxy

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/mcpctl/mcpctl/transport"
)

// bodyTap passes a JSON body through unchanged and keeps a copy of its
// first limit bytes, which it sends to the tap as one frame once the body
// is read to its end (or to its declared length, so before the reader
// sees the end of it). Its reads may come from two goroutines (the
// transport writing a request, the proxy reading what is left of it after
// a failure), hence the lock.
type bodyTap struct {
	r      io.Reader
	tap    *Tap
	dir    Direction
	status int
	limit  int
	size   int64 // the declared length; -1 when unknown
	onRead func()
	// session is the HTTP session of the frame (see [Frame].Session).
	session string

	mu   sync.Mutex
	data []byte
	n    int64
	eof  bool
	sent bool
}

func (b *bodyTap) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.eof || (b.size >= 0 && b.n >= b.size) {
		// Not read again: the HTTP server closes a request's body once
		// the answer's headers are written, and the transport reads on
		// to check the length, which would then fail the connection.
		return 0, io.EOF
	}
	n, err := b.r.Read(p)
	b.eof = err == io.EOF
	if n > 0 {
		if room := b.limit - len(b.data); room > 0 {
			b.data = append(b.data, p[:min(n, room)]...)
		}
		b.n += int64(n)
		if b.onRead != nil {
			b.onRead()
		}
	}
	if err == io.EOF || (b.size >= 0 && b.n >= b.size) {
		b.sendLocked()
	}
	return n, err
}

// Close closes the body when it can be closed.
func (b *bodyTap) Close() error {
	if c, ok := b.r.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// flush sends what was read so far, if it was not sent yet.
func (b *bodyTap) flush() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sendLocked()
}

// drain reads what is left of the body and sends it.
func (b *bodyTap) drain() {
	io.Copy(io.Discard, b)
	b.flush()
}

// kept is the body's bytes kept so far.
func (b *bodyTap) kept() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.data
}

func (b *bodyTap) sendLocked() {
	if b.sent || b.n == 0 {
		return
	}
	b.sent = true
	data := bytes.TrimSpace(b.data)
	size := b.n - int64(len(b.data)-len(data))
	b.tap.Send(Frame{Time: time.Now(), Dir: b.dir, Data: data, Size: size, Status: b.status, Session: b.session})
}

// sseTap passes a server-sent event stream through unchanged and sends
// the data of each message event to the tap as a frame, as soon as the
// event is complete and before its last bytes are handed on. It parses
// the stream as it passes (any of the three line endings; data lines
// joined with "\n"), keeping at most limit bytes of a line and of an
// event's data.
type sseTap struct {
	r      io.ReadCloser
	tap    *Tap
	limit  int
	status int
	onRead func()
	// onTimeout, when set, makes the event that ends the stream in place
	// of a read error caused by the proxy's timeout; it returns nil when
	// the error was not that.
	onTimeout func() []byte
	// session is the HTTP session of the stream's frames (see
	// [Frame].Session).
	session string

	tail  []byte // the last bytes to hand on, then io.EOF
	ended bool

	line     []byte
	lineSize int64
	afterCR  bool
	data     []byte
	dataSize int64
	hasData  bool
	event    string
}

func (s *sseTap) Read(p []byte) (int, error) {
	if s.tail != nil {
		n := copy(p, s.tail)
		if s.tail = s.tail[n:]; len(s.tail) == 0 {
			s.tail, s.ended = nil, true
		}
		return n, nil
	}
	if s.ended {
		return 0, io.EOF
	}
	n, err := s.r.Read(p)
	if n > 0 {
		s.feed(p[:n])
		if s.onRead != nil {
			s.onRead()
		}
	}
	if err != nil && err != io.EOF && s.onTimeout != nil && s.atBoundary() {
		if ev := s.onTimeout(); ev != nil {
			s.tap.Note("upstream-timeout", nil)
			s.feed(ev)
			s.tail = ev
			return n, nil
		}
	}
	return n, err
}

// Close closes the stream.
func (s *sseTap) Close() error { return s.r.Close() }

// atBoundary reports whether the stream so far ends with a whole event.
func (s *sseTap) atBoundary() bool {
	return s.lineSize == 0 && !s.hasData && s.event == ""
}

// feed parses bytes of the stream.
func (s *sseTap) feed(b []byte) {
	for len(b) > 0 {
		if s.afterCR {
			s.afterCR = false
			if b[0] == '\n' {
				b = b[1:]
				continue
			}
		}
		i := bytes.IndexAny(b, "\r\n")
		if i < 0 {
			s.appendLine(b)
			return
		}
		s.appendLine(b[:i])
		s.afterCR = b[i] == '\r'
		b = b[i+1:]
		s.endLine()
	}
}

func (s *sseTap) appendLine(b []byte) {
	if room := s.limit - len(s.line); room > 0 {
		s.line = append(s.line, b[:min(len(b), room)]...)
	}
	s.lineSize += int64(len(b))
}

// endLine handles a complete line as the SSE specification says.
func (s *sseTap) endLine() {
	line, dropped := s.line, s.lineSize-int64(len(s.line))
	s.line, s.lineSize = s.line[:0], 0
	if len(line) == 0 && dropped == 0 {
		s.dispatch()
		return
	}
	if len(line) > 0 && line[0] == ':' {
		return
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		value = bytes.TrimPrefix(value, []byte(" "))
	}
	switch string(name) {
	case "data":
		if s.hasData {
			s.keep([]byte("\n"), 1)
		}
		s.keep(value, int64(len(value))+dropped)
		s.hasData = true
	case "event":
		s.event = string(value)
	}
}

// keep adds to the event's data, within the limit.
func (s *sseTap) keep(b []byte, size int64) {
	if room := s.limit - len(s.data); room > 0 {
		s.data = append(s.data, b[:min(len(b), room)]...)
	}
	s.dataSize += size
}

// dispatch ends an event: a message's data becomes a frame; the legacy
// transport's endpoint event becomes an event of the session.
func (s *sseTap) dispatch() {
	data, size, event, has := s.data, s.dataSize, s.event, s.hasData
	s.data, s.dataSize, s.event, s.hasData = nil, 0, "", false
	if !has {
		return
	}
	switch event {
	case "", "message":
		if len(bytes.TrimSpace(data)) == 0 {
			// An event without a message (a priming event giving only
			// an id for resumption).
			return
		}
		s.tap.Send(Frame{Time: time.Now(), Dir: ServerToHost, Data: data, Size: size, Status: s.status, Session: s.session})
	case "endpoint":
		s.tap.Note("endpoint", map[string]any{"url": transport.RedactURL(string(data))})
	}
}

// maxHeldEvent bounds the first event of a stream that [endpointRewrite]
// holds back; a longer one is passed on as it is.
const maxHeldEvent = 64 << 10

// endpointRewrite holds back the first event of a GET's event stream until
// it is complete and, when it is the legacy transport's endpoint event
// giving an absolute URL on the server's origin (from), rewrites that
// origin to the proxy's (to), so that the host posts its messages to the
// proxy. Everything after the first event passes as it comes.
type endpointRewrite struct {
	r        io.ReadCloser
	from, to string

	held []byte
	out  []byte
	err  error
	done bool
}

func (e *endpointRewrite) Read(p []byte) (int, error) {
	for !e.done {
		buf := make([]byte, 4096)
		n, err := e.r.Read(buf)
		e.held = append(e.held, buf[:n]...)
		if end := eventEnd(e.held); end >= 0 {
			e.out = append(rewriteEndpoint(e.held[:end], e.from, e.to), e.held[end:]...)
			e.done = true
		} else if err != nil || len(e.held) > maxHeldEvent {
			e.out, e.done = e.held, true
		}
		if err != nil {
			e.err, e.done = err, true
		}
	}
	if len(e.out) > 0 {
		n := copy(p, e.out)
		e.out = e.out[n:]
		return n, nil
	}
	if e.err != nil {
		return 0, e.err
	}
	return e.r.Read(p)
}

// Close closes the stream.
func (e *endpointRewrite) Close() error { return e.r.Close() }

// eventEnd is the offset just past the blank line ending the first event
// in b, or -1 when b holds no whole event yet.
func eventEnd(b []byte) int {
	lineStart := true
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\r' && c != '\n' {
			lineStart = false
			continue
		}
		end := i + 1
		if c == '\r' {
			if i+1 == len(b) {
				return -1 // a CR whose LF may be on its way
			}
			if b[i+1] == '\n' {
				end++
			}
		}
		if lineStart {
			return end
		}
		lineStart, i = true, end-1
	}
	return -1
}

// rewriteEndpoint rewrites the data of an endpoint event that starts with
// the origin from to start with to; any other event is returned as it is.
func rewriteEndpoint(ev []byte, from, to string) []byte {
	var lines []string
	rest := string(ev)
	for rest != "" {
		i := strings.IndexAny(rest, "\r\n")
		if i < 0 {
			lines, rest = append(lines, rest), ""
			break
		}
		end := i + 1
		if rest[i] == '\r' && end < len(rest) && rest[end] == '\n' {
			end++
		}
		lines, rest = append(lines, rest[:end]), rest[end:]
	}
	field := func(l string) (string, string) {
		l = strings.TrimRight(l, "\r\n")
		name, value, _ := strings.Cut(l, ":")
		return name, strings.TrimPrefix(value, " ")
	}
	endpoint := false
	for _, l := range lines {
		if name, value := field(l); name == "event" && value == "endpoint" {
			endpoint = true
		}
	}
	if !endpoint {
		return ev
	}
	var out strings.Builder
	for _, l := range lines {
		name, value := field(l)
		if name == "data" && len(value) >= len(from) && strings.EqualFold(value[:len(from)], from) {
			if rest := value[len(from):]; rest == "" || strings.ContainsRune("/?#", rune(rest[0])) {
				l = "data: " + to + rest + l[len(strings.TrimRight(l, "\r\n")):]
			}
		}
		out.WriteString(l)
	}
	return []byte(out.String())
}
