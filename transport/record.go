package transport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// NewRecorder returns the Transport `--record FILE` uses: t, with every
// message of its connections written to w as NDJSON, one [TraceEntry] a
// line, secrets hidden by r. A recording is a trace of the messages alone:
// HTTP headers (Authorization among them) are never part of it, and the
// transport's own events are left out; only connect, close and error are
// noted. [ReadRecording] reads it back, and so reads a --trace file.
func NewRecorder(t Transport, w io.Writer, r *Redactor) *Trace {
	return &Trace{Transport: t, W: w, Redactor: r}
}

// Exchange is one request of a recording with what the server sent for
// it.
type Exchange struct {
	// Method is the request's method.
	Method string
	// Params is the request's params in canonical form (see
	// [CanonicalParams]): the key it is matched by.
	Params string
	// ProgressToken is params._meta.progressToken of the recorded request,
	// if any: replayed progress notifications carry the new request's.
	ProgressToken json.RawMessage
	// Before are the server's notifications recorded after the request was
	// sent and before its response; After, those after the response and
	// before the next request.
	Before, After []json.RawMessage
	// Response is the server's response, nil if none was recorded.
	Response json.RawMessage
}

// Recording is a recorded session, read by [ReadRecording], indexed for
// answering requests as the server did.
type Recording struct {
	// Name names the recording in errors ("not in the recording NAME").
	Name string
	// Exchanges are the answered requests in the order they were sent.
	Exchanges []*Exchange

	byKey    map[string][]*Exchange // method + " " + params
	byMethod map[string][]*Exchange
}

// rpcMessage is the part of a JSON-RPC message a recording is read by.
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// ReadRecording reads a recording (or a --trace file) written by
// [NewRecorder]. Each request mcpctl sent is paired with the response
// whose id matches; each notification the server sent is attached to the
// last request sent before it on the same connection. Requests from the server (sampling,
// elicitation, roots) and their answers are not replayed.
func ReadRecording(r io.Reader, name string) (*Recording, error) {
	rec := &Recording{Name: name, byKey: map[string][]*Exchange{}, byMethod: map[string][]*Exchange{}}
	pending := map[string]*Exchange{}
	answered := map[*Exchange]bool{}
	var last *Exchange
	var all []*Exchange
	br := bufio.NewReader(r)
	for line := 1; ; line++ {
		text, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(text)) > 0 {
			var e TraceEntry
			if jerr := json.Unmarshal(text, &e); jerr != nil {
				return nil, fmt.Errorf("reading the recording %s: line %d is not a trace entry: %w", name, line, jerr)
			}
			if e.Direction == DirectionEvent && e.Event == "connect" {
				// A new connection (a stdio server restarted after the
				// era probe) numbers its requests afresh.
				clear(pending)
				last = nil
			}
			var m rpcMessage
			if len(e.Message) > 0 && e.Message[0] == '{' && json.Unmarshal(e.Message, &m) == nil {
				id := string(canonicalJSON(m.ID))
				switch {
				case e.Direction == DirectionSend && m.Method != "" && len(m.ID) > 0:
					params, err := CanonicalParams(m.Params)
					if err != nil {
						return nil, fmt.Errorf("reading the recording %s: line %d: %w", name, line, err)
					}
					ex := &Exchange{Method: m.Method, Params: params, ProgressToken: progressToken(m.Params)}
					pending[id] = ex
					all = append(all, ex)
					last = ex
				case e.Direction == DirectionRecv && m.Method == "" && len(m.ID) > 0:
					if ex := pending[id]; ex != nil {
						ex.Response = e.Message
						answered[ex] = true
						delete(pending, id)
					}
				case e.Direction == DirectionRecv && m.Method != "" && len(m.ID) == 0 && last != nil:
					if answered[last] {
						last.After = append(last.After, e.Message)
					} else {
						last.Before = append(last.Before, e.Message)
					}
				}
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading the recording %s: %w", name, err)
		}
	}
	for _, ex := range all {
		if ex.Response == nil {
			continue
		}
		rec.Exchanges = append(rec.Exchanges, ex)
		rec.byKey[ex.Method+" "+ex.Params] = append(rec.byKey[ex.Method+" "+ex.Params], ex)
		rec.byMethod[ex.Method] = append(rec.byMethod[ex.Method], ex)
	}
	if len(rec.Exchanges) == 0 {
		return nil, fmt.Errorf("reading the recording %s: no answered request in it (record one with --record FILE)", name)
	}
	return rec, nil
}

