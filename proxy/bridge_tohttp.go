package proxy

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/transport"
)

// BridgeToHTTP is the bridge from a stdio host to an HTTP server, what
// mcp-remote does: a host starts `mcpctl proxy --url URL` as if it were a
// stdio server, and the bridge sends each line the host writes to the
// server over Streamable HTTP (or legacy HTTP+SSE) and writes each message
// the server sends (answers, its own requests and notifications, from any
// of its streams) back to the host as a line. Frames cross as the bytes
// they arrived as; only a JSON body an HTTP server pretty-printed is
// compacted, since a line break cannot cross stdio.
//
// The bridge keeps the HTTP side's state a client would: the session the
// server assigns, and the protocol revision it negotiated, read from its
// answer to the host's initialize. The MCP session itself is the host's.
//
// When the host closes its stdin, the bridge waits for the answers to the
// requests still pending, then ends the HTTP session (DELETE). When the
// upstream fails, each pending request gets a JSON-RPC error and Run
// returns a [*BridgeUpstreamError].
type BridgeToHTTP struct {
	// Upstream reaches the server.
	Upstream transport.Transport
	// URL names the server in errors and the session log; it must hold no
	// secret.
	URL string
	// In is what the host writes (the proxy's stdin); Out is what it reads.
	In  io.Reader
	Out io.Writer
	// Tap receives the frames and events.
	Tap *Tap
	// MaxMessageSize bounds one line from the host; zero means
	// [transport.DefaultMaxMessageSize].
	MaxMessageSize int64
	// Redact hides secrets in the errors the bridge writes to the host; nil
	// writes them as they are.
	Redact func(string) string
	// Timeout bounds each request: one the upstream has not answered
	// that long after it was sent (or after its latest progress
	// notification) is answered in its place with a JSON-RPC error, the
	// code and words of the HTTP reverse proxy's 504, and cancelled
	// upstream; the session goes on. Zero means no bound.
	Timeout time.Duration
}

// BridgeUpstreamError is the failure of the HTTP server (or of reaching it) that
// ended a [BridgeToHTTP].
type BridgeUpstreamError struct {
	// URL is the server's, as [BridgeToHTTP].URL names it.
	URL string
	Err error
}

func (e *BridgeUpstreamError) Error() string {
	if msg := e.Err.Error(); strings.Contains(msg, e.URL) {
		return "the upstream server failed: " + msg
	}
	return fmt.Sprintf("the upstream server %s failed: %v", e.URL, e.Err)
}

func (e *BridgeUpstreamError) Unwrap() error { return e.Err }

// toHTTPRun is one run of a BridgeToHTTP.
type toHTTPRun struct {
	*BridgeToHTTP
	conn transport.Connection
	life context.Context // ends when the run does: Writes and Reads in flight stop

	mu       sync.Mutex
	pending  map[string]json.RawMessage         // requests from the host not yet answered, by id
	answered map[string]bool                    // requests the bridge answered with an error
	initKey  string                             // the id of the host's latest initialize
	writes   int                                // Writes in flight
	version  string                             // the connection's MCP-Protocol-Version
	timers   map[string]*time.Timer             // the Timeout of each pending request, by id
	progress map[string]string                  // pending requests' progress tokens → their ids
	cancels  map[string]context.CancelCauseFunc // a pending request's Write in flight, by id

	writeMu sync.Mutex // serialises Writes on a connection that needs it

	outMu   sync.Mutex
	changed chan struct{} // poked when writes or pending shrink
	fatal   chan error    // the upstream failed
	gone    chan error    // writing to the host failed
}

