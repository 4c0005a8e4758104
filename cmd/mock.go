package cmd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/transport"
)

// MockOptions are the options of `mcpctl mock`.
type MockOptions struct {
	// File is the recording, written by --record.
	File string
	// HTTP is the address to serve Streamable HTTP on; "" serves stdio.
	HTTP string
	// URLFile receives the HTTP server's URL once it listens.
	URLFile string
}

// NewCmdMock builds `mcpctl mock FILE [--http ADDR]`, which serves a
// recording made with --record as an MCP server.
func NewCmdMock(f *Factory) *cobra.Command {
	opts := &MockOptions{}
	cmd := &cobra.Command{
		Use:   "mock FILE",
		Short: "Serve a session recorded with --record as an MCP server",
		Long: `Serve a session recorded with --record as an MCP server, on stdio (the
default) or as a Streamable HTTP server (--http ADDR, on 127.0.0.1 unless
ADDR names another host).

Each request is answered as the recorded server answered the same method
with the same params (ids and params._meta are ignored; repeated requests
get the recorded answers in order, then the last one again), with the
server's notifications that followed it. initialize and server/discover
are answered from the recording whatever the client sends, so the
protocol era of the recording is the one served. Anything not recorded
gets a JSON-RPC error saying so (-32601 for a method the recording never
saw, -32603 for other params): a client exits 3 on it.`,
		Example: `  mcpctl call echo message=hi --record rec.ndjson -- npx -y @modelcontextprotocol/server-everything
  mcpctl call echo message=hi -- mcpctl mock rec.ndjson
  mcpctl mock rec.ndjson --http 127.0.0.1:8080`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			return runMock(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.HTTP, "http", "", "Serve Streamable HTTP on `ADDR` (host:port; :0 picks a free port; the host defaults to 127.0.0.1)")
	cmd.Flags().StringVar(&opts.URLFile, "url-file", "", "With --http, write the server's URL to `FILE` once it listens")
	return cmd
}

func runMock(ctx context.Context, f *Factory, opts *MockOptions) error {
	if opts.URLFile != "" && opts.HTTP == "" {
		return flagErrorf("--url-file needs --http ADDR")
	}
	file, err := os.Open(opts.File)
	if err != nil {
		return flagErrorf("opening the recording: %v", err)
	}
	rec, err := transport.ReadRecording(file, filepath.Base(opts.File))
	file.Close()
	if err != nil {
		return flagErrorf("%v", err)
	}
	mock := transport.NewMock(rec)
	if opts.HTTP == "" {
		err := mock.ServeStdio(ctx, f.IOStreams.In, f.IOStreams.Out)
		if errors.Is(err, context.Canceled) {
			return nil // the client ended the server with a signal
		}
		return err
	}
	return serveMockHTTP(ctx, f, opts, mock)
}

// serveMockHTTP serves mock on opts.HTTP at /mcp until ctx ends, printing
// its URL on stdout (and to --url-file).
func serveMockHTTP(ctx context.Context, f *Factory, opts *MockOptions, mock *transport.Mock) error {
	host, port, err := net.SplitHostPort(opts.HTTP)
	if err != nil {
		return flagErrorf("invalid --http %q: expected host:port or :port (%v)", opts.HTTP, err)
	}
	if host == "" {
		host = "127.0.0.1" // never every interface unless asked
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return fmt.Errorf("listening on %s: %w (choose another address with --http)", net.JoinHostPort(host, port), err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mock)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: time.Minute}
	url := "http://" + ln.Addr().String() + "/mcp"
	if opts.URLFile != "" {
		// Written whole, then renamed: whoever waits for the file never
		// reads half a URL.
		if err := os.WriteFile(opts.URLFile+".tmp", []byte(url+"\n"), 0o644); err != nil {
			ln.Close()
			return fmt.Errorf("writing --url-file: %w", err)
		}
		if err := os.Rename(opts.URLFile+".tmp", opts.URLFile); err != nil {
			ln.Close()
			return fmt.Errorf("writing --url-file: %w", err)
		}
	}
	fmt.Fprintln(f.IOStreams.Out, url)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serving %s: %w", url, err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(sctx)
}
