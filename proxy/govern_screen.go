package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/internal/jsonscan"
)

// A governing proxy stands between a host and a server that the host may
// reach only through it, so no line it relays ungoverned may be one a
// server could run as a governed call. The governor reads a host's line
// with encoding/json, the server with whatever parser it has; where the two
// could read a line differently, the line is refused rather than relayed:
// a method or member name written with escapes that a byte search misses,
// a member given twice (which one counts is the parser's choice), a member
// name in another case (encoding/json matches names regardless of case,
// most servers' parsers do not), JSON that encoding/json rejects and a
// lenient parser might take, and a governed call without an id.

// Markers of the governed methods as they appear in a line when written
// without escapes; a line with an escape is read whole.
var (
	bareToolsCall = []byte("tools/call")
	bareRead      = []byte("resources/read")
	barePrompt    = []byte("prompts/get")
)

// envelopeMembers and paramsMembers are the members whose reading decides
// how a request is governed.
var (
	envelopeMembers = []string{"jsonrpc", "id", "method", "params", "result", "error"}
	paramsMembers   = []string{"name", "uri", "arguments", "_meta"}
)

// lineRefusal is a host's line the governor will not relay: code is the
// JSON-RPC error the host gets, id the request's when it could be read.
type lineRefusal struct {
	code   int
	reason string
	id     json.RawMessage
	// silent is set for a notification, which gets no answer.
	silent bool
}

func (e *lineRefusal) Error() string { return e.reason }

// mayGovern reports whether line may hold a request the governor governs,
// as some server would read it: it names a governed method, or it has an
// escape, behind which any name can hide. Every other line is relayed as
// it is, whatever it holds.
func (g *Governor) mayGovern(line []byte) bool {
	return bytes.IndexByte(line, '\\') >= 0 || bytes.Contains(line, bareToolsCall) ||
		(g.GovernReads && (bytes.Contains(line, bareRead) || bytes.Contains(line, barePrompt)))
}

// readRequest reads one message (not a batch) that mayGovern let in. The
// error is a [*lineRefusal] when the message is not one the governor can
// read as any server would.
func (g *Governor) readRequest(line []byte) (*request, error) {
	r, err := decodeRequest(line)
	if err != nil {
		if !json.Valid(line) {
			return nil, &lineRefusal{code: client.CodeParseError, reason: "it is not valid JSON"}
		}
		why := "it is not a JSON-RPC message"
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) && ute.Field != "" {
			why = fmt.Sprintf("its member %q is not a %s", ute.Field, ute.Type)
		}
		return nil, &lineRefusal{code: client.CodeInvalidRequest, reason: why}
	}
	if err := distinctMembers(line, envelopeMembers); err != nil {
		return nil, &lineRefusal{code: client.CodeInvalidRequest, reason: err.Error(), id: r.ID}
	}
	if !g.governs(r.Method) {
		return r, nil
	}
	if len(r.ID) == 0 {
		return nil, &lineRefusal{code: client.CodeInvalidRequest, reason: r.Method + " without an id (a notification) is not relayed", silent: true}
	}
	if r.pErr != nil {
		return nil, &lineRefusal{code: client.CodeInvalidParams, reason: fmt.Sprintf("its params cannot be read (%v)", r.pErr), id: r.ID}
	}
	if err := distinctMembers(r.Params, paramsMembers); err != nil {
		return nil, &lineRefusal{code: client.CodeInvalidParams, reason: "its params: " + err.Error(), id: r.ID}
	}
	return r, nil
}

// Screen refuses a host's message or batch that the governor could read
// otherwise than a server would (see [lineRefusal]); nil for any other.
// The HTTP proxy screens a POST's body before it takes it, so that a
// refusal can be the POST's answer.
func (g *Governor) Screen(body []byte) error {
	if !g.mayGovern(body) {
		return nil
	}
	t := bytes.TrimSpace(body)
	if len(t) == 0 || t[0] != '[' {
		_, err := g.readRequest(t)
		return err
	}
	var items []json.RawMessage
	if err := json.Unmarshal(t, &items); err != nil {
		return &lineRefusal{code: client.CodeParseError, reason: "the batch is not valid JSON"}
	}
	for _, it := range items {
		if !g.mayGovern(it) {
			continue
		}
		if j := jsonscan.Space(it, 0); j < len(it) && it[j] == '[' {
			return &lineRefusal{code: client.CodeInvalidRequest, reason: "a batch nested in a batch is not relayed"}
		}
		if _, err := g.readRequest(it); err != nil {
			return err
		}
	}
	return nil
}

// RefusalAnswer is the JSON-RPC error a host gets for a line [Governor.Screen]
// refused.
func RefusalAnswer(err error) []byte {
	lr, ok := err.(*lineRefusal)
	if !ok {
		lr = &lineRefusal{code: client.CodeInvalidRequest, reason: err.Error()}
	}
	id := lr.id
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{
		"code":    lr.code,
		"message": "mcpctl proxy refused the request: " + lr.reason + "; the governor relays only what every server reads alike",
	}})
	return out
}

