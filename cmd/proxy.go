package cmd

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/export"
	"github.com/mcpctl/mcpctl/proxy"
)

// ProxyOptions are the options of `mcpctl proxy`.
type ProxyOptions struct {
	// Server is the stdio server's command line.
	Server []string
	// Log is the session log's file; "" keeps it in the state dir.
	Log string
	// NoLog keeps no session log.
	NoLog bool
	// RedactPaths are JSON paths whose values the log hides.
	RedactPaths []string
	// Keep is how many ended sessions the state dir keeps.
	Keep int
	// ShowFlags prints what the checks find on stderr as it is found.
	ShowFlags bool
	// URL is the HTTP server the proxy forwards to (--url).
	URL string
	// Listen is the address the proxy serves HTTP on (--listen); ListenAny
	// allows one that is not loopback.
	Listen    string
	ListenAny bool
	// Timeout bounds each request the HTTP reverse proxy forwards.
	Timeout time.Duration
	// Auth is who signs in to the HTTP server: "transparent" (the host)
	// or "mcpctl".
	Auth string
	// Bridge are the options of the bridges (proxy_bridge.go).
	Bridge ProxyBridgeOptions
	// Govern are the governance options of the stdio shim
	// (proxy_govern.go).
	Govern ProxyGovernOptions
	// OTLPEndpoint is the collector spans are streamed to; OTLPHeaders
	// are sent with them (proxy_otlp.go).
	OTLPEndpoint string
	OTLPHeaders  []string

	otlp *export.Sender // started by startOTLP
}

// NewCmdProxy builds `mcpctl proxy -- SERVER [ARGS...]` and its
// subcommands.
func NewCmdProxy(f *Factory) *cobra.Command {
	opts := &ProxyOptions{}
	cmd := &cobra.Command{
		Use:   "proxy [flags] {[--] SERVER [ARGS...] | --url URL}",
		Short: "Sit between an MCP host and a stdio server, and record and check every frame",
		Long: `Sit between an MCP host (Claude, Cursor, VS Code, an agent, the MCP
Inspector) and a server: relay every frame byte for byte, record each in
a session log and check it against the protocol, never slowing the
traffic. Three shapes, one set of flags:

  -- SERVER ARGS...        stdio shim, started by the host in the server's place
  --url URL                stdio in front of an HTTP server (as mcp-remote)
  --listen ADDR -- SERVER  Streamable HTTP, a server process per HTTP session
  --listen ADDR --url URL  HTTP reverse proxy (loopback, Origin checked)

Logs: mcpctl proxy ls, watch --session, check, export, mock; docs/proxy.md.`,
		Example: `  # In a host's config: "command": "mcpctl", "args": ["proxy", "--", "npx", ...]
  mcpctl list -- mcpctl proxy -- npx -y @modelcontextprotocol/server-everything
  mcpctl list -- mcpctl proxy --url http://127.0.0.1:3001/mcp
  mcpctl proxy --listen 127.0.0.1:8931 --url http://127.0.0.1:3001/mcp  # needs: a terminal of its own (serves until Ctrl-C)`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Server = args
			opts.Govern.Given = opts.Govern.given(cmd)
			stopOTLP, err := opts.startOTLP(f)
			if err != nil {
				return err
			}
			defer stopOTLP()
			if opts.Govern.Given && (opts.URL != "" || opts.Listen != "") && (opts.URL == "" || opts.Listen == "") {
				return flagErrorf("the governance flags (mcpctl help governance) apply to the stdio shim (-- SERVER) and the HTTP reverse proxy (--listen --url), not to the bridges")
			}
			// Checked before the shape is chosen: a mistyped mode is
			// otherwise ignored by the shapes that have no use for it.
			if opts.Auth != "transparent" && opts.Auth != "mcpctl" {
				return flagErrorf("--auth %s: give transparent or mcpctl", opts.Auth)
			}
			if t := opts.Bridge.Upstream.Transport; t != "auto" && t != "http" && t != "sse" {
				return flagErrorf("invalid --transport %q: expected auto, http or sse", t)
			}
			if opts.Timeout < 0 {
				return flagErrorf("--timeout must not be negative, got %s (0: no bound)", opts.Timeout)
			}
			if opts.URL != "" || opts.Listen != "" {
				return runProxyBridge(cmd.Context(), f, opts)
			}
			if len(args) == 0 {
				return flagErrorf("no server given: the server's command after --, or --url URL")
			}
			if upstreamFlagsGiven(&opts.Bridge.Upstream) {
				return flagErrorf("-H, --bearer, --cacert, --insecure and the OAuth flags apply to --url only")
			}
			return runProxy(f, opts)
		},
	}
	// The server's command line starts at the first word that is not one
	// of the proxy's flags, with or without "--" before it, as with env or
	// sudo: some hosts drop a "--" from the arguments they are given (the
	// MCP Inspector CLI does), and the server's own flags are not ours.
	cmd.Flags().SetInterspersed(false)
	inSection(cmd, "Log", func() {
		cmd.Flags().StringVar(&opts.Log, "log", "", "Write the session log to `FILE`, not the state dir")
		cmd.Flags().BoolVar(&opts.NoLog, "no-log", false, "Keep no session log")
		cmd.Flags().StringArrayVar(&opts.RedactPaths, "redact-path", nil, "Hide the value at JSON `PATH` in the log (repeatable)")
		cmd.Flags().IntVar(&opts.Keep, "keep", 100, "Keep the newest `N` ended sessions")
		cmd.Flags().BoolVar(&opts.ShowFlags, "show-flags", false, "Print the checks' findings on stderr as they come")
		addProxyOTLPFlags(cmd, opts)
	})
	addProxyBridgeFlags(cmd, opts)
	addProxyHTTPFlags(cmd, opts)
	addProxyGovernFlags(cmd, &opts.Govern)
	cmd.AddCommand(newCmdProxyLs(f), newCmdProxyPrune(f), newCmdProxyApprovals(f), newCmdProxyApprove(f), newCmdProxyDeny(f), newCmdProxyPins(f), newCmdProxyAccept(f))
	return cmd
}

