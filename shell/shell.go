// Package shell is mcpctl's interactive shell: one session with a server,
// many commands, one per line. It reads lines (edited on a terminal with
// [lineedit], one by one from a script otherwise), splits them into words
// as a POSIX shell does, runs its built-in commands (subscribe,
// unsubscribe, wait, roots, help, exit), prints the server's notifications
// as `mcpctl watch` does ([watch]), keeps a history and handles the
// signals: Ctrl-C cancels the command in flight.
//
// What a session is and how an mcpctl command runs in it is the caller's:
// [Options.Connect] makes the session, [Options.Run] runs a command line
// in it, [Options.Completer] completes those commands' arguments.
package shell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/internal/lineedit"
	"github.com/mcpctl/mcpctl/render"
	"github.com/mcpctl/mcpctl/transport"
	"github.com/mcpctl/mcpctl/watch"
)

// Session is what the shell needs of a connected session. The methods
// have the names and signatures of [*client.Client]'s.
type Session interface {
	watch.Session
	ListTools(ctx context.Context) ([]client.Tool, error)
	ListPrompts(ctx context.Context) ([]client.Prompt, error)
	ListResources(ctx context.Context) ([]client.Resource, error)
	ListResourceTemplates(ctx context.Context) ([]client.ResourceTemplate, error)
	NotifyRootsChanged(ctx context.Context) error
	ProtocolVersion() string
	Close() error
}

// Connection is the session the shell runs in, as [Options.Connect]
// returns it.
type Connection struct {
	Session Session
	// Name names the server in messages.
	Name string
	// Roots are the roots the session offers the server; nil when it
	// offers none, and the roots command refuses to change them.
	Roots *client.Roots
}

// Command is a command that [Options.Run] runs: its name and a one-line
// usage for help.
type Command struct {
	Name, Usage string
}

// Options configure a shell.
type Options struct {
	// In is read line by line; Out receives the commands' output and
	// ErrOut errors and notifications.
	In          io.Reader
	Out, ErrOut io.Writer
	// Terminal says In and Out are a terminal and In an *os.File: lines
	// are edited, with a prompt, a banner, completion and history.
	Terminal bool
	// ErrTerminal says ErrOut is a terminal: server text printed there is
	// sanitised and, with Terminal, printed above the line being edited.
	ErrTerminal bool
	// ErrColor enables colour on ErrOut.
	ErrColor bool
	// Width returns the terminal's width, for the line editor.
	Width func() int
	// ErrWidth returns the width of ErrOut when it is a terminal, which
	// errors and the banner wrap at (at word boundaries); nil or a
	// result of 0 leaves them on one line.
	ErrWidth func() int
	// JSON prints notifications as one JSON object per line, as watch
	// -o json does.
	JSON bool
	// Verbose shows every list change: those that changed nothing, and
	// those the server announced while the shell started.
	Verbose bool
	// MaxLine is the longest line accepted, in bytes (the message-size
	// limit: a line is at most one request); a longer one is refused
	// with a [*LineTooLongError] and skipped. Zero means no limit.
	MaxLine int64
	// HistoryFile keeps the history of a terminal session; "" keeps it in
	// memory only.
	HistoryFile string

	// Commands are the commands Run runs, in the order help lists them.
	Commands []Command
	// Connect makes the session (required). The commands it lends the session to
	// print to out and errOut (the line editor's writers on a terminal);
	// notify must receive every notification of the session.
	Connect func(ctx context.Context, out, errOut io.Writer, notify func(client.Notification)) (*Connection, error)
	// Run runs a line whose first word names one of Commands, in the
	// session (required with Commands). An error that it has reported itself is [ErrReported].
	Run func(ctx context.Context, args []string, out, errOut io.Writer) error
	// Completer completes the arguments of Commands; nil completes none.
	Completer Completer
	// Warn prints a warning of a kind; nil discards it.
	Warn func(kind, msg string)
	// Redact hides secrets in the errors printed; nil prints them as they
	// are.
	Redact func(string) string
}

// ErrReported is what [Options.Run] returns for a command that failed and
// has said so: the shell prints nothing more.
var ErrReported = errors.New("the command failed and said why")

// SignalError is the error [Run] returns when a signal ended the shell:
// SIGTERM, SIGHUP, or Ctrl-C with no command in flight.
type SignalError struct {
	Signal os.Signal
}

func (e *SignalError) Error() string { return "ended by " + e.Signal.String() }

// LineTooLongError is a line longer than [Options.MaxLine]. It quotes the
// start of the line only.
type LineTooLongError struct {
	// Start is the line's first bytes, at most a few hundred.
	Start string
	// Max is the limit the line is over.
	Max int64
}

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("the line %s is longer than the limit of %s (--max-message-size): it was not run", Excerpt(e.Start), transport.FormatSize(e.Max))
}

// historyFile is the history's file name in mcpctl's state folder.
const historyFile = "shell_history"

// HistoryFile returns the path of the history file in the state folder
// dir.
func HistoryFile(dir string) string { return filepath.Join(dir, historyFile) }

