package cmd

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/shell"
	"github.com/mcpctl/mcpctl/transport"
)

// ShellOptions are the options of `mcpctl shell`.
type ShellOptions struct {
	Factory *Factory
	Server  ServerOptions
	Output  OutputOptions
	// NoHistory keeps the history of a terminal session in memory only.
	NoHistory bool
}

// NewCmdShell builds `mcpctl shell`. runF replaces the run function in
// tests.
func NewCmdShell(f *Factory, runF func(*ShellOptions) error) *cobra.Command {
	opts := &ShellOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "shell [flags] [-- server command...]",
		Short: "Run many commands in one session with a server",
		Long: `Start the server once, then run commands in its session, one per line:

  list [tools|resources|templates|prompts|all]
  call TOOL [key=value | key:=json | key=@file ...]
  read URI
  prompt NAME [key=value ...]
  tasks list | get ID | cancel ID | result ID
  subscribe URI...      updates of these resources, printed as they come
  unsubscribe URI...
  wait DURATION         let notifications arrive, e.g. wait 2s
  help [COMMAND], exit

describe and complete are there when this mcpctl has those commands.
Arguments and flags are those of the mcpctl commands of the same names
(call --task, --log-level, --no-validate, -o json, …), and each prints
exactly what the command prints; only the server flags belong to the shell.
Words are split as a POSIX shell splits them: 'single' and "double" quotes,
backslash escapes; a word starting with # begins a comment.

Notifications — server logs, progress, list changes (with what changed),
resource updates — are printed on stderr as they arrive, as mcpctl watch
prints them (-o json: one JSON object per line).

On a terminal, lines are edited with the usual keys (arrows, Home/End,
Ctrl-A/E/U/K/W, Ctrl-C drops the line and cancels a running command,
Ctrl-D on an empty line leaves), Tab completes commands, tool, prompt and
resource names, argument keys and enum values, and the history is kept in
$XDG_STATE_HOME/mcpctl/shell_history (mode 0600, the last 1000 lines; lines
whose arguments look like secrets — token=, password=, a Bearer value — are
not saved). Piped, the shell reads its standard input line by line with no
prompt and no echo; blank lines and # comments are skipped.

A command that fails prints its error on one line and the shell goes on.
The shell exits 0 when its input ends or on exit, whatever its commands
did; 1 when the session itself fails (the server cannot be started or
ends, the input cannot be read); 130 when interrupted: Ctrl-C while
reading piped input; 143 at SIGTERM, 129 at SIGHUP.`,
		Example: `  mcpctl shell --demo
  printf 'call add a=2 b=3\ncall echo message=hi\n' | mcpctl shell --demo
  mcpctl shell -o json -- npx -y @modelcontextprotocol/server-everything < commands.txt`,
		RunE: func(cmd *cobra.Command, args []string) error {
			args = setServerArgs(cmd, args, &opts.Server)
			if len(args) > 0 {
				return flagErrorf("shell takes no arguments before --, got %q; type commands once it runs", args)
			}
			if err := opts.Output.validate(); err != nil {
				return err
			}
			if opts.Output.JQ != "" {
				return flagErrorf("--jq belongs to the shell's commands: give it on a line, e.g. list -o json --jq '.tools[].name'")
			}
			if runF != nil {
				return runF(opts)
			}
			return shellRun(cmd.Context(), opts)
		},
	}
	addServerFlags(cmd, &opts.Server)
	addOutputFlags(cmd, &opts.Output)
	cmd.Flags().BoolVar(&opts.NoHistory, "no-history", false, "Keep no history file")
	return cmd
}

// shellCLICommands are the mcpctl commands the shell runs as they are, in
// its session, with their usages for the shell's help. describe and
// complete join when mcpctl has them.
func shellCLICommands() []shell.Command {
	usages := []shell.Command{
		{Name: "list", Usage: "list [tools|resources|templates|prompts|all]"},
		{Name: "call", Usage: "call TOOL [key=value | key:=json | key=@file ...]"},
		{Name: "read", Usage: "read URI"},
		{Name: "prompt", Usage: "prompt NAME [key=value ...]"},
		{Name: "describe", Usage: "describe tool|prompt|resource NAME"},
		{Name: "complete", Usage: "complete prompt NAME ARG=PARTIAL | template URI_TEMPLATE VAR=PARTIAL"},
		{Name: "tasks", Usage: "tasks list | get ID | cancel ID | result ID"},
	}
	var cmds []shell.Command
	for _, c := range usages {
		if shellCommandBuilder(c.Name) != nil {
			cmds = append(cmds, c)
		}
	}
	return cmds
}

// shellCommandBuilder returns the constructor of the mcpctl command name,
// nil when mcpctl has none.
func shellCommandBuilder(name string) func(*Factory) *cobra.Command {
	for _, sc := range subcommands() {
		if sc.name == name {
			return sc.build
		}
	}
	return nil
}

// splitWords splits a line into words as the shell does; the exec:
// sampling source (features.go) is written in the same syntax.
func splitWords(line string) ([]string, error) { return shell.SplitWords(line) }

