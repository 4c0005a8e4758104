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
}

// Trace is a [Transport] that records every message of the connections it
// makes as NDJSON, one [TraceEntry] per line, for `mcpctl --trace`. Messages
// are passed through unchanged; only the copy written to W is redacted.
//
// A Trace must not be copied after first use. Entries from all its
// connections and from Note are written whole, one Write call each, in the
// order they were recorded. Errors writing to W are ignored: a broken trace
// file should not break the session it observes.
type Trace struct {
	// Transport is the transport being traced.
	Transport Transport
	// W receives the trace. Nil discards it.
	W io.Writer
	// Redact, if set, returns the form of a message to record (for example
	// with secrets replaced). It must not modify its argument, which is the
	// message actually sent or received.
	Redact func(json.RawMessage) json.RawMessage
	// Now tells the time; nil means time.Now. Tests set it for stable output.
	Now func() time.Time

	mu sync.Mutex
}

// Connect connects the inner transport and records a "connect" event whose
// detail is the transport's description when it has one (a fmt.Stringer, as
// [Command] is), or an "error" event if connecting fails.
func (t *Trace) Connect(ctx context.Context) (Connection, error) {
	var detail any
	if s, ok := t.Transport.(fmt.Stringer); ok {
		detail = s.String()
	}
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		t.Note("error", map[string]any{"op": "connect", "error": err.Error()})
		return nil, err
	}
	t.Note("connect", detail)
	return &traceConn{t: t, conn: conn}, nil
}

// Note records an event that is not a message, such as an HTTP transport
// reporting which protocol variant it settled on. detail may be nil or any
// value encoding/json can marshal.
func (t *Trace) Note(event string, detail any) {
	t.write(TraceEntry{Direction: DirectionEvent, Event: event, Detail: detail})
}

// message records a message sent or received.
func (t *Trace) message(dir string, msg json.RawMessage) {
	if t.Redact != nil {
		msg = t.Redact(msg)
	}
	if !json.Valid(msg) {
		// Keep the line parseable even if a peer or Redact produced
		// something that is not JSON: record it as a string.
		msg, _ = json.Marshal(string(msg))
	}
	t.write(TraceEntry{Direction: dir, Message: msg})
}

func (t *Trace) write(e TraceEntry) {
	if t.W == nil {
		return
	}
	now := time.Now
	if t.Now != nil {
		now = t.Now
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	// Time is taken under the lock so that times never go backwards
	// through the file.
	e.Time = now().UTC().Format(time.RFC3339Nano)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// Record messages as the server wrote them, not with <, > and &
	// turned into \u escapes.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		// Only an unmarshalable Detail gets here; keep the event.
		e.Detail = fmt.Sprint(e.Detail)
		buf.Reset()
		if enc.Encode(e) != nil {
			return
		}
	}
	t.W.Write(buf.Bytes())
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
func (c *traceConn) Write(ctx context.Context, msg json.RawMessage) error {
	c.t.message(DirectionSend, msg)
	err := c.conn.Write(ctx, msg)
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
