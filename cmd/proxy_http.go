package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
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

// addProxyHTTPFlags adds the flags of the HTTP reverse proxy.
func addProxyHTTPFlags(cmd *cobra.Command, opts *ProxyOptions) {
	inSection(cmd, "HTTP", func() { addProxyListenFlags(cmd, opts) })
}

// addProxyListenFlags adds the flags of the proxy's HTTP side.
func addProxyListenFlags(cmd *cobra.Command, opts *ProxyOptions) {
	fs := cmd.Flags()
	fs.StringVar(&opts.URL, "url", "", "Forward to the HTTP server at `URL`")
	fs.StringVar(&opts.Listen, "listen", "", "Serve HTTP on `ADDR` (HOST:PORT, loopback)")
	fs.BoolVar(&opts.ListenAny, "listen-any", false, "Allow a --listen address that is not loopback")
	fs.StringVar(&opts.Auth, "auth", "transparent", "Who signs in to the --url server: `transparent` (the host) or mcpctl (its token store; the host's token is dropped)")
	durationVar(fs, &opts.Timeout, "timeout", client.DefaultTimeout, "Answer 504 when the server is silent this `duration` (0: no bound)")
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
	paths, err := opts.logPaths()
	if err != nil {
		return err
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
	var log io.WriteCloser
	if !opts.NoLog {
		if log, err = openProxyLog(f, opts); err != nil {
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
	obs, endStream := opts.otlpObserver(f, checks, log, paths)
	observers = append(observers, obs)
	tap = proxy.NewTap(observers, 0, 0)
	opts.Govern.URL = opts.URL
	gov, err := f.proxyGovernor(&opts.Govern, nil, tap)
	if err != nil {
		tap.Close()
		return err
	}
	var jwtKey []byte
	if gov != nil && opts.Govern.JWTKey != "" {
		// --jwt-key verifies each request's bearer token too.
		if jwtKey, err = f.LoadKey("jwt-key", opts.Govern.JWTKey); err != nil {
			tap.Close()
			return err
		}
	}

	shown := transport.RedactURL(opts.URL)
	addr := ln.Addr().String()
	tap.Note("start", map[string]any{"url": shown, "listen": addr, "pid": os.Getpid()})
	fmt.Fprintf(ios.ErrOut, "mcpctl proxy: http://%s%s → %s\n", addr, upstream.EscapedPath(), shown)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	h := &proxy.HTTP{Upstream: upstream, Tap: tap, Timeout: opts.Timeout, Transport: upstreamRT, Redactor: red, OwnCredentials: opts.Auth == "mcpctl", Govern: gov, JWTKey: jwtKey}
	err = h.Serve(ctx, ln, 2*time.Second)
	tap.Note("stop", nil)
	tap.Close() // its last frames reach the checks first
	checks.End(time.Now())
	endStream()
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