// shell is one running shell.
type shell struct {
	opts        Options
	out, errOut io.Writer
	p           *render.Printer // notifications, warnings and the banner, on errOut
	s           Session
	conn        *Connection
	tty         bool

	queue *watch.Queue
	w     *watch.Watcher // prints notifications, as watch does
	outMu sync.Mutex     // one printing of notifications at a time

	subs map[string]*client.Subscription // resource subscriptions by URI; "" the list changes'

	catalog *catalog // names for completion (a terminal only)

	runMu   sync.Mutex
	running context.CancelFunc // cancels the command in flight, if any
}

// errExit ends the shell from a command.
var errExit = errors.New("exit")

// Run runs a shell until its input ends or exit (nil), the session ends or
// its input cannot be read (an error), or a signal ends it
// ([*SignalError]). A command that fails prints its error and the shell
// goes on.
func Run(ctx context.Context, opts Options) error {
	sessCtx, endSession := context.WithCancelCause(ctx)
	defer endSession(nil)

	sh := &shell{opts: opts, out: opts.Out, errOut: opts.ErrOut, queue: watch.NewQueue(), subs: map[string]*client.Subscription{}}
	stdin, _ := opts.In.(*os.File)
	sh.tty = opts.Terminal && stdin != nil
	var ed *lineedit.Editor
	if sh.tty {
		// A session that ends while a line is being read leaves the
		// reader in raw mode: the terminal is given back as it was.
		if old, err := term.GetState(int(stdin.Fd())); err == nil {
			defer term.Restore(int(stdin.Fd()), old)
		}
		ed = &lineedit.Editor{In: stdin, Out: opts.Out, Prompt: "mcpctl> ", Width: opts.Width}
		sh.out = ed
		if opts.ErrTerminal {
			sh.errOut = ed.Above(opts.ErrOut)
		}
	}
	sh.p = &render.Printer{Out: sh.errOut, ErrOut: sh.errOut, TTY: opts.ErrTerminal, ErrTTY: opts.ErrTerminal, Color: opts.ErrColor, ErrColor: opts.ErrColor}

	conn, err := opts.Connect(sessCtx, sh.out, sh.errOut, func(n client.Notification) {
		sh.queue.Push(watch.Item{At: time.Now(), N: n})
	})
	if err != nil {
		return err
	}
	defer conn.Session.Close()
	sh.conn, sh.s = conn, conn.Session
	sh.w = watch.New(sh.s, watch.Options{Server: conn.Name, Printer: sh.p, JSON: opts.JSON, Warn: opts.Warn, Quiet: !opts.Verbose})
	if err := sh.listen(sessCtx); err != nil {
		return err
	}
	defer sh.closeSubscriptions()
	sh.settle(sessCtx)

	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	go sh.signals(sessCtx, sigs, endSession)
	go sh.printNotifications(sessCtx)

	var read func() (string, error)
	if sh.tty {
		sh.catalog = &catalog{}
		sh.catalog.refresh(sessCtx, sh.s)
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
				if err == nil && opts.MaxLine > 0 && int64(len(line)) > opts.MaxLine {
					return "", &LineTooLongError{Start: line[:min(len(line), excerptBytes)], Max: opts.MaxLine}
				}
				return line, err
			}
		}
	} else {
		read = newLineReader(opts.In, opts.MaxLine).read
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
	lineNo := 0 // of piped input, for its errors
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
		lineNo++
		var tooLong *LineTooLongError
		if errors.As(lr.err, &tooLong) {
			sh.printLineError(lineNo, tooLong) // the line is refused; the next may run
			continue
		}
		if lr.err != nil {
			return fmt.Errorf("reading the shell's input: %w", lr.err)
		}
		err := sh.runLine(ctx, lr.line)
		sh.flush(ctx)
		if errors.Is(err, errExit) {
			return nil
		}
		if ctx.Err() != nil {
			return sh.ended(ctx)
		}
		if err != nil {
			sh.printLineError(lineNo, err)
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
	return fmt.Errorf("the session with %s ended: %w", sh.conn.Name, why)
}

// signals cancels the command in flight at Ctrl-C; with none in flight,
// or at SIGTERM or SIGHUP, it ends the session with a [*SignalError].
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
			endSession(&SignalError{Signal: sig})
			return
		}
	}
}