// Run relays until the host has closed its stdin and every request it
// sent was answered, or the upstream failed (an [*BridgeUpstreamError]), or the
// host stopped reading, or ctx ends (ctx's error).
func (b *BridgeToHTTP) Run(ctx context.Context) error {
	conn, err := b.Upstream.Connect(ctx)
	if err != nil {
		return &BridgeUpstreamError{URL: b.URL, Err: err}
	}
	life, stop := context.WithCancel(context.Background())
	defer stop()
	r := &toHTTPRun{
		BridgeToHTTP: b, conn: conn, life: life,
		pending: map[string]json.RawMessage{}, answered: map[string]bool{},
		timers: map[string]*time.Timer{}, progress: map[string]string{}, cancels: map[string]context.CancelCauseFunc{},
		changed: make(chan struct{}, 1), fatal: make(chan error, 1), gone: make(chan error, 1),
	}
	// "command" is what proxy ls shows as the server.
	b.Tap.Note("start", map[string]any{"url": b.URL, "command": []string{b.URL}})
	hostDone := make(chan error, 1)
	go func() { hostDone <- r.readHost() }()
	go r.readUpstream()

	end := func() {
		stop()
		r.mu.Lock()
		for _, t := range r.timers {
			t.Stop()
		}
		r.mu.Unlock()
		conn.Close()
	}
	eof := false
	for {
		select {
		case <-ctx.Done():
			b.Tap.Note("signal", map[string]any{"error": context.Cause(ctx).Error()})
			end()
			return ctx.Err()
		case err := <-r.fatal:
			b.Tap.Note("error", map[string]any{"op": "reaching the upstream", "error": r.redact(err.Error())})
			r.failAll(err)
			end()
			return &BridgeUpstreamError{URL: b.URL, Err: err}
		case err := <-r.gone:
			b.Tap.Note("host-gone", map[string]any{"error": err.Error()})
			end()
			return nil
		case err := <-hostDone:
			hostDone, eof = nil, true
			if err != nil {
				b.Tap.Note("error", map[string]any{"op": "reading the host", "error": err.Error()})
			} else {
				b.Tap.Note("host-closed", nil)
			}
		case <-r.changed:
		}
		if eof && r.quiet() {
			end()
			b.Tap.Note("upstream-closed", nil)
			return nil
		}
	}
}

func (r *toHTTPRun) redact(s string) string {
	if r.Redact == nil {
		return s
	}
	return r.Redact(s)
}

// setVersion gives the connection the revision to send as
// MCP-Protocol-Version, when it changed.
func (r *toHTTPRun) setVersion(v string) {
	r.mu.Lock()
	changed := r.version != v
	r.version = v
	r.mu.Unlock()
	if s, ok := r.conn.(transport.ProtocolVersionSetter); ok && changed {
		s.SetProtocolVersion(v)
	}
}

// poke says writes or pending shrank.
func (r *toHTTPRun) poke() {
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

// quiet reports whether nothing is in flight: no Write, no request
// waiting for its answer.
func (r *toHTTPRun) quiet() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.writes == 0 && len(r.pending) == 0
}

// readHost sends each line of In to the upstream until In ends.
func (r *toHTTPRun) readHost() error {
	limit := r.MaxMessageSize
	if limit <= 0 {
		limit = transport.DefaultMaxMessageSize
	}
	br := bufio.NewReaderSize(r.In, relayBuffer)
	for {
		line, tooLong, err := bridgeReadLine(br, limit)
		if tooLong {
			r.Tap.Note("error", map[string]any{"op": "reading the host", "error": fmt.Sprintf("a line larger than the %s message size limit was not sent", transport.FormatSize(limit))})
		} else if len(line) > 0 {
			r.fromHost(line)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// bridgeReadLine reads one line without its line ending, in a slice of its
// own (the connection may keep it). A line over limit is skipped to its
// end and reported as tooLong.
func bridgeReadLine(br *bufio.Reader, limit int64) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if int64(len(line)+len(chunk)) > limit+2 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bridgeTrimEOL(line)
		return line, tooLong, err
	}
}

// bridgeTrimEOL removes a trailing "\n" or "\r\n".
func bridgeTrimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
	}
	return b
}

