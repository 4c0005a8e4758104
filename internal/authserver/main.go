package authserver

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/url"
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
//	           [-tls [-cert FILE]] [-auth-server-file FILE]
//	           [-move-issuer-file FILE]
//
// It listens on 127.0.0.1 and a free port, serves the demo MCP server
// (package demosdk) as the protected resource, and writes the MCP
// endpoint's URL to the -url file once it accepts connections. -log appends
// every request, as [Request.String] prints it, synced before the answer
// is complete. When the -expire-file appears, every access token issued so
// far expires and the file is removed: a script's way to say "time passes"
// without sleeping.
//
// -tls serves https with a self-signed certificate for 127.0.0.1 made at
// start (each server its own), which -cert writes as PEM. -auth-server-file
// names, as the resource's authorization server, the origin of the URL in
// FILE (another authserver's -url file, read at start). When the
// -move-issuer-file appears, the server moves its issuer (see
// [Server.MoveIssuer]) and the file is removed.
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
	var sv serveOptions
	fs.BoolVar(&sv.tls, "tls", false, "serve https with a self-signed certificate for 127.0.0.1")
	fs.StringVar(&sv.certFile, "cert", "", "write the -tls certificate (PEM) to `FILE`")
	asFile := fs.String("auth-server-file", "", "name the origin of the URL in `FILE` as the authorization server")
	fs.StringVar(&sv.moveFile, "move-issuer-file", "", "when `FILE` appears, move the issuer to ORIGIN/v2 and remove it")
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
	if *asFile != "" {
		data, err := os.ReadFile(*asFile)
		if err != nil {
			fmt.Fprintf(stderr, "authserver: %v\n", err)
			return 2
		}
		u, err := url.Parse(strings.TrimSpace(string(data)))
		if err != nil || u.Host == "" {
			fmt.Fprintf(stderr, "authserver: %s holds no URL\n", *asFile)
			return 2
		}
		cfg.AuthorizationServer = u.Scheme + "://" + u.Host
	}
	cfg.ScopesSupported = strings.Fields(*scopes)
	cfg.Clients = clients
	demo := demosdk.NewServer()
	cfg.MCP = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return demo }, nil)
	sv.urlFile, sv.pidFile, sv.logFile, sv.expireFile = *urlFile, *pidFile, *logFile, *expireFile
	if err := serve(ctx, cfg, sv, stderr); err != nil {
		fmt.Fprintf(stderr, "authserver: %v\n", err)
		return 1
	}
	return 0
}

// serveOptions are Main's flags about serving rather than OAuth.
type serveOptions struct {
	urlFile, pidFile, logFile, expireFile, moveFile string
	tls                                             bool
	certFile                                        string
}

func serve(ctx context.Context, cfg Config, sv serveOptions, stderr io.Writer) error {
	urlFile, pidFile, logFile, expireFile := sv.urlFile, sv.pidFile, sv.logFile, sv.expireFile
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
	scheme := "http"
	if sv.tls {
		cert, pemCert, err := selfSigned()
		if err != nil {
			ln.Close()
			return err
		}
		if sv.certFile != "" {
			if err := os.WriteFile(sv.certFile, pemCert, 0o644); err != nil {
				ln.Close()
				return err
			}
		}
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
		scheme = "https"
	}
	s.SetOrigin(scheme + "://" + ln.Addr().String())
	var h http.Handler = s
	if expireFile != "" || sv.moveFile != "" {
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if expireFile != "" && os.Remove(expireFile) == nil {
				s.ExpireAccessTokens()
			}
			if sv.moveFile != "" && os.Remove(sv.moveFile) == nil {
				s.MoveIssuer()
			}
			s.ServeHTTP(w, r)
		})
	}
	// Every request is recorded when its handler returns: run waits for
	// the handlers still running after Close, so that none is recorded
	// after the log is closed.
	var handlers sync.WaitGroup
	inner := h
	h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handlers.Add(1)
		defer handlers.Done()
		inner.ServeHTTP(w, r)
	})
	// A client that refuses the certificate is no news: the log of
	// handshake errors would only fill the script's stderr.
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
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
		handlers.Wait()
		return nil
	case err := <-done:
		return err
	}
}

// selfSigned makes a certificate for 127.0.0.1, valid for a day, signed by
// its own key: a server nothing trusts unless told to.
func selfSigned() (tls.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "authserver 127.0.0.1"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	cert := tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	return cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}
