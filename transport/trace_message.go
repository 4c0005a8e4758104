package transport

import "encoding/json"

// Message records a message that crossed the wire in direction dir
// ([DirectionSend] or [DirectionRecv]) as the trace records its own
// connections' messages: redacted, on one line, JSON whatever msg was.
// The proxy's session log records frames it relays, not sends, this way.
func (t *Trace) Message(dir string, msg json.RawMessage) {
	t.message(dir, msg)
}
