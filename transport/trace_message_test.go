package transport

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestTraceSessionMessage checks that a message with an HTTP session is
// recorded with a "session" member, read back into TraceEntry.Session,
// and that one without is recorded exactly as Message records it.
func TestTraceSessionMessage(t *testing.T) {
	var plain, none, with bytes.Buffer
	msg := json.RawMessage(`{"jsonrpc":"2.0","id":0,"method":"roots/list"}`)
	(&Trace{W: &plain, Now: fixedClock()}).Message(DirectionRecv, msg)
	(&Trace{W: &none, Now: fixedClock()}).SessionMessage(DirectionRecv, "", msg)
	(&Trace{W: &with, Now: fixedClock()}).SessionMessage(DirectionRecv, `s"1`, msg)
	if none.String() != plain.String() {
		t.Errorf("without a session:\n%s\nwant as Message:\n%s", none.String(), plain.String())
	}
	var e TraceEntry
	if err := json.Unmarshal(with.Bytes(), &e); err != nil {
		t.Fatalf("%v: %s", err, with.String())
	}
	if e.Session != `s"1` || string(e.Message) != string(msg) || e.Direction != DirectionRecv {
		t.Errorf("read back %+v from %s", e, with.String())
	}
	if want := `"direction":"recv","session":"s\"1","message":{`; !bytes.Contains(with.Bytes(), []byte(want)) {
		t.Errorf("entry %s does not hold %s", with.String(), want)
	}
}
