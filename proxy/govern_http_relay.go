package proxy

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/mcpctl/mcpctl/transport"
)

// errLegacyGoverned ends a legacy HTTP+SSE event stream under governance:
// that transport answers POSTs on the event stream, where the proxy does
// not answer governed requests.
var errLegacyGoverned = errors.New("mcpctl proxy: the legacy HTTP+SSE transport is not governed; use Streamable HTTP")

// modify reads a relayed answer through the governor: it files the
// session an initialize opened and, when the answer may hold messages the
// governor reads, replaces its body by one that passes each message to
// the governor, with what the governor writes in place of those it takes.
// It reports whether it replaced the body.
func (gx *govExchange) modify(h *HTTP, resp *http.Response, sse, plain bool, onRead func()) (bool, error) {
	if gx.initialize != nil && resp.StatusCode/100 == 2 {
		h.register(resp.Header.Get("Mcp-Session-Id"), gx.s, gx.initialize)
	}
	if !gx.filter || !plain {
		return false, nil
	}
	if sse {
		resp.Header.Del("Content-Length")
		resp.ContentLength = -1
		resp.Body = &govEvents{r: resp.Body, sp: eventSplitter{r: resp.Body, onRead: onRead}, gx: gx, tap: h.Tap, status: resp.StatusCode, session: answerSession(resp)}
		return true, nil
	}
	if resp.Request.Method != http.MethodPost {
		return false, nil
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, transport.DefaultMaxMessageSize))
	resp.Body.Close()
	if err != nil {
		return true, err
	}
	out := gx.filterJSON(h.Tap, data, resp.StatusCode, answerSession(resp))
	resp.Body = io.NopCloser(bytes.NewReader(out))
	resp.ContentLength = int64(len(out))
	resp.Header.Set("Content-Length", strconv.Itoa(len(out)))
	return true, nil
}

// filterJSON passes the messages of a JSON answer to the governor and
// returns the body with what it wrote in place of those it took; the body
// as it came when it took none.
func (gx *govExchange) filterJSON(tap *Tap, data []byte, status int, session string) []byte {
	var items, relayed [][]byte
	taken := false
	for msg := range Messages(data) {
		if gx.s.conn.FromServer(msg) {
			taken = true
			items = append(items, gx.capture.take()...)
			continue
		}
		items, relayed = append(items, msg), append(relayed, msg)
	}
	batch := bytes.HasPrefix(bytes.TrimSpace(data), []byte("["))
	if !taken || (!batch && len(items) != 1) {
		tapStatus(tap, data, status, session)
		return data
	}
	if !batch {
		return items[0]
	}
	for _, msg := range relayed {
		tapStatus(tap, msg, status, session)
	}
	return append(append([]byte{'['}, bytes.Join(items, []byte{','})...), ']')
}

// tapStatus sends a server message of an HTTP session, answered with
// status, to the tap.
func tapStatus(tap *Tap, msg []byte, status int, session string) {
	data := bytes.TrimSpace(msg)
	size := int64(len(data))
	if l := tap.FrameLimit(); len(data) > l {
		data = data[:l]
	}
	tap.Send(Frame{Time: time.Now(), Dir: ServerToHost, Data: data, Size: size, Status: status, Session: session})
}

// govEvents is a relayed event stream read through the governor: each
// message event goes to it; an event it takes is replaced by what it
// wrote in its place (nothing, or a filtered tools/list answer), with the
// event's id kept; every other byte passes as it came.
type govEvents struct {
	r      io.ReadCloser
	sp     eventSplitter
	gx     *govExchange
	tap    *Tap
	status int
	// session is the HTTP session of the stream's frames.
	session string

	out []byte
	err error
}

func (g *govEvents) Read(p []byte) (int, error) {
	for len(g.out) == 0 && g.err == nil {
		raw, err := g.sp.next()
		if len(raw) > 0 {
			g.out = g.handle(raw)
		}
		if err != nil && g.err == nil {
			g.err = err
		}
	}
	if len(g.out) > 0 {
		n := copy(p, g.out)
		g.out = g.out[n:]
		return n, nil
	}
	return 0, g.err
}

// Close closes the stream.
func (g *govEvents) Close() error { return g.r.Close() }

