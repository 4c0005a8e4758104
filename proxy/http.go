package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"mime"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpctl/mcpctl/transport"
)

// HTTP is the HTTP reverse proxy: a host connects to it in place of the
// server's URL, and it forwards every request to the server (Upstream)
// and every answer back, streaming server-sent events as they arrive and
// flushing each one, with bodies and headers unchanged except the
// hop-by-hop ones. Streamable HTTP and the legacy HTTP+SSE transport both
// pass: a request keeps its path and query and only changes origin, and
// the legacy transport's endpoint event, when it names the server's
// origin, is rewritten to name the proxy's.
//
// Authorization passes through as a transparent observer would let it:
// 401s with their WWW-Authenticate, the metadata documents and the host's
// Authorization header are relayed unchanged; the header's token is added
// to Redactor, so that the session log hides it wherever it appears.
//
// Each JSON-RPC message is handed to Tap as it passes: a POST's JSON body
// (once the server has read it, before the server can answer it), a JSON
// response body, the data of each server-sent event (before the event's
// bytes are passed on). The bodies are copied as they stream through, up
// to the tap's frame limit; nothing waits for them.
//
// Requests carrying an Origin that is not a loopback one are refused with
// 403, which protects a loopback listener from DNS rebinding. HTTP is an
// [http.Handler]; [HTTP.Serve] runs it on a listener.
type HTTP struct {
	// Upstream is the server's endpoint. Requests go to its scheme and
	// host, each with its own path and query.
	Upstream *url.URL
	// Tap receives the frames and events.
	Tap *Tap
	// Timeout bounds each request: the server must start answering within
	// it, and an answer must not pause for longer (a GET's event stream,
	// which may rightly stay quiet, is bounded only until it starts).
	// Zero means no bound.
	Timeout time.Duration
	// Transport makes the requests to the server; nil means
	// [http.DefaultTransport].
	Transport http.RoundTripper
	// Redactor learns the tokens the host sends; nil learns none.
	Redactor *transport.Redactor
	// OwnCredentials says that Transport signs in to the server itself:
	// the host's Authorization and DPoP headers are dropped, never passed
	// on (no token passthrough).
	OwnCredentials bool
	// Govern, when set, governs the host's requests (govern_http.go):
	// each POST holding a governed request is answered by the proxy, and
	// what is not governed is relayed as above, its bodies read whole.
	// Each request's identity is its bearer token's ([TokenIdentity]).
	Govern *Governor
	// JWTKey, when set, verifies the bearer tokens that name the
	// identities of governed requests (HS256).
	JWTKey []byte

	mu        sync.Mutex
	lastToken string
	gov       govSessions
}

// errUpstreamTimeout is the cause of a request's context ending because
// the server took longer than Timeout.
var errUpstreamTimeout = errors.New("the server took longer than the proxy's --timeout")

// JSON-RPC error codes of the answers the proxy makes up for a server that
// did not answer: -32001 is what the MCP SDKs use for a request timeout.
const (
	codeUpstreamUnreachable = -32000
	codeUpstreamTimeout     = -32001
)

// Serve serves the proxy on ln until ctx ends, then stops: requests in
// flight get grace to finish (event streams are cut after it). It returns
// nil when ctx ended, or the listener's error.
func (h *HTTP) Serve(ctx context.Context, ln net.Listener, grace time.Duration) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          log.New(noteWriter{h.Tap}, "", 0),
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if srv.Shutdown(sctx) != nil {
		srv.Close()
	}
	<-done
	return nil
}

