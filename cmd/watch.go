package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/session"
	"github.com/mcpctl/mcpctl/watch"
)

// WatchOptions are the options of `mcpctl watch`.
type WatchOptions struct {
	Factory *Factory
	Server  ServerOptions
	Output  OutputOptions
	// Subscribe are the resource URIs whose updates are wanted.
	Subscribe []string
	// LogLevel asks for server logs at this level and above; "" for none.
	LogLevel string
	// Duration ends the watch after this long; zero means until Ctrl-C.
	Duration time.Duration
	// Session is the proxy session to follow ("latest", an id or a prefix
	// of one) instead of a server.
	Session string
	// now is the clock of event times; time.Now unless a test sets it.
	now func() time.Time
}

// NewCmdWatch builds `mcpctl watch`. runF replaces the run function in
// tests.
func NewCmdWatch(f *Factory, runF func(*WatchOptions) error) *cobra.Command {
	opts := &WatchOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "watch {[--subscribe URI]... [--log-level LEVEL] [-- server command...] | --session ID|latest} [--duration D] [flags]",
		Short: "Print a server's notifications as they arrive",
		Long: `Watch a server: print its notifications as they arrive, one line each,
until Ctrl-C (exit 130) or the end of --duration (exit 0):

  log       server log messages at --log-level and above
  progress  progress notifications
  changed   a list changed (tools, resources, prompts): the list is fetched
            again and the line says what changed: +added -removed ~changed
  updated   a resource given with --subscribe changed (read it to see how)

mcpctl asks for list changes of every list the server offers; resources
are subscribed and --log-level set as the protocol era does it (in
2026-07-28 logs belong to requests: give --log-level to call to see a
tool's). If the server ends the subscription, watch exits 0; if the
connection is lost, 1.

-o json prints one JSON object per line (NDJSON), each with "time"
(RFC 3339) and "event": subscribed, log, progress, list_changed,
resource_updated, ended; the fields of each are those of the example below
and stay stable.

--session ID|latest follows a proxy session's log instead (mcpctl proxy):
each call once answered and each flag of the proxy's checks, until the
proxy ends; with latest and none yet, it waits for one. -o json
prints one object per call ("event":"call") and flag ("event":"flag").`,
		Example: `  mcpctl watch --demo --duration 5s
  mcpctl watch --demo --subscribe demo://readme --log-level debug
  mcpctl watch -o json --log-level info -- npx -y @modelcontextprotocol/server-everything
  mcpctl watch --url http://127.0.0.1:3001/mcp --subscribe file:///project/config.json
  mcpctl watch --session latest  # needs: a terminal of its own (follows a proxy session until it ends)

  # -o json, one object per line:
  # {"time":"…","event":"log","level":"info","logger":"db","data":"connected"}
  # {"time":"…","event":"progress","progressToken":"t1","progress":1,"total":3,"message":"step 1"}
  # {"time":"…","event":"list_changed","list":"tools","added":["b"],"removed":[],"changed":[]}
  # {"time":"…","event":"resource_updated","uri":"demo://readme"}`,
		RunE: func(cmd *cobra.Command, args []string) error {
			args = setServerArgs(cmd, args, &opts.Server)
			if len(args) != 0 {
				return flagErrorf("watch takes no arguments (got %q); give a server command after --", args[0])
			}
			if err := opts.Output.validate(); err != nil {
				return err
			}
			if opts.Output.Format == "yaml" || opts.Output.JQ != "" {
				return flagErrorf("watch prints text or NDJSON: use -o text or -o json, without --jq")
			}
			if err := checkLogLevelFlag(opts.LogLevel); err != nil {
				return err
			}
			if opts.Duration < 0 {
				return flagErrorf("invalid --duration %s: must not be negative", opts.Duration)
			}
			if opts.Session != "" {
				o := opts.Server
				if o.Demo || o.URL != "" || o.Server != "" || len(o.Command) > 0 {
					return flagErrorf("--session watches a proxy session's log, not a server: give it without -s, --url, --demo or a command")
				}
				if len(opts.Subscribe) > 0 || opts.LogLevel != "" {
					return flagErrorf("--subscribe and --log-level are for a server; --session watches a proxy session")
				}
			}
			if runF != nil {
				return runF(opts)
			}
			if opts.Session != "" {
				return watchSessionRun(cmd.Context(), opts)
			}
			return watchRun(cmd.Context(), opts)
		},
	}
	addServerFlags(cmd, &opts.Server)
	addOutputFlags(cmd, &opts.Output)
	addLogLevelFlag(cmd, &opts.LogLevel)
	cmd.Flags().StringArrayVar(&opts.Subscribe, "subscribe", nil, "Print updates of the resource at `URI` (repeatable)")
	cmd.Flags().StringVar(&opts.Session, "session", "", "Watch the proxy session `ID` (or latest) instead of a server")
	durationVar(cmd.Flags(), &opts.Duration, "duration", 0, "Stop after this long, e.g. 30s, 5m or a number of seconds, and exit 0 (default: until Ctrl-C)")
	return cmd
}

