package testserver

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpFlags serve a mode over HTTP instead of stdio: -http FILE listens on
// 127.0.0.1 (a free port), writes the endpoint URL to FILE and serves until
// SIGINT or SIGTERM.
type httpFlags struct {
	urlFile    string
	kind       string
	headersLog string
}

func (h *httpFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&h.urlFile, "http", "", "serve over HTTP on 127.0.0.1 and write the endpoint URL to `FILE`")
	fs.StringVar(&h.kind, "http-mode", "stateful", "with -http: stateful, stateless, json (stateful, JSON responses), origin (stateful, Origin checked), sse (legacy HTTP+SSE), html500 or unauthorized")
	fs.StringVar(&h.headersLog, "headers-log", "", "with -http: append the Authorization, X-* and Mcp-* request headers to `FILE`")
}

// serveHTTP runs s behind the HTTP handler -http-mode names.
func (e *env) serveHTTP(ctx context.Context, s *mcp.Server) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	getServer := func(*http.Request) *mcp.Server { return s }
	var h http.Handler
	path := "/mcp"
	switch e.http.kind {
	case "stateful":
		h = mcp.NewStreamableHTTPHandler(getServer, nil)
	case "stateless":
		// A modern request's handler ends with its HTTP request, as
		// 2026-07-28 has servers treat a closed stream as cancellation.
		h = mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: true})
	case "json":
		h = mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{JSONResponse: true})
	case "origin":
		// Stateful, refusing a request whose Origin is not the server's own.
		h = http.NewCrossOriginProtection().Handler(mcp.NewStreamableHTTPHandler(getServer, nil))
	case "sse":
		h = mcp.NewSSEHandler(getServer, nil)
		path = "/sse"
	case "html500":
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, "<html><body><h1>Internal Server Error</h1>\n<p>upstream  exploded</p></body></html>")
		})
	case "unauthorized":
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcp", error="invalid_token", error_description="the token expired"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
		})
	default:
		return fmt.Errorf("unknown -http-mode %q", e.http.kind)
	}
	mux := http.NewServeMux()
	mux.Handle(path, e.observeHTTP(h))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	url := "http://" + ln.Addr().String() + path
	// Written to a temporary name and renamed, so a script waiting for the
	// file never reads half a URL.
	if err := os.WriteFile(e.http.urlFile+".tmp", []byte(url+"\n"), 0o644); err != nil {
		srv.Close()
		return err
	}
	if err := os.Rename(e.http.urlFile+".tmp", e.http.urlFile); err != nil {
		srv.Close()
		return err
	}
	select {
	case <-ctx.Done():
		srv.Close()
		return nil
	case err := <-done:
		return err
	}
}

// observeHTTP records the JSON-RPC method of every POST (for -log and
// -ready) and, with -headers-log, the headers a client was asked to send
// and those the protocol mirrors from the body (Mcp-*).
func (e *env) observeHTTP(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if e.http.headersLog != "" {
			var lines []string
			for name, values := range r.Header {
				if name == "Authorization" || strings.HasPrefix(name, "X-") || strings.HasPrefix(name, "Mcp-") {
					lines = append(lines, name+": "+strings.Join(values, ", "))
				}
			}
			if len(lines) > 0 {
				if f, err := os.OpenFile(e.http.headersLog, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
					fmt.Fprintln(f, strings.Join(lines, "\n"))
					f.Close()
				}
			}
		}
		if r.Method == http.MethodPost && r.Body != nil {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			var msg struct {
				Method string `json:"method"`
			}
			if json.Unmarshal(body, &msg) == nil && msg.Method != "" {
				e.obs.received(msg.Method)
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		h.ServeHTTP(w, r)
	})
}