// ServeHTTP forwards one request.
func (h *HTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if o := r.Header.Get("Origin"); o != "" && !loopbackOrigin(o) {
		h.Tap.Note("origin-refused", map[string]any{"origin": o, "method": r.Method, "path": transport.RedactURL(r.URL.RequestURI())})
		http.Error(w, fmt.Sprintf("mcpctl proxy: a request from origin %q is refused: only pages served from this machine's loopback addresses may reach the proxy", o), http.StatusForbidden)
		return
	}
	// Kept for the governor: with --auth mcpctl the header is dropped,
	// yet its token still names who calls.
	auth := r.Header.Get("Authorization")
	h.learnToken(r)
	if h.OwnCredentials {
		r.Header.Del("Authorization")
		r.Header.Del("DPoP")
	}
	var gx *govExchange
	if h.Govern != nil {
		var handled bool
		if gx, handled = h.governed(w, r, auth); handled {
			return
		}
	}
	ctx, cancel := context.WithCancelCause(r.Context())
	defer cancel(nil)
	ex := &exchange{h: h, ctx: ctx, host: r.Host, gov: gx, session: r.Header.Get(bridgeSessionHeader)}
	if h.Timeout > 0 {
		ex.timer = time.AfterFunc(h.Timeout, func() { cancel(errUpstreamTimeout) })
		defer ex.timer.Stop()
	}
	r = r.WithContext(ctx)
	if r.Method == http.MethodPost && r.Body != nil && r.Body != http.NoBody && jsonRPCBody(r.Header) {
		ex.req = &bodyTap{r: r.Body, tap: h.Tap, dir: HostToServer, limit: h.Tap.FrameLimit(), size: r.ContentLength, onRead: ex.touch, session: ex.session}
		r.Body = ex.req
	}
	rp := &httputil.ReverseProxy{
		Rewrite:        ex.rewrite,
		ModifyResponse: ex.modify,
		ErrorHandler:   ex.fail,
		// Every write is flushed: an event reaches the host as soon as
		// the server sent it.
		FlushInterval: -1,
		Transport:     h.Transport,
		ErrorLog:      log.New(noteWriter{h.Tap}, "", 0),
	}
	rp.ServeHTTP(w, r)
}

// learnToken adds the credentials r carries to the redactor: every
// Authorization header's value and its token, the values of other headers
// named as credentials (X-Api-Key: see [transport.SecretParam]), and the
// credentials of its query ([transport.URLSecrets]). The server gets them
// all, and may echo any of them. Cookies are left out: a load balancer's
// may change on every request, and the redactor would grow with each.
func (h *HTTP) learnToken(r *http.Request) {
	if h.Redactor == nil {
		return
	}
	var secrets []string
	for name, values := range r.Header {
		if name == "Cookie" || name != "Authorization" && !transport.SecretParam(name) {
			continue
		}
		for _, v := range values {
			secrets = append(secrets, v)
			if _, token, ok := strings.Cut(v, " "); ok {
				secrets = append(secrets, strings.TrimSpace(token))
			}
		}
	}
	secrets = append(secrets, transport.URLSecrets(r.URL.RequestURI())...)
	if len(secrets) == 0 {
		return
	}
	slices.Sort(secrets)
	key := strings.Join(secrets, "\x00")
	h.mu.Lock()
	seen := key == h.lastToken
	h.lastToken = key
	h.mu.Unlock()
	if !seen {
		h.Redactor.Add(secrets...)
	}
}

// exchange is one request and its answer going through the proxy.
type exchange struct {
	h     *HTTP
	ctx   context.Context
	timer *time.Timer  // nil without a timeout
	req   *bodyTap     // the request's body, when it is JSON-RPC
	host  string       // the host the client connected to, as it named it
	gov   *govExchange // what the governor asks of it; nil without one
	// session is the request's Mcp-Session-Id, "" when it has none.
	session string
}

// answerSession is the session a frame of resp belongs to: the one the
// answer names (an initialize's answer names the session it opens), else
// the request's.
func answerSession(resp *http.Response) string {
	if sid := resp.Header.Get(bridgeSessionHeader); sid != "" {
		return sid
	}
	if resp.Request != nil {
		return resp.Request.Header.Get(bridgeSessionHeader)
	}
	return ""
}

// touch restarts the timeout: the server is still answering.
func (ex *exchange) touch() {
	if ex.timer != nil {
		ex.timer.Reset(ex.h.Timeout)
	}
}

func (ex *exchange) rewrite(pr *httputil.ProxyRequest) {
	pr.SetURL(&url.URL{Scheme: ex.h.Upstream.Scheme, Host: ex.h.Upstream.Host})
}