// fromHost sends one line of the host's to the upstream.
func (r *toHTTPRun) fromHost(line []byte) {
	if len(strings.TrimSpace(string(line))) == 0 {
		return
	}
	bridgeTapFrame(r.Tap, HostToServer, line)
	msgs, _, ok := peekBridge(line)
	if !ok {
		r.Tap.Note("error", map[string]any{"op": "relaying to the upstream", "error": "a line from the host that is not JSON-RPC cannot be sent over HTTP; it was dropped"})
		return
	}
	ctx, cancel := context.WithCancelCause(r.life)
	r.mu.Lock()
	for _, m := range msgs {
		if m.isRequest() {
			r.pending[m.key] = m.id
			if m.method == "initialize" {
				r.initKey = m.key
			}
			r.startTimer(m)
			if len(msgs) == 1 {
				// A request that times out stops its POST too, should
				// the server not even have answered with headers.
				r.cancels[m.key] = cancel
			}
		}
	}
	r.writes++
	r.mu.Unlock()
	var wo transport.WriteOptions
	if len(msgs) == 1 {
		m := msgs[0]
		// The HTTP side of what the host decided: the revision its
		// messages carry and the headers the stateless revision mirrors
		// from them. The host's server/discover is its era probe, which
		// must not settle the transport detection when refused.
		version, h := client.RelayHeaders(m.method, m.params)
		switch {
		case version != "":
			r.setVersion(version)
			wo.Header = h
		case m.method == "initialize" && m.isRequest():
			// Legacy rules until the server's answer names the revision.
			r.setVersion("")
		}
		wo.Probe = m.method == "server/discover"
	}
	send := func() {
		err := r.conn.Write(ctx, line, wo)
		r.mu.Lock()
		for _, m := range msgs {
			delete(r.cancels, m.key)
		}
		r.mu.Unlock()
		if errors.Is(context.Cause(ctx), errBridgeTimeout) {
			// The request timed out and was answered already.
			err = nil
		}
		cancel(nil)
		r.written(msgs, err)
	}
	if cw, ok := r.conn.(transport.ConcurrentWriter); ok && cw.WritesConcurrently() {
		// Each message is its own HTTP request, and one whose answer is
		// slow must not hold back the next (the host's answer to a
		// request the server sent meanwhile).
		go send()
		return
	}
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	send()
}

// errBridgeTimeout is the cause of a request's Write ending because the
// upstream took longer than the bridge's Timeout.
var errBridgeTimeout = errors.New("the server took longer than the proxy's --timeout")

// startTimer starts the Timeout of request m; r.mu is held.
func (r *toHTTPRun) startTimer(m bridgeMsg) {
	if r.Timeout <= 0 {
		return
	}
	if t := r.timers[m.key]; t != nil {
		t.Stop()
	}
	key := m.key
	r.timers[key] = time.AfterFunc(r.Timeout, func() { r.timedOut(key) })
	var p struct {
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if json.Unmarshal(m.params, &p) == nil && len(p.Meta.ProgressToken) > 0 {
		r.progress[string(p.Meta.ProgressToken)] = key
	}
}

// settle stops the Timeout of request key, answered; r.mu is held.
func (r *toHTTPRun) settle(key string) {
	if t := r.timers[key]; t != nil {
		t.Stop()
		delete(r.timers, key)
	}
	for tok, k := range r.progress {
		if k == key {
			delete(r.progress, tok)
		}
	}
}

// progressed restarts the Timeout of the request a progress notification
// of the upstream's is about: a call that reports progress is not stalled.
func (r *toHTTPRun) progressed(params json.RawMessage) {
	var p struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.ProgressToken) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if key, ok := r.progress[string(p.ProgressToken)]; ok {
		if t := r.timers[key]; t != nil {
			t.Reset(r.Timeout)
		}
	}
}

// timedOut asks the server to stop working on request key, which it did
// not answer within Timeout (an initialize cannot be cancelled), then
// answers it as the HTTP reverse proxy answers with its 504.
func (r *toHTTPRun) timedOut(key string) {
	if r.life.Err() != nil {
		return
	}
	r.mu.Lock()
	id, ok := r.pending[key]
	cancel := r.cancels[key]
	isInit := key == r.initKey
	r.mu.Unlock()
	if !ok {
		return
	}
	text := r.redact(fmt.Sprintf("mcpctl proxy: the server at %s did not answer within %s", r.URL, r.Timeout))
	r.Tap.Note("timeout", map[string]any{"id": key, "error": text})
	if cancel != nil {
		cancel(errBridgeTimeout)
	}
	if !isInit {
		// Sent before the host is answered: a host that ends the session
		// on the answer would otherwise leave the server working.
		reason, _ := json.Marshal(fmt.Sprintf("mcpctl proxy: no answer within %s", r.Timeout))
		r.fromHost([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + string(id) + `,"reason":` + string(reason) + `}}`))
	}
	r.answerError(key, codeUpstreamTimeout, text)
}

