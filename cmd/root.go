// Package cmd holds mcpctl's cobra commands: one file per command, each with
// its options struct, constructor and run function. Commands parse flags,
// build options and call a run function; protocol work lives in client and
// transport, output in render. [Main] is the only place that maps errors to
// exit codes.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"sync"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/render"
)

// Main runs mcpctl with os.Args and returns the process exit code.
//
// The first Ctrl-C (or SIGTERM, SIGHUP) cancels the command's context: the
// request in flight is cancelled and the server shut down politely. A
// second one closes [Factory.Hurry]: the shutdown stops waiting and kills
// the server at once. The signals are caught from the moment the command
// first waits on its context (see [newSignalContext]).
func Main() (code int) {
	ctx := newSignalContext()
	defer ctx.stop()
	ios := System()
	defer ios.Restore()
	f := NewFactory(ios)
	f.Hurry = ctx.hurry
	// An unrecovered panic would end the process with status 2, the
	// usage-error code; a panic is mcpctl's own failure (see panicExit).
	defer func() {
		if r := recover(); r != nil {
			code = panicExit(f.IOStreams.ErrOut, r, debug.Stack())
		}
	}()
	return runWith(ctx, f, os.Args[1:])
}

// signalContext is the context of a command run from the terminal: it is
// cancelled at the first SIGINT, SIGTERM or SIGHUP, and hurry is closed at
// the second.
//
// The signals are caught only from the first call of Done, which whatever
// waits on the context makes (directly, or by deriving a context from it,
// or by starting a process with it). Catching them costs a handler and two
// goroutines, with the threads that run them, about a twentieth of the
// start-up of `mcpctl version`; a command that never waits on its context
// (version, servers, completion) could not act on its cancellation anyway,
// and is ended by the signal as any program is.
type signalContext struct {
	// Context is the cancelable context Done, Err and Value read; it is
	// the *context.cancelCtx that contexts derived from a signalContext
	// find by Value, so deriving one starts no goroutine.
	context.Context
	cancel context.CancelCauseFunc
	hurry  chan struct{}

	once sync.Once
	sigs chan os.Signal // nil until the signals are caught
}

// newSignalContext returns a signalContext that catches no signal yet.
func newSignalContext() *signalContext {
	ctx, cancel := context.WithCancelCause(context.Background())
	return &signalContext{Context: ctx, cancel: cancel, hurry: make(chan struct{})}
}

