package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/textproto"
	"strings"
	"sync"
	"time"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/session"
	"github.com/mcpctl/mcpctl/transport"
)

// The reverse proxy with a [Governor] ([HTTP.Govern]). A POST whose body
// the governor takes (a governed request, or a host's answer the governor
// awaits) is the proxy's to answer: it sends what the governor forwards
// to the server as requests of its own, and answers the host itself. Any
// other request is relayed as without governance, its body read whole
// first; the answers the governor reads (tools/list, and governed calls'
// answers that reach the GET stream) are read event by event.
//
// One [Conn] stands for each HTTP session (Mcp-Session-Id): the session
// an initialize opens is the one the server's answer names. Requests
// without a session id (a stateless server, the 2026-07-28 era) share one
// Conn, as the server keeps no session for them either: its tool book is
// the server's tools as last listed through the proxy.

// RelatedOutbox is an [Outbox] that can send the host a message where the
// host expects messages about one of its requests: at the HTTP proxy, the
// event stream answering that request's POST. A governor that asks the
// host's user during a held call sends its request this way.
type RelatedOutbox interface {
	Outbox
	// ToHostRelated sends msg to the host on the stream of the host's
	// request whose id is related.
	ToHostRelated(related json.RawMessage, msg []byte) error
}

// errNoHostStream is a message for the host with nowhere to go: no POST of
// the host's that accepts an event stream is open.
var errNoHostStream = errors.New("no request of the host's is open on an event stream to carry it")

// errStreamEnded is a message for a POST already answered.
var errStreamEnded = errors.New("the host's request was already answered")

// maxGovSessions bounds the sessions the governed proxy keeps: hosts that
// end without a DELETE leave theirs behind, and the oldest goes first.
const maxGovSessions = 4096

// govSessions are the governed proxy's host sessions.
type govSessions struct {
	mu    sync.Mutex
	byID  map[string]*govSession
	order []string    // byID's keys, oldest first
	none  *govSession // requests without a session id
}

// putLocked files s under sid, forgetting the oldest session when there
// are too many.
func (g *govSessions) putLocked(sid string, s *govSession) {
	if g.byID == nil {
		g.byID = map[string]*govSession{}
	}
	if _, ok := g.byID[sid]; !ok {
		g.order = append(g.order, sid)
	}
	g.byID[sid] = s
	for len(g.order) > maxGovSessions {
		delete(g.byID, g.order[0])
		g.order = g.order[1:]
	}
}

// drop forgets the session sid.
func (g *govSessions) drop(sid string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.byID[sid]; !ok {
		return
	}
	delete(g.byID, sid)
	for i, k := range g.order {
		if k == sid {
			g.order = append(g.order[:i], g.order[i+1:]...)
			break
		}
	}
}

// govSession is one host session: the governor's Conn and the POSTs of
// the host's the proxy is answering. It is the Conn's [Outbox].
type govSession struct {
	h    *HTTP
	conn *Conn

	mu      sync.Mutex
	routes  map[string]*hostStream // the host's request ids → the stream answering them
	streams []*hostStream          // the open streams the proxy answers, newest last
	sid     string                 // the session's Mcp-Session-Id, once the server gave it
}

func (h *HTTP) newGovSession() *govSession {
	s := &govSession{h: h, routes: map[string]*hostStream{}}
	s.conn = h.Govern.Conn(s)
	return s
}

// session returns the session of sid, "" being the sessionless one.
func (h *HTTP) session(sid string) *govSession {
	g := &h.gov
	g.mu.Lock()
	defer g.mu.Unlock()
	if sid == "" {
		if g.none == nil {
			g.none = h.newGovSession()
		}
		return g.none
	}
	s := g.byID[sid]
	if s == nil {
		s = h.newGovSession()
		g.putLocked(sid, s)
	}
	return s
}

// register files the session an initialize opened under the session id
// the server gave it; without one the server keeps no sessions, and the
// initialize is told to the sessionless Conn instead.
func (h *HTTP) register(sid string, s *govSession, initialize []byte) {
	g := &h.gov
	if sid == "" {
		h.session("").conn.FromHost(context.Background(), initialize, nil)
		return
	}
	s.mu.Lock()
	s.sid = sid
	s.mu.Unlock()
	g.mu.Lock()
	defer g.mu.Unlock()
	g.putLocked(sid, s)
}

