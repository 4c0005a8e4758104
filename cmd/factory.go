package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/internal/demo"
	"github.com/mcpctl/mcpctl/render"
	"github.com/mcpctl/mcpctl/transport"
)

// Version is mcpctl's version, set at build time with
// -ldflags "-X github.com/mcpctl/mcpctl/cmd.Version=v1.2.3".
var Version = "dev"

// Factory holds what every command needs. Dependencies that cost something
// to build are functions, so a command pays only for what it uses.
type Factory struct {
	IOStreams *IOStreams
	// Environ returns the environment (os.Environ in production).
	Environ func() []string
}

// NewFactory returns a Factory bound to ios.
func NewFactory(ios *IOStreams) *Factory {
	return &Factory{IOStreams: ios, Environ: os.Environ}
}

// ServerOptions select and configure the server a command talks to. They are
// filled by the flags of [addServerFlags] and the words after "--".
type ServerOptions struct {
	Demo            bool
	Command         []string // the stdio server's argv, after "--"
	Env             []string // -e KEY=VAL for the stdio server
	Cwd             string
	Timeout         time.Duration
	ProtocolVersion string
	Trace           string // "", "-" (stderr) or a file
	ServerStderr    string // "" (stream to stderr), "quiet" or a file
	Verbose         bool
}

// addServerFlags registers the server selection flags on cmd.
func addServerFlags(cmd *cobra.Command, o *ServerOptions) {
	fs := cmd.Flags()
	fs.BoolVar(&o.Demo, "demo", false, "Use the built-in demo server (in-process, nothing to install)")
	fs.StringArrayVarP(&o.Env, "env", "e", nil, "Set `KEY=VAL` in the stdio server's environment (repeatable)")
	fs.StringVar(&o.Cwd, "cwd", "", "Working `directory` for the stdio server")
	fs.DurationVar(&o.Timeout, "timeout", client.DefaultTimeout, "Timeout for each request to the server")
	fs.StringVar(&o.ProtocolVersion, "protocol-version", client.LatestProtocolVersion, "MCP protocol `version` to offer in initialize")
	fs.StringVar(&o.Trace, "trace", "", "Write every JSON-RPC message as NDJSON to `FILE` (- for stderr)")
	fs.StringVar(&o.ServerStderr, "server-stderr", "", "Where the stdio server's stderr goes: quiet, or a `FILE` (default: mcpctl's stderr)")
	fs.BoolVarP(&o.Verbose, "verbose", "v", false, "Show connection details on stderr")
}

// setServerArgs splits cobra's positional arguments at "--": the words after
// it are the stdio server's command line.
func setServerArgs(cmd *cobra.Command, args []string, o *ServerOptions) []string {
	if dash := cmd.ArgsLenAtDash(); dash >= 0 {
		o.Command = args[dash:]
		return args[:dash]
	}
	return args
}

// describe names the server for error messages.
func (o *ServerOptions) describe() string {
	if o.Demo {
		return "the demo server"
	}
	return fmt.Sprintf("%q", strings.Join(o.Command, " "))
}

func (o *ServerOptions) validate() error {
	switch {
	case o.Demo && len(o.Command) > 0:
		return flagErrorf("--demo and a server command after -- cannot be used together")
	case !o.Demo && len(o.Command) == 0:
		return flagErrorf("no server given: pass --demo, or a stdio server command after --, e.g. mcpctl list -- npx -y @modelcontextprotocol/server-everything")
	case o.Timeout <= 0:
		return flagErrorf("--timeout must be positive, got %s", o.Timeout)
	}
	for _, kv := range o.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return flagErrorf("invalid -e %q: expected KEY=VAL", kv)
		}
	}
	if o.ProtocolVersion != "" {
		known := false
		for _, v := range client.SupportedProtocolVersions {
			known = known || v == o.ProtocolVersion
		}
		if !known {
			return flagErrorf("unsupported --protocol-version %q (supported: %s)", o.ProtocolVersion, strings.Join(client.SupportedProtocolVersions, ", "))
		}
	}
	return nil
}

// session is a connected client plus what must be released with it.
type session struct {
	*client.Client
	closers []func() error
	name    string
}

// Close ends the session and releases its files.
func (s *session) Close() error {
	var errs []error
	if s.Client != nil {
		errs = append(errs, s.Client.Close())
	}
	for _, c := range s.closers {
		errs = append(errs, c())
	}
	return errors.Join(errs...)
}

// transportFunc adapts a function to [transport.Transport].
type transportFunc func(ctx context.Context) (transport.Connection, error)

func (f transportFunc) Connect(ctx context.Context) (transport.Connection, error) { return f(ctx) }

// Connect starts or reaches the server described by o and performs the MCP
// handshake. The caller must Close the session.
func (f *Factory) Connect(ctx context.Context, o *ServerOptions) (*session, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	ios := f.IOStreams
	s := &session{name: o.describe()}
	var t transport.Transport
	if o.Demo {
		t = transportFunc(func(ctx context.Context) (transport.Connection, error) {
			clientConn, serverConn := transport.NewPipe()
			go func() { _ = demo.Serve(context.Background(), serverConn) }()
			return clientConn, nil
		})
	} else {
		var stderr io.Writer
		switch o.ServerStderr {
		case "":
			dim := render.DimWriter(ios.ErrOut, ios.ColorErrEnabled())
			// The transport stops writing to stderr when it is closed; a last
			// line without a newline is flushed then.
			s.closers = append(s.closers, dim.Flush)
			stderr = dim
		case "quiet":
			stderr = nil
		default:
			file, err := os.Create(o.ServerStderr)
			if err != nil {
				return nil, fmt.Errorf("opening --server-stderr file: %w", err)
			}
			s.closers = append(s.closers, file.Close)
			stderr = file
		}
		t = &transport.Command{
			Path:   o.Command[0],
			Args:   o.Command[1:],
			Env:    o.Env,
			Dir:    o.Cwd,
			Stderr: stderr,
			Warn:   ios.ErrOut,
		}
	}
	if o.Trace != "" {
		w := ios.ErrOut
		if o.Trace != "-" {
			file, err := os.Create(o.Trace)
			if err != nil {
				s.Close()
				return nil, fmt.Errorf("opening --trace file: %w", err)
			}
			s.closers = append(s.closers, file.Close)
			w = file
		}
		t = &transport.Trace{Transport: t, W: w}
	}
	opts := client.Options{
		ClientInfo:      client.Implementation{Name: "mcpctl", Version: Version},
		ProtocolVersion: o.ProtocolVersion,
		Timeout:         o.Timeout,
		OnNotification:  f.notificationPrinter(),
		OnProtocolWarning: func(msg string) {
			fmt.Fprintln(ios.ErrOut, "mcpctl: protocol violation: "+msg)
		},
	}
	c, err := client.Connect(ctx, t, opts)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("connecting to %s: %w", s.name, err)
	}
	s.Client = c
	if o.Verbose {
		info := c.InitializeResult().ServerInfo
		fmt.Fprintf(ios.ErrOut, "connected to %s %s (protocol %s) in %s\n", info.Name, info.Version, c.ProtocolVersion(), c.HandshakeTime().Round(time.Microsecond))
	}
	return s, nil
}
