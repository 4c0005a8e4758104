package cmd

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/session"
	"github.com/mcpctl/mcpctl/shell"
	"github.com/mcpctl/mcpctl/ui"
)

// UIOptions are the options of `mcpctl ui`.
type UIOptions struct {
	Factory *Factory
	Server  ServerOptions
	SaveDir string
	// Session is the proxy session to show ("latest", an id or a prefix
	// of one) instead of a server.
	Session string
}

// NewCmdUI builds `mcpctl ui`. runF replaces the run function in tests.
func NewCmdUI(f *Factory, runF func(*UIOptions) error) *cobra.Command {
	opts := &UIOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "ui [flags] [-- server command...]",
		Short: "Explore a server in a full-screen terminal inspector",
		Long: `Open a full-screen inspector of a server: its description, its tools,
resources, templates and prompts in filterable lists with the details
mcpctl describe gives, a call form generated from each tool's inputSchema
(checked as you type, as mcpctl call checks arguments), results as call
prints them, the notifications and every protocol frame of the session,
forms for prompts and resource templates with the server's completions,
a form for the server's elicitation and sampling requests, the tasks
(c cancels one) and the roots (a adds a folder, d removes one).

--session ID|latest shows a proxy session instead (mcpctl proxy), live
or recorded: its calls and frames as they pass, the proxy's flags,
per-tool counts and p50/p95 latency, and the calls held for approval, to
approve (a) or deny (d) as mcpctl proxy approve and deny do.

Keys: arrows or vim keys move, / filters, enter opens, tab changes pane,
? lists every key, q or Ctrl-C leaves. A call's command line, printed on
exit with y, repeats it with mcpctl call. The ui needs a terminal; for
scripts use list, call or shell. Guide: docs/ui.md.`,
		Example: `  mcpctl ui --demo    # needs: a terminal
  mcpctl ui -- npx -y @modelcontextprotocol/server-everything    # needs: a terminal
  mcpctl ui --session latest    # needs: a terminal (and a proxy session)`,
		RunE: func(cmd *cobra.Command, args []string) error {
			args = setServerArgs(cmd, args, &opts.Server)
			if len(args) > 0 {
				return flagErrorf("ui takes no arguments before --, got %q", args)
			}
			if opts.Session != "" {
				if err := checkUISession(opts); err != nil {
					return err
				}
			}
			if runF != nil {
				return runF(opts)
			}
			if opts.Session != "" {
				return uiSessionRun(cmd.Context(), opts)
			}
			return uiRun(cmd.Context(), opts)
		},
	}
	addServerFlags(cmd, &opts.Server)
	cmd.Flags().StringVar(&opts.SaveDir, "save-dir", "", "Folder for the images, audio and blobs saved from a result with s; files there are never replaced (default: a cache folder kept to the newest 100 files)")
	cmd.Flags().StringVar(&opts.Session, "session", "", "Show the proxy session `ID` (or latest) instead of a server")
	return cmd
}

func uiRun(ctx context.Context, opts *UIOptions) error {
	f := opts.Factory
	ios := f.IOStreams
	in, inFile := ios.In.(*os.File)
	if !ios.IsStdinTTY() || !ios.IsStdoutTTY() || !inFile {
		return &ExitCodeError{Code: ExitUsage, Msg: "mcpctl ui needs a terminal; without one use " +
			f.commandHint("list", "") + ", call or shell"}
	}
	if err := opts.Server.validate(); err != nil {
		return err
	}
	feed := ui.NewFeed()
	// The screen is the program's: what the session would print on
	// stderr (server stderr, warnings, --trace -) goes to its events
	// pane, and nothing reads the terminal but the program.
	sio := *ios
	sio.In, sio.ErrOut = strings.NewReader(""), feed.Stderr()
	sio.SetStdinTTY(false)
	sio.SetStderrTTY(false)
	sio.SetColorErrEnabled(false)
	sf := f.sharing(nil, &sio)
	o := opts.Server
	o.OnNotification = feed.Notify
	o.TraceTo = feed.TraceWriter()
	o.ElicitForm = feed.Elicit
	// The sampling form answers unless --sample does; roots are declared
	// (none unless --root) so that the roots pane can change them.
	o.SampleForm = feed.Sample
	o.DeclareRoots = true
	var cacheDir string
	if opts.SaveDir == "" {
		cacheDir, _ = f.blobCacheDir()
	}
	res, err := ui.Run(ctx, ui.Options{
		Name:        o.describe(),
		Connect:     func(ctx context.Context) (*session.Session, error) { return sf.Connect(ctx, &o) },
		Feed:        feed,
		Color:       ios.ColorEnabled(),
		SaveDir:     opts.SaveDir,
		CacheDir:    cacheDir,
		CallCommand: func(tool string, args []string) string { return callCommandLine(&opts.Server, tool, args) },
		In:          in,
		Out:         ios.Out,
	})
	for _, line := range res.Printed {
		fmt.Fprintln(ios.Out, line)
	}
	return err
}

// callCommandLine is the `mcpctl call` command line that makes a call the
// ui made, with the server chosen as the ui's command line chose it.
func callCommandLine(o *ServerOptions, tool string, args []string) string {
	words := []string{"mcpctl", "call"}
	switch {
	case o.Server != "":
		words = append(words, "-s", o.Server)
	case o.Demo:
		words = append(words, "--demo")
	case o.URL != "":
		words = append(words, "--url", o.URL)
	}
	words = append(words, tool)
	words = append(words, args...)
	if len(o.Command) > 0 {
		words = append(words, "--")
		words = append(words, o.Command...)
	}
	for i, w := range words {
		words[i] = shell.Quote(w)
	}
	return strings.Join(words, " ")
}
