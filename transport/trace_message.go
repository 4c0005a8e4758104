package transport

import "encoding/json"

// Message records a message that crossed the wire in direction dir
// ([DirectionSend] or [DirectionRecv]) as the trace records its own
// connections' messages: redacted, on one line, JSON whatever msg was.
// The proxy's session log records frames it relays, not sends, this way.
func (t *Trace) Message(dir string, msg json.RawMessage) {
	t.message(dir, msg)
}

// SessionMessage records a message as [Trace.Message] does, with the HTTP
// session it belongs to as the entry's "session" member; an empty session
// records the entry as Message would.
func (t *Trace) SessionMessage(dir, session string, msg json.RawMessage) {
	if session == "" {
		t.message(dir, msg)
		return
	}
	if t.W == nil {
		return
	}
	name, err := marshalJSON(session)
	if err != nil {
		return
	}
	fields := append(append([]byte(`,"session":`), name...), `,"message":`...)
	t.write(dir, fields, t.redactJSON(msg))
}
