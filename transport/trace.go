package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// Trace directions, the values of [TraceEntry].Direction.
const (
	DirectionSend  = "send"  // a message mcpctl wrote to the server
	DirectionRecv  = "recv"  // a message mcpctl read from the server
	DirectionEvent = "event" // something that is not a message (see [Trace.Note])
)

// TraceEntry is one line of a trace: a message sent or received, or an event.
// It is exported so that tools reading traces back decode the same shape
// mcpctl writes.
type TraceEntry struct {
	// Time is when the entry was recorded, RFC 3339 with nanoseconds, UTC.
	Time string `json:"time"`
	// Direction is DirectionSend, DirectionRecv or DirectionEvent.
	Direction string `json:"direction"`
	// Message is the JSON-RPC message as it crossed the wire, after
	// redaction. Empty for events.
	Message json.RawMessage `json:"message,omitempty"`
	// Event names an event ("connect", "error", "close", or one a transport
	// reports through Note).
	Event string `json:"event,omitempty"`
	// Detail is the event's payload, any JSON value.
	Detail any `json:"detail,omitempty"`
	// Session is the HTTP session (Mcp-Session-Id) a message relayed by
	// the proxy belongs to; omitted when there is none, as over stdio.
	Session string `json:"session,omitempty"`
}

// Trace is a [Transport] that records every message of the connections it
// makes as NDJSON, one [TraceEntry] per line, for `mcpctl --trace`. Messages
// are passed through unchanged; only what is written to W is redacted.
//
// A Trace must not be copied after first use. Entries from all its
// connections and from Note are written in the order they were recorded,
// each in one Write call, except that an entry holding a message over
// 1 MiB is written in three (its start, the message, its end) so that the
// message is not copied; entries never interleave with each other. A
// message is recorded as it crossed the wire, except that one spread over
// several lines (an HTTP body may be) is compacted to keep the trace one
// entry per line, and one that is not JSON is recorded as a JSON string.
// Errors writing to W do not reach the session: a broken trace file should
// not break the session it observes. Reporting them is W's part (mcpctl's
// trace and record files print the first one on stderr).
type Trace struct {
	// Transport is the transport being traced.
	Transport Transport
	// W receives the trace. Nil discards it.
	W io.Writer
	// Redactor hides secrets in every recorded message and event detail
	// (the messages actually sent and received are not touched). Nil
	// records them as they are.
	Redactor *Redactor
	// Now tells the time; nil means time.Now. Tests set it for stable output.
	Now func() time.Time

	mu sync.Mutex
}

// traceInline is the size up to which a recorded message is copied into
// its entry so that the entry is one Write; larger ones are written in
// place.
const traceInline = 1 << 20

// Connect connects the inner transport and records a "connect" event whose
// detail is the transport's description when it has one (a fmt.Stringer, as
// [Command] is), or an "error" event if connecting fails.
func (t *Trace) Connect(ctx context.Context) (Connection, error) {
	var detail any
	if s := t.String(); s != "" {
		detail = s
	}
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		t.Note("error", map[string]any{"op": "connect", "error": err.Error()})
		return nil, err
	}
	t.Note("connect", detail)
	return &traceConn{t: t, conn: conn}, nil
}

// String is the traced transport's description, "" when it has none: a
// trace around a recording describes the transport recorded.
func (t *Trace) String() string {
	if s, ok := t.Transport.(fmt.Stringer); ok {
		return s.String()
	}
	return ""
}

// Note records an event that is not a message, such as an HTTP transport
// reporting which protocol variant it settled on. detail may be nil or any
// value encoding/json can marshal; one that cannot be is recorded as the
// string fmt.Sprint makes of it.
func (t *Trace) Note(event string, detail any) {
	if t.W == nil {
		return
	}
	name, err := marshalJSON(event)
	if err != nil {
		return
	}
	tail := append([]byte(`,"event":`), name...)
	if detail != nil {
		d, err := marshalJSON(detail)
		if err != nil {
			d, _ = marshalJSON(fmt.Sprint(detail))
		}
		tail = append(tail, `,"detail":`...)
		tail = append(tail, t.redactJSON(d)...)
	}
	t.write(DirectionEvent, tail, nil)
}

// message records a message sent or received.
func (t *Trace) message(dir string, msg json.RawMessage) {
	if t.W == nil {
		return
	}
	t.write(dir, []byte(`,"message":`), t.redactJSON(msg))
}

