package proxy

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/transport"
)

// BridgeToStdio is the bridge from an HTTP host to a stdio server: it
// serves Streamable HTTP in front of a local stdio server, so a host that
// speaks only HTTP (or a remote-only client) can use it.
//
// Each HTTP session gets a server process of its own, the natural mapping
// of a stdio server, which serves one client: an initialize POSTed
// without Mcp-Session-Id starts the server (as the stdio shim starts it:
// the proxy's environment and working directory, a process group of its
// own) and the answer carries the new session's Mcp-Session-Id; DELETE of
// the session, IdleTimeout without a request, or the end of the bridge
// closes the server's stdin and stops it as the shim would. A server that
// exits ends its session: later requests get 404, and a host starts a new
// one with initialize.
//
// A POSTed request is written to the server as a line and answered with
// the server's answer of the same id, its bytes unchanged: as
// application/json, or as an event stream when the host accepts only
// that or the server sends a message about the request first (see
// postOf); notifications and responses get 202. What the server sends on
// its own (notifications of the session, answers no POST waits for) goes
// to the session's GET event stream, held in a bounded backlog until the
// host opens one. Each server process has a [Tap] of its own from NewTap.
//
// A 2026-07-28 request, which carries its revision in _meta and belongs
// to no session, is served by a pool of server processes that each serve
// one request at a time (see statelessServer): reused, so a call does not
// cost a server start, and never shared by two requests at once, so two
// hosts' ids never meet on one stdin.
//
// Requests are accepted from loopback hosts only when the bridge listens
// on loopback (the Host header must name a loopback host), and a request
// with an Origin header that is not a loopback origin is refused with 403
// (DNS-rebinding protection).
type BridgeToStdio struct {
	// Args is the server's command line; Args[0] is looked up in PATH.
	Args []string
	// Env is the server's environment, nil for the proxy's own.
	Env []string
	// Dir is the server's working directory, "" for the proxy's own.
	Dir string
	// Stderr receives the servers' stderr.
	Stderr io.Writer
	// NewTap opens the observers of a new session; end is called once the
	// session's server has exited and the tap is closed.
	NewTap func() (tap *Tap, end func(), err error)
	// IdleTimeout stops a session's server after that long without a
	// request or an open event stream; zero never does.
	IdleTimeout time.Duration
	// Grace is how long a server has at each step of its stop (stdin
	// closed, SIGTERM); zero means 2 s.
	Grace time.Duration
	// MaxMessageSize bounds a POST's body; zero means
	// [transport.DefaultMaxMessageSize].
	MaxMessageSize int64

	mu       sync.Mutex
	sessions map[string]*bridgeSession
	closed   bool
	wg       sync.WaitGroup // sessions' goroutines
}

// bridgeSessionHeader is the Streamable HTTP header naming a session.
const bridgeSessionHeader = "Mcp-Session-Id"

// bridgeBacklog bounds the server messages held for a GET stream.
const bridgeBacklog = 4096

// errBridgeSessionEnded is what a write to a session whose server exited gets.
var errBridgeSessionEnded = errors.New("the server's session ended")

// bridgeSession is one HTTP session and its server process.
type bridgeSession struct {
	id   string
	b    *BridgeToStdio
	tap  *Tap
	done chan struct{} // closed once the server exited and was relayed
	sigs chan os.Signal

	inMu  sync.Mutex
	stdin *io.PipeWriter

	// stateless marks a server of the pool that serves 2026-07-28
	// requests, which carry no session: one POST at a time, never named
	// by Mcp-Session-Id.
	stateless bool

	mu       sync.Mutex
	waiters  map[string]*bridgePost // the POSTs waiting for their answers, by request id
	backlog  [][]byte               // for the GET stream
	dropped  int                    // messages the backlog had no room for
	streams  int                    // open GET streams (at most one)
	wake     chan struct{}          // poked when the backlog grows
	inFlight int                    // POSTs being answered
	idle     *time.Timer
	stopping bool
	code     int   // the server's exit code, once done
	err      error // why the server could not start, once done

	partial []byte // the start of a server line not yet ended
}

