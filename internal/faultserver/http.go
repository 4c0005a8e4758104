package faultserver

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpctl/mcpctl/client"
)

// Texts of the HTTP modes.
const (
	// HTMLPage is the body of html-500 and html-200.
	HTMLPage = "<html><body><h1>Server Error</h1>\n<p>the upstream exploded</p></body></html>"
	// Challenge is http-401's WWW-Authenticate header.
	Challenge = `Bearer realm="mcp", error="invalid_token", error_description="the token expired"`
	// ResumeEventID is the id of the event dropped-sse-with-id sends before
	// its stream ends.
	ResumeEventID = "ev-1"
)

// httpState is what an HTTP fault server remembers between requests.
type httpState struct {
	ctx       context.Context // ends with the server
	mu        sync.Mutex
	sessions  int               // sessions handed out: s1, s2, …
	expired   bool              // expired-session: s1's 404 was sent
	answered  map[string]int    // session-ends: requests answered per session
	faulted   bool              // the one-time fault happened
	pending   map[string][]byte // dropped-sse-with-id: Last-Event-ID → the answer
	targetURL string            // redirect-other-origin: where to
}

// Handler returns an HTTP handler serving cfg's mode at every path, for Go
// tests that run a fault server in their own process. It logs nothing.
// redirect-other-origin needs the second listener of the faultserver
// command and is not available here.
func Handler(ctx context.Context, cfg Config) (http.Handler, error) {
	m, ok := modes[cfg.Mode]
	if !ok || !m.http || cfg.Mode == "redirect-other-origin" {
		return nil, fmt.Errorf("faultserver: mode %q cannot be served by Handler", cfg.Mode)
	}
	s := &server{cfg: cfg.withDefaults(), stderr: io.Discard}
	s.http = &httpState{ctx: ctx, pending: map[string][]byte{}}
	return s, nil
}

// serveHTTP listens on addr and serves until ctx ends, SIGINT or SIGTERM.
func (s *server) serveHTTP(ctx context.Context, addr string) error {
	sigCtx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	s.http = &httpState{ctx: sigCtx, pending: map[string][]byte{}}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	defer srv.Close()
	done := make(chan error, 2)
	go func() { done <- srv.Serve(ln) }()

	if s.cfg.Mode == "redirect-other-origin" {
		tln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		target := &server{cfg: Config{Mode: "ok"}.withDefaults(), log: openLog(s.cfg.TargetLog, s.stderr), stderr: s.stderr}
		target.http = &httpState{ctx: sigCtx, pending: map[string][]byte{}}
		defer target.log.close()
		tsrv := &http.Server{Handler: target, ReadHeaderTimeout: 10 * time.Second}
		defer tsrv.Close()
		go func() { done <- tsrv.Serve(tln) }()
		s.http.targetURL = "http://" + net.JoinHostPort(s.cfg.RedirectHost, strconv.Itoa(tln.Addr().(*net.TCPAddr).Port))
	}

	url := "http://" + ln.Addr().String() + "/mcp"
	if s.ready != "" {
		// Written to a temporary name and renamed, so a script waiting for
		// the file never reads half a URL.
		if err := os.WriteFile(s.ready+".tmp", []byte(url+"\n"), 0o644); err != nil {
			return err
		}
		if err := os.Rename(s.ready+".tmp", s.ready); err != nil {
			return err
		}
	}
	fmt.Fprintf(s.stderr, "faultserver: listening on %s\n", url)
	select {
	case <-sigCtx.Done():
		if ctx.Err() != nil {
			return ctx.Err() // the lifetime, not a signal
		}
		return nil
	case err := <-done:
		return err
	}
}

// loggedHeaders are the request headers -log records.
func loggedHeaders(r *http.Request) map[string]string {
	h := map[string]string{}
	for name, values := range r.Header {
		switch {
		case name == "Authorization", name == "Mcp-Session-Id", name == "Mcp-Protocol-Version",
			name == "Last-Event-Id", name == "Accept", strings.HasPrefix(name, "X-"):
			h[name] = strings.Join(values, ", ")
		}
	}
	return h
}

