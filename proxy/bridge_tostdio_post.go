package proxy

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpctl/mcpctl/client"
)

// What the bridge to stdio adds to a POST's answer: event streams, and
// the pool of servers for 2026-07-28 requests, which carry no session.

// bridgePostEvents bounds the messages held for one POST's event stream;
// beyond it they go the way of unrelated ones.
const bridgePostEvents = 256

// bridgePost is a POST waiting for the answers to its requests.
type bridgePost struct {
	keys    []string    // its requests' ids
	tokens  []string    // their progress tokens, as JSON
	answers chan []byte // the server's answers
	events  chan []byte // the server's messages about its requests, before the answers
}

// bridgeSSE answers a POST with an event stream, once started.
type bridgeSSE struct {
	w       http.ResponseWriter
	sid     string
	started bool
}

func (o *bridgeSSE) start() error {
	h := o.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	if o.sid != "" {
		h.Set(bridgeSessionHeader, o.sid)
	}
	o.w.WriteHeader(http.StatusOK)
	o.started = true
	return http.NewResponseController(o.w).Flush()
}

// event writes msg as an event, starting the stream first if need be.
func (o *bridgeSSE) event(msg []byte) error {
	if !o.started {
		if err := o.start(); err != nil {
			return err
		}
	}
	if _, err := fmt.Fprintf(o.w, "event: message\ndata: %s\n\n", msg); err != nil {
		return err
	}
	return http.NewResponseController(o.w).Flush()
}

// bridgeOnlySSE reports whether an Accept header takes an event stream
// and not JSON.
func bridgeOnlySSE(accept string) bool {
	sse, json := false, false
	for _, part := range strings.Split(accept, ",") {
		mt, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		switch strings.ToLower(strings.TrimSpace(mt)) {
		case "text/event-stream":
			sse = true
		case "application/json", "application/*", "*/*":
			json = true
		}
	}
	return sse && !json
}

// bridgeProgressToken is the progress token of a request's params, as
// JSON; "" when it has none.
func bridgeProgressToken(params json.RawMessage) string {
	var p struct {
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
		ProgressToken json.RawMessage `json:"progressToken"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	if len(p.Meta.ProgressToken) > 0 {
		return string(bytes.TrimSpace(p.Meta.ProgressToken))
	}
	// A progress notification's own params name it at the top.
	return string(bytes.TrimSpace(p.ProgressToken))
}

// bridgeCodeHeaderMismatch is the 2026-07-28 HeaderMismatch error.
const bridgeCodeHeaderMismatch = -32020

// bridgeHeaderMismatch checks the headers a 2026-07-28 request mirrors
// from its body (MCP-Protocol-Version, Mcp-Method, Mcp-Name) against it,
// as the revision asks of a server that reads the body; "" when they
// agree.
func bridgeHeaderMismatch(r *http.Request, m bridgeMsg) string {
	version, want := client.RelayHeaders(m.method, m.params)
	if got := r.Header.Get("MCP-Protocol-Version"); got != version {
		return fmt.Sprintf("Header mismatch: MCP-Protocol-Version header %q does not match the body's %q", got, version)
	}
	for _, name := range []string{"Mcp-Method", "Mcp-Name"} {
		w, got := want.Get(name), r.Header.Get(name)
		if w == "" || got == w || bridgeHeaderDecode(got) == bridgeHeaderDecode(w) {
			continue
		}
		return fmt.Sprintf("Header mismatch: %s header %q does not match the body's %q", name, got, w)
	}
	return ""
}

// bridgeHeaderDecode undoes the Base64 sentinel form of an Mcp-* header
// value ("=?base64?…?=").
func bridgeHeaderDecode(v string) string {
	if inner, ok := strings.CutPrefix(v, "=?base64?"); ok {
		if inner, ok = strings.CutSuffix(inner, "?="); ok {
			if b, err := base64.StdEncoding.DecodeString(inner); err == nil {
				return string(b)
			}
		}
	}
	return v
}

// hostGone ends a POST whose host went away. A stateless request is
// cancelled, since for 2026-07-28 a closed stream is the cancellation;
// an answer still to come in a session goes to its GET stream.
func (s *bridgeSession) hostGone(p *bridgePost, reqs []bridgeMsg) {
	s.dropPost(p)
	if !s.stateless {
		return
	}
	for _, m := range reqs {
		s.tap.Note("host-gone", map[string]any{"id": m.key})
		s.send([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + string(m.id) + `,"reason":"the HTTP host closed the stream"}}`))
	}
}

// dropPost forgets the waiters of p.
func (s *bridgeSession) dropPost(p *bridgePost) {
	s.mu.Lock()
	for _, k := range p.keys {
		if s.waiters[k] == p {
			delete(s.waiters, k)
		}
	}
	s.mu.Unlock()
}

// bridgeStatelessMax bounds the servers serving 2026-07-28 requests at
// once.
const bridgeStatelessMax = 16

// statelessServer is a server of the pool for a 2026-07-28 request: one
// serving no POST, else a new one. The POST is counted in (begin).
func (b *BridgeToStdio) statelessServer() (*bridgeSession, error) {
	b.mu.Lock()
	n := 0
	for _, s := range b.sessions {
		if !s.stateless {
			continue
		}
		n++
		s.mu.Lock()
		free := s.inFlight == 0 && !s.stopping
		if free {
			s.inFlight++
		}
		s.mu.Unlock()
		if free {
			select {
			case <-s.done:
				s.mu.Lock()
				s.inFlight--
				s.mu.Unlock()
				continue
			default:
			}
			b.mu.Unlock()
			return s, nil
		}
	}
	b.mu.Unlock()
	if n >= bridgeStatelessMax {
		return nil, fmt.Errorf("%d servers are busy with stateless requests; try again", n)
	}
	// start counts the POST in before another can pick the server.
	return b.start(true)
}

// postOf is the POST a message of the server's (a request or a
// notification) is about, whose event stream it goes to; nil sends it to
// the GET stream. A progress notification goes to the POST of the request
// that gave its token; a log message or a request of the server's
// (sampling, elicitation, roots) to the one POST waiting, when only one
// is; other notifications (list changes, updates) concern the session.
// s.mu is held.
func (s *bridgeSession) postOf(m bridgeMsg) *bridgePost {
	if m.method == "notifications/progress" {
		tok := bridgeProgressToken(m.params)
		for _, p := range s.waiters {
			if tok != "" && slices.Contains(p.tokens, tok) {
				return p
			}
		}
		return nil
	}
	if m.method != "notifications/message" && !m.isRequest() && !s.stateless {
		return nil
	}
	var only *bridgePost
	for _, p := range s.waiters {
		if only != nil && p != only {
			return nil
		}
		only = p
	}
	return only
}