// ServeHTTP serves the MCP endpoint: POST, GET and DELETE.
func (b *BridgeToStdio) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !bridgeAllowedHost(r) {
		http.Error(w, "Forbidden: this endpoint serves loopback hosts only", http.StatusForbidden)
		return
	}
	if o := r.Header.Get("Origin"); o != "" && !bridgeLoopbackOrigin(o) {
		http.Error(w, "Forbidden: Origin "+o+" is not allowed", http.StatusForbidden)
		return
	}
	switch r.Method {
	case http.MethodPost:
		b.post(w, r)
	case http.MethodGet:
		b.get(w, r)
	case http.MethodDelete:
		s := b.sessionOf(w, r)
		if s == nil {
			return
		}
		s.tap.Note("http-delete", nil)
		go s.stop()
		w.WriteHeader(http.StatusNoContent)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	}
}

// bridgeAllowedHost reports whether r's Host header may reach the bridge: any
// when the bridge listens on another address than loopback, else a
// loopback host only, so that a page whose domain was rebound to 127.0.0.1
// cannot reach it.
func bridgeAllowedHost(r *http.Request) bool {
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if tcp, ok := local.(*net.TCPAddr); !ok || !tcp.IP.IsLoopback() {
		return true
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return bridgeLoopbackHost(host)
}

// bridgeLoopbackOrigin reports whether a browser's Origin header names a page
// served from this machine.
func bridgeLoopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	return bridgeLoopbackHost(u.Hostname())
}

func bridgeLoopbackHost(host string) bool {
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// sessionOf is the session r names, or nil once the error is written.
func (b *BridgeToStdio) sessionOf(w http.ResponseWriter, r *http.Request) *bridgeSession {
	sid := r.Header.Get(bridgeSessionHeader)
	if sid == "" {
		http.Error(w, "Bad Request: no Mcp-Session-Id header (start a session with initialize)", http.StatusBadRequest)
		return nil
	}
	b.mu.Lock()
	s := b.sessions[sid]
	b.mu.Unlock()
	if s == nil || s.stateless {
		http.Error(w, "Not Found: no such session (it ended; start a new one with initialize)", http.StatusNotFound)
		return nil
	}
	return s
}

func (b *BridgeToStdio) post(w http.ResponseWriter, r *http.Request) {
	limit := b.MaxMessageSize
	if limit <= 0 {
		limit = transport.DefaultMaxMessageSize
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			http.Error(w, "Request Entity Too Large", http.StatusRequestEntityTooLarge)
		}
		return
	}
	line := bridgeOneLine(body)
	msgs, batch, ok := peekBridge(line)
	if !ok {
		bridgeWriteJSON(w, http.StatusBadRequest, bridgeRPCError([]byte("null"), -32700, "Parse error: the body is not a JSON-RPC message"), "")
		return
	}
	var s *bridgeSession
	version, _ := client.RelayHeaders(msgs[0].method, msgs[0].params)
	switch {
	case !batch && msgs[0].isRequest() && version != "":
		// A 2026-07-28 request: it carries its own metadata and belongs
		// to no session (an Mcp-Session-Id header is ignored, as the
		// revision asks of its servers).
		if msg := bridgeHeaderMismatch(r, msgs[0]); msg != "" {
			bridgeWriteJSON(w, http.StatusBadRequest, bridgeRPCError(msgs[0].id, bridgeCodeHeaderMismatch, msg), "")
			return
		}
		if s, err = b.statelessServer(); err != nil {
			bridgeWriteJSON(w, http.StatusServiceUnavailable, bridgeRPCError(msgs[0].id, bridgeCodeServerGone, "mcpctl proxy: "+err.Error()), "")
			return
		}
		// statelessServer counted the POST in already.
	case r.Header.Get(bridgeSessionHeader) == "":
		if !(len(msgs) == 1 && msgs[0].method == "initialize" && msgs[0].isRequest()) {
			http.Error(w, "Bad Request: no Mcp-Session-Id header (start a session with initialize)", http.StatusBadRequest)
			return
		}
		if s, err = b.start(false); err != nil {
			bridgeWriteJSON(w, http.StatusServiceUnavailable, bridgeRPCError(msgs[0].id, bridgeCodeServerGone, "mcpctl proxy: "+err.Error()), "")
			return
		}
		s.begin()
	default:
		if s = b.sessionOf(w, r); s == nil {
			return
		}
		s.begin()
	}
	defer s.finish()

	// Waiters are in place before the line is written: the answer may
	// come before the write returns.
	p := &bridgePost{answers: make(chan []byte, len(msgs)), events: make(chan []byte, bridgePostEvents)}
	var reqs []bridgeMsg
	s.mu.Lock()
	for _, m := range msgs {
		if !m.isRequest() {
			continue
		}
		if _, dup := s.waiters[m.key]; dup {
			s.mu.Unlock()
			s.dropPost(p)
			bridgeWriteJSON(w, http.StatusBadRequest, bridgeRPCError(m.id, -32600, "Invalid Request: a request with id "+m.key+" is already pending in this session"), "")
			return
		}
		s.waiters[m.key] = p
		p.keys = append(p.keys, m.key)
		if tok := bridgeProgressToken(m.params); tok != "" {
			p.tokens = append(p.tokens, tok)
		}
		reqs = append(reqs, m)
	}
	s.mu.Unlock()

	if err := s.send(line); err != nil {
		s.dropPost(p)
		s.answerGone(w, reqs, batch)
		return
	}
	if len(reqs) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	// The answer is an event stream when the host takes nothing else, or
	// once the server sends a message of the request's before answering
	// it (Streamable HTTP); JSON otherwise.
	// A stateless server's id is its own: the host never sees it.
	sid := s.id
	if s.stateless {
		sid = ""
	}
	out := &bridgeSSE{w: w, sid: sid}
	if bridgeOnlySSE(r.Header.Get("Accept")) {
		if out.start() != nil {
			s.dropPost(p)
			return
		}
	}
	answers := map[string][]byte{}
	for len(answers) < len(reqs) {
		select {
		case a := <-p.answers:
			msgs, _, _ := peekBridge(a)
			answers[msgs[0].key] = a
		case ev := <-p.events:
			if out.event(ev) != nil {
				s.hostGone(p, reqs)
				return
			}
		case <-s.done:
			s.dropPost(p)
			if out.started {
				// Headers are sent: the errors go as events.
				for _, m := range reqs {
					if answers[m.key] == nil {
						out.event(bridgeRPCError(m.id, bridgeCodeServerGone, "mcpctl proxy: "+s.endReason()))
					}
				}
				return
			}
			s.answerGone(w, reqs, batch)
			return
		case <-r.Context().Done():
			s.hostGone(p, reqs)
			return
		}
	}
	// What the server sent before its last answer is in p.events by now
	// (its lines are routed in order); once the waiters are gone nothing
	// more can come.
	s.dropPost(p)
	for drained := false; !drained; {
		select {
		case ev := <-p.events:
			if out.event(ev) != nil {
				return
			}
		default:
			drained = true
		}
	}
	if out.started {
		for _, m := range reqs {
			if out.event(answers[m.key]) != nil {
				return
			}
		}
		return
	}
	res := answers[reqs[0].key]
	if batch {
		list := make([][]byte, len(reqs))
		for i, m := range reqs {
			list[i] = answers[m.key]
		}
		res = append(append([]byte{'['}, bytes.Join(list, []byte{','})...), ']')
	}
	bridgeWriteJSON(w, http.StatusOK, res, sid)
}

