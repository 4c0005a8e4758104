package transport_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/mcpctl/mcpctl/transport"
)

// target is a server that must receive nothing: it counts what reaches it
// and which credentials came along.
type target struct {
	mu      sync.Mutex
	n       int
	secrets []string
}

func (tg *target) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	tg.mu.Lock()
	tg.n++
	for _, h := range []string{"Authorization", "X-Api-Key"} {
		if v := r.Header.Get(h); v != "" {
			tg.secrets = append(tg.secrets, h+": "+v)
		}
	}
	tg.mu.Unlock()
	w.WriteHeader(http.StatusTeapot)
}

func (tg *target) check(t *testing.T) {
	t.Helper()
	tg.mu.Lock()
	defer tg.mu.Unlock()
	if tg.n != 0 || len(tg.secrets) != 0 {
		t.Errorf("the redirect target got %d requests, credentials %q", tg.n, tg.secrets)
	}
}

// TestRedirectCrossOrigin: a redirect to another origin (another port,
// localhost for 127.0.0.1) is not followed by any transport: the target
// gets nothing, and the error names both URLs and the fix.
func TestRedirectCrossOrigin(t *testing.T) {
	creds := http.Header{"Authorization": {"Bearer tok-cross-origin-1"}, "X-Api-Key": {"key-cross-origin-2"}}
	other := &target{}
	otherTS := serve(t, other)

	// The redirecting server answers everything with status to where(r).
	// For localhost the target is the redirecting server itself (same
	// port, other host): it must see exactly one request.
	type redirector struct {
		status int
		where  func(self string) string
	}
	cases := []struct {
		name  string
		r     redirector
		local bool // the target is the redirecting server under another name
	}{
		{"307 to another port", redirector{http.StatusTemporaryRedirect, func(string) string { return otherTS.URL + "/mcp" }}, false},
		{"308 to another port", redirector{http.StatusPermanentRedirect, func(string) string { return otherTS.URL + "/mcp" }}, false},
		{"302 to another port", redirector{http.StatusFound, func(string) string { return otherTS.URL + "/mcp" }}, false},
		{"307 to localhost", redirector{http.StatusTemporaryRedirect, func(self string) string {
			return strings.Replace(self, "127.0.0.1", "localhost", 1) + "/mcp"
		}}, true},
		{"307 to https", redirector{http.StatusTemporaryRedirect, func(self string) string {
			return strings.Replace(self, "http://", "https://", 1) + "/mcp"
		}}, true},
	}
	transports := []struct {
		name string
		run  func(ctx context.Context, opts transport.HTTPOptions) error
	}{
		{"streamable", func(ctx context.Context, opts transport.HTTPOptions) error {
			conn, err := (&transport.StreamableHTTP{Options: opts}).Connect(ctx)
			if err != nil {
				return err
			}
			defer conn.Close()
			return conn.Write(ctx, []byte(rawInitialize), transport.WriteOptions{})
		}},
		{"auto", func(ctx context.Context, opts transport.HTTPOptions) error {
			conn, err := (&transport.Auto{Options: opts}).Connect(ctx)
			if err != nil {
				return err
			}
			defer conn.Close()
			return conn.Write(ctx, []byte(rawInitialize), transport.WriteOptions{})
		}},
		{"sse", func(ctx context.Context, opts transport.HTTPOptions) error {
			conn, err := (&transport.SSE{Options: opts}).Connect(ctx)
			if err == nil {
				conn.Close()
			}
			return err
		}},
	}
	for _, tc := range cases {
		for _, tr := range transports {
			t.Run(tc.name+"/"+tr.name, func(t *testing.T) {
				var mu sync.Mutex
				hits := 0
				var self string
				ts := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					mu.Lock()
					hits++
					mu.Unlock()
					http.Redirect(w, r, tc.r.where(self), tc.r.status)
				}))
				self = ts.URL
				from := ts.URL + "/start"
				to := tc.r.where(self)
				caller := &http.Client{}
				ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
				defer cancel()
				err := tr.run(ctx, transport.HTTPOptions{URL: from, Header: creds, Client: caller})
				var re *transport.RedirectError
				if !errors.As(err, &re) {
					t.Fatalf("error %v, want a *RedirectError", err)
				}
				if re.From != from || re.To != to || re.Status != tc.r.status {
					t.Errorf("RedirectError %+v, want From %s To %s", re, from, to)
				}
				if !strings.Contains(err.Error(), "--url "+to) || !strings.Contains(err.Error(), from) {
					t.Errorf("error %q does not name both URLs and the fix", err)
				}
				if strings.Contains(err.Error(), "tok-cross-origin") || strings.Contains(err.Error(), "key-cross-origin") {
					t.Errorf("error leaks a credential: %q", err)
				}
				if caller.CheckRedirect != nil {
					t.Error("the caller's http.Client was modified")
				}
				mu.Lock()
				defer mu.Unlock()
				if want := 1; tc.local && hits != want {
					t.Errorf("the server under another name got %d requests, want %d", hits, want)
				}
				other.check(t)
			})
		}
	}
	want := fmt.Sprintf("POST %s: the server redirects to %s, another origin; mcpctl does not follow it with your credentials (use --url %s if you trust it)",
		"http://127.0.0.1:1234/mcp", "http://127.0.0.1:5678/mcp", "http://127.0.0.1:5678/mcp")
	got := (&transport.RedirectError{Method: "POST", From: "http://127.0.0.1:1234/mcp", To: "http://127.0.0.1:5678/mcp",
		Status: 307, Reason: transport.RedirectCrossOrigin}).Error()
	if got != want {
		t.Errorf("Error()\n%s\nwant\n%s", got, want)
	}
}