// identity is the identity a request presents: the scope/scp and sub
// claims of its bearer token, a JWT (verified with JWTKey when set). nil
// when it has no Authorization header, leaving the scopes to the
// governor's policy stage. A token that cannot be read grants nothing and
// says why.
func (h *HTTP) identity(auth string) *session.Identity {
	if auth == "" {
		return nil
	}
	const from = "host's bearer token"
	scheme, token, ok := strings.Cut(auth, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return &session.Identity{From: "host's Authorization header", Note: "it holds no bearer token"}
	}
	id, err := TokenIdentity(strings.TrimSpace(token), h.JWTKey, from)
	if err != nil {
		if inner := errors.Unwrap(err); inner != nil {
			err = inner
		}
		return &session.Identity{From: from, Note: err.Error()}
	}
	return id
}

// govExchange is what the governor asks of a request the proxy relays.
type govExchange struct {
	s *govSession
	// initialize is the body of an initialize that opens s, filed under
	// the session id of the server's answer.
	initialize []byte
	// filter reads the answer's messages through the governor.
	filter bool
	// capture takes what the governor writes for the host in place of
	// a message it took (a tools/list answer, filtered).
	capture *hostStream
}

// governed takes a request when governance is on. It returns handled when
// it answered the request itself; otherwise the request is relayed, with
// gx (nil: as without governance). auth is the host's Authorization
// header, which names the identity of its request.
func (h *HTTP) governed(w http.ResponseWriter, r *http.Request, auth string) (gx *govExchange, handled bool) {
	sid := r.Header.Get("Mcp-Session-Id")
	switch r.Method {
	case http.MethodGet:
		return &govExchange{s: h.session(sid), filter: true}, false
	case http.MethodDelete:
		if sid != "" {
			h.gov.drop(sid)
		}
		return nil, false
	case http.MethodPost:
	default:
		return nil, false
	}
	if r.Body == nil || r.Body == http.NoBody {
		return nil, false
	}
	if why := unreadableBody(r.Header); why != "" {
		// A server that reads it all the same (takes it as JSON, decodes
		// its charset or compression) would run what the governor did not
		// read.
		h.Tap.Note("govern", map[string]any{"refused": "body", "reason": why})
		http.Error(w, "mcpctl proxy: a governed POST's body must be JSON in UTF-8, uncompressed: "+why+"; it was not relayed", http.StatusUnsupportedMediaType)
		return nil, true
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, transport.DefaultMaxMessageSize+1))
	if err != nil {
		h.Tap.Note("host-gone", map[string]any{"method": r.Method, "path": transport.RedactURL(r.URL.RequestURI()), "error": err.Error()})
		return nil, true
	}
	if int64(len(body)) > transport.DefaultMaxMessageSize {
		http.Error(w, fmt.Sprintf("mcpctl proxy: a request body over %d bytes is not relayed", transport.DefaultMaxMessageSize), http.StatusRequestEntityTooLarge)
		return nil, true
	}
	err = h.Govern.Screen(body)
	if err == nil {
		err = mirrorMismatch(r.Header, body)
	}
	if err != nil {
		answer := RefusalAnswer(err)
		bridgeTapSession(h.Tap, HostToServer, r.Header.Get(bridgeSessionHeader), bytes.TrimSpace(body))
		h.Tap.Note("govern", map[string]any{"refused": "line", "reason": err.Error()})
		bridgeTapSession(h.Tap, ServerToHost, r.Header.Get(bridgeSessionHeader), answer)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write(answer)
		return nil, true
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	s, fresh := h.session(sid), false
	if sid == "" && bytes.Contains(body, markInitialize) {
		s, fresh = h.newGovSession(), true
	}
	ctx := r.Context()
	msgs, batch, _ := peekBridge(body)
	requests := 0
	for _, m := range msgs {
		if m.isRequest() {
			requests++
		}
	}
	if requests == 0 {
		// A host's answer or notification: nothing is to be answered,
		// and what the governor does with it outlives the POST.
		ctx = context.WithoutCancel(ctx)
	}
	run := s.conn.FromHost(ctx, bytes.TrimSpace(body), h.identity(auth))
	if run == nil {
		gx = &govExchange{s: s}
		if fresh {
			gx.initialize = bytes.TrimSpace(body)
		}
		if bytes.Contains(body, markToolsList) {
			gx.filter = true
			gx.capture = &hostStream{capture: true, want: map[string]bool{}}
			s.open(gx.capture, msgs)
			go func() { <-r.Context().Done(); s.close(gx.capture) }()
		}
		return gx, false
	}
	h.serveOwned(w, r, s, body, msgs, batch, requests, run)
	return nil, true
}

