package scan

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// ForeignOrigin is the Origin [CheckOrigin] sends: a name that cannot
// resolve (RFC 6761 .invalid), so no server can take it for its own.
const ForeignOrigin = "http://dns-rebinding-probe.invalid"

// OriginProbe is what [CheckOrigin] sends and found.
type OriginProbe struct {
	// Status is the HTTP status of the answer.
	Status int
	// Accepted says the server treated the request as any other.
	Accepted bool
}

// CheckOrigin sends one request with a foreign Origin to an MCP endpoint
// and reports whether the server accepted it, as a server that does not
// validate Origin would (the transports section: servers "MUST validate
// the Origin header on all incoming connections to prevent DNS rebinding
// attacks"). The request is an initialize, the only one a server must
// answer without a session; for the legacy HTTP+SSE transport (sse) it is
// the GET that opens the stream. A session the server opens for it is
// deleted at once. header holds the headers the real session sends, such as
// Authorization, so that authorization does not hide the answer.
func CheckOrigin(ctx context.Context, c *http.Client, endpoint string, header http.Header, sse bool) (OriginProbe, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	method, body := http.MethodPost, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcpctl-scan-origin-probe","version":"0"}}}`)
	if sse {
		method, body = http.MethodGet, strings.NewReader("")
	}
	req, err := http.NewRequestWithContext(ctx, method, endpoint, body)
	if err != nil {
		return OriginProbe{}, err
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("Origin", ForeignOrigin)
	req.Header.Set("Accept", "application/json, text/event-stream")
	if !sse {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		return OriginProbe{}, fmt.Errorf("the Origin probe of %s: %w", endpoint, err)
	}
	// The answer itself does not matter, and a stream would never end.
	_, _ = io.CopyN(io.Discard, resp.Body, 512)
	resp.Body.Close()
	p := OriginProbe{Status: resp.StatusCode, Accepted: resp.StatusCode >= 200 && resp.StatusCode < 300}
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" && !sse {
		del, err := http.NewRequestWithContext(ctx, http.MethodDelete, endpoint, nil)
		if err == nil {
			for k, vs := range header {
				del.Header[k] = vs
			}
			del.Header.Set("Mcp-Session-Id", id)
			if r, err := c.Do(del); err == nil {
				r.Body.Close()
			}
		}
	}
	return p, nil
}

// OriginFinding turns a probe into a finding, or nil when the server
// refused the foreign Origin.
func OriginFinding(s *Server, endpoint string, p OriginProbe) []Finding {
	if !p.Accepted {
		return nil
	}
	c := &checker{server: s}
	c.add(OriginNotChecked, "", "endpoint", endpoint, "Origin",
		fmt.Sprintf("a request with Origin: %s was answered %d %s; it should be refused (403)", ForeignOrigin, p.Status, http.StatusText(p.Status)))
	return c.findings
}

// CheckEndpoint reports an http (not https) endpoint whose host is not a
// loopback address or localhost.
func CheckEndpoint(s *Server, endpoint string) []Finding {
	u, err := url.Parse(endpoint)
	if err != nil || u.Scheme != "http" {
		return nil
	}
	host := u.Hostname()
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	c := &checker{server: s}
	c.add(ClearText, "", "endpoint", endpoint, "url", fmt.Sprintf("%s is reached over plain http at %s, which is not a loopback address", endpoint, host))
	return c.findings
}