// answerGone answers reqs with the end of the session's server: 502, and
// a JSON-RPC error for each.
func (s *bridgeSession) answerGone(w http.ResponseWriter, reqs []bridgeMsg, batch bool) {
	text := "mcpctl proxy: " + s.endReason()
	sid := s.id
	if s.stateless {
		sid = ""
	}
	if len(reqs) == 0 {
		bridgeWriteJSON(w, http.StatusBadGateway, bridgeRPCError([]byte("null"), bridgeCodeServerGone, text), sid)
		return
	}
	errs := make([][]byte, len(reqs))
	for i, m := range reqs {
		errs[i] = bridgeRPCError(m.id, bridgeCodeServerGone, text)
	}
	out := errs[0]
	if batch {
		out = append(append([]byte{'['}, bytes.Join(errs, []byte{','})...), ']')
	}
	bridgeWriteJSON(w, http.StatusBadGateway, out, sid)
}

// endReason says why the session's server is gone, or going.
func (s *bridgeSession) endReason() string {
	select {
	case <-s.done:
	default:
		return "the server's session is ending"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err.Error()
	}
	return fmt.Sprintf("the server exited (status %d) before answering", s.code)
}

// bridgeWriteJSON writes a JSON body with status; sid, when set, as the
// session's header.
func bridgeWriteJSON(w http.ResponseWriter, status int, body []byte, sid string) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	if sid != "" {
		h.Set(bridgeSessionHeader, sid)
	}
	w.WriteHeader(status)
	w.Write(body)
}