// written handles the outcome of sending msgs: an HTTP error answers the
// requests among them; a failure to reach the server ends the bridge.
func (r *toHTTPRun) written(msgs []bridgeMsg, err error) {
	defer func() {
		r.mu.Lock()
		r.writes--
		r.mu.Unlock()
		r.poke()
	}()
	if err == nil || r.life.Err() != nil {
		return
	}
	var (
		httpErr *transport.HTTPError
		expired *transport.SessionExpiredError
	)
	if !errors.As(err, &httpErr) && !errors.As(err, &expired) {
		select {
		case r.fatal <- err:
		default:
		}
		return
	}
	text := "mcpctl proxy: the upstream server refused the request: " + r.redact(err.Error())
	if expired != nil {
		text += "; initialize again to start a new session"
	}
	for _, m := range msgs {
		if m.isRequest() {
			r.answerError(m.key, bridgeCodeUpstream, text)
		} else {
			r.Tap.Note("error", map[string]any{"op": "relaying to the upstream", "error": r.redact(err.Error())})
		}
	}
}

// answerError answers the pending request key with a JSON-RPC error in the
// server's place; its answer, should it still come, is dropped.
func (r *toHTTPRun) answerError(key string, code int, text string) {
	r.mu.Lock()
	id, ok := r.pending[key]
	if ok {
		delete(r.pending, key)
		r.answered[key] = true
		r.settle(key)
	}
	r.mu.Unlock()
	if !ok {
		return
	}
	msg := bridgeRPCError(id, code, text)
	bridgeTapFrame(r.Tap, ServerToHost, msg)
	r.toHost(msg)
	r.poke()
}

// failAll answers every pending request with the upstream's failure.
func (r *toHTTPRun) failAll(err error) {
	r.mu.Lock()
	keys := make([]string, 0, len(r.pending))
	for k := range r.pending {
		keys = append(keys, k)
	}
	r.mu.Unlock()
	text := "mcpctl proxy: the upstream server failed: " + r.redact(err.Error())
	for _, k := range keys {
		r.answerError(k, bridgeCodeUpstream, text)
	}
}

// readUpstream writes each message of the upstream's to the host until
// the connection fails or is closed.
func (r *toHTTPRun) readUpstream() {
	for {
		msg, err := r.conn.Read(r.life)
		if err != nil {
			if r.life.Err() != nil {
				return
			}
			var reqErr *transport.RequestError
			if errors.As(err, &reqErr) {
				r.answerError(strings.TrimSpace(string(reqErr.ID)), bridgeCodeUpstream, "mcpctl proxy: the upstream server's answer was lost: "+r.redact(reqErr.Err.Error()))
				continue
			}
			if errors.Is(err, io.EOF) {
				err = errors.New("the server closed the connection")
			}
			select {
			case r.fatal <- err:
			default:
			}
			return
		}
		r.fromUpstream(bridgeOneLine(msg))
	}
}

// fromUpstream writes one message of the upstream's to the host.
func (r *toHTTPRun) fromUpstream(msg []byte) {
	msgs, _, ok := peekBridge(msg)
	if ok {
		for _, m := range msgs {
			if m.method == "notifications/progress" && r.Timeout > 0 {
				r.progressed(m.params)
			}
		}
		var version string
		r.mu.Lock()
		for _, m := range msgs {
			if !m.isResponse() {
				continue
			}
			if r.answered[m.key] && len(msgs) == 1 {
				// The bridge answered it already, with an error.
				delete(r.answered, m.key)
				r.mu.Unlock()
				r.Tap.Note("error", map[string]any{"op": "relaying to the host", "error": "an answer to request " + m.key + " came after the bridge had answered it with an error; it was dropped"})
				return
			}
			delete(r.pending, m.key)
			r.settle(m.key)
			if m.key == r.initKey && m.result != nil {
				version = bridgeProtocolVersion(m.result)
			}
		}
		r.mu.Unlock()
		if version != "" {
			// Before the host sees the answer, so that its next request
			// carries MCP-Protocol-Version.
			r.setVersion(version)
		}
		defer r.poke()
	}
	bridgeTapFrame(r.Tap, ServerToHost, msg)
	r.toHost(msg)
}

// toHost writes msg to the host as a line. A failure means the host is
// gone, which ends the run.
func (r *toHTTPRun) toHost(msg []byte) {
	r.outMu.Lock()
	defer r.outMu.Unlock()
	_, err := r.Out.Write(msg)
	if err == nil {
		_, err = r.Out.Write([]byte{'\n'})
	}
	if err != nil {
		select {
		case r.gone <- err:
		default:
		}
	}
}