func (ex *exchange) modify(resp *http.Response) error {
	in := resp.Request
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	sse := ct == "text/event-stream"
	onRead := ex.touch
	if sse && in.Method == http.MethodGet {
		onRead = nil
		if ex.timer != nil {
			ex.timer.Stop()
		}
	} else {
		ex.touch()
	}
	encoded := resp.Header.Get("Content-Encoding")
	// Compressed bytes are relayed as they are, but they are no frames.
	plain := encoded == "" || encoded == "identity"
	jsonBody := plain && ct == "application/json" && ex.req != nil
	detail := map[string]any{"method": in.Method, "path": transport.RedactURL(in.URL.RequestURI()), "status": resp.StatusCode}
	if ct != "" {
		detail["content_type"] = ct
	}
	if v := resp.Header.Get("WWW-Authenticate"); v != "" {
		detail["www_authenticate"] = v
	}
	if ex.req != nil {
		// Sent now if the server answered before reading all of it.
		ex.req.flush()
		if resp.StatusCode >= 300 && !jsonBody && !(plain && sse) {
			// An HTTP error with no JSON-RPC message in it answers the
			// request: the checks need its id to close the call.
			if id := requestID(ex.req.kept()); string(id) != "null" {
				detail["request_id"] = id
				if ex.session != "" {
					detail["session"] = ex.session
				}
			}
		}
	}
	ex.h.Tap.Note("http", detail)
	if ex.gov != nil {
		if replaced, err := ex.gov.modify(ex.h, resp, sse, plain, onRead); replaced || err != nil {
			return err
		}
	}
	if !plain {
		return nil
	}
	switch {
	case sse:
		var body io.ReadCloser = resp.Body
		if in.Method == http.MethodGet {
			// The endpoint event may grow: the stream has no length.
			resp.Header.Del("Content-Length")
			resp.ContentLength = -1
			body = &endpointRewrite{r: resp.Body, from: originOf(ex.h.Upstream), to: "http://" + ex.host}
		}
		st := &sseTap{r: body, tap: ex.h.Tap, limit: ex.h.Tap.FrameLimit(), status: resp.StatusCode, onRead: onRead, session: answerSession(resp)}
		if in.Method == http.MethodPost {
			st.onTimeout = ex.timeoutEvent
		}
		resp.Body = st
	case jsonBody:
		resp.Body = &bodyTap{r: resp.Body, tap: ex.h.Tap, dir: ServerToHost, status: resp.StatusCode, limit: ex.h.Tap.FrameLimit(), size: resp.ContentLength, onRead: ex.touch, session: answerSession(resp)}
	}
	return nil
}

// fail answers for a server that could not be reached or took too long,
// as a reverse proxy does (502, 504), with a JSON-RPC error body that
// names the request's id when it is known.
func (ex *exchange) fail(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, context.Canceled) && context.Cause(ex.ctx) == context.Canceled {
		// The host went away; nobody is left to answer.
		ex.h.Tap.Note("host-gone", map[string]any{"method": r.Method, "path": transport.RedactURL(r.URL.RequestURI())})
		return
	}
	status, code := http.StatusBadGateway, codeUpstreamUnreachable
	msg := fmt.Sprintf("mcpctl proxy: the server at %s could not be reached: %v", transport.RedactURL(ex.h.Upstream.String()), err)
	if errors.Is(context.Cause(ex.ctx), errUpstreamTimeout) {
		status, code = http.StatusGatewayTimeout, codeUpstreamTimeout
		msg = fmt.Sprintf("mcpctl proxy: the server at %s did not answer within %s", transport.RedactURL(ex.h.Upstream.String()), ex.h.Timeout)
	}
	msg = ex.h.Redactor.String(msg)
	id := json.RawMessage("null")
	if ex.req != nil {
		// The transport may not have read the body (a server it could not
		// dial): what is left is read now, within a bound.
		http.NewResponseController(w).SetReadDeadline(time.Now().Add(time.Second))
		ex.req.drain()
		id = requestID(ex.req.kept())
	}
	body := errorBody(id, code, msg)
	ex.h.Tap.Note("http", map[string]any{"method": r.Method, "path": transport.RedactURL(r.URL.RequestURI()), "status": status, "error": msg})
	ex.h.Tap.Send(Frame{Time: time.Now(), Dir: ServerToHost, Data: body, Size: int64(len(body)), Status: status, Session: ex.session})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}

// timeoutEvent is the event that ends a POST's event stream when the
// server paused for longer than the timeout: a JSON-RPC error answering
// the request, rather than a stream cut short that the host would try to
// resume.
func (ex *exchange) timeoutEvent() []byte {
	if !errors.Is(context.Cause(ex.ctx), errUpstreamTimeout) || ex.req == nil {
		return nil
	}
	id := requestID(ex.req.kept())
	if string(id) == "null" {
		return nil
	}
	msg := fmt.Sprintf("mcpctl proxy: the server at %s sent nothing for %s", transport.RedactURL(ex.h.Upstream.String()), ex.h.Timeout)
	return append(append([]byte("event: message\ndata: "), errorBody(id, codeUpstreamTimeout, msg)...), "\n\n"...)
}

