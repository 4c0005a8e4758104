package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/config"
	"github.com/mcpctl/mcpctl/proxy"
	"github.com/mcpctl/mcpctl/render"
	"github.com/mcpctl/mcpctl/transport"
)

// ProxyBridgeOptions are the options of the proxy's bridges: `--url URL`
// alone (a stdio host in front of an HTTP server) and `--listen ADDR --
// SERVER` (an HTTP host in front of a stdio server).
type ProxyBridgeOptions struct {
	// Upstream holds the HTTP flags of the --url server: --transport, -H,
	// --bearer, --cacert, --insecure and the OAuth flags.
	Upstream ServerOptions
	// IdleTimeout stops an HTTP session's server after that long unused.
	IdleTimeout time.Duration
}

// proxyBridgeHelp is what the proxy's help says of the bridges.
const proxyBridgeHelp = `
Bridges. With --url and no server command, the proxy is a stdio server
in front of an HTTP one (what mcp-remote does): the host starts
'mcpctl proxy --url URL' as if it were the server, and each line it
writes is sent to URL over Streamable HTTP, or legacy HTTP+SSE when the
server needs it (--transport), with -H, --bearer, --cacert and mcpctl's
OAuth sign-in and token store ('mcpctl auth login --url URL' first where
no browser can open). Everything the server sends comes back as lines.
When the host closes stdin, the HTTP session is ended (DELETE); when the
server cannot be reached, pending requests get a JSON-RPC error and the
proxy exits 1. A request the server leaves unanswered for --timeout (reset
by its progress notifications) gets a JSON-RPC error (-32001), is
cancelled upstream, and the session goes on.

With --listen ADDR and a server command, the proxy serves Streamable
HTTP at http://ADDR/mcp in front of a stdio server. Each HTTP session
gets a server process of its own: an initialize without Mcp-Session-Id
starts one, and DELETE, --idle-timeout without a request, or the end of
the proxy stops it. Requests are answered with JSON, or with an event
stream when the host accepts only that or the server sends a message of
the request's first; what the server sends on its own goes to the
session's GET event stream. 2026-07-28 requests, which carry no session,
are served by a pool of server processes, one request at a time each,
reused while they last. ADDR without a host listens on 127.0.0.1; Origin
headers other than loopback ones get 403. Each server process has its
own session log in the state dir.`

// addProxyBridgeFlags registers the bridges' flags on the proxy command.
// The HTTP flags are the upstream's: declared here rather than with the
// server flags, most of which (a stdio server's, the client's features)
// mean nothing to a proxy.
func addProxyBridgeFlags(cmd *cobra.Command, opts *ProxyOptions) {
	fs := cmd.Flags()
	u := &opts.Bridge.Upstream
	inTopic(cmd, "connection", func() { addProxyUpstreamFlags(cmd, u) })
	inSection(cmd, "HTTP", func() {
		durationVar(fs, &opts.Bridge.IdleTimeout, "idle-timeout", 30*time.Minute, "Stop an HTTP session's server after this `duration` idle (0: never)")
	})
	_ = cmd.RegisterFlagCompletionFunc("transport", cobra.FixedCompletions([]cobra.Completion{"auto", "http", "sse"}, cobra.ShellCompDirectiveNoFileComp))
}

// addProxyUpstreamFlags adds the flags of the connection to a --url
// server, as the commands that talk to one have them.
func addProxyUpstreamFlags(cmd *cobra.Command, u *ServerOptions) {
	fs := cmd.Flags()
	fs.StringVar(&u.Transport, "transport", "auto", "HTTP transport for --url: auto, http (Streamable HTTP) or sse (legacy HTTP+SSE)")
	fs.StringArrayVarP(&u.Headers, "header", "H", nil, "Send the HTTP header `'Name: value'` to the --url server (repeatable; ${VAR} is expanded from the environment)")
	fs.StringVar(&u.Bearer, "bearer", "", "Send Authorization: Bearer to the --url server with the token in `env:VAR` or file:PATH")
	fs.StringVar(&u.CACert, "cacert", "", "Trust the CA certificates in PEM `FILE` for the --url server's origin")
	fs.BoolVar(&u.Insecure, "insecure", false, "Do not verify the TLS certificate of the --url server's origin (unsafe)")
	addAuthFlags(cmd, u, connectFlags)
}

// runProxyBridge runs the bridge the flags ask for, or reports that they
// ask for none.
func runProxyBridge(ctx context.Context, f *Factory, opts *ProxyOptions) error {
	switch {
	case opts.Listen != "" && opts.URL != "":
		return runProxyHTTP(f, opts)
	case opts.URL != "" && len(opts.Server) > 0:
		return flagErrorf("--url and a server command ask for different things: give --listen ADDR to serve the command over HTTP, or drop one")
	case opts.URL != "":
		return runProxyToHTTP(ctx, f, opts)
	case len(opts.Server) == 0:
		return flagErrorf("--listen needs a server command after --, e.g. mcpctl proxy --listen 127.0.0.1:3000 -- npx -y @modelcontextprotocol/server-everything")
	}
	if upstreamFlagsGiven(&opts.Bridge.Upstream) {
		return flagErrorf("-H, --bearer, --cacert, --insecure and the OAuth flags apply to --url only")
	}
	return runProxyToStdio(ctx, f, opts)
}

// upstreamFlagsGiven reports whether any HTTP flag of the upstream was
// given.
func upstreamFlagsGiven(u *ServerOptions) bool {
	return len(u.Headers) > 0 || u.Bearer != "" || u.CACert != "" || u.Insecure || !u.Auth.IsZero() || u.AuthCACert != ""
}

