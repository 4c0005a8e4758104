package cmd

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/transport"
)

// The paths MCP servers serve their endpoint at, by convention:
// Streamable HTTP at /mcp (preferred), the legacy HTTP+SSE transport at
// /sse.
const (
	streamablePath = "/mcp"
	ssePath        = "/sse"
)

// defaultProbeTimeout bounds the probes when no --timeout is in force.
const defaultProbeTimeout = 10 * time.Second

// endpointError is a --url at a server's root that has no MCP endpoint
// there (404 or 405), with the conventional paths on the same origin that
// do answer. It wraps the connection's error, whose exit code it keeps.
type endpointError struct {
	URL    string // as given, secrets hidden
	Status int
	// Answering are the URLs of the conventional endpoints that
	// answered, /mcp first, secrets hidden.
	Answering []string
	Err       error
}

func (e *endpointError) Error() string {
	head := fmt.Sprintf("no MCP endpoint at %s (%d)", e.URL, e.Status)
	switch len(e.Answering) {
	case 0:
		base := strings.TrimSuffix(e.URL, "/")
		return fmt.Sprintf("%s; neither %s%s nor %s%s answers: give --url the path of the server's MCP endpoint", head, base, streamablePath, base, ssePath)
	case 1:
		return fmt.Sprintf("%s; %s answers: try --url %s", head, e.Answering[0], e.Answering[0])
	}
	return fmt.Sprintf("%s; %s answers (and %s, the legacy HTTP+SSE endpoint): try --url %s", head, e.Answering[0], e.Answering[1], e.Answering[0])
}

func (e *endpointError) Unwrap() error { return e.Err }

// endpointHint turns err, the failure to connect to o's --url, into an
// [*endpointError] when the URL is a server's root (path "" or "/") and
// the server answered 404 or 405 there: the conventional endpoints on the
// same origin are probed, together, within the request timeout. Any other
// error is returned as it is.
func (f *Factory) endpointHint(ctx context.Context, o *ServerOptions, err error) error {
	var he *transport.HTTPError
	if o.URL == "" || !errors.As(err, &he) || (he.Status != http.StatusNotFound && he.Status != http.StatusMethodNotAllowed) {
		return err
	}
	u, perr := url.Parse(o.URL)
	if perr != nil || (u.Path != "" && u.Path != "/") {
		return err
	}
	tlsConf, terr := tlsConfig("--cacert", o.CACert, o.Insecure)
	if terr != nil {
		return err
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = defaultProbeTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	streamable, sse := probeEndpoints(ctx, u, tlsConf)
	e := &endpointError{URL: transport.RedactURL(o.URL), Status: he.Status, Err: err}
	if streamable {
		e.Answering = append(e.Answering, transport.RedactURL(withPath(u, streamablePath)))
	}
	if sse {
		e.Answering = append(e.Answering, transport.RedactURL(withPath(u, ssePath)))
	}
	return e
}

// withPath is u with its path replaced by p.
func withPath(u *url.URL, p string) string {
	c := *u
	c.Path, c.RawPath = p, ""
	return c.String()
}

// probeEndpoints asks /mcp and /sse on u's origin, at once,
// whether an MCP endpoint is there: /mcp is sent an initialize (a session
// it opens is ended with DELETE), /sse is asked for its event stream. An
// answer in kind, or a refusal for want of authorization, counts. No
// header of the command line is sent, and no redirect followed.
func probeEndpoints(ctx context.Context, u *url.URL, tlsConf *tls.Config) (streamable, sse bool) {
	hc := &http.Client{
		Transport:     &http.Transport{TLSClientConfig: tlsConf, Proxy: http.ProxyFromEnvironment},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	defer hc.CloseIdleConnections()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sse = probeSSE(ctx, hc, withPath(u, ssePath))
	}()
	streamable = probeStreamable(ctx, hc, withPath(u, streamablePath))
	wg.Wait()
	return streamable, sse
}

// probeStreamable reports whether a Streamable HTTP endpoint answers an
// initialize at target.
func probeStreamable(ctx context.Context, hc *http.Client, target string) bool {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"mcpctl","version":%q}}}`,
		client.LatestProtocolVersion, Version)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, strings.NewReader(body))
	if err != nil {
		return false
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		// The probe's session ends at once rather than wait for the
		// server to expire it.
		if del, err := http.NewRequestWithContext(ctx, http.MethodDelete, target, nil); err == nil {
			del.Header.Set("Mcp-Session-Id", sid)
			if r, err := hc.Do(del); err == nil {
				r.Body.Close()
			}
		}
	}
	ct := resp.Header.Get("Content-Type")
	ok := resp.StatusCode/100 == 2 && (strings.HasPrefix(ct, "application/json") || strings.HasPrefix(ct, "text/event-stream"))
	return ok || authRefusal(resp.StatusCode)
}

// probeSSE reports whether a legacy HTTP+SSE endpoint opens its event
// stream at target.
func probeSSE(ctx context.Context, hc *http.Client, target string) bool {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // the stream stays open otherwise
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return false
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	ok := resp.StatusCode/100 == 2 && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
	return ok || authRefusal(resp.StatusCode)
}

// authRefusal is a status that says an endpoint is there but wants
// credentials.
func authRefusal(status int) bool {
	return status == http.StatusUnauthorized || status == http.StatusForbidden
}
