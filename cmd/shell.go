package cmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/internal/lineedit"
	"github.com/mcpctl/mcpctl/render"
)

// ShellOptions are the options of `mcpctl shell`.
type ShellOptions struct {
	Factory *Factory
	Server  ServerOptions
	Output  OutputOptions
	// NoHistory keeps the history of a terminal session in memory only.
	NoHistory bool
}

// shellHistoryFile is the history's file in mcpctl's state folder.
const shellHistoryFile = "shell_history"

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

// shell is one running `mcpctl shell`.
type shell struct {
	opts *ShellOptions
	f    *Factory // the shell's commands' factory: its Connect lends s
	ios  *IOStreams
	s    *session
	tty  bool // a terminal: line editor, prompt, banner

	queue *watchQueue
	w     *watcher   // prints notifications, as watch does
	outMu sync.Mutex // one printing of notifications at a time

	subs map[string]*client.Subscription // resource subscriptions by URI

	cache *shellCache // names for completion (a terminal only)

	runMu   sync.Mutex
	running context.CancelFunc // cancels the command in flight, if any
}

// shellCommand is a line's command: its name, a one-line usage, and how
// it runs.
type shellCommand struct {
	name, usage string
	run         func(sh *shell, ctx context.Context, args []string) error
}

// shellCLICommands are the mcpctl commands the shell runs as they are, in
// its session. describe and complete join when mcpctl has them.
func shellCLICommands() []string {
	return []string{"list", "call", "read", "prompt", "describe", "complete", "tasks"}
}

// shellCommands are the commands a line may start with.
func shellCommands() []shellCommand {
	usages := map[string]string{
		"list":     "list [tools|resources|templates|prompts|all]",
		"call":     "call TOOL [key=value | key:=json | key=@file ...]",
		"read":     "read URI",
		"prompt":   "prompt NAME [key=value ...]",
		"describe": "describe tool|prompt|resource NAME",
		"complete": "complete prompt NAME ARG=PARTIAL | template URI_TEMPLATE VAR=PARTIAL",
		"tasks":    "tasks list | get ID | cancel ID | result ID",
	}
	var cmds []shellCommand
	for _, name := range shellCLICommands() {
		for _, sc := range subcommands() {
			if sc.name == name {
				build := sc.build
				cmds = append(cmds, shellCommand{name: name, usage: usages[name], run: func(sh *shell, ctx context.Context, args []string) error {
					return sh.runCLI(ctx, build, args)
				}})
			}
		}
	}
	return append(cmds,
		shellCommand{"subscribe", "subscribe URI...", (*shell).subscribe},
		shellCommand{"unsubscribe", "unsubscribe URI...", (*shell).unsubscribe},
		shellCommand{"wait", "wait DURATION", (*shell).wait},
		shellCommand{"roots", "roots [add|remove DIR...]", (*shell).roots},
		shellCommand{"help", "help [COMMAND]", (*shell).help},
		shellCommand{"exit", "exit", nil},
	)
}

func lookupShellCommand(name string) (shellCommand, bool) {
	if name == "quit" {
		name = "exit"
	}
	for _, c := range shellCommands() {
		if c.name == name {
			return c, true
		}
	}
	return shellCommand{}, false
}

// errShellExit ends the shell from a command.
var errShellExit = errors.New("exit")