func (b *BridgeToStdio) get(w http.ResponseWriter, r *http.Request) {
	s := b.sessionOf(w, r)
	if s == nil {
		return
	}
	if !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		http.Error(w, "Not Acceptable: the GET stream is text/event-stream", http.StatusNotAcceptable)
		return
	}
	s.mu.Lock()
	if s.streams > 0 {
		s.mu.Unlock()
		http.Error(w, "Conflict: the session's event stream is already open", http.StatusConflict)
		return
	}
	s.streams++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.streams--
		s.mu.Unlock()
		s.touch()
	}()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set(bridgeSessionHeader, s.id)
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	if rc.Flush() != nil {
		return
	}
	for {
		s.mu.Lock()
		msgs, dropped := s.backlog, s.dropped
		s.backlog, s.dropped = nil, 0
		wake := s.wake
		s.mu.Unlock()
		if dropped > 0 {
			s.tap.Note("dropped", map[string]any{"messages": dropped, "why": "the GET stream's backlog was full"})
		}
		for _, m := range msgs {
			if _, err := fmt.Fprintf(w, "event: message\ndata: %s\n\n", m); err != nil {
				return
			}
		}
		if len(msgs) > 0 && rc.Flush() != nil {
			return
		}
		select {
		case <-wake:
		case <-s.done:
			return
		case <-r.Context().Done():
			return
		}
	}
}

// start starts a new session's server, or a server of the stateless pool
// with a POST counted in.
func (b *BridgeToStdio) start(stateless bool) (*bridgeSession, error) {
	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, err
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil, errors.New("the proxy is shutting down")
	}
	b.mu.Unlock()
	tap, end, err := b.NewTap()
	if err != nil {
		return nil, err
	}
	pr, pw := io.Pipe()
	s := &bridgeSession{
		id: hex.EncodeToString(raw[:]), b: b, tap: tap,
		done: make(chan struct{}), sigs: make(chan os.Signal, 4),
		stdin: pw, waiters: map[string]*bridgePost{}, wake: make(chan struct{}),
		stateless: stateless,
	}
	if stateless {
		s.inFlight = 1
	}
	shim := &Stdio{Args: b.Args, Env: b.Env, Dir: b.Dir, In: pr, Out: s, Stderr: b.Stderr, Tap: tap, Signals: s.sigs, Grace: b.Grace}
	b.mu.Lock()
	if b.sessions == nil {
		b.sessions = map[string]*bridgeSession{}
	}
	b.sessions[s.id] = s
	b.wg.Add(1)
	b.mu.Unlock()
	if stateless {
		tap.Note("http-stateless", nil)
	} else {
		tap.Note("http-session", map[string]any{"id": s.id})
		tap.SetSession(s.id)
	}
	if b.IdleTimeout > 0 {
		s.idle = time.AfterFunc(b.IdleTimeout, s.idleCheck)
	}
	go func() {
		defer b.wg.Done()
		code, err := shim.Run()
		s.mu.Lock()
		s.code, s.err = code, err
		if s.idle != nil {
			s.idle.Stop()
		}
		s.mu.Unlock()
		if err != nil {
			tap.Note("error", map[string]any{"op": "starting the server", "error": err.Error()})
		}
		close(s.done)
		// The relay reading the host's side may still wait on the pipe,
		// and a POST on writing to it.
		pr.CloseWithError(errBridgeSessionEnded)
		pw.CloseWithError(errBridgeSessionEnded)
		tap.Close()
		if end != nil {
			end()
		}
		// Forgotten once its log is complete: a session the bridge no
		// longer counts has been recorded in full.
		b.mu.Lock()
		delete(b.sessions, s.id)
		b.mu.Unlock()
	}()
	return s, nil
}

// Close stops every session's server and waits for them to exit.
func (b *BridgeToStdio) Close() {
	b.mu.Lock()
	b.closed = true
	all := make([]*bridgeSession, 0, len(b.sessions))
	for _, s := range b.sessions {
		all = append(all, s)
	}
	b.mu.Unlock()
	for _, s := range all {
		go s.stop()
	}
	b.wg.Wait()
}