// errorBody is a JSON-RPC error answer.
func errorBody(id json.RawMessage, code int, msg string) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	return b
}

// requestID is the id of the JSON-RPC request body, or null when body is
// no single request.
func requestID(body []byte) json.RawMessage {
	var m envelope
	if json.Unmarshal(bytes.TrimSpace(body), &m) != nil || m.Method == "" || len(m.ID) == 0 {
		return json.RawMessage("null")
	}
	return m.ID
}

// jsonRPCBody reports whether a POST's body is JSON-RPC: a JSON body, or
// one of no declared type. A form (an OAuth token request to a server that
// is its own authorization server) is relayed, not tapped.
func jsonRPCBody(h http.Header) bool {
	ct := h.Get("Content-Type")
	if ct == "" {
		return true
	}
	mt, _, _ := mime.ParseMediaType(ct)
	return mt == "application/json"
}

// loopbackOrigin reports whether an Origin header names this machine.
func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// originOf is a URL's scheme and host.
func originOf(u *url.URL) string { return u.Scheme + "://" + u.Host }

// NotLoopbackError is a listen address that is not a loopback one, given
// without the flag that allows it.
type NotLoopbackError struct{ Addr string }

func (e *NotLoopbackError) Error() string {
	return fmt.Sprintf("%s is not a loopback address: the proxy listens on 127.0.0.1, [::1] or localhost unless told to listen on others (--listen-any), since anyone who can reach it reaches the server with the host's credentials", e.Addr)
}

// CheckListen checks a listen address: HOST:PORT, HOST a loopback address
// or localhost unless anyHost.
func CheckListen(addr string, anyHost bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address %q: %v (give HOST:PORT, e.g. 127.0.0.1:8080)", addr, err)
	}
	// A port name would be looked up only when listening, and its
	// failure read as a network error rather than a mistyped flag.
	if n, err := strconv.ParseUint(port, 10, 16); err != nil || (n == 0 && port != "0") {
		return fmt.Errorf("listen address %q: the port %q is not a number from 0 to 65535 (give HOST:PORT, e.g. 127.0.0.1:8080)", addr, port)
	}
	if anyHost {
		return nil
	}
	if strings.EqualFold(host, "localhost") {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return &NotLoopbackError{Addr: addr}
}

// noteWriter turns the lines a [log.Logger] writes (the HTTP server's and
// the reverse proxy's complaints) into "error" events.
type noteWriter struct{ tap *Tap }

func (n noteWriter) Write(p []byte) (int, error) {
	n.tap.Note("error", map[string]any{"op": "http", "error": strings.TrimSpace(string(p))})
	return len(p), nil
}

// httpAnswer closes the call an "http" event says was answered with an
// HTTP error and no JSON-RPC message. A 401 or 403 is the start of the
// host's sign-in, after which it sends the request again: no flag.
func (c *Checks) httpAnswer(e Event) {
	d, _ := e.Detail.(map[string]any)
	id, ok := d["request_id"]
	if !ok {
		return
	}
	raw, err := json.Marshal(id)
	if err != nil {
		return
	}
	session, _ := d["session"].(string)
	key := callKey(HostToServer, session, string(canonical(raw)))
	call := c.pending[key]
	if call == nil {
		return
	}
	delete(c.pending, key)
	var status int
	switch v := d["status"].(type) {
	case int:
		status = v
	case float64:
		status = int(v)
	}
	call.Pending, call.Latency, call.Error = false, e.Time.Sub(call.Start), fmt.Sprintf("HTTP %d", status)
	if !expectedRefusal(call.Method, status) {
		c.flag(Frame{Time: e.Time, Dir: ServerToHost, Session: session}, FlagError, call.ID, call.Method, fmt.Sprintf("%s was answered with HTTP %d and no JSON-RPC message", call.Method, status))
	}
	if c.OnCall != nil {
		c.OnCall(*call)
	}
}

// expectedRefusal reports whether an HTTP error is part of the protocol
// rather than a failure: a 401 or 403 starts the host's sign-in, and a
// 400, 404 or 405 to its first request is how a host tells a legacy
// HTTP+SSE server (the spec's backwards compatibility).
func expectedRefusal(method string, status int) bool {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return true
	case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed:
		return method == "initialize" || method == "server/discover"
	}
	return false
}