// proxyTap opens one session's observers, as the stdio shim does: the
// session log (--log FILE, or a new session in the state dir) and the
// checks (with the --otlp-endpoint stream). end, called after the checks'
// End once the tap is closed, ends the stream and closes the log.
func proxyTap(f *Factory, opts *ProxyOptions) (tap *proxy.Tap, checks *proxy.Checks, end func(), err error) {
	paths, err := opts.logPaths()
	if err != nil {
		return nil, nil, nil, err
	}
	var observers proxy.Observers
	end = func() {}
	var log io.WriteCloser
	if !opts.NoLog {
		if log, err = openProxyLog(f, opts); err != nil {
			return nil, nil, nil, err
		}
		end = func() { log.Close() }
		observers = append(observers, proxy.NewLog(log, f.Redactor(), paths))
	}
	checks = &proxy.Checks{}
	if opts.ShowFlags {
		ios := f.IOStreams
		checks.OnFlag = func(fl proxy.Flag) {
			fmt.Fprintf(ios.ErrOut, "mcpctl proxy: %s: %s\n", fl.Kind, f.Redactor().String(fl.Msg))
		}
	}
	// The spans' stream, when there is one, drives the checks.
	obs, endStream := opts.otlpObserver(f, checks, log, paths)
	closeLog := end
	end = func() { endStream(); closeLog() }
	observers = append(observers, obs)
	return proxy.NewTap(observers, 0, 0), checks, end, nil
}

// runProxyToHTTP is `mcpctl proxy --url URL`: a stdio host in front of
// an HTTP server.
func runProxyToHTTP(ctx context.Context, f *Factory, opts *ProxyOptions) error {
	o := opts.Bridge.Upstream
	o.URL = opts.URL
	o.Timeout, o.Era = client.DefaultTimeout, config.EraAuto
	if err := o.validate(); err != nil {
		return err
	}
	var closers []func() error
	defer func() {
		for _, c := range closers {
			_ = c()
		}
	}()
	// The factory's HTTP transport: headers, TLS, OAuth and its token
	// store, exactly as the other commands reach a --url server.
	upstream, err := f.transport(&o, &closers)
	if err != nil {
		return err
	}
	tap, checks, end, err := proxyTap(f, opts)
	if err != nil {
		return err
	}
	// A host that goes away turns writes to it into EPIPE errors, which
	// the bridge handles, rather than a SIGPIPE.
	signal.Ignore(syscall.SIGPIPE)
	ios := f.IOStreams
	red := f.Redactor()
	bridge := &proxy.BridgeToHTTP{
		Upstream: upstream, URL: red.String(transport.RedactURL(o.URL)),
		In: ios.In, Out: ios.Out, Tap: tap, Redact: red.String, Timeout: opts.Timeout,
	}
	err = bridge.Run(ctx)
	tap.Close() // its last frames reach the checks first
	checks.End(time.Now())
	end()
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		// Stopped by a signal, as a server is: no error line.
		return &ExitCodeError{Code: signalExitCode(ctx, ExitInterrupted)}
	}
	return err
}

// runProxyToStdio is `mcpctl proxy --listen ADDR -- SERVER`: an HTTP host
// in front of a stdio server.
func runProxyToStdio(ctx context.Context, f *Factory, opts *ProxyOptions) error {
	if opts.Log != "" {
		return flagErrorf("--log names one file, and --listen runs a session per HTTP session: their logs are kept in the state dir (see mcpctl proxy ls)")
	}
	addr, err := listenAddr(opts.Listen, opts.ListenAny)
	if err != nil {
		return err
	}
	if opts.Bridge.IdleTimeout < 0 {
		return flagErrorf("--idle-timeout must not be negative")
	}
	// Each HTTP session starts the server on its own; a command that
	// cannot start would otherwise be served, and fail, session after
	// session.
	if _, err := exec.LookPath(opts.Server[0]); err != nil {
		return &proxy.StartError{Command: opts.Server[0], Err: err}
	}
	ios := f.IOStreams
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", opts.Listen, err)
	}
	defer ln.Close()
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() {
		fmt.Fprintln(ios.ErrOut, render.Warning("--listen "+opts.Listen+": not a loopback address; anyone who can reach it can start the server", ios.ColorErrEnabled()))
	}
	signal.Ignore(syscall.SIGPIPE)
	wd, _ := os.Getwd()
	bridge := &proxy.BridgeToStdio{
		Args: opts.Server, Env: os.Environ(), Dir: wd, Stderr: ios.ErrOut,
		IdleTimeout: opts.Bridge.IdleTimeout,
		NewTap: func() (*proxy.Tap, func(), error) {
			tap, checks, end, err := proxyTap(f, opts)
			if err != nil {
				return nil, nil, err
			}
			return tap, func() { checks.End(time.Now()); end() }, nil
		},
	}
	fmt.Fprintf(ios.ErrOut, "mcpctl proxy: serving %s at http://%s/mcp\n", quoteWords(opts.Server), ln.Addr())
	// A signal is how a server is asked to stop: the sessions' servers
	// are stopped and the proxy ends with status 0.
	return bridge.Serve(ctx, ln, "/mcp")
}

// listenAddr is --listen as an address to listen on: a port alone, or an
// address without a host, listens on 127.0.0.1. A host that is not
// loopback needs --listen-any (anyHost), as the reverse proxy's does:
// anyone who reaches the listener can start the server.
func listenAddr(s string, anyHost bool) (string, error) {
	if !strings.Contains(s, ":") {
		s = ":" + s
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil || port == "" {
		return "", flagErrorf("invalid --listen %q: expected HOST:PORT or PORT", s)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	addr := net.JoinHostPort(host, port)
	if err := proxy.CheckListen(addr, anyHost); err != nil {
		return "", flagErrorf("--listen: %v", err)
	}
	return addr, nil
}