// serveOwned answers a POST the governor took: it runs the governor's
// work and answers the host with what the governor sends it.
func (h *HTTP) serveOwned(w http.ResponseWriter, r *http.Request, s *govSession, body []byte, msgs []bridgeMsg, batch bool, requests int, run func()) {
	bridgeTapSession(h.Tap, HostToServer, r.Header.Get(bridgeSessionHeader), bytes.TrimSpace(body))
	detail := map[string]any{"method": r.Method, "path": transport.RedactURL(r.URL.RequestURI()), "governed": true}
	if requests == 0 {
		go run()
		detail["status"] = http.StatusAccepted
		h.Tap.Note("http", detail)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	st := newHostStream(w, r, batch)
	s.open(st, msgs)
	defer s.close(st)
	go run()
	select {
	case <-st.done:
	case <-r.Context().Done():
		h.Tap.Note("host-gone", map[string]any{"method": r.Method, "path": transport.RedactURL(r.URL.RequestURI())})
		return
	}
	detail["status"] = st.status
	if st.sse {
		detail["content_type"] = "text/event-stream"
	}
	h.Tap.Note("http", detail)
}

// open registers a stream for the requests among msgs.
func (s *govSession) open(st *hostStream, msgs []bridgeMsg) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range msgs {
		if m.isRequest() {
			s.routes[m.key] = st
			st.want[m.key] = true
		}
	}
	if !st.capture {
		s.streams = append(s.streams, st)
	}
}

// close forgets a stream: it takes no more messages.
func (s *govSession) close(st *hostStream) {
	st.end()
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, v := range s.routes {
		if v == st {
			delete(s.routes, k)
		}
	}
	for i, v := range s.streams {
		if v == st {
			s.streams = append(s.streams[:i], s.streams[i+1:]...)
			break
		}
	}
}

// route is the stream answering the host's request key, nil when none.
func (s *govSession) route(key string) *hostStream {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.routes[key]
}

// newest is the newest open stream the proxy answers, nil when none.
func (s *govSession) newest() *hostStream {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.streams); n > 0 {
		return s.streams[n-1]
	}
	return nil
}

// ToServer sends msg to the server in a POST of the proxy's own, with the
// headers of the host's request it belongs to (the one with its id, else
// the newest), and hands each message of the answer to the governor,
// then, unless it takes it, to the host.
func (s *govSession) ToServer(msg []byte) error {
	m, _ := bridgePeekOne(msg)
	st := s.route(m.key)
	if st == nil || st.capture {
		st = s.newest()
	}
	if st == nil {
		return errors.New("no request of the host's is open to send it with")
	}
	return s.post(st, msg, m)
}

// ToHost sends msg to the host: an answer on the stream of its request, a
// request or notification on the newest stream that can carry it.
func (s *govSession) ToHost(msg []byte) error {
	m, _ := bridgePeekOne(msg)
	if m.isResponse() {
		if st := s.route(m.key); st != nil {
			return st.write(msg, m)
		}
		return fmt.Errorf("no request %s of the host's awaits this answer", m.key)
	}
	st := s.newest()
	if st == nil {
		return errNoHostStream
	}
	return st.write(msg, m)
}

// ToHostRelated sends msg on the stream answering the host's request
// related.
func (s *govSession) ToHostRelated(related json.RawMessage, msg []byte) error {
	st := s.route(string(bytes.TrimSpace(related)))
	if st == nil {
		return errNoHostStream
	}
	m, _ := bridgePeekOne(msg)
	return st.write(msg, m)
}

// fromServer passes a message of the server's to the governor, then, unless
// it takes it, to the host: on its request's stream when it answers one,
// else on st.
func (s *govSession) fromServer(data []byte, st *hostStream) {
	if s.conn.FromServer(data) {
		return
	}
	bridgeTapSession(s.h.Tap, ServerToHost, st.header.Get(bridgeSessionHeader), data)
	m, _ := bridgePeekOne(data)
	if m.isResponse() {
		if r := s.route(m.key); r != nil {
			st = r
		}
	}
	_ = st.write(data, m)
}

// upstreamStatusError is an HTTP error the server answered a message of
// the proxy's with; the host got it as it came.
type upstreamStatusError struct{ status int }

func (e *upstreamStatusError) Error() string {
	return fmt.Sprintf("the server answered HTTP %d", e.status)
}

