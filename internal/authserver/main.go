package authserver

import (
	"context"
	"errors"
	"flag"
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

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/internal/demo/demosdk"
)

// Main runs the server as the testscript command authserver, with the
// arguments in os.Args, until SIGINT or SIGTERM:
//
//	authserver -url FILE [-pidfile FILE] [-log FILE] [-expire-file FILE]
//	           [-lifetime D] [-no-refresh] [-scopes S] [-challenge-scope S]
//	           [-tool-scope S] [-issuer URL] [-omit-iss] [-authorize-error CODE]
//	           [-client ID:SECRET]... [-no-registration]
//
// It listens on 127.0.0.1 and a free port, serves the demo MCP server
// (package demosdk) as the protected resource, and writes the MCP
// endpoint's URL to the -url file once it accepts connections. -log appends
// every request, as [Request.String] prints it, synced before the answer
// is complete. When the -expire-file appears, every access token issued so
// far expires and the file is removed: a script's way to say "time passes"
// without sleeping.
func Main() int {
	return run(context.Background(), os.Args[1:], os.Stderr)
}

type clientFlags map[string]string

func (c clientFlags) String() string { return "" }

func (c clientFlags) Set(v string) error {
	id, secret, _ := strings.Cut(v, ":")
	if id == "" {
		return errors.New("want ID:SECRET (or ID: for a public client)")
	}
	c[id] = secret
	return nil
}

func run(ctx context.Context, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("authserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	urlFile := fs.String("url", "", "write the MCP endpoint's URL to `FILE` when ready (required)")
	pidFile := fs.String("pidfile", "", "write the process id to `FILE` at start")
	logFile := fs.String("log", "", "append every request to `FILE`")
	expireFile := fs.String("expire-file", "", "when `FILE` appears, expire every access token issued so far and remove it")
	var cfg Config
	fs.DurationVar(&cfg.TokenLifetime, "lifetime", time.Hour, "access token lifetime")
	fs.BoolVar(&cfg.NoRefreshTokens, "no-refresh", false, "issue no refresh tokens")
	scopes := fs.String("scopes", "", "space-separated scopes_supported")
	fs.StringVar(&cfg.ChallengeScope, "challenge-scope", "", "scope named in the 401 challenge")
	fs.StringVar(&cfg.ToolScope, "tool-scope", "", "scope a tools/call needs (403 insufficient_scope without it)")
	fs.StringVar(&cfg.Issuer, "issuer", "", "issuer to claim instead of the server's origin")
	fs.BoolVar(&cfg.OmitIss, "omit-iss", false, "leave iss out of the authorization response")
	fs.StringVar(&cfg.AuthorizeError, "authorize-error", "", "make /authorize redirect with this error `code`")
	clients := clientFlags{}
	fs.Var(clients, "client", "a pre-registered client `ID:SECRET` (ID: for a public one); repeatable")
	fs.BoolVar(&cfg.NoRegistration, "no-registration", false, "offer no registration endpoint")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *urlFile == "" || fs.NArg() != 0 {
		fmt.Fprintln(stderr, "authserver: want -url FILE and no arguments")
		fs.Usage()
		return 2
	}
	cfg.ScopesSupported = strings.Fields(*scopes)
	cfg.Clients = clients
	demo := demosdk.NewServer()
	cfg.MCP = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return demo }, nil)
	if err := serve(ctx, cfg, *urlFile, *pidFile, *logFile, *expireFile, stderr); err != nil {
		fmt.Fprintf(stderr, "authserver: %v\n", err)
		return 1
	}
	return 0
}

func serve(ctx context.Context, cfg Config, urlFile, pidFile, logFile, expireFile string, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if pidFile != "" {
		if err := os.WriteFile(pidFile, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
			return fmt.Errorf("writing the pid file: %w", err)
		}
	}
	s := New(cfg)
	if logFile != "" {
		f, err := os.OpenFile(logFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return fmt.Errorf("opening the log: %w", err)
		}
		defer f.Close()
		var mu sync.Mutex
		s.OnRecord(func(r Request) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintln(f, r.String())
			f.Sync()
		})
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listening on 127.0.0.1: %w", err)
	}
	s.SetOrigin("http://" + ln.Addr().String())
	var h http.Handler = s
	if expireFile != "" {
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if err := os.Remove(expireFile); err == nil {
				s.ExpireAccessTokens()
			}
			s.ServeHTTP(w, r)
		})
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	// Written to a temporary name and renamed, so a script waiting for the
	// file never reads half a URL.
	if err := os.WriteFile(urlFile+".tmp", []byte(s.URL()+"\n"), 0o644); err != nil {
		srv.Close()
		return err
	}
	if err := os.Rename(urlFile+".tmp", urlFile); err != nil {
		srv.Close()
		return err
	}
	fmt.Fprintf(stderr, "authserver: serving %s\n", s.URL())
	select {
	case <-ctx.Done():
		srv.Close()
		return nil
	case err := <-done:
		return err
	}
}
