package auth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// callbackPath is the redirect URI's path on the loopback receiver.
const callbackPath = "/callback"

// Loopback is the redirect receiver: an HTTP server on 127.0.0.1 that
// takes one authorization response.
//
// It takes one response per [AuthorizeCode] run: the first request to
// /callback that carries code or error and the run's state once the run
// has started. Others (a favicon, a reload, a second tab, a response to
// an abandoned run, a forged response with another state) get a short
// page and change nothing: the run keeps waiting, up to its deadline, so
// that anyone able to reach the port cannot end a sign-in in progress.
// The browser's page
// says whether the sign-in went through once AuthorizeCode has checked the
// response.
type Loopback struct {
	ln      net.Listener
	srv     *http.Server
	results chan callback // capacity 1: the response being waited for
	done    chan struct{}
	once    sync.Once

	mu    sync.Mutex
	armed bool   // a run waits for a response and has none yet
	state string // the state of the run armed
}

// callback is one authorization response; reply takes the text of the
// page the browser is shown.
type callback struct {
	query url.Values
	reply chan string
}

// ListenLoopback listens on 127.0.0.1:port (0: an ephemeral port).
func ListenLoopback(port int) (*Loopback, error) {
	if port < 0 || port > 65535 {
		return nil, fmt.Errorf("listening for the sign-in redirect: port %d is out of range", port)
	}
	// 127.0.0.1, not localhost: RFC 8252 §8.3, and no resolver decides
	// where the code goes.
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("listening for the sign-in redirect on 127.0.0.1:%d: %w (pick another port, or 0 for any)", port, err)
	}
	l := &Loopback{
		ln:      ln,
		results: make(chan callback, 1),
		done:    make(chan struct{}),
	}
	l.srv = &http.Server{
		Handler:           http.HandlerFunc(l.serve),
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() {
		if err := l.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			l.Close()
		}
	}()
	return l, nil
}

// RedirectURI is http://127.0.0.1:PORT/callback.
func (l *Loopback) RedirectURI() string {
	return "http://" + l.ln.Addr().String() + callbackPath
}

// Close stops the receiver. It lets the browser's page be written first
// (for up to two seconds), so that a Close right after [AuthorizeCode]
// does not cut the browser off before it is told the outcome.
func (l *Loopback) Close() error {
	var err error
	l.once.Do(func() {
		close(l.done)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err = l.srv.Shutdown(ctx); err != nil {
			err = l.srv.Close()
		}
	})
	return err
}

func (l *Loopback) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != callbackPath {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		writePage(w, http.StatusMethodNotAllowed, "mcpctl's sign-in receiver only takes the authorization server's redirect.")
		return
	}
	q := r.URL.Query()
	if !q.Has("code") && !q.Has("error") {
		writePage(w, http.StatusBadRequest, "This is mcpctl's sign-in receiver; it waits for the authorization server's redirect.")
		return
	}
	cb := callback{query: q, reply: make(chan string, 1)}
	l.mu.Lock()
	armed := l.armed
	if armed && !l.stateMatches(q) {
		l.mu.Unlock()
		writePage(w, http.StatusBadRequest, "This sign-in response does not belong to the sign-in mcpctl is waiting for (its state does not match); it was ignored.")
		return
	}
	l.armed = false
	l.mu.Unlock()
	if armed {
		select {
		case l.results <- cb:
		default:
			armed = false
		}
	}
	if !armed {
		writePage(w, http.StatusConflict, "mcpctl is not waiting for a sign-in response (it has one already). You can close this tab.")
		return
	}
	// Wait for the verdict so that the page tells the truth; a caller that
	// never answers still gets a page.
	timer := time.NewTimer(30 * time.Second)
	defer timer.Stop()
	select {
	case msg := <-cb.reply:
		writePage(w, http.StatusOK, msg)
	case <-timer.C:
		writePage(w, http.StatusOK, "mcpctl received the sign-in response. Return to the terminal; you can close this tab.")
	case <-r.Context().Done():
	case <-l.done:
		// Closed right after the verdict: both may be ready; the verdict
		// wins.
		select {
		case msg := <-cb.reply:
			writePage(w, http.StatusOK, msg)
		default:
			writePage(w, http.StatusOK, "mcpctl received the sign-in response. Return to the terminal; you can close this tab.")
		}
	}
}

// stateMatches reports whether q carries exactly one state, the armed
// run's. l.mu is held.
func (l *Loopback) stateMatches(q url.Values) bool {
	got := q["state"]
	return len(got) == 1 && subtle.ConstantTimeCompare([]byte(got[0]), []byte(l.state)) == 1
}

// arm readies the receiver for one response of a new run, whose request
// carries state, answering any left from an abandoned run so that it is
// not taken for this one.
func (l *Loopback) arm(state string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for drained := false; !drained; {
		select {
		case cb := <-l.results:
			cb.reply <- "This sign-in response arrived too late. Return to the terminal."
		default:
			drained = true
		}
	}
	l.armed, l.state = true, state
}

func writePage(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(status)
	fmt.Fprintf(w, "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>mcpctl</title></head>"+
		"<body style=\"font-family:sans-serif;margin:3em\"><p>%s</p></body></html>\n", html.EscapeString(msg))
}