// TestRedirectSameOrigin: same-origin 307/308 are followed, with the
// credentials and the body, at most MaxRedirects times, each reported as
// an event; a 303 to a POST is refused.
func TestRedirectSameOrigin(t *testing.T) {
	tests := []struct {
		name    string
		hops    int
		status  int
		wantErr string // Reason of the *RedirectError; "" for success
	}{
		{"one 307", 1, http.StatusTemporaryRedirect, ""},
		{"five 308", transport.MaxRedirects, http.StatusPermanentRedirect, ""},
		{"six 307", transport.MaxRedirects + 1, http.StatusTemporaryRedirect, transport.RedirectTooMany},
		{"303", 1, http.StatusSeeOther, transport.RedirectMethodChange},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var auths []string
			ts := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				auths = append(auths, r.Header.Get("Authorization"))
				mu.Unlock()
				var n int
				if _, err := fmt.Sscanf(r.URL.Path, "/hop%d", &n); err == nil && n < tt.hops {
					http.Redirect(w, r, fmt.Sprintf("/hop%d", n+1), tt.status)
					return
				}
				if r.Method != "POST" {
					w.WriteHeader(http.StatusMethodNotAllowed)
					return
				}
				m := readRPC(t, r)
				writeInitResult(w, m.ID, "")
			}))
			events := newEventLog()
			conn, err := (&transport.StreamableHTTP{Options: transport.HTTPOptions{URL: ts.URL + "/hop0",
				Header: http.Header{"Authorization": {"Bearer same-origin-tok"}}, OnEvent: events.on}}).Connect(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			err = conn.Write(ctx, []byte(rawInitialize), transport.WriteOptions{})
			if tt.wantErr != "" {
				var re *transport.RedirectError
				if !errors.As(err, &re) || re.Reason != tt.wantErr {
					t.Fatalf("Write: %v, want a *RedirectError (%s)", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Write: %v", err)
			}
			mustRead(t, conn, `"protocolVersion"`)
			events.waitFor(t, fmt.Sprintf("%s=%d → %s/hop1", transport.EventRedirect, tt.status, ts.URL))
			events.waitFor(t, fmt.Sprintf("%s=%d → %s/hop%d", transport.EventRedirect, tt.status, ts.URL, tt.hops))
			mu.Lock()
			defer mu.Unlock()
			if len(auths) != tt.hops+1 {
				t.Errorf("%d requests, want %d", len(auths), tt.hops+1)
			}
			for i, a := range auths {
				if a != "Bearer same-origin-tok" {
					t.Errorf("request %d: Authorization %q", i, a)
				}
			}
		})
	}
}

// TestSSEEndpointAfterRedirect: the endpoint event resolves against the URL
// the stream came from, and must stay on the origin.
func TestSSEEndpointAfterRedirect(t *testing.T) {
	for _, tt := range []struct {
		endpoint string
		wantErr  string
	}{
		{"messages?s=1", ""},
		{"http://localhost:1/messages", "on another origin"},
	} {
		ts := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case r.URL.Path == "/sse":
				http.Redirect(w, r, "/v2/sse", http.StatusTemporaryRedirect)
			case r.Method == "GET":
				sseHeaders(w)
				fmt.Fprintf(w, "event: endpoint\ndata: %s\n\n", tt.endpoint)
				flush(w)
				<-r.Context().Done()
			default:
				if r.URL.String() != "/v2/messages?s=1" {
					t.Errorf("POST to %s", r.URL)
				}
				w.WriteHeader(http.StatusAccepted)
			}
		}))
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		conn, err := (&transport.SSE{Options: transport.HTTPOptions{URL: ts.URL + "/sse"}}).Connect(ctx)
		cancel()
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: Connect %v, want %q", tt.endpoint, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		mustWrite(t, conn, rawInitialized)
		conn.Close()
	}
}

// silentListener accepts connections and never answers; it closes them
// when the test ends.
func silentListener(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return "http://" + l.Addr().String() + "/sse"
}