func shellRun(ctx context.Context, opts *ShellOptions) error {
	f := opts.Factory
	// The shell catches the signals itself: Ctrl-C cancels the command in
	// flight, not the session. The root context would end the run at the
	// first one once anything waited on it.
	if sc, ok := ctx.(*signalContext); ok {
		ctx = sc.Context
	}
	_, isFile := f.IOStreams.In.(*os.File)
	tty := f.IOStreams.IsStdinTTY() && f.IOStreams.IsStdoutTTY() && isFile
	// A line is at most one request: the limit of one message applies.
	limit := opts.Server.MaxMessageSize
	if limit <= 0 {
		limit = transport.DefaultMaxMessageSize
	}
	sc := &shellCLI{opts: opts, tty: tty}
	sopts := shell.Options{
		In: f.IOStreams.In, Out: f.IOStreams.Out, ErrOut: f.IOStreams.ErrOut,
		Terminal: tty, ErrTerminal: f.IOStreams.IsStderrTTY(), ErrColor: f.IOStreams.ColorErrEnabled(), ErrWidth: f.IOStreams.errWidth,
		Width: f.IOStreams.TerminalWidth, JSON: opts.Output.structured(), Verbose: opts.Server.Verbose, MaxLine: limit,
		Commands: shellCLICommands(), Connect: sc.connect, Run: sc.run, Completer: shellCompleter{},
		Warn: sc.warn, Redact: shellErrorText(f.Redactor().String),
	}
	if dir, err := f.stateDir(); err == nil && !opts.NoHistory {
		sopts.HistoryFile = shell.HistoryFile(dir)
	}
	err := shell.Run(ctx, sopts)
	var sigErr *shell.SignalError
	if errors.As(err, &sigErr) {
		// As every mcpctl command: 128 + the signal.
		return &ExitCodeError{Code: signalCode(sigErr.Signal)}
	}
	return err
}

// shellCLI runs mcpctl commands in the shell's session.
type shellCLI struct {
	opts *ShellOptions
	tty  bool
	f    *Factory // the commands' factory: its Connect lends the session
	ios  *IOStreams
}

// warn warns through the run's warner, which the session's factory makes
// (on the shell's streams) if nothing has yet.
func (sc *shellCLI) warn(kind, msg string) {
	f := sc.f
	if f == nil {
		f = sc.opts.Factory
	}
	f.Warner().Warn(kind, msg)
}

// shellErrorText is what the shell does to a line's error before printing
// it: secrets hidden, Go's wording of a cancellation or a deadline
// replaced as on mcpctl's own error line (the shell starts the line of a
// command Ctrl-C stopped with "interrupted: ").
func shellErrorText(redact func(string) string) func(string) string {
	return func(msg string) string {
		return plainWords(redact(msg), strings.HasPrefix(msg, "interrupted: "))
	}
}

// connect starts the shell's session; the commands run in it print to
// out and errOut.
func (sc *shellCLI) connect(ctx context.Context, out, errOut io.Writer, notify func(client.Notification)) (*shell.Connection, error) {
	f := sc.opts.Factory
	ios := *f.IOStreams
	ios.Out, ios.ErrOut = out, errOut
	if !sc.tty {
		// The commands never read the script they are part of.
		ios.In = strings.NewReader("")
	}
	sc.ios = &ios
	sc.opts.Server.OnNotification = notify
	s, err := f.sharing(nil, sc.ios).Connect(ctx, &sc.opts.Server)
	if err != nil {
		return nil, err
	}
	sc.f = f.sharing(s, sc.ios)
	return &shell.Connection{Session: s, Name: s.Name(), Roots: s.Roots()}, nil
}

// run runs an mcpctl command in the shell's session: its Connect lends
// the session; a server flag on the line is refused; the shell's -o is
// the command's unless the line gives its own.
func (sc *shellCLI) run(ctx context.Context, args []string, out, errOut io.Writer) error {
	build := shellCommandBuilder(args[0])
	if build == nil {
		return flagErrorf("unknown command %q", args[0])
	}
	c := build(sc.f)
	c.SetArgs(args[1:])
	c.SetIn(sc.ios.In)
	c.SetOut(out)
	c.SetErr(errOut)
	c.SilenceErrors, c.SilenceUsage = true, true
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &FlagError{Err: err} })
	serverFlags := serverFlagNames()
	c.PersistentPreRunE = func(c *cobra.Command, _ []string) error {
		var bad []string
		c.Flags().Visit(func(fl *pflag.Flag) {
			if serverFlags[fl.Name] {
				bad = append(bad, "--"+fl.Name)
			}
		})
		if len(bad) > 0 {
			return flagErrorf("%s chooses the server, which the shell chose when it started: start another shell for another server", strings.Join(bad, ", "))
		}
		if c.ArgsLenAtDash() >= 0 {
			return flagErrorf("the server command belongs to mcpctl shell, not to its commands (no -- on a line)")
		}
		fs := c.Flags()
		if sc.opts.Server.Verbose && fs.Lookup("verbose") != nil {
			// The shell's -v is its commands': their notes too.
			if err := fs.Set("verbose", "true"); err != nil {
				return err
			}
		}
		if fs.Lookup("output") != nil && !fs.Changed("output") && !fs.Changed("json") && !fs.Changed("jq") {
			return fs.Set("output", sc.opts.Output.Format)
		}
		return nil
	}
	err := c.ExecuteContext(ctx)
	var codeErr *ExitCodeError
	if errors.As(err, &codeErr) && codeErr.Msg == "" {
		return shell.ErrReported
	}
	return err
}

// serverFlagNames are the names of the server flags, which only the
// shell's own command line gives.
func serverFlagNames() map[string]bool {
	c := &cobra.Command{}
	addServerFlags(c, &ServerOptions{})
	names := map[string]bool{}
	c.Flags().VisitAll(func(fl *pflag.Flag) { names[fl.Name] = true })
	return names
}