func shellRun(ctx context.Context, opts *ShellOptions) error {
	f := opts.Factory
	// The shell catches the signals itself: Ctrl-C cancels the command in
	// flight, not the session. The root context would end the run at the
	// first one once anything waited on it.
	if sc, ok := ctx.(*signalContext); ok {
		ctx = sc.Context
	}
	sessCtx, endSession := context.WithCancelCause(ctx)
	defer endSession(nil)

	ios := *f.IOStreams
	sh := &shell{opts: opts, ios: &ios, queue: newWatchQueue(), subs: map[string]*client.Subscription{}}
	stdin, isFile := f.IOStreams.In.(*os.File)
	sh.tty = f.IOStreams.IsStdinTTY() && f.IOStreams.IsStdoutTTY() && isFile
	var ed *lineedit.Editor
	if sh.tty {
		// A session that ends while a line is being read leaves the
		// reader in raw mode: the terminal is given back as it was.
		if old, err := term.GetState(int(stdin.Fd())); err == nil {
			defer term.Restore(int(stdin.Fd()), old)
		}
		ed = &lineedit.Editor{In: stdin, Out: f.IOStreams.Out, Prompt: "mcpctl> ", Width: f.IOStreams.TerminalWidth}
		ios.Out = ed
		if f.IOStreams.IsStderrTTY() {
			ios.ErrOut = ed.Above(f.IOStreams.ErrOut)
		}
	} else {
		// The commands never read the script they are part of.
		ios.In = strings.NewReader("")
	}

	opts.Server.OnNotification = func(n client.Notification) { sh.queue.push(watchItem{at: time.Now(), n: n}) }
	s, err := f.sharing(nil, sh.ios).Connect(sessCtx, &opts.Server)
	if err != nil {
		return err
	}
	defer s.Close()
	sh.s = s
	sh.f = f.sharing(s, sh.ios)
	errPrinter := sh.ios.Printer()
	errPrinter.Out, errPrinter.TTY, errPrinter.Color = sh.ios.ErrOut, sh.ios.IsStderrTTY(), sh.ios.ColorErrEnabled()
	sh.w = &watcher{opts: &WatchOptions{Factory: sh.f, now: time.Now}, s: s, p: errPrinter, json: opts.Output.structured(), lists: map[string]*watchList{}}
	if err := sh.listen(sessCtx); err != nil {
		return err
	}
	defer sh.closeSubscriptions()

	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	go sh.signals(sessCtx, sigs, endSession)
	go sh.printNotifications(sessCtx)

	var read func() (string, error)
	if sh.tty {
		sh.cache = &shellCache{}
		sh.cache.refresh(sessCtx, s)
		ed.Complete = sh.complete
		ed.History = sh.history()
		sh.banner()
		read = func() (string, error) {
			old, err := term.MakeRaw(int(stdin.Fd()))
			if err != nil {
				return "", fmt.Errorf("putting the terminal in raw mode: %w", err)
			}
			defer term.Restore(int(stdin.Fd()), old)
			for {
				line, err := ed.ReadLine()
				if errors.Is(err, lineedit.ErrInterrupted) {
					continue // Ctrl-C drops the line, as in a shell
				}
				return line, err
			}
		}
	} else {
		// A script drives the shell: its lines run one after the other.
		r := bufio.NewReader(f.IOStreams.In)
		read = func() (string, error) {
			line, err := r.ReadString('\n')
			if err == io.EOF && line != "" {
				err = nil // a last line without its newline
			}
			return strings.TrimSuffix(line, "\n"), err
		}
	}
	return sh.loop(sessCtx, read)
}

// lineResult is one line read, or why none was.
type lineResult struct {
	line string
	err  error
}

// loop reads and runs lines until the input ends, exit, or the session
// ends.
func (sh *shell) loop(ctx context.Context, read func() (string, error)) error {
	lines := make(chan lineResult, 1)
	for {
		go func() {
			line, err := read()
			lines <- lineResult{line, err}
		}()
		var lr lineResult
		select {
		case lr = <-lines:
		case <-ctx.Done():
			return sh.ended(ctx)
		case <-sh.s.Done():
			return sh.ended(ctx)
		}
		if errors.Is(lr.err, io.EOF) {
			sh.flush(ctx)
			return nil
		}
		if lr.err != nil {
			return fmt.Errorf("reading the shell's input: %w", lr.err)
		}
		err := sh.runLine(ctx, lr.line)
		sh.flush(ctx)
		if errors.Is(err, errShellExit) {
			return nil
		}
		if ctx.Err() != nil {
			return sh.ended(ctx)
		}
		if err != nil {
			sh.printError(err)
		}
		select {
		case <-sh.s.Done():
			return sh.ended(ctx)
		default:
		}
	}
}

// ended says why the session ended: a signal, or the server.
func (sh *shell) ended(ctx context.Context) error {
	sh.flush(context.WithoutCancel(ctx))
	if cause := context.Cause(ctx); cause != nil && ctx.Err() != nil {
		return cause
	}
	why := error(errors.New("the connection was closed"))
	if sub := sh.subs[""]; sub != nil {
		<-sub.Done()
		var ended *client.SubscriptionEndedError
		switch err := sub.Err(); {
		case errors.As(err, &ended) && ended.Err != nil:
			why = ended.Err
		case err != nil:
			why = err
		}
	}
	return fmt.Errorf("the session with %s ended: %w", sh.s.name, why)
}