// sessionCount is how many sessions are running or not yet fully
// recorded.
func (b *BridgeToStdio) sessionCount() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.sessions)
}

// send writes a frame to the server as a line.
func (s *bridgeSession) send(line []byte) error {
	s.inMu.Lock()
	defer s.inMu.Unlock()
	_, err := s.stdin.Write(append(line[:len(line):len(line)], '\n'))
	return err
}

// Write receives the server's stdout from the shim's relay, and routes
// each line: an answer to the POST waiting for it, anything else to the
// GET stream.
func (s *bridgeSession) Write(p []byte) (int, error) {
	data := p
	if len(s.partial) > 0 {
		data = append(s.partial, p...)
		s.partial = nil
	}
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		s.route(bridgeTrimEOL(data[:i+1]))
		data = data[i+1:]
	}
	if len(data) > 0 {
		s.partial = append([]byte(nil), data...)
	}
	return len(p), nil
}

// route delivers one line of the server's.
func (s *bridgeSession) route(line []byte) {
	msgs, _, ok := peekBridge(line)
	if !ok {
		// Not JSON-RPC: nothing an HTTP host could read; the checks flag
		// it from the tap.
		return
	}
	var rest [][]byte
	s.mu.Lock()
	for _, m := range msgs {
		if m.isResponse() {
			if p, ok := s.waiters[m.key]; ok {
				delete(s.waiters, m.key)
				p.answers <- bytes.Clone(m.raw)
				continue
			}
		} else if p := s.postOf(m); p != nil {
			select {
			case p.events <- bytes.Clone(m.raw):
				continue
			default:
			}
		}
		rest = append(rest, m.raw)
	}
	if s.stateless && len(rest) > 0 {
		// No GET stream in 2026-07-28: what no POST waits for has no
		// way to the host.
		s.mu.Unlock()
		s.tap.Note("dropped", map[string]any{"messages": len(rest), "why": "a stateless server's message that no request waits for"})
		return
	}
	for _, m := range rest {
		if len(s.backlog) >= bridgeBacklog {
			s.dropped++
			continue
		}
		s.backlog = append(s.backlog, bytes.Clone(m))
	}
	if len(rest) > 0 {
		close(s.wake)
		s.wake = make(chan struct{})
	}
	s.mu.Unlock()
}

// begin and finish bracket a POST, which keeps the session from idling.
func (s *bridgeSession) begin() {
	s.mu.Lock()
	s.inFlight++
	s.mu.Unlock()
}

func (s *bridgeSession) finish() {
	s.mu.Lock()
	s.inFlight--
	s.mu.Unlock()
	s.touch()
}

// touch restarts the idle timer.
func (s *bridgeSession) touch() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.idle != nil {
		s.idle.Reset(s.b.IdleTimeout)
	}
}

// idleCheck stops the session's server when nothing used it for
// IdleTimeout.
func (s *bridgeSession) idleCheck() {
	s.mu.Lock()
	busy := s.inFlight > 0 || s.streams > 0
	if busy {
		s.idle.Reset(s.b.IdleTimeout)
	}
	s.mu.Unlock()
	if !busy {
		s.tap.Note("idle", map[string]any{"after": s.b.IdleTimeout.String()})
		s.stop()
	}
}

// stop ends the session's server as a host would, by closing its stdin;
// a server still running after Grace gets SIGTERM, then SIGKILL.
func (s *bridgeSession) stop() {
	s.mu.Lock()
	if s.stopping {
		s.mu.Unlock()
		return
	}
	s.stopping = true
	s.mu.Unlock()
	s.stdin.Close()
	grace := s.b.Grace
	if grace <= 0 {
		grace = 2 * time.Second
	}
	for _, sig := range []os.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		select {
		case <-s.done:
			return
		case <-time.After(grace):
		}
		select {
		case s.sigs <- sig:
		default:
		}
	}
}

// Serve serves the bridge's endpoint at path on ln until ctx ends, then
// stops every session's server.
func (b *BridgeToStdio) Serve(ctx context.Context, ln net.Listener, path string) error {
	mux := http.NewServeMux()
	mux.Handle(path, b)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		b.Close()
		return err
	case <-ctx.Done():
	}
	srv.Close()
	b.Close()
	<-done
	return nil
}