// refuseLine answers a host's line the governor refused, and tells the
// tap; a notification gets no answer.
func (c *Conn) refuseLine(err error) {
	c.note(map[string]any{"refused": "line", "reason": err.Error()})
	if lr, ok := err.(*lineRefusal); ok && lr.silent {
		return
	}
	out := RefusalAnswer(err)
	c.tapFrame(ServerToHost, out)
	_ = c.out.ToHost(out)
}

// distinctMembers checks the members of obj, a JSON object (valid JSON),
// that decide how it is read: no member given twice, and none of known in
// another case. Anything but an object passes; its decoding says what is
// wrong with it.
func distinctMembers(obj []byte, known []string) error {
	i := jsonscan.Space(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil
	}
	// The names seen so far, compared one by one while they are few (a
	// message has a handful) and through a map beyond, so that a line
	// of many members costs no more than its reading.
	var (
		few  [16][]byte
		seen = few[:0]
		many map[string]bool
	)
	i = jsonscan.Space(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return nil
	}
	for i < len(obj) && obj[i] == '"' {
		end := jsonscan.StringEnd(obj, i)
		if end < 0 {
			break
		}
		name := obj[i+1 : end-1]
		if bytes.IndexByte(name, '\\') >= 0 {
			var s string
			if json.Unmarshal(obj[i:end], &s) != nil {
				break
			}
			name = []byte(s)
		}
		twice := false
		if many != nil {
			twice = many[string(name)]
			many[string(name)] = true
		} else {
			for _, s := range seen {
				twice = twice || bytes.Equal(s, name)
			}
			if seen = append(seen, name); len(seen) == len(few) {
				many = make(map[string]bool, 2*len(few))
				for _, s := range seen {
					many[string(s)] = true
				}
			}
		}
		if twice {
			return fmt.Errorf("the member %q is given twice", name)
		}
		for _, k := range known {
			if string(name) != k && strings.EqualFold(string(name), k) {
				return fmt.Errorf("the member %q is %q in another case", name, k)
			}
		}
		if i = jsonscan.Space(obj, end); i >= len(obj) || obj[i] != ':' {
			break
		}
		if i = jsonscan.ValueEnd(obj, jsonscan.Space(obj, i+1)); i < 0 {
			break
		}
		switch i = jsonscan.Space(obj, i); {
		case i < len(obj) && obj[i] == '}':
			return nil
		case i < len(obj) && obj[i] == ',':
			i = jsonscan.Space(obj, i+1)
		default:
			i = len(obj)
		}
	}
	return fmt.Errorf("its members cannot be read")
}

// serverAmbiguity says why a server's line, read while the governor waits
// for answers, could be read by the host as an answer the governor does
// not see as one ("" when it cannot): its envelope's members given twice
// or in another case, or JSON encoding/json rejects (decodeErr) that
// could hold an id. Other text a server writes to its stdout (a log line
// by mistake) passes as it is.
func serverAmbiguity(line []byte, decodeErr error) string {
	if decodeErr != nil {
		if json.Valid(line) || (bytes.IndexByte(line, '\\') < 0 && !bytes.Contains(line, []byte(`"id"`))) {
			return ""
		}
		return "the server's line is not JSON the governor can read, and the host might read it as an answer"
	}
	if err := distinctMembers(line, envelopeMembers); err != nil {
		return "the server's message: " + err.Error()
	}
	return ""
}

// serverBatch is [Conn.FromServer] for a JSON array from the server: when
// it holds an answer the governor waits for, or one it cannot read as the
// host would, each message is taken on its own, and the others go to the
// host one by one; otherwise it goes on as it came.
func (c *Conn) serverBatch(line []byte) bool {
	var items []json.RawMessage
	if err := json.Unmarshal(line, &items); err != nil {
		if why := serverAmbiguity(line, err); why != "" {
			c.noteServerLine(line, why)
			return true
		}
		return false
	}
	mine := false
	for _, it := range items {
		var m message
		err := json.Unmarshal(it, &m)
		if serverAmbiguity(it, err) != "" {
			mine = true
			break
		}
		if len(m.ID) > 0 {
			key := idKey(m.ID)
			c.mu.Lock()
			_, waiting := c.waiting[key]
			mine = waiting || c.lists[key] || key == c.initID
			c.mu.Unlock()
			if mine {
				break
			}
		}
	}
	if !mine {
		return false
	}
	for _, it := range items {
		it = bytes.TrimSpace(it)
		if !c.FromServer(it) {
			c.tapFrame(ServerToHost, it)
			_ = c.out.ToHost(it)
		}
	}
	return true
}

// noteServerLine tells the tap of a server's line the governor kept from
// the host, with the line's start, which no other frame shows.
func (c *Conn) noteServerLine(line []byte, why string) {
	start := line
	if len(start) > 200 {
		start = start[:200]
	}
	c.note(map[string]any{"refused": "server-line", "reason": why, "line": string(start)})
}