// handle is what the host gets for one event.
func (g *govEvents) handle(raw []byte) []byte {
	ev := parseEvent(raw)
	if ev.name == "endpoint" {
		g.tap.Note("error", map[string]any{"op": "govern", "error": errLegacyGoverned.Error()})
		g.err = errLegacyGoverned
		return nil
	}
	if !ev.message() {
		return raw
	}
	if !g.gx.s.conn.FromServer(ev.data) {
		tapStatus(g.tap, ev.data, g.status, g.session)
		return raw
	}
	var out []byte
	for _, m := range g.gx.capture.take() {
		if ev.id != "" {
			out = append(append(append(out, "id: "...), ev.id...), '\n')
		}
		out = append(append(append(out, "event: message\ndata: "...), bridgeOneLine(m)...), "\n\n"...)
	}
	return out
}

// sseEvent is one event of an event stream.
type sseEvent struct {
	name, id string
	data     []byte
	hasData  bool
}

// message reports whether the event carries a JSON-RPC message.
func (e sseEvent) message() bool {
	return e.hasData && (e.name == "" || e.name == "message") && len(bytes.TrimSpace(e.data)) > 0
}

// parseEvent reads the fields of one event's bytes, as the SSE
// specification says.
func parseEvent(raw []byte) sseEvent {
	var ev sseEvent
	for len(raw) > 0 {
		i := bytes.IndexAny(raw, "\r\n")
		line := raw
		if i >= 0 {
			line = raw[:i]
			if raw[i] == '\r' && i+1 < len(raw) && raw[i+1] == '\n' {
				i++
			}
			raw = raw[i+1:]
		} else {
			raw = nil
		}
		if len(line) == 0 || line[0] == ':' {
			continue
		}
		name, value := line, []byte(nil)
		if j := bytes.IndexByte(line, ':'); j >= 0 {
			name, value = line[:j], bytes.TrimPrefix(line[j+1:], []byte(" "))
		}
		switch string(name) {
		case "data":
			if ev.hasData {
				ev.data = append(ev.data, '\n')
			}
			ev.data = append(ev.data, value...)
			ev.hasData = true
		case "event":
			ev.name = string(value)
		case "id":
			ev.id = string(value)
		}
	}
	return ev
}

// eventSplitter cuts an event stream into whole events, each with the
// blank line that ends it; concatenated, they are the stream's bytes.
type eventSplitter struct {
	r      io.Reader
	onRead func()

	buf       []byte
	pos       int  // the next byte of buf to look at
	midLine   bool // pos is not at the start of a line
	cr        bool // the byte before pos is a CR
	err       error
	readBlock []byte
}

// next returns the next whole event; at the end of the stream, what is
// left (which may be no whole event) with the reader's error.
func (s *eventSplitter) next() ([]byte, error) {
	for {
		if end := s.scan(); end >= 0 {
			ev := s.buf[:end:end]
			s.buf, s.pos = s.buf[end:], s.pos-end
			return ev, nil
		}
		if s.err != nil {
			rest := s.buf
			s.buf, s.pos = nil, 0
			return rest, s.err
		}
		if s.readBlock == nil {
			s.readBlock = make([]byte, 32<<10)
		}
		n, err := s.r.Read(s.readBlock)
		if n > 0 {
			s.buf = append(s.buf, s.readBlock[:n]...)
			if s.onRead != nil {
				s.onRead()
			}
		}
		s.err = err
	}
}

// scan looks on from pos for the blank line ending an event, and returns
// the offset just past it, or -1.
func (s *eventSplitter) scan() int {
	for s.pos < len(s.buf) {
		c := s.buf[s.pos]
		s.pos++
		if s.cr {
			s.cr = false
			if c == '\n' {
				continue
			}
		}
		if c != '\r' && c != '\n' {
			s.midLine = true
			continue
		}
		s.cr = c == '\r'
		if !s.midLine {
			return s.pos
		}
		s.midLine = false
	}
	return -1
}

// readEvents calls fn with each event of the stream r, until r ends; the
// end of the stream is no error.
func readEvents(r io.Reader, fn func(sseEvent)) error {
	sp := eventSplitter{r: r}
	for {
		raw, err := sp.next()
		if len(raw) > 0 {
			fn(parseEvent(raw))
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