// runLine runs one line of input.
func (sh *shell) runLine(ctx context.Context, line string) error {
	words, err := SplitWords(line)
	if err != nil {
		return err
	}
	if len(words) == 0 {
		return nil
	}
	c, ok := sh.lookup(words[0])
	if !ok {
		return fmt.Errorf("unknown command %s: type help for the commands", Excerpt(words[0]))
	}
	if c.run == nil {
		return errExit
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

// printLineError prints the error of the line numbered n of the input:
// as printError does on a terminal, and after "line N: " when the input
// is piped, so that a script's author finds the line.
func (sh *shell) printLineError(n int, err error) {
	if sh.tty {
		sh.printError(err)
		return
	}
	sh.printErrorMsg(fmt.Sprintf("line %d: ", n), err)
}

// printError prints a command's error on one line, as mcpctl prints a
// run's, secrets hidden; wrapped at word boundaries on a terminal.
func (sh *shell) printError(err error) { sh.printErrorMsg("", err) }

// printErrorMsg prints err after prefix, as printError says.
func (sh *shell) printErrorMsg(prefix string, err error) {
	if errors.Is(err, ErrReported) {
		return
	}
	msg := prefix + err.Error()
	if sh.opts.Redact != nil {
		msg = sh.opts.Redact(msg)
	}
	if sh.opts.ErrTerminal {
		msg = render.Sanitize(msg)
	}
	fmt.Fprintln(sh.errOut, render.ErrorLineWidth(msg, sh.opts.ErrColor, sh.errWidth()))
}

func (sh *shell) warn(kind, msg string) {
	if sh.opts.Warn != nil {
		sh.opts.Warn(kind, msg)
	}
}

// listen asks for the list changes of every list the server offers, as
// watch does, and lists them once so that a change can be explained.
func (sh *shell) listen(ctx context.Context) error {
	var want client.SubscriptionFilter
	for _, kind := range watch.ListKinds() {
		if !sh.s.HasCapability(kind) {
			continue
		}
		if err := sh.w.Follow(ctx, kind); err != nil {
			if ctx.Err() != nil {
				return err
			}
			// The commands may still work: the list's changes are not shown.
			sh.warn("shell list "+kind, fmt.Sprintf("mcpctl: warning: changes of the %s will not be shown: listing them: %v", kind, err))
			continue
		}
		watch.WantListChanges(&want, kind)
	}
	if !sh.w.Following() {
		return nil
	}
	sub, err := sh.s.Subscribe(ctx, want)
	if err != nil {
		sh.warn("shell listen", fmt.Sprintf("mcpctl: warning: list changes will not be shown: subscribing to them: %v", err))
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
		case <-sh.queue.Ready():
			sh.flush(ctx)
		}
	}
}

// settle prints the notifications that came while the shell started. The
// list changes among them are the server announcing the lists the shell
// has just listed: unless Verbose (or JSON), they are listed again without
// a word.
func (sh *shell) settle(ctx context.Context) {
	if sh.opts.Verbose || sh.opts.JSON {
		return // printed as any other: JSON events are all kept
	}
	sh.outMu.Lock()
	defer sh.outMu.Unlock()
	relisted := map[string]bool{}
	var rest []watch.Item
	for _, it := range sh.queue.Take() {
		kind := it.N.ListChanged
		if kind == "" || !sh.w.Follows(kind) {
			rest = append(rest, it)
			continue
		}
		if !relisted[kind] {
			relisted[kind] = true
			if err := sh.w.Follow(ctx, kind); err != nil && ctx.Err() == nil {
				// The list as it was stays the one changes are told against.
				sh.warn("shell list "+kind, fmt.Sprintf("mcpctl: warning: listing the %s again: %v", kind, err))
			}
		}
	}
	if err := sh.w.Print(ctx, rest); err != nil && !errors.Is(err, watch.ErrInterrupted) {
		sh.printError(err)
	}
}

// flush prints the notifications queued, in order. A list change refreshes
// the names completion offers.
func (sh *shell) flush(ctx context.Context) {
	sh.outMu.Lock()
	defer sh.outMu.Unlock()
	items := sh.queue.Take()
	if err := sh.w.Print(ctx, items); err != nil && !errors.Is(err, watch.ErrInterrupted) {
		sh.printError(err)
	}
	if sh.catalog != nil {
		for _, it := range items {
			if it.N.ListChanged != "" {
				sh.catalog.refresh(ctx, sh.s)
				break
			}
		}
	}
}

// banner says on a terminal what the shell is connected to.
func (sh *shell) banner() {
	info := sh.s.InitializeResult().ServerInfo
	name := strings.TrimSpace(info.Name + " " + info.Version)
	if name == "" {
		name = sh.conn.Name
	}
	banner := fmt.Sprintf("connected to %s (protocol %s, %s era); help lists the commands, exit or Ctrl-D leaves",
		sh.p.UntrustedErr(name), sh.s.ProtocolVersion(), sh.s.Era())
	fmt.Fprintln(sh.errOut, render.WrapText(banner, sh.errWidth()))
}

// errWidth is the width errors and the banner wrap at, 0 for none.
func (sh *shell) errWidth() int {
	if !sh.opts.ErrTerminal || sh.opts.ErrWidth == nil {
		return 0
	}
	return sh.opts.ErrWidth()
}

// history opens the history file, or keeps the history in memory when
// there is none.
func (sh *shell) history() *lineedit.History {
	if sh.opts.HistoryFile == "" {
		return &lineedit.History{}
	}
	h, err := lineedit.LoadHistory(sh.opts.HistoryFile, lineedit.DefaultHistorySize, KeepInHistory)
	if err != nil {
		sh.p.Warning(err.Error())
	}
	return h
}