// signals cancels the command in flight at Ctrl-C; with none in flight,
// or at SIGTERM or SIGHUP, it ends the session.
func (sh *shell) signals(ctx context.Context, sigs <-chan os.Signal, endSession context.CancelCauseFunc) {
	for {
		select {
		case <-ctx.Done():
			return
		case sig := <-sigs:
			sh.runMu.Lock()
			cancel := sh.running
			sh.runMu.Unlock()
			if sig == os.Interrupt && cancel != nil {
				cancel()
				continue
			}
			// As every mcpctl command: 128 + the signal (130 for Ctrl-C,
			// 143 for SIGTERM, 129 for SIGHUP).
			code := ExitInterrupted
			if n, ok := sig.(syscall.Signal); ok {
				code = 128 + int(n)
			}
			endSession(&ExitCodeError{Code: code})
			return
		}
	}
}

// runLine runs one line of input.
func (sh *shell) runLine(ctx context.Context, line string) error {
	words, err := splitWords(line)
	if err != nil {
		return &FlagError{Err: err}
	}
	if len(words) == 0 {
		return nil
	}
	c, ok := lookupShellCommand(words[0])
	if !ok {
		return flagErrorf("unknown command %q: type help for the commands", words[0])
	}
	if c.run == nil {
		return errShellExit
	}
	cmdCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	sh.runMu.Lock()
	sh.running = cancel
	sh.runMu.Unlock()
	defer func() {
		sh.runMu.Lock()
		sh.running = nil
		sh.runMu.Unlock()
	}()
	err = c.run(sh, cmdCtx, words[1:])
	if err != nil && cmdCtx.Err() != nil && ctx.Err() == nil {
		return fmt.Errorf("interrupted: %w", err)
	}
	return err
}

// printError prints a command's error as mcpctl prints a run's, through
// the run's redactor.
func (sh *shell) printError(err error) {
	var codeErr *ExitCodeError
	if errors.As(err, &codeErr) && codeErr.Msg == "" {
		return
	}
	msg := sh.f.Redactor().String(err.Error())
	if sh.ios.IsStderrTTY() {
		msg = render.Sanitize(msg)
	}
	fmt.Fprintln(sh.ios.ErrOut, render.ErrorLine(msg, sh.ios.ColorErrEnabled()))
}

// runCLI runs an mcpctl command in the shell's session: its Connect lends
// the session; a server flag on the line is refused; the shell's -o is
// the command's unless the line gives its own.
func (sh *shell) runCLI(ctx context.Context, build func(*Factory) *cobra.Command, args []string) error {
	c := build(sh.f)
	c.SetArgs(args)
	c.SetIn(sh.ios.In)
	c.SetOut(sh.ios.Out)
	c.SetErr(sh.ios.ErrOut)
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
		if fs.Lookup("output") != nil && !fs.Changed("output") && !fs.Changed("json") && !fs.Changed("jq") {
			return fs.Set("output", sh.opts.Output.Format)
		}
		return nil
	}
	return c.ExecuteContext(ctx)
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

// listen asks for the list changes of every list the server offers, as
// watch does, and lists them once so that a change can be explained.
func (sh *shell) listen(ctx context.Context) error {
	var want client.SubscriptionFilter
	for _, l := range watchListKinds() {
		if !sh.s.HasCapability(l.kind) {
			continue
		}
		if _, _, _, err := l.fetch(ctx, sh.s); err != nil {
			if ctx.Err() != nil {
				return err
			}
			// The commands may still work: the list's changes are not shown.
			sh.f.Warner().Warn("shell list "+l.kind, fmt.Sprintf("mcpctl: warning: changes of the %s will not be shown: listing them: %v", l.kind, err))
			continue
		}
		sh.w.lists[l.kind] = l
		wantListChanges(&want, l.kind)
	}
	if len(sh.w.lists) == 0 {
		return nil
	}
	sub, err := sh.s.Subscribe(ctx, want)
	if err != nil {
		sh.f.Warner().Warn("shell listen", fmt.Sprintf("mcpctl: warning: list changes will not be shown: subscribing to them: %v", err))
		return nil
	}
	sh.subs[""] = sub
	return nil
}