// post sends msg to the server for the host's request on st and reads the
// answer.
func (s *govSession) post(st *hostStream, msg []byte, m bridgeMsg) error {
	h := s.h
	ctx, cancel := context.WithCancelCause(st.ctx)
	defer cancel(nil)
	touch := func() {}
	if h.Timeout > 0 {
		timer := time.AfterFunc(h.Timeout, func() { cancel(errUpstreamTimeout) })
		defer timer.Stop()
		touch = func() { timer.Reset(h.Timeout) }
	}
	target := h.Upstream.Scheme + "://" + h.Upstream.Host + st.uri
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(msg))
	if err != nil {
		return err
	}
	req.Header = upstreamHeader(st.header)
	rt := h.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	shown := transport.RedactURL(h.Upstream.String())
	resp, err := rt.RoundTrip(req)
	if err != nil {
		if errors.Is(context.Cause(ctx), errUpstreamTimeout) {
			return fmt.Errorf("the server at %s did not answer within %s", shown, h.Timeout)
		}
		return fmt.Errorf("the server at %s could not be reached: %v", shown, h.Redactor.String(err.Error()))
	}
	defer resp.Body.Close()
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	h.Tap.Note("http", map[string]any{"method": http.MethodPost, "path": transport.RedactURL(st.uri), "status": resp.StatusCode, "content_type": ct, "governed": true})
	body := io.Reader(&touchReader{r: resp.Body, touch: touch})
	// A stream that breaks after the answer came broke nothing.
	answered := false
	pass := func(data []byte) {
		if !answered && m.isRequest() {
			if a, _ := bridgePeekOne(data); a.isResponse() && a.key == m.key {
				answered = true
			}
		}
		s.fromServer(data, st)
	}
	switch {
	case resp.StatusCode/100 != 2:
		if st.relay(resp) {
			return &upstreamStatusError{resp.StatusCode}
		}
		return fmt.Errorf("the server answered HTTP %d", resp.StatusCode)
	case m.isRequest() && resp.StatusCode == http.StatusAccepted:
		return errors.New("the server accepted the request without answering it (the legacy HTTP+SSE transport is not governed)")
	case ct == "text/event-stream":
		err = readEvents(body, func(ev sseEvent) {
			if ev.message() {
				pass(ev.data)
			}
		})
	case ct == "application/json":
		var data []byte
		if data, err = io.ReadAll(io.LimitReader(body, transport.DefaultMaxMessageSize)); err == nil {
			for msg := range Messages(data) {
				pass(msg)
			}
		}
	}
	if answered {
		return nil
	}
	if err != nil && errors.Is(context.Cause(ctx), errUpstreamTimeout) {
		return fmt.Errorf("the server at %s sent nothing for %s", shown, h.Timeout)
	}
	return err
}

// touchReader calls touch after each read that got bytes.
type touchReader struct {
	r     io.Reader
	touch func()
}

func (t *touchReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 {
		t.touch()
	}
	return n, err
}

// upstreamHeader is the host's request header for a request of the
// proxy's to the server: without the hop-by-hop ones and those of the
// body, and asking for no encoding, since the proxy reads the answer.
func upstreamHeader(in http.Header) http.Header {
	out := in.Clone()
	for _, f := range strings.Split(in.Get("Connection"), ",") {
		if f = textproto.TrimString(f); f != "" {
			out.Del(f)
		}
	}
	for _, k := range []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade", "Content-Length", "Accept-Encoding"} {
		out.Del(k)
	}
	return out
}

// hostStream answers a POST of the host's that the proxy answers, or, in
// capture mode, keeps what the governor writes in place of a message it
// took from a relayed answer. The answer is JSON when every request is
// answered before anything else is to be sent and the host accepts JSON;
// an event stream otherwise.
type hostStream struct {
	w         http.ResponseWriter
	ctx       context.Context
	header    http.Header // the host's request's
	uri       string      // the host's request's path and query
	acceptSSE bool
	acceptJS  bool
	batch     bool
	capture   bool

	mu       sync.Mutex
	want     map[string]bool // requests not answered yet
	answers  [][]byte        // held for a JSON answer
	captured [][]byte
	sse      bool // the event stream has started
	ended    bool
	status   int
	done     chan struct{}
}

func newHostStream(w http.ResponseWriter, r *http.Request, batch bool) *hostStream {
	st := &hostStream{w: w, ctx: r.Context(), header: r.Header, uri: r.URL.RequestURI(), batch: batch, want: map[string]bool{}, done: make(chan struct{})}
	accept := strings.Join(r.Header.Values("Accept"), ",")
	st.acceptSSE = strings.Contains(accept, "text/event-stream")
	st.acceptJS = accept == "" || strings.Contains(accept, "application/json") || strings.Contains(accept, "*/*")
	return st
}