// addLogLevelFlag registers --log-level, for the commands where a user
// meets server logs.
func addLogLevelFlag(cmd *cobra.Command, level *string) {
	cmd.Flags().StringVar(level, "log-level", "", "Ask the server for its logs at `LEVEL` and above: "+strings.Join(client.LogLevels(), ", "))
	_ = cmd.RegisterFlagCompletionFunc("log-level", cobra.FixedCompletions(client.LogLevels(), cobra.ShellCompDirectiveNoFileComp))
}

// checkLogLevelFlag makes an unknown --log-level a usage error.
func checkLogLevelFlag(level string) error {
	if level == "" {
		return nil
	}
	if err := client.CheckLogLevel(level); err != nil {
		return flagErrorf("invalid --log-level: %v", err)
	}
	return nil
}

// applyLogLevel asks the server of s for its logs at level, if one is
// given. A server without the logging capability gets a warning, not a
// failure: it simply has no logs to show.
func applyLogLevel(ctx context.Context, f *Factory, s *session.Session, level string) error {
	if level == "" {
		return nil
	}
	err := s.SetLogLevel(ctx, level)
	var capErr *client.CapabilityError
	if errors.As(err, &capErr) {
		f.Warner().Warn("log-level", "mcpctl: warning: --log-level "+level+": "+err.Error())
		return nil
	}
	if err != nil {
		return fmt.Errorf("asking %s for its logs at %s: %w", s.Name(), level, err)
	}
	return nil
}

func watchRun(ctx context.Context, opts *WatchOptions) error {
	f := opts.Factory
	if opts.now == nil {
		opts.now = time.Now
	}
	q := watch.NewQueue()
	opts.Server.OnNotification = func(n client.Notification) {
		q.Push(watch.Item{At: opts.now(), N: n})
	}
	s, err := f.Connect(ctx, &opts.Server)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := applyLogLevel(ctx, f, s, opts.LogLevel); err != nil {
		return watchStopped(ctx, err)
	}
	err = watch.Run(ctx, s, q, watch.Options{
		Server: s.Name(), Printer: f.printer(), JSON: opts.Output.structured(), Now: opts.now,
		Warn: f.Warner().Warn, Subscribe: opts.Subscribe, Duration: opts.Duration, Quiet: !opts.Server.Verbose,
	})
	return watchStopped(ctx, err)
}

// watchSessionRun follows a proxy session (--session).
func watchSessionRun(ctx context.Context, opts *WatchOptions) error {
	f := opts.Factory
	store, err := f.sessionStore(opts.Session)
	if err != nil {
		return err
	}
	if opts.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Duration)
		defer cancel()
	}
	err = watch.ProxySession(ctx, watch.ProxySessionOptions{
		Store: store, Ref: opts.Session, Printer: f.printer(), JSON: opts.Output.structured(),
		Redact: f.Redactor().String,
	})
	if errors.Is(err, watch.ErrInterrupted) && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return nil
	}
	return watchStopped(ctx, err)
}

// watchStopped makes Ctrl-C, which is how a watch ends, also while it is
// still setting up on a server that answers, exit 130 with no error line.
func watchStopped(ctx context.Context, err error) error {
	if errors.Is(err, watch.ErrInterrupted) || (ctx.Err() != nil && errors.Is(err, context.Canceled)) {
		return &ExitCodeError{Code: ExitInterrupted}
	}
	return err
}
