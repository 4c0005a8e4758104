package cmd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/proxy"
	"github.com/mcpctl/mcpctl/transport"
)

// proxyHTTPLong is the part of `mcpctl proxy --help` about the HTTP
// reverse proxy.
const proxyHTTPLong = `

With --listen ADDR --url URL, the proxy is an HTTP reverse proxy: the
host connects to http://ADDR (with URL's path), and Streamable HTTP and
legacy SSE pass unchanged, event by event, headers and all but the
hop-by-hop ones. The listener is loopback only (--listen-any allows
others) and refuses requests from a non-loopback Origin (403). A server
silent for longer than --timeout is answered for: 504, or 502 when it
cannot be reached, with a JSON-RPC error naming the request's id.
Authorization passes as through a transparent observer: 401s, metadata
documents and the host's Authorization header go unchanged, and tokens
are hidden in the log. A host that checks RFC 8707 resource indicators
refuses to sign in through it: the metadata names the server's URL, not
the proxy's. With --auth mcpctl the proxy signs in itself (mcpctl's token
store) and drops the host's token. See docs/proxy.md.`

// addProxyHTTPFlags adds the flags of the HTTP reverse proxy.
func addProxyHTTPFlags(cmd *cobra.Command, opts *ProxyOptions) {
	cmd.Long += proxyHTTPLong
	cmd.Example += `

  # An HTTP reverse proxy: the host connects to http://127.0.0.1:8931/mcp
  mcpctl proxy --listen 127.0.0.1:8931 --url http://127.0.0.1:3001/mcp
  mcpctl call echo message=hi --url http://127.0.0.1:8931/mcp`
	fs := cmd.Flags()
	fs.StringVar(&opts.Listen, "listen", "", "Serve HTTP on `ADDR` (HOST:PORT, a loopback address unless --listen-any): with --url, a reverse proxy in front of that server")
	fs.BoolVar(&opts.ListenAny, "listen-any", false, "Allow --listen on an address that is not loopback (anyone who reaches it reaches the server)")
	fs.StringVar(&opts.Auth, "auth", "transparent", "Who signs in to the --url server: `transparent` (the host, through the proxy) or mcpctl (the proxy, with mcpctl's OAuth and token store; the host's token is never passed on)")
	durationVar(fs, &opts.Timeout, "timeout", client.DefaultTimeout, "Answer 504 for a request the server does not start answering, or pauses for, longer than this `duration` (0: no bound)")
}

// runProxyHTTP runs the HTTP reverse proxy until SIGINT or SIGTERM.
func runProxyHTTP(f *Factory, opts *ProxyOptions) error {
	if len(opts.Server) > 0 {
		return flagErrorf("--url and a server command ask for different servers: give one of them")
	}
	upstream, err := url.Parse(opts.URL)
	if err != nil || (upstream.Scheme != "http" && upstream.Scheme != "https") || upstream.Host == "" {
		return flagErrorf("--url %s: give the server's http:// or https:// URL", transport.RedactURL(opts.URL))
	}
	switch opts.Auth {
	case "transparent", "":
	case "mcpctl":
		if opts.ListenAny {
			return flagErrorf("--auth mcpctl and --listen-any: a proxy holding its own credentials serves this machine only")
		}
	default:
		return flagErrorf("--auth %s: give transparent or mcpctl", opts.Auth)
	}
	if err := proxy.CheckListen(opts.Listen, opts.ListenAny); err != nil {
		return flagErrorf("--listen: %v", err)
	}
	var paths []proxy.RedactPath
	for _, s := range opts.RedactPaths {
		p, err := proxy.ParseRedactPath(s)
		if err != nil {
			return flagErrorf("--redact-path: %v", err)
		}
		paths = append(paths, p)
	}
	if opts.NoLog && opts.Log != "" {
		return flagErrorf("--no-log and --log ask for different things: give one of them")
	}
	ios := f.IOStreams
	red := f.Redactor()
	red.Add(transport.URLSecrets(opts.URL)...)
	var tap *proxy.Tap
	var upstreamRT http.RoundTripper = upstreamTransport()
	if opts.Auth == "mcpctl" {
		// The token store's sign-in for the server's URL, as mcpctl's
		// own commands use it (mcpctl auth login --url URL).
		authz, err := f.authTransport(&ServerOptions{URL: opts.URL}, nil, func(event string, detail any) {
			tap.Note("auth", map[string]any{"event": event, "detail": detail})
		})
		if err != nil {
			return err
		}
		upstreamRT = authz
	}
	ln, err := net.Listen("tcp", opts.Listen)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", opts.Listen, err)
	}
	defer ln.Close()

	var observers proxy.Observers
	if !opts.NoLog {
		log, err := openProxyLog(f, opts)
		if err != nil {
			return err
		}
		defer log.Close()
		observers = append(observers, proxy.NewLog(log, red, paths))
	}
	checks := &proxy.Checks{}
	if opts.ShowFlags {
		checks.OnFlag = func(fl proxy.Flag) {
			fmt.Fprintf(ios.ErrOut, "mcpctl proxy: %s: %s\n", fl.Kind, red.String(fl.Msg))
		}
	}
	observers = append(observers, checks)
	tap = proxy.NewTap(observers, 0, 0)

	shown := transport.RedactURL(opts.URL)
	addr := ln.Addr().String()
	tap.Note("start", map[string]any{"url": shown, "listen": addr, "pid": os.Getpid()})
	fmt.Fprintf(ios.ErrOut, "mcpctl proxy: http://%s%s → %s\n", addr, upstream.EscapedPath(), shown)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	h := &proxy.HTTP{Upstream: upstream, Tap: tap, Timeout: opts.Timeout, Transport: upstreamRT, Redactor: red, OwnCredentials: opts.Auth == "mcpctl"}
	err = h.Serve(ctx, ln, 2*time.Second)
	tap.Note("stop", nil)
	checks.End(time.Now())
	tap.Close()
	if err != nil && !errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("serving on %s: %w", addr, err)
	}
	return nil
}

// upstreamTransport makes the proxy's requests to the server: Go's
// default transport, which honours HTTPS_PROXY, with no shared state.
func upstreamTransport() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	// Answers pass to the host as the server encoded them; the host
	// asked for the encoding, not the proxy.
	t.DisableCompression = true
	return t
}