// headerSecrets are the credentials echo-secret echoes over HTTP: its
// Authorization and X-* headers, and the query of the URL it was reached
// by, as a server that logs or echoes its request line would.
func headerSecrets(r *http.Request) []string {
	var out []string
	for name, values := range r.Header {
		if name == "Authorization" || strings.HasPrefix(name, "X-") {
			out = append(out, values...)
		}
	}
	if r.URL.RawQuery != "" {
		out = append(out, r.URL.RequestURI())
	}
	if len(out) == 0 {
		out = []string{"(no Authorization or X-* header)"}
	}
	return out
}

// ServeHTTP implements http.Handler.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body []byte
	if r.Method == http.MethodPost {
		var err error
		// A request as large as -size is read whole (a test of what the
		// client sends), a default one up to 16 MiB.
		body, err = io.ReadAll(io.LimitReader(r.Body, max(16<<20, s.cfg.Size+1<<20)))
		if err != nil {
			http.Error(w, "reading the body: "+err.Error(), http.StatusBadRequest)
			return
		}
	}
	entry := object{"http": r.Method + " " + r.URL.Path, "headers": loggedHeaders(r)}
	if len(body) > 0 {
		s.log.record(entry, body)
	} else {
		s.log.record(entry, nil)
	}

	switch s.cfg.Mode {
	case "sse-silent":
		s.wait(r)
		return
	case "http-401":
		w.Header().Set("WWW-Authenticate", Challenge)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	case "redirect-other-origin":
		http.Redirect(w, r, s.http.targetURL+r.URL.Path, http.StatusTemporaryRedirect)
		return
	case "redirect-same-origin":
		if r.URL.Path == "/mcp" {
			http.Redirect(w, r, "/mcp/moved", http.StatusTemporaryRedirect)
			return
		}
	case "sse-comments-only":
		if r.Method != http.MethodGet {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		s.commentsOnly(w, r)
		return
	case "html-500", "html-200":
		if r.Method == http.MethodPost {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			if s.cfg.Mode == "html-500" {
				w.WriteHeader(http.StatusInternalServerError)
			}
			io.WriteString(w, HTMLPage)
			return
		}
	}

	switch r.Method {
	case http.MethodDelete:
		w.WriteHeader(http.StatusOK)
	case http.MethodGet:
		s.serveGet(w, r)
	case http.MethodPost:
		s.servePost(w, r, body)
	default:
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// wait blocks until the client goes away or the server ends.
func (s *server) wait(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.http.ctx.Done():
	}
}

// commentsOnly is an SSE stream of comments, never an event.
func (s *server) commentsOnly(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := io.WriteString(w, ": nothing to see here\n\n"); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
		select {
		case <-r.Context().Done():
			return
		case <-s.http.ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// serveGet answers a GET: the resumed stream of dropped-sse-with-id, or 405
// (no server-initiated stream).
func (s *server) serveGet(w http.ResponseWriter, r *http.Request) {
	if id := r.Header.Get("Last-Event-ID"); id != "" {
		s.http.mu.Lock()
		answer, ok := s.http.pending[id]
		delete(s.http.pending, id)
		s.http.mu.Unlock()
		if ok {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			fmt.Fprintf(w, "id: ev-2\nevent: message\ndata: %s\n\n", answer)
			return
		}
	}
	http.Error(w, "method not allowed: this server offers no GET stream", http.StatusMethodNotAllowed)
}

// servePost answers a POST of one message or a batch.
func (s *server) servePost(w http.ResponseWriter, r *http.Request, body []byte) {
	msgs, err := parseMessages(body)
	if err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write(errorResponse([]byte("null"), client.CodeParseError, "parse error: "+err.Error()))
		return
	}
	var requests []message
	initialize := false
	for _, m := range msgs {
		if m.isRequest() {
			requests = append(requests, m)
			initialize = initialize || m.Method == "initialize"
		}
	}

	st := s.http
	st.mu.Lock()
	session := r.Header.Get("Mcp-Session-Id")
	if initialize {
		st.sessions++
		session = "s" + strconv.Itoa(st.sessions)
		w.Header().Set("Mcp-Session-Id", session)
	}
	expire := s.cfg.Mode == "expired-session" && !st.expired && len(requests) > 0 && !initialize &&
		session == "s1"
	if expire {
		st.expired = true
	}
	if s.cfg.Mode == "session-ends" && !initialize && session != "" {
		// A session ends once it has answered -n requests: any later
		// message carrying it gets 404.
		if st.answered == nil {
			st.answered = map[string]int{}
		}
		expire = st.answered[session] >= s.cfg.Count
		if !expire {
			st.answered[session] += len(requests)
		}
	}
	var fault bool
	if len(requests) > 0 && !initialize && !st.faulted {
		switch s.cfg.Mode {
		case "huge-json-body", "huge-sse-event":
			fault = true
		case "dropped-sse-with-id", "dropped-sse-without-id":
			fault = requests[0].Method == "tools/call"
		}
		st.faulted = fault
	}
	st.mu.Unlock()

	switch {
	case expire:
		http.Error(w, "session "+session+" expired", http.StatusNotFound)
		return
	case len(requests) == 0:
		w.WriteHeader(http.StatusAccepted)
		return
	case s.cfg.Mode == "never-answers":
		s.wait(r)
		return
	case fault && strings.HasPrefix(s.cfg.Mode, "huge-"):
		s.hugeBody(w, requests[0])
		return
	case fault:
		s.droppedStream(w, r, requests[0])
		return
	}

	var out [][]byte
	for _, m := range requests {
		msgs, err := s.handle(r.Context(), m, headerSecrets(r), session)
		if err != nil {
			return // the client went away
		}
		out = append(out, msgs...)
	}
	if len(out) == 1 && !s.cfg.SSE {
		w.Header().Set("Content-Type", "application/json")
		w.Write(out[0])
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, 64<<10)
	for _, msg := range out {
		// Written piece by piece: a huge message is not copied again.
		bw.WriteString("event: message\ndata: ")
		bw.Write(msg)
		bw.WriteString("\n\n")
	}
	bw.Flush()
}

// hugeBody answers m with a text result of -size bytes, as one JSON body
// or one SSE event, written as it goes rather than built in memory.
func (s *server) hugeBody(w http.ResponseWriter, m message) {
	sse := s.cfg.Mode == "huge-sse-event"
	if sse {
		w.Header().Set("Content-Type", "text/event-stream")
	} else {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, 64<<10)
	if sse {
		bw.WriteString("event: message\ndata: ")
	}
	// A result that suits tools/list and tools/call alike, the bulk in
	// _meta.
	fmt.Fprintf(bw, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[%s],"content":[{"type":"text","text":"ok"}],"_meta":{"padding":"`, m.ID, mustJSON(faultTool()))
	if writeFill(s.http.ctx, bw, s.cfg.Size) != nil {
		return
	}
	bw.WriteString(`"}}}`)
	if sse {
		bw.WriteString("\n\n")
	}
	bw.Flush()
}

// droppedStream answers m on an SSE stream that breaks before the answer:
// after an event with an id the client can resume from (the answer then
// waits for its GET), or after one without.
func (s *server) droppedStream(w http.ResponseWriter, r *http.Request, m message) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	note := logMessage("the stream is about to drop")
	if s.cfg.Mode == "dropped-sse-with-id" {
		out, err := s.handle(r.Context(), m, nil, "")
		if err != nil || len(out) == 0 {
			return
		}
		s.http.mu.Lock()
		s.http.pending[ResumeEventID] = out[len(out)-1]
		s.http.mu.Unlock()
		fmt.Fprintf(w, "id: %s\nretry: 10\nevent: message\ndata: %s\n\n", ResumeEventID, note)
	} else {
		fmt.Fprintf(w, "event: message\ndata: %s\n\n", note)
	}
	if err := http.NewResponseController(w).Flush(); err != nil {
		return
	}
	// Aborting the handler drops the connection without ending the
	// chunked body: the stream breaks as a network failure would.
	panic(http.ErrAbortHandler)
}