// Done starts catching the signals, on its first call, and returns the
// channel closed when the command is cancelled.
func (c *signalContext) Done() <-chan struct{} {
	c.once.Do(func() {
		c.sigs = make(chan os.Signal, 2)
		signal.Notify(c.sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
		go watchSignals(c.Context, c.sigs, c.cancel, c.hurry)
	})
	return c.Context.Done()
}

// stop stops catching the signals and cancels the context, which ends
// the goroutine that watched them.
func (c *signalContext) stop() {
	c.once.Do(func() {}) // no catching starts after this
	if c.sigs != nil {
		signal.Stop(c.sigs)
	}
	c.cancel(nil)
}

// signalCause is the cause of a signalContext's cancellation: the signal
// that ended the command, whose number sets the exit code (128+n, as a
// shell reports a process a signal killed: 143 for SIGTERM).
type signalCause struct{ sig os.Signal }

// Error is context.Canceled's: messages read as they did before causes.
func (c *signalCause) Error() string { return context.Canceled.Error() }

// Unwrap makes a signal's cancellation a context.Canceled to errors.Is.
func (c *signalCause) Unwrap() error { return context.Canceled }

// signalExitCode is the exit code of a command the signal that cancelled
// ctx ended: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP; code when ctx
// was not cancelled by a signal.
func signalExitCode(ctx context.Context, code int) int {
	var sc *signalCause
	if errors.As(context.Cause(ctx), &sc) {
		return signalCode(sc.sig)
	}
	return code
}

// signalCode is the exit code of a process a signal ended: 128 + the
// signal's number, as shells report it (130 for SIGINT, 143 for SIGTERM,
// 129 for SIGHUP); [ExitInterrupted] for a signal with no number.
func signalCode(sig os.Signal) int {
	if n, ok := sig.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return ExitInterrupted
}

// watchSignals cancels the command at the first signal and closes hurry
// at the second; it returns then, or when ctx ends otherwise.
func watchSignals(ctx context.Context, sigs <-chan os.Signal, cancel context.CancelCauseFunc, hurry chan<- struct{}) {
	select {
	case sig := <-sigs:
		cancel(&signalCause{sig: sig})
	case <-ctx.Done():
		return
	}
	<-sigs
	close(hurry)
}

// run executes one command line; tests call it with [Test] streams.
func run(ctx context.Context, ios *IOStreams, args []string) int {
	return runWith(ctx, NewFactory(ios), args)
}

// runWith runs one command line with f and returns the exit code. The
// error line it prints goes through the run's redactor: no secret the
// command line or a named server gave appears in it.
func runWith(ctx context.Context, f *Factory, args []string) int {
	ios := f.IOStreams
	root := newCmdRoot(f, commandNamed(args))
	root.SetArgs(args)
	root.SetIn(ios.In)
	root.SetOut(ios.Out)
	root.SetErr(ios.ErrOut)
	err := root.ExecuteContext(ctx)
	if err != nil && isCobraUsageError(err) {
		// A mistyped command makes its flags unknown too: name the command.
		if cmdErr := unknownCommandFirst(root, args); cmdErr != nil {
			err = cmdErr
		}
	}
	f.state().results.Wait()
	if err == nil {
		err = f.state().results.Err()
	}
	if w := f.state().warner; w != nil {
		w.Flush()
	}
	if err == nil {
		return ExitOK
	}
	interrupted := ctx.Err() != nil
	code := exitCode(err, interrupted)
	msg := plainWords(err.Error(), code == ExitInterrupted)
	if code == ExitInterrupted {
		var sig os.Signal
		var sc *signalCause
		if errors.As(context.Cause(ctx), &sc) {
			sig = sc.sig
		}
		if msg == "cancelled" {
			msg = signalWord(sig)
		} else {
			msg = signalWord(sig) + ": " + msg
		}
		code = signalExitCode(ctx, code)
	}
	var codeErr *ExitCodeError
	if errors.As(err, &codeErr) && codeErr.Msg == "" {
		return code
	}
	msg = f.Redactor().String(msg)
	if ios.IsStderrTTY() {
		// Errors quote what servers sent; on a terminal it is shown, not obeyed.
		msg = render.Sanitize(msg)
	}
	fmt.Fprintln(ios.ErrOut, render.ErrorLineWidth(msg, ios.ColorErrEnabled(), ios.errWidth()))
	var flagErr *FlagError
	if code == ExitUsage && (isCobraUsageError(err) || errors.As(err, &flagErr) && flagErr.Hint) {
		if hint := serverCommandHint(args); hint != "" {
			fmt.Fprintln(ios.ErrOut, hint)
		}
		fmt.Fprintln(ios.ErrOut, "Run 'mcpctl --help' or 'mcpctl COMMAND --help' for usage.")
	}
	return code
}

// NewCmdRoot builds the whole command tree. It uses no package-level state,
// so tests may build it many times.
func NewCmdRoot(f *Factory) *cobra.Command { return newCmdRoot(f, "") }

// subcommand is one command of the tree, by name, with its constructor.
type subcommand struct {
	name  string
	build func(*Factory) *cobra.Command
}

// subcommands are mcpctl's commands in the order help lists them.
func subcommands() []subcommand {
	return []subcommand{
		{"connect", func(f *Factory) *cobra.Command { return NewCmdConnect(f, nil) }},
		{"list", func(f *Factory) *cobra.Command { return NewCmdList(f, nil) }},
		{"call", func(f *Factory) *cobra.Command { return NewCmdCall(f, nil) }},
		{"read", func(f *Factory) *cobra.Command { return NewCmdRead(f, nil) }},
		{"prompt", func(f *Factory) *cobra.Command { return NewCmdPrompt(f, nil) }},
		{"describe", func(f *Factory) *cobra.Command { return NewCmdDescribe(f, nil) }},
		{"complete", func(f *Factory) *cobra.Command { return NewCmdComplete(f, nil) }},
		{"skills", func(f *Factory) *cobra.Command { return NewCmdSkills(f, nil) }},
		{"tasks", func(f *Factory) *cobra.Command { return NewCmdTasks(f, nil) }},
		{"watch", func(f *Factory) *cobra.Command { return NewCmdWatch(f, nil) }},
		{"shell", func(f *Factory) *cobra.Command { return NewCmdShell(f, nil) }},
		{"ui", func(f *Factory) *cobra.Command { return NewCmdUI(f, nil) }},
		{"validate", func(f *Factory) *cobra.Command { return NewCmdValidate(f, nil) }},
		{"scan", func(f *Factory) *cobra.Command { return NewCmdScan(f, nil) }},
		{"snapshot", func(f *Factory) *cobra.Command { return NewCmdSnapshot(f, nil) }},
		{"diff", func(f *Factory) *cobra.Command { return NewCmdDiff(f, nil) }},
		{"mock", NewCmdMock},
		{"proxy", NewCmdProxy},
		{"check", NewCmdCheck},
		{"export", NewCmdExport},
		{"test", func(f *Factory) *cobra.Command { return NewCmdTest(f, nil) }},
		{"bench", func(f *Factory) *cobra.Command { return NewCmdBench(f, nil) }},
		{"fuzz", func(f *Factory) *cobra.Command { return NewCmdFuzz(f, nil) }},
		{"sign", NewCmdSign},
		{"audit", func(f *Factory) *cobra.Command { return NewCmdAudit(f, nil) }},
		{"scaffold", NewCmdScaffold},
		{"version", NewCmdVersion},
		{"servers", func(f *Factory) *cobra.Command { return NewCmdServers(f, nil) }},
		{"auth", func(f *Factory) *cobra.Command { return NewCmdAuth(f, nil) }},
		{"completion", NewCmdCompletion},
	}
}

// commandNamed returns the command a command line runs when its first word
// names one exactly, else "": then only that command needs building. Help,
// completion and anything that starts with a flag need the whole tree.
func commandNamed(args []string) string {
	if len(args) == 0 {
		return ""
	}
	for _, sc := range subcommands() {
		if sc.name == args[0] && sc.name != "completion" {
			return sc.name
		}
	}
	return ""
}

// newCmdRoot builds the root command with every subcommand, or with only
// the one named only: building a command costs its flags, and a one-shot
// run pays only for the command it runs.
func newCmdRoot(f *Factory, only string) *cobra.Command {
	root := &cobra.Command{
		Use:   "mcpctl <command> [flags] [-- server command...]",
		Short: "Inspect and exercise MCP servers",
		Long: `mcpctl inspects, exercises and proxies MCP (Model Context Protocol) servers.
Server: -s NAME, --url URL, --demo or -- COMMAND... (mcpctl help connection).`,
		Example: `  mcpctl call --demo add a=2 b=3
  mcpctl list --url http://127.0.0.1:3001/mcp -o json --jq '.tools[].name'`,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetFlagErrorFunc(flagError)
	addConfigFlags(root, f)
	addGlobalFlags(root, f)
	for _, sc := range subcommands() {
		if only == "" || sc.name == only {
			root.AddCommand(sc.build(f))
		}
	}
	suggestSubcommands(root)
	if only == "" {
		// `mcpctl help` builds the whole tree (see commandNamed).
		checkHelpTopics(root, f.IOStreams.TerminalWidth)
	}
	registerCompletions(root, f)
	setUsage(root, f.IOStreams.TerminalWidth)
	return root
}

// addGlobalFlags registers the flags every command has: -v is --verbose
// on every command (commands that talk to a server bind their own, which
// shows connection details), and the version is --version or
// `mcpctl version`, never -v, which cobra would otherwise give the root.
//
// --color always|never overrides what the environment decided (see
// [colorWanted]) for both stdout and stderr; auto keeps it.
func addGlobalFlags(root *cobra.Command, f *Factory) {
	var verbose bool
	root.PersistentFlags().BoolVarP(&verbose, "verbose", "v", false, "Show more detail on stderr")
	color := "auto"
	root.PersistentFlags().StringVar(&color, "color", "auto", "Colour: `auto`, always or never")
	_ = root.RegisterFlagCompletionFunc("color", cobra.FixedCompletions([]cobra.Completion{"auto", "always", "never"}, cobra.ShellCompDirectiveNoFileComp))
	settings := root.PersistentPreRunE
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		switch color {
		case "auto":
		case "always", "never":
			f.IOStreams.SetColorEnabled(color == "always")
			f.IOStreams.SetColorErrEnabled(color == "always")
		default:
			return flagErrorf("invalid --color %q: expected auto, always or never", color)
		}
		if err := checkOutputFlags(cmd.Flags()); err != nil {
			return err
		}
		if settings != nil {
			return settings(cmd, args)
		}
		return nil
	}
	root.Flags().Bool("version", false, "Print mcpctl's version (as mcpctl version does)")
	root.SetVersionTemplate("{{.Version}}\n")
	root.Version = buildVersion().text()
}