// redactJSON returns the form of the JSON text b to record: secrets
// replaced, on one line, and JSON whatever b was. It copies b only to
// change it.
func (t *Trace) redactJSON(b []byte) []byte {
	b = t.Redactor.Bytes(b)
	if !json.Valid(b) {
		// Keep the line parseable even if a peer or the redaction
		// produced something that is not JSON: record it as a string.
		s, _ := marshalJSON(string(b))
		return s
	}
	if bytes.IndexByte(b, '\n') >= 0 || bytes.IndexByte(b, '\r') >= 0 {
		var buf bytes.Buffer
		buf.Grow(len(b))
		json.Compact(&buf, b)
		return buf.Bytes()
	}
	return b
}

// write writes one entry: its time and direction, then fields (a JSON
// fragment starting with a comma), then body, which is written as it is.
func (t *Trace) write(dir string, fields, body []byte) {
	now := time.Now
	if t.Now != nil {
		now = t.Now
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	// Time is taken under the lock so that times never go backwards
	// through the file.
	inline := len(body) <= traceInline
	size := 64 + len(fields) + 2
	if inline {
		size += len(body)
	}
	head := make([]byte, 0, size)
	head = append(head, `{"time":"`...)
	head = now().UTC().AppendFormat(head, time.RFC3339Nano)
	head = append(head, `","direction":"`...)
	head = append(head, dir...)
	head = append(head, '"')
	head = append(head, fields...)
	if inline {
		head = append(head, body...)
		t.W.Write(append(head, "}\n"...))
		return
	}
	t.W.Write(head)
	t.W.Write(body)
	t.W.Write([]byte("}\n"))
}

// marshalJSON encodes v as encoding/json does, but leaves <, > and &
// alone: the trace shows text as the server wrote it.
func marshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// traceConn is the Connection returned by Trace.Connect.
type traceConn struct {
	t         *Trace
	conn      Connection
	closeOnce sync.Once
}

// Read reads from the inner connection and records what it got. Errors are
// not messages; the interesting ones (not cancellation, not our own Close)
// are recorded as "error" events.
func (c *traceConn) Read(ctx context.Context) (json.RawMessage, error) {
	msg, err := c.conn.Read(ctx)
	if err != nil {
		c.noteError("read", err)
		return nil, err
	}
	c.t.message(DirectionRecv, msg)
	return msg, nil
}

// Write records msg and then writes it. Recording first keeps a request
// ahead of its response in the trace even when another goroutine reads the
// response before Write returns.
func (c *traceConn) Write(ctx context.Context, msg json.RawMessage, opts WriteOptions) error {
	c.t.message(DirectionSend, msg)
	err := c.conn.Write(ctx, msg, opts)
	if err != nil {
		c.noteError("write", err)
	}
	return err
}

// WriteParts implements [PartsWriter] as Write: the message is recorded
// whole (joined only when there is a trace to write it to), and the parts
// passed on.
func (c *traceConn) WriteParts(ctx context.Context, parts [][]byte, opts WriteOptions) error {
	if c.t.W != nil {
		c.t.message(DirectionSend, bytes.Join(parts, nil))
	}
	err := WriteParts(ctx, c.conn, parts, opts)
	if err != nil {
		c.noteError("write", err)
	}
	return err
}

// Close closes the inner connection and records a "close" event, with the
// error if there was one, the first time it is called.
func (c *traceConn) Close() error {
	err := c.conn.Close()
	c.closeOnce.Do(func() {
		var detail any
		if err != nil {
			detail = map[string]any{"error": err.Error()}
		}
		c.t.Note("close", detail)
	})
	return err
}

func (c *traceConn) noteError(op string, err error) {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrClosed) {
		return
	}
	c.t.Note("error", map[string]any{"op": op, "error": err.Error()})
}

// WritesConcurrently implements [ConcurrentWriter] as the traced connection
// does: recording a message takes its own lock.
func (c *traceConn) WritesConcurrently() bool { return writesConcurrently(c.conn) }

// SetProtocolVersion passes the negotiated version on to the traced
// connection when it wants it (see [ProtocolVersionSetter]).
func (c *traceConn) SetProtocolVersion(version string) {
	if s, ok := c.conn.(ProtocolVersionSetter); ok {
		s.SetProtocolVersion(version)
	}
}