func (sh *shell) closeSubscriptions() {
	for _, sub := range sh.subs {
		_ = sub.Close()
	}
}

// printNotifications prints notifications as they arrive, until the
// session ends.
func (sh *shell) printNotifications(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-sh.s.Done():
			return
		case <-sh.queue.ready:
			sh.flush(ctx)
		}
	}
}

// flush prints the notifications queued, in order. A list change refreshes
// the names completion offers.
func (sh *shell) flush(ctx context.Context) {
	sh.outMu.Lock()
	defer sh.outMu.Unlock()
	items := sh.queue.take()
	if err := sh.w.print(ctx, items); err != nil {
		var codeErr *ExitCodeError
		if !errors.As(err, &codeErr) {
			sh.printError(err)
		}
	}
	if sh.cache != nil {
		for _, it := range items {
			if it.n.ListChanged != "" {
				sh.cache.refresh(ctx, sh.s)
				break
			}
		}
	}
}

// subscribe asks for the updates of resources.
func (sh *shell) subscribe(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return flagErrorf("subscribe needs the URI of a resource, e.g. subscribe demo://readme")
	}
	var uris []string
	for _, uri := range args {
		if _, ok := sh.subs[uri]; !ok && !slices.Contains(uris, uri) {
			uris = append(uris, uri)
		}
	}
	if len(uris) == 0 {
		return nil
	}
	sub, err := sh.s.Subscribe(ctx, client.SubscriptionFilter{ResourceSubscriptions: uris})
	if err != nil {
		return fmt.Errorf("subscribing to %s on %s: %w", strings.Join(uris, ", "), sh.s.name, err)
	}
	got := sub.Filter().ResourceSubscriptions
	var refused []string
	for _, uri := range uris {
		if slices.Contains(got, uri) {
			sh.subs[uri] = sub
		} else {
			refused = append(refused, uri)
		}
	}
	if len(got) == 0 {
		_ = sub.Close()
	}
	if len(got) > 0 {
		fmt.Fprintf(sh.ios.ErrOut, "subscribed to %s\n", strings.Join(got, ", "))
	}
	if len(refused) > 0 {
		return fmt.Errorf("%s does not offer updates of %s (it did not agree to the subscription)", sh.s.name, strings.Join(refused, ", "))
	}
	return nil
}

// unsubscribe ends the subscriptions of resources: a subscription made
// for several ends when none of them is wanted any more.
func (sh *shell) unsubscribe(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return flagErrorf("unsubscribe needs the URI of a subscribed resource")
	}
	for _, uri := range args {
		sub, ok := sh.subs[uri]
		if !ok || uri == "" {
			return flagErrorf("not subscribed to %s", uri)
		}
		delete(sh.subs, uri)
		used := false
		for _, other := range sh.subs {
			used = used || other == sub
		}
		if !used {
			if err := sub.Close(); err != nil {
				return fmt.Errorf("unsubscribing from %s: %w", uri, err)
			}
		}
	}
	return nil
}

// wait lets notifications arrive for a while.
func (sh *shell) wait(ctx context.Context, args []string) error {
	if len(args) != 1 {
		return flagErrorf("wait takes one duration, e.g. wait 2s")
	}
	d, err := time.ParseDuration(args[0])
	if err != nil || d < 0 {
		return flagErrorf("wait: invalid duration %q: want e.g. 500ms, 2s or 1m", args[0])
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-sh.s.Done():
		return nil // the loop reports the end
	}
}