// proxyStore is the state dir's folder of proxy sessions.
func (f *Factory) proxyStore() (proxy.Store, error) {
	dir, err := f.stateDir()
	if err != nil {
		return proxy.Store{}, err
	}
	return proxy.Store{Dir: filepath.Join(dir, "proxy")}, nil
}

// sessionStore is the proxy store in which --session ref is looked for. A
// session named by id must exist already: only the latest is waited for.
func (f *Factory) sessionStore(ref string) (proxy.Store, error) {
	store, err := f.proxyStore()
	if err != nil {
		return store, err
	}
	if ref != "latest" {
		if _, err := store.Find(ref); err != nil {
			return store, flagErrorf("--session: %v", err)
		}
	}
	return store, nil
}

func runProxy(f *Factory, opts *ProxyOptions) error {
	if opts.Listen != "" && opts.URL != "" {
		return runProxyHTTP(f, opts)
	}
	if len(opts.Server) == 0 {
		return flagErrorf("give the server's command (mcpctl proxy -- SERVER [ARGS...]) or --listen ADDR --url URL")
	}
	tap, checks, end, err := proxyTap(f, opts)
	if err != nil {
		return err
	}
	defer end()
	ios := f.IOStreams
	gov, err := f.proxyGovernor(&opts.Govern, opts.Server, tap)
	if err != nil {
		return err
	}

	// The proxy passes its signals on rather than acting on them: the
	// server decides how to end, and its status becomes the proxy's.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	// A host that goes away turns writes to it into EPIPE errors, which
	// the shim handles, rather than a SIGPIPE that would end the proxy
	// before it stops the server.
	signal.Ignore(syscall.SIGPIPE)

	wd, _ := os.Getwd()
	shim := &proxy.Stdio{
		Args: opts.Server, Env: os.Environ(), Dir: wd,
		In: ios.In, Out: ios.Out, Stderr: ios.ErrOut,
		Tap: tap, Signals: sigs, Govern: gov,
	}
	code, err := shim.Run()
	// The tap delivers its last frames to the checks before they flag
	// what is still pending: End reads what Frame writes.
	tap.Close()
	checks.End(time.Now())
	if err != nil {
		return err
	}
	if code != 0 {
		return &ExitCodeError{Code: code}
	}
	return nil
}

// logPaths parses --redact-path and checks the log flags against each
// other.
func (o *ProxyOptions) logPaths() ([]proxy.RedactPath, error) {
	if o.Keep < 0 {
		return nil, flagErrorf("--keep must not be negative, got %d", o.Keep)
	}
	if o.NoLog && o.Log != "" {
		return nil, flagErrorf("--no-log and --log ask for different things: give one of them")
	}
	var paths []proxy.RedactPath
	for _, s := range o.RedactPaths {
		p, err := proxy.ParseRedactPath(s)
		if err != nil {
			return nil, flagErrorf("--redact-path: %v", err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// openProxyLog opens the session log: --log FILE, or a new session in the
// state dir after pruning the old ones.
func openProxyLog(f *Factory, opts *ProxyOptions) (io.WriteCloser, error) {
	if opts.Log != "" {
		return f.openSink("--log", opts.Log, "the session log is incomplete")
	}
	store, err := f.proxyStore()
	if err != nil {
		return nil, err
	}
	if _, err := store.Prune(max(opts.Keep-1, 0), time.Time{}); err != nil {
		fmt.Fprintf(f.IOStreams.ErrOut, "mcpctl proxy: pruning old sessions: %v\n", err)
	}
	sf, err := store.Create(time.Now(), os.Getpid())
	if err != nil {
		return nil, err
	}
	return &sessionSink{sf: sf, sink: &sinkFile{file: sf.File, flag: "proxy session log", what: "the session log is incomplete; the session goes on", warn: f.IOStreams.ErrOut}}, nil
}

// sessionSink writes a state-dir session log through a sinkFile (its
// first write failure reported once) and releases its lock on Close.
type sessionSink struct {
	sf   *proxy.SessionFile
	sink *sinkFile
}

func (s *sessionSink) Write(p []byte) (int, error) { return s.sink.Write(p) }

// Close closes the log, which also releases its lock.
func (s *sessionSink) Close() error { return s.sink.Close() }