// write sends one message to the host.
func (st *hostStream) write(msg []byte, m bridgeMsg) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.ended {
		return errStreamEnded
	}
	if st.capture {
		st.captured = append(st.captured, msg)
		return nil
	}
	answer := m.isResponse() && st.want[m.key]
	if answer {
		delete(st.want, m.key)
	}
	switch {
	case st.sse:
		st.event(msg)
	case answer && (st.acceptJS || !st.acceptSSE):
		st.answers = append(st.answers, msg)
	case !st.acceptSSE:
		return errors.New("the host's request takes no event stream to carry it")
	default:
		st.startSSE()
		st.event(msg)
	}
	if len(st.want) > 0 {
		return nil
	}
	if !st.sse {
		body := st.answers[0]
		if st.batch {
			body = append(append([]byte{'['}, bytes.Join(st.answers, []byte{','})...), ']')
		}
		st.w.Header().Set("Content-Type", "application/json")
		st.w.WriteHeader(http.StatusOK)
		st.w.Write(body)
	}
	st.status, st.ended = http.StatusOK, true
	close(st.done)
	return nil
}

// startSSE starts the event stream, with the answers held so far.
func (st *hostStream) startSSE() {
	st.w.Header().Set("Content-Type", "text/event-stream")
	st.w.Header().Set("Cache-Control", "no-cache")
	st.w.WriteHeader(http.StatusOK)
	st.sse = true
	for _, a := range st.answers {
		st.event(a)
	}
	st.answers = nil
}

func (st *hostStream) event(msg []byte) {
	st.w.Write(append(append([]byte("event: message\ndata: "), bridgeOneLine(msg)...), "\n\n"...))
	http.NewResponseController(st.w).Flush()
}

// relay answers the host with the server's HTTP error as it came, when
// nothing was sent to the host yet; it reports whether it did.
func (st *hostStream) relay(resp *http.Response) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.ended || st.sse || len(st.answers) > 0 || st.capture {
		return false
	}
	for k, v := range upstreamHeader(resp.Header) {
		st.w.Header()[k] = v
	}
	st.w.WriteHeader(resp.StatusCode)
	io.Copy(st.w, io.LimitReader(resp.Body, transport.DefaultMaxMessageSize))
	st.status, st.ended = resp.StatusCode, true
	close(st.done)
	return true
}

// end stops the stream taking messages.
func (st *hostStream) end() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.ended = true
}

// take returns what the governor wrote in capture mode, and forgets it.
func (st *hostStream) take() [][]byte {
	if st == nil {
		return nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	out := st.captured
	st.captured = nil
	return out
}

// unreadableBody says why the governor cannot read a POST's body as the
// server would ("" when it can): not declared JSON, in another charset
// than UTF-8, or compressed.
func unreadableBody(h http.Header) string {
	if !jsonRPCBody(h) {
		return "Content-Type " + h.Get("Content-Type")
	}
	if _, params, _ := mime.ParseMediaType(h.Get("Content-Type")); params["charset"] != "" &&
		!strings.EqualFold(params["charset"], "utf-8") && !strings.EqualFold(params["charset"], "utf8") {
		return "charset " + params["charset"]
	}
	if ce := h.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		return "Content-Encoding " + ce
	}
	return ""
}

// mirrorMismatch refuses a POST whose Mcp-Method or Mcp-Name header (the
// 2026-07-28 revision mirrors them from the body for intermediaries)
// names another method or tool than its body: whatever acts on the
// headers beyond the proxy would act on another call than the one
// governed. Absent headers agree.
func mirrorMismatch(h http.Header, body []byte) error {
	if h.Get("Mcp-Method") == "" && h.Get("Mcp-Name") == "" {
		return nil
	}
	m, ok := bridgePeekOne(bytes.TrimSpace(body))
	if !ok {
		return &lineRefusal{code: client.CodeInvalidRequest, reason: "a body with Mcp-Method or Mcp-Name headers must be one message"}
	}
	var p struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
	}
	_ = json.Unmarshal(m.params, &p)
	name := p.Name
	if m.method == "resources/read" {
		name = p.URI
	}
	for _, hv := range []struct{ header, want string }{{"Mcp-Method", m.method}, {"Mcp-Name", name}} {
		if got := h.Get(hv.header); got != "" && got != hv.want && bridgeHeaderDecode(got) != hv.want {
			return &lineRefusal{code: bridgeCodeHeaderMismatch, id: m.id, reason: fmt.Sprintf("Header mismatch: the %s header %q does not match the body's %q", hv.header, got, hv.want)}
		}
	}
	return nil
}