// roots lists the roots the session offers the server, or changes them
// and tells the server (notifications/roots/list_changed in the legacy
// era; a modern server asks again when it needs them). The shell must have
// been started with --root, which declares the capability.
func (sh *shell) roots(ctx context.Context, args []string) error {
	r := sh.s.roots
	if r == nil {
		return flagErrorf("this session offers no roots: start the shell with --root DIR (repeatable) to declare them")
	}
	if len(args) == 0 {
		for _, root := range r.List() {
			fmt.Fprintf(sh.f.IOStreams.Out, "%s\t%s\n", root.URI, root.Name)
		}
		return nil
	}
	verb, dirs := args[0], args[1:]
	if (verb != "add" && verb != "remove") || len(dirs) == 0 {
		return flagErrorf("usage: roots, roots add DIR..., or roots remove DIR...")
	}
	list := r.List()
	for _, dir := range dirs {
		root, err := client.RootFromDir(dir)
		if err != nil {
			if verb == "add" {
				return flagErrorf("roots add: %v", err)
			}
			// A directory removed from disk can still be removed here.
			abs, _ := filepath.Abs(dir)
			root = client.Root{URI: client.FileURI(abs)}
		}
		i := slices.IndexFunc(list, func(x client.Root) bool { return x.URI == root.URI })
		switch {
		case verb == "add" && i < 0:
			list = append(list, root)
		case verb == "remove" && i >= 0:
			list = slices.Delete(list, i, i+1)
		case verb == "remove":
			return flagErrorf("roots remove: %s is not one of the roots", root.URI)
		}
	}
	r.Set(list)
	if err := sh.s.NotifyRootsChanged(ctx); err != nil {
		return fmt.Errorf("telling %s the roots changed: %w", sh.s.name, err)
	}
	return nil
}

// help lists the commands, or shows one's help.
func (sh *shell) help(ctx context.Context, args []string) error {
	if len(args) > 0 {
		c, ok := lookupShellCommand(args[0])
		if !ok {
			return flagErrorf("unknown command %q: type help for the commands", args[0])
		}
		if slices.Contains(shellCLICommands(), c.name) {
			return c.run(sh, ctx, []string{"--help"})
		}
		fmt.Fprintln(sh.ios.Out, c.usage)
		return nil
	}
	fmt.Fprintln(sh.ios.Out, "Commands (arguments and flags as in mcpctl COMMAND; help COMMAND for more):")
	for _, c := range shellCommands() {
		fmt.Fprintln(sh.ios.Out, "  "+c.usage)
	}
	return nil
}

// banner says on a terminal what the shell is connected to.
func (sh *shell) banner() {
	info := sh.s.InitializeResult().ServerInfo
	name := strings.TrimSpace(info.Name + " " + info.Version)
	if name == "" {
		name = sh.s.name
	}
	fmt.Fprintf(sh.ios.ErrOut, "connected to %s (protocol %s, %s era); help lists the commands, exit or Ctrl-D leaves\n",
		sh.f.printer().UntrustedErr(name), sh.s.ProtocolVersion(), sh.s.Era())
}

// history opens the history file, or keeps the history in memory when
// there is no state folder or --no-history.
func (sh *shell) history() *lineedit.History {
	if sh.opts.NoHistory {
		return &lineedit.History{}
	}
	dir, err := sh.f.stateDir()
	if err != nil {
		return &lineedit.History{}
	}
	h, err := lineedit.LoadHistory(filepath.Join(dir, shellHistoryFile), lineedit.DefaultHistorySize, keepInHistory)
	if err != nil {
		sh.f.printer().Warning(err.Error())
	}
	return h
}

// splitWords splits a line into words as a POSIX shell does, without
// expansions: 'single quotes' keep everything, "double quotes" keep all
// but \" and \\, a backslash outside quotes escapes the next character,
// and an unquoted # at the start of a word begins a comment.
func splitWords(line string) ([]string, error) {
	var (
		words []string
		cur   strings.Builder
		in    bool // a word has begun (even an empty quoted one)
	)
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == ' ' || r == '\t' || r == '\r':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		case r == '#' && !in:
			return words, nil
		case r == '\\':
			if i+1 < len(rs) {
				i++
				cur.WriteRune(rs[i])
			}
			in = true
		case r == '\'':
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			if j == len(rs) {
				return nil, fmt.Errorf("unterminated ' in %q", line)
			}
			cur.WriteString(string(rs[i+1 : j]))
			i, in = j, true
		case r == '"':
			j := i + 1
			for ; j < len(rs) && rs[j] != '"'; j++ {
				if rs[j] == '\\' && j+1 < len(rs) && (rs[j+1] == '"' || rs[j+1] == '\\' || rs[j+1] == '$' || rs[j+1] == '`') {
					j++
				}
				cur.WriteRune(rs[j])
			}
			if j == len(rs) {
				return nil, fmt.Errorf(`unterminated " in %q`, line)
			}
			i, in = j, true
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}
