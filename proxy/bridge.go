package proxy

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// What the bridges share: a bridge joins two transports, so unlike the
// stdio shim it has to know which frames are requests and which answer
// them, to route answers and to answer for a side that failed.

// bridgeMsg is what a bridge reads of one JSON-RPC message.
type bridgeMsg struct {
	// key is the id's bytes as written, the key answers are matched by;
	// "" when the message has no id (a notification) or a null one.
	key string
	// id is the raw id, for an error answered in the other side's place.
	id json.RawMessage
	// method is the request's or notification's method; "" for a
	// response.
	method string
	// params is the request's or notification's params.
	params json.RawMessage
	// result is the response's result, kept for initialize only.
	result json.RawMessage
	// raw is the message's bytes: the frame, or its member of a batch.
	raw json.RawMessage
}

// isRequest reports whether m is a request: a method and an id.
func (m bridgeMsg) isRequest() bool { return m.method != "" && m.key != "" }

// isResponse reports whether m answers a request.
func (m bridgeMsg) isResponse() bool { return m.method == "" && m.key != "" }

// peekBridge reads the messages of a frame: one, or the members of a
// batch. ok is false when the frame is not a JSON object or array of
// objects; the bridges still pass such a frame on where they can, and the
// checks flag it.
func peekBridge(frame []byte) (msgs []bridgeMsg, batch, ok bool) {
	t := bytes.TrimSpace(frame)
	if len(t) == 0 {
		return nil, false, false
	}
	if t[0] == '[' {
		var members []json.RawMessage
		if json.Unmarshal(t, &members) != nil {
			return nil, true, false
		}
		for _, m := range members {
			bm, ok := bridgePeekOne(m)
			if !ok {
				return nil, true, false
			}
			msgs = append(msgs, bm)
		}
		return msgs, true, true
	}
	m, ok := bridgePeekOne(t)
	if !ok {
		return nil, false, false
	}
	return []bridgeMsg{m}, false, true
}

func bridgePeekOne(raw []byte) (bridgeMsg, bool) {
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(raw, &env) != nil {
		return bridgeMsg{}, false
	}
	m := bridgeMsg{method: env.Method, raw: raw}
	if id := bytes.TrimSpace(env.ID); len(id) > 0 && !bytes.Equal(id, []byte("null")) {
		m.key, m.id = string(id), id
	}
	if env.Method != "" {
		m.params = env.Params
	}
	if env.Method == "" && len(env.Result) > 0 {
		m.result = env.Result
	}
	return m, true
}

// bridgeProtocolVersion reads protocolVersion from an initialize result.
func bridgeProtocolVersion(result json.RawMessage) string {
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(result, &r) != nil {
		return ""
	}
	return r.ProtocolVersion
}

// bridgeOneLine is frame on one line, as stdio needs it: unchanged when it holds
// no line break, else compacted. Only a pretty-printed JSON body from an
// HTTP peer has any, and it cannot cross stdio as it is.
func bridgeOneLine(frame []byte) []byte {
	frame = bytes.TrimSpace(frame)
	if bytes.IndexByte(frame, '\n') < 0 && bytes.IndexByte(frame, '\r') < 0 {
		return frame
	}
	var b bytes.Buffer
	if json.Compact(&b, frame) != nil {
		return []byte(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(string(frame)))
	}
	return b.Bytes()
}

// Error codes of the JSON-RPC errors a bridge answers in place of a side
// that cannot: -32603 (internal error) for an upstream that failed, and
// the implementation-defined server error range for the rest.
const (
	bridgeCodeUpstream   = -32603
	bridgeCodeServerGone = -32000
)

// bridgeRPCError is a JSON-RPC error response to id.
func bridgeRPCError(id json.RawMessage, code int, msg string) []byte {
	m, _ := json.Marshal(msg)
	b := make([]byte, 0, len(id)+len(m)+64)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, `,"message":`...)
	b = append(b, m...)
	return append(b, "}}"...)
}

// bridgeTapFrame sends a whole message to tap, within the tap's limit.
func bridgeTapFrame(tap *Tap, dir Direction, msg []byte) {
	bridgeTapSession(tap, dir, "", msg)
}

// bridgeTapSession sends a whole message of an HTTP session to tap, within
// the tap's limit.
func bridgeTapSession(tap *Tap, dir Direction, session string, msg []byte) {
	data := msg
	if l := tap.FrameLimit(); len(data) > l {
		data = data[:l]
	}
	tap.Send(Frame{Time: time.Now(), Dir: dir, Data: data, Size: int64(len(msg)), Session: session})
}