// CanonicalParams returns the form request params are matched by: JSON
// with object keys sorted and no insignificant space, with the top-level
// _meta removed (it carries progress tokens and, in the modern era, the
// client's identity, which differ between runs); absent, null and empty
// params are all "{}".
func CanonicalParams(params json.RawMessage) (string, error) {
	if len(bytes.TrimSpace(params)) == 0 {
		return "{}", nil
	}
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", fmt.Errorf("params are not JSON: %w", err)
	}
	if m, ok := v.(map[string]any); ok {
		delete(m, "_meta")
	}
	if v == nil {
		return "{}", nil
	}
	b, err := marshalJSON(v)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// canonicalJSON returns b with sorted keys and no space, or b itself if it
// is not JSON.
func canonicalJSON(b json.RawMessage) []byte {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return b
	}
	out, err := marshalJSON(v)
	if err != nil {
		return b
	}
	return out
}

// progressToken returns params._meta.progressToken, or nil.
func progressToken(params json.RawMessage) json.RawMessage {
	var p struct {
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.Meta.ProgressToken) == 0 {
		return nil
	}
	return p.Meta.ProgressToken
}

// Mock answers requests from a [Recording] as the recorded server did,
// for `mcpctl mock`. It is safe for concurrent use.
type Mock struct {
	rec *Recording

	mu   sync.Mutex
	seen map[string]int // how many times each key was answered
}

// NewMock returns a Mock serving rec.
func NewMock(rec *Recording) *Mock {
	return &Mock{rec: rec, seen: map[string]int{}}
}

// Mock errors: a message that is not JSON, a method the recording never
// saw, and a method it saw with other params. transport may not import
// client, whose table of codes a client test checks these against.
const (
	codeParseError     = -32700
	codeMethodNotFound = -32601
	codeInternalError  = -32603
)

// Handle answers one message from a client: the messages to send back, in
// order (the recorded notifications and the response, its id the
// request's), or none for a notification or a response.
//
// A request is matched by method and canonical params ([CanonicalParams]),
// ids ignored. Repeated identical requests get the recorded answers in
// order, then the last one again. initialize and server/discover with no
// exact match get the recorded answer to the method whatever the params
// (the handshake carries details of the client that may change), so the
// era of the recording is the era served; an unrecorded ping gets an empty
// result. Anything else unrecorded gets a JSON-RPC error saying so:
// -32601 for a method the recording never saw, -32603 for other params.
func (m *Mock) Handle(msg json.RawMessage) []json.RawMessage {
	var req rpcMessage
	if json.Unmarshal(msg, &req) != nil || req.Method == "" || len(req.ID) == 0 {
		return nil
	}
	params, err := CanonicalParams(req.Params)
	if err != nil {
		return []json.RawMessage{errorResponse(req.ID, codeParseError, err.Error())}
	}
	key := req.Method + " " + params
	list := m.rec.byKey[key]
	if len(list) == 0 && (req.Method == "initialize" || req.Method == "server/discover") {
		key = req.Method
		list = m.rec.byMethod[req.Method]
	}
	if len(list) == 0 {
		if req.Method == "ping" {
			return []json.RawMessage{json.RawMessage(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{}}`)}
		}
		code := codeMethodNotFound
		if len(m.rec.byMethod[req.Method]) > 0 {
			code = codeInternalError
		}
		shown := params
		if len(shown) > 200 {
			shown = shown[:200] + "…"
		}
		return []json.RawMessage{errorResponse(req.ID, code, fmt.Sprintf("not in the recording %s: %s %s", m.rec.Name, req.Method, shown))}
	}
	m.mu.Lock()
	n := m.seen[key]
	m.seen[key] = n + 1
	m.mu.Unlock()
	ex := list[min(n, len(list)-1)]
	token := progressToken(req.Params)
	var out []json.RawMessage
	for _, note := range ex.Before {
		out = append(out, retoken(note, ex.ProgressToken, token))
	}
	out = append(out, withID(ex.Response, req.ID))
	for _, note := range ex.After {
		out = append(out, retoken(note, ex.ProgressToken, token))
	}
	return out
}

// errorResponse builds a JSON-RPC error response.
func errorResponse(id json.RawMessage, code int, message string) json.RawMessage {
	b, _ := marshalJSON(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": message}})
	return b
}

// withID returns the response resp with its id replaced by id.
func withID(resp, id json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(resp, &m) != nil {
		return resp
	}
	m["id"] = id
	b, err := marshalJSON(m)
	if err != nil {
		return resp
	}
	return b
}

// retoken returns a notification with params.progressToken old replaced
// by new, so that replayed progress belongs to the new request.
func retoken(note, old, new json.RawMessage) json.RawMessage {
	if len(old) == 0 || len(new) == 0 {
		return note
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(note, &m) != nil {
		return note
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(m["params"], &params) != nil || !bytes.Equal(canonicalJSON(params["progressToken"]), canonicalJSON(old)) {
		return note
	}
	params["progressToken"] = new
	p, err := marshalJSON(params)
	if err != nil {
		return note
	}
	m["params"] = p
	b, err := marshalJSON(m)
	if err != nil {
		return note
	}
	return b
}
