package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcpctl/mcpctl/internal/pipeio"
)

// DefaultGrace is the grace period [Command] uses when Grace is zero: long
// enough for a well-behaved server to flush and exit after its stdin closes,
// short enough that a stuck one does not make mcpctl feel hung.
const DefaultGrace = 2 * time.Second

// QuickGrace is the grace period of a shutdown after a failure (see
// [GraceShortener]): the session ended because the server did not answer
// in time or the user gave up, so the server may well be stuck, and the
// user is waiting for the error rather than for a clean exit.
const QuickGrace = 300 * time.Millisecond

// GraceShortener is a [Connection] whose Close waits for its peer to exit
// and can be told that the session failed: from then on, and for a Close
// already waiting, each grace period is at most [QuickGrace] from its
// start. ShortenGrace may be called at any time from any goroutine.
type GraceShortener interface {
	ShortenGrace()
}

// maxTail bounds what is kept of a stderr line for [ExitError.LastStderr] and
// what is quoted of a bad stdout line: enough to recognise a panic or a
// log prefix, small enough for a one-line error message.
const maxTail = 200

// Command is a [Transport] that starts an MCP server as a child process and
// speaks newline-delimited JSON over its stdin and stdout (the MCP stdio
// transport).
//
// The program is started without a shell, in its own process group, so that
// Ctrl-C in the terminal does not reach it behind mcpctl's back and so that
// shutdown signals reach any helpers it spawned (npx, uvx and docker wrappers
// commonly do).
//
// Reading: one line is one message, of at most MaxMessageSize bytes. Blank
// lines are skipped; a line that is not a JSON object or array is reported
// to OnViolation and skipped. A line that is a JSON array (a JSON-RPC batch)
// is returned whole, as is a line with invalid UTF-8 inside its strings: the
// client decides what the negotiated revision allows. A line nested deeper
// than encoding/json can check is passed on too, so that the client reports
// its depth at once instead of the request waiting for an answer that was
// skipped. When stdout ends, Read waits up to Grace for the process to exit
// and then returns an [*ExitError] (which wraps [io.EOF]) saying how it
// ended.
//
// A line over MaxMessageSize ends the connection: the transport cannot tell
// which request it answered, so it cannot fail just that one. Read returns
// an error wrapping [*MessageTooLargeError] ("server sent a stdio line
// larger than the 256 MiB message size limit (raise it with
// --max-message-size)") as soon as the line crosses the limit, and the same
// error on every later call. Nothing of the line is kept: from then on
// stdout is read and dropped, so the server is not blocked on a full pipe
// and Close still stops it within the grace periods.
//
// Memory: a long line is read in pieces and copied once into a slice of its
// exact size, so it costs at most twice its size while being read, and only
// the returned slice stays reachable: the pieces are garbage once it is
// handed over.
//
// Environment: the server gets [DefaultEnv] of Environ (a safe set of
// variables such as PATH, HOME and the locale, without the secrets a shell
// usually holds) plus Env; with InheritEnv it gets all of Environ plus Env.
//
// Writing: a Write to a server that has exited returns an error wrapping the
// [*ExitError]; it never raises SIGPIPE.
//
// Closing: Close stops reading at once (a line being read is dropped, and
// stdout is drained without being kept so the server can flush and exit),
// closes stdin and waits up to Grace for the server to exit, then sends
// SIGTERM to its process group and waits up to Grace again, then sends
// SIGKILL. After ShortenGrace (see [GraceShortener]: a request timed out
// or was cancelled, or the command was interrupted) each of these waits is
// at most [QuickGrace], also when Close is already waiting. When a Write
// is still blocked on stdin as Close starts, the server has stopped
// reading and would not notice stdin close: it gets SIGTERM at once. The
// child is always reaped. If the server exited but other
// members of its group remain, they get the same SIGTERM-then-SIGKILL
// treatment, so no helper outlives mcpctl. Close then waits for stderr to be
// copied (up to Grace, in case a process that escaped the group holds it
// open); nothing is written to Stderr after Close returns. Close returns nil
// when the server exited with status 0 or was stopped by Close's own signals,
// and an [*ExitError] when it exited with a non-zero status or died of a
// signal Close did not send, whether during Close or earlier. Later calls
// return the same result.
type Command struct {
	// Path is the program to run; a name without a slash is looked up in
	// PATH.
	Path string
	// Args are the arguments after the program name.
	Args []string
	// Env holds extra KEY=VALUE pairs added to the server's environment
	// after the inherited ones (later entries win).
	Env []string
	// Environ is the environment the server's environment is drawn from,
	// as KEY=VALUE pairs; nil means os.Environ(). mcpctl passes the one environment
	// lookup it threads through everything, so tests need not set the
	// process environment.
	Environ []string
	// Dir is the working directory; empty means mcpctl's own.
	Dir string
	// Stderr receives the server's stderr as it arrives, one line per Write.
	// Nil discards it. The last non-empty line is always kept for
	// [ExitError.LastStderr].
	Stderr io.Writer
	// OnViolation is told of each stdout line that is not a JSON object or
	// array ([ViolationStdoutLine]), from the goroutine reading stdout; it
	// must not block. Nil ignores them.
	OnViolation func(Violation)
	// InheritEnv passes all of Environ to the server. When false the
	// server gets only a safe default set of variables ([DefaultEnv]) plus
	// Env, so secrets in the user's shell do not reach third-party servers.
	InheritEnv bool
	// MaxMessageSize limits one stdout line, not counting its newline;
	// zero or less means [DefaultMaxMessageSize]. A longer line ends the
	// connection with an error wrapping [*MessageTooLargeError] and is
	// dropped without being buffered (see Reading above).
	MaxMessageSize int64
	// Grace is how long Close waits after closing stdin before SIGTERM, and
	// after SIGTERM before SIGKILL; it also bounds how long Read waits for
	// the process to exit once stdout ends. Zero means [DefaultGrace].
	Grace time.Duration

	// plainPipes makes the connection read and write its pipes through
	// os.File alone, never pipeio, so a benchmark can compare the two.
	plainPipes bool
}

// String returns the command line, for error messages and traces. Arguments
// that a reader could not otherwise tell apart (empty, or containing spaces
// or quotes) are quoted Go-style.
func (c *Command) String() string {
	var b strings.Builder
	b.WriteString(quoteArg(c.Path))
	for _, a := range c.Args {
		b.WriteByte(' ')
		b.WriteString(quoteArg(a))
	}
	return b.String()
}

func quoteArg(s string) string {
	if s == "" || strings.ContainsAny(s, " \t\n\r\"'\\") {
		return strconv.Quote(s)
	}
	return s
}

func (c *Command) grace() time.Duration {
	if c.Grace <= 0 {
		return DefaultGrace
	}
	return c.Grace
}

// Connect starts the server process. ctx only bounds the start: the process
// lives until the returned Connection is closed, so that a request timeout
// elsewhere cannot kill the server mid-session.
func (c *Command) Connect(ctx context.Context) (Connection, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if c.Path == "" {
		return nil, errors.New("starting server: no command given")
	}
	cmd := exec.Command(c.Path, c.Args...)
	cmd.Dir = c.Dir
	cmd.Env = c.environment()
	setProcessGroup(cmd)

	// Pipes are made here rather than with cmd.StdoutPipe and friends:
	// exec closes its own pipes in Wait, which would race with our readers
	// and lose the tail of the output, and os.Pipe files support deadlines,
	// which Write uses to honour its context.
	var files []*os.File // every end, closed on failure
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	fail := func(err error) (Connection, error) {
		for _, f := range files {
			f.Close()
		}
		return nil, fmt.Errorf("starting %q: %w", c.String(), err)
	}
	stdinR, stdinW, err := pipe()
	if err != nil {
		return fail(err)
	}
	stdoutR, stdoutW, err := pipe()
	if err != nil {
		return fail(err)
	}
	stderrR, stderrW, err := pipe()
	if err != nil {
		return fail(err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdinR, stdoutW, stderrW
	if err := cmd.Start(); err != nil {
		return fail(err)
	}
	// The child has its copies; ours would keep the pipes open and hide EOF.
	stdinR.Close()
	stdoutW.Close()
	stderrW.Close()

	conn := &stdioConn{
		cmd:        cmd,
		stdin:      stdinW,
		stdout:     stdoutR,
		stderr:     stderrR,
		errOut:     c.Stderr,
		report:     c.OnViolation,
		grace:      c.grace(),
		limit:      c.MaxMessageSize,
		msgs:       make(chan json.RawMessage),
		closing:    make(chan struct{}),
		hastened:   make(chan struct{}),
		exited:     make(chan struct{}),
		readDone:   make(chan struct{}),
		stderrDone: make(chan struct{}),
	}
	conn.in, conn.out = stdinW, stdoutR
	if p := pipeio.New(stdinW); p != nil && !c.plainPipes {
		conn.in = p
	}
	if p := pipeio.New(stdoutR); p != nil && !c.plainPipes {
		conn.out = p
	}
	if conn.errOut == nil {
		conn.errOut = io.Discard
	}
	if conn.report == nil {
		conn.report = func(Violation) {}
	}
	go conn.wait()
	go conn.copyStderr()
	go conn.readLoop()
	return conn, nil
}

// ExitError reports that the server's stdout ended: Read returns it once every
// message before the end has been read, and Close returns it when the server
// exited unsuccessfully on its own. It wraps [io.EOF], so code that only
// cares that the stream ended can use errors.Is(err, io.EOF), while code that
// explains the failure to a user uses errors.As.
type ExitError struct {
	// Exited is false when stdout closed but the process was still running
	// a grace period later.
	Exited bool
	// ExitCode is the exit status, or -1 when the process was killed by a
	// signal or has not exited.
	ExitCode int
	// Signal names the signal that killed the process (e.g. "SIGKILL"), or
	// is empty.
	Signal string
	// LastStderr is the last non-empty line the server wrote to stderr,
	// truncated to 200 bytes; servers usually explain a crash there.
	LastStderr string
}

// Error describes how the server went away, quoting its last stderr line.
func (e *ExitError) Error() string {
	var msg string
	switch {
	case !e.Exited:
		msg = "server closed its stdout"
	case e.Signal != "":
		msg = "server was killed by signal " + e.Signal
	case e.ExitCode >= 0:
		msg = fmt.Sprintf("server exited with status %d", e.ExitCode)
	default:
		msg = "server exited"
	}
	if e.LastStderr != "" {
		msg += fmt.Sprintf(" (last stderr line: %q)", e.LastStderr)
	}
	return msg
}

// Unwrap returns io.EOF: however the server went away, its stream ended.
func (e *ExitError) Unwrap() error { return io.EOF }

// stdioConn is the Connection returned by Command.Connect.
type stdioConn struct {
	cmd    *exec.Cmd
	stdin  *os.File  // write end of the child's stdin
	stdout *os.File  // read end of the child's stdout
	in     io.Writer // writes stdin: a pipeio.File if it can, else stdin
	out    io.Reader // reads stdout: a pipeio.File if it can, else stdout
	stderr *os.File  // read end of the child's stderr
	errOut io.Writer
	report func(Violation)
	grace  time.Duration
	limit  int64 // of one stdout line

	// msgs carries messages from readLoop to Read. It is unbuffered so
	// that at most one message waits outside the caller's hands; readLoop
	// sets readErr and closes msgs when the stream ends.
	msgs    chan json.RawMessage
	readErr error

	closing    chan struct{} // closed when Close starts
	exited     chan struct{} // closed once the child has been reaped
	readDone   chan struct{} // closed when readLoop returns
	stderrDone chan struct{} // closed when copyStderr returns

	tailMu sync.Mutex
	tail   string // last non-empty stderr line, truncated

	hastenOnce sync.Once
	hastened   chan struct{} // closed by ShortenGrace

	writeMu  sync.Mutex
	writeErr error       // set when an interrupted write corrupted the stream
	writing  atomic.Bool // a write to stdin is in progress (see shutdown)

	closeOnce sync.Once
	closeErr  error
}

// wait reaps the child; it is the only caller of cmd.Wait, so that no path
// can leave a zombie and ProcessState is safe to read after exited closes.
func (c *stdioConn) wait() {
	c.cmd.Wait()
	close(c.exited)
}

func (c *stdioConn) hasExited() bool {
	select {
	case <-c.exited:
		return true
	default:
		return false
	}
}

func (c *stdioConn) isClosing() bool {
	select {
	case <-c.closing:
		return true
	default:
		return false
	}
}

// waitExit waits up to d for the child to be reaped.
func (c *stdioConn) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c.exited:
		return true
	case <-t.C:
		return false
	}
}

// exitError describes the child's current state. Call it only after
// checking exited, or accept that Exited may be false.
func (c *stdioConn) exitError() *ExitError {
	e := &ExitError{ExitCode: -1}
	if c.hasExited() {
		ps := c.cmd.ProcessState
		e.Exited = true
		e.ExitCode = ps.ExitCode()
		e.Signal = exitSignal(ps)
	}
	c.tailMu.Lock()
	e.LastStderr = c.tail
	c.tailMu.Unlock()
	return e
}

// Read returns the next JSON-RPC message from the server's stdout.
func (c *stdioConn) Read(ctx context.Context) (json.RawMessage, error) {
	if c.isClosing() {
		return nil, ErrClosed
	}
	select {
	case msg, ok := <-c.msgs:
		if !ok {
			return nil, c.readErr
		}
		return msg, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closing:
		return nil, ErrClosed
	}
}

// readLoop frames stdout into messages and hands them to Read. Once the
// messages end, for whatever reason, it keeps draining stdout without
// keeping anything, until the stream ends or Close closes it, so that a
// server writing its last words is not blocked on a full pipe.
func (c *stdioConn) readLoop() {
	defer close(c.readDone)
	c.readErr = c.readMessages()
	close(c.msgs)
	buf := make([]byte, lineBufSize)
	for {
		if _, err := c.out.Read(buf); err != nil {
			return
		}
	}
}

// readMessages hands stdout's messages to Read and returns the error that
// ends them.
func (c *stdioConn) readMessages() error {
	// Once Close starts, a line in progress is abandoned at the next read
	// instead of being read to its end.
	lr := NewLineReader(stopReader{c.out, c.closing}, c.limit, "stdio line")
	for {
		line, err := lr.Next()
		if err != nil {
			var tooLarge *MessageTooLargeError
			if errors.As(err, &tooLarge) && !c.isClosing() {
				return fmt.Errorf("server sent a %w", err)
			}
			return c.endOfStream(err)
		}
		msg, ok := checkLine(line, c.report)
		if !ok {
			continue
		}
		select {
		case c.msgs <- msg:
		case <-c.closing:
			return ErrClosed
		}
	}
}

// stopReader reads from r until stop is closed, then fails with ErrClosed.
type stopReader struct {
	r    io.Reader
	stop <-chan struct{}
}

func (s stopReader) Read(p []byte) (int, error) {
	select {
	case <-s.stop:
		return 0, ErrClosed
	default:
		return s.r.Read(p)
	}
}

// endOfStream turns the error that ended stdout into what Read reports.
// On EOF it waits (bounded by the grace period) for the process to exit and
// for its stderr to drain, so that the error carries the exit status and the
// line in which the server explained itself.
func (c *stdioConn) endOfStream(err error) error {
	if c.isClosing() {
		return ErrClosed
	}
	if !errors.Is(err, io.EOF) {
		return fmt.Errorf("reading from server: %w", err)
	}
	t := time.NewTimer(c.grace)
	defer t.Stop()
	select {
	case <-c.exited:
		select {
		case <-c.stderrDone:
		case <-t.C:
		case <-c.closing:
		}
	case <-t.C:
	case <-c.closing:
	}
	if c.isClosing() {
		return ErrClosed
	}
	return c.exitError()
}

// checkLine decides whether a stdout line is a message. Blank lines are
// skipped silently; anything else that is not a JSON object or array is
// reported to violation and skipped, because servers that print banners or
// logs to stdout are common and one stray line should not end the session. A line
// that json.Valid refuses only because it is nested deeper than
// encoding/json allows is passed on: it is most likely a real answer, and
// the client reports its depth at once, where skipping it would leave its
// request waiting for the timeout.
func checkLine(line []byte, violation func(Violation)) (json.RawMessage, bool) {
	msg := bytes.TrimSpace(line)
	if len(msg) == 0 {
		return nil, false
	}
	if (msg[0] != '{' && msg[0] != '[') || !json.Valid(msg) && !tooDeep(msg) {
		// A copy: the reader may reuse line's buffer.
		quoted := bytes.Clone(line[:min(len(line), maxTail)])
		violation(Violation{Kind: ViolationStdoutLine, Line: quoted})
		return nil, false
	}
	return msg, true
}

// maxJSONDepth is the nesting depth beyond which encoding/json refuses a
// value (its scanner's limit).
const maxJSONDepth = 10000

// tooDeep reports whether msg nests arrays and objects more than
// maxJSONDepth levels deep, counting brackets outside strings. It is only
// called for lines json.Valid refused, to tell depth from bad syntax.
func tooDeep(msg []byte) bool {
	depth, inString, escaped := 0, false, false
	for _, b := range msg {
		switch {
		case escaped:
			escaped = false
		case inString:
			switch b {
			case '\\':
				escaped = true
			case '"':
				inString = false
			}
		case b == '"':
			inString = true
		case b == '{' || b == '[':
			depth++
			if depth > maxJSONDepth {
				return true
			}
		case b == '}' || b == ']':
			depth--
		}
	}
	return false
}

// copyStderr streams the server's stderr to errOut and remembers the last
// non-empty line.
func (c *stdioConn) copyStderr() {
	defer close(c.stderrDone)
	br := bufio.NewReaderSize(c.stderr, 4096)
	out := c.errOut
	var cur []byte // the start of the line in progress, at most maxTail bytes
	for {
		frag, err := br.ReadSlice('\n')
		if len(frag) > 0 {
			if _, werr := out.Write(frag); werr != nil {
				// Keep draining, or a chatty server would block on a
				// full pipe.
				out = io.Discard
			}
			if room := maxTail - len(cur); room > 0 {
				cur = append(cur, frag[:min(room, len(frag))]...)
			}
			if frag[len(frag)-1] == '\n' || err != nil && !errors.Is(err, bufio.ErrBufferFull) {
				if s := strings.TrimSpace(string(cur)); s != "" {
					c.tailMu.Lock()
					c.tail = s
					c.tailMu.Unlock()
				}
				cur = cur[:0]
			}
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
	}
}

// Write sends msg as one line on the server's stdin.
func (c *stdioConn) Write(ctx context.Context, msg json.RawMessage, opts WriteOptions) error {
	return c.WriteParts(ctx, [][]byte{msg}, opts)
}

// joinBelow is the size under which a line is copied into one buffer and
// written with one call; a longer one is written from its parts in turn,
// under the write lock, rather than copied.
const joinBelow = 64 << 10

// WriteParts implements [PartsWriter]: the parts, then a newline, as one
// line on the server's stdin.
func (c *stdioConn) WriteParts(ctx context.Context, parts [][]byte, _ WriteOptions) error {
	if c.isClosing() {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, p := range parts {
		if bytes.IndexByte(p, '\n') >= 0 {
			return errors.New("writing to server: message contains a newline, which stdio framing cannot carry")
		}
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if c.writeErr != nil {
		return c.writeErr
	}
	var line net.Buffers
	if size := partsSize(parts); size < joinBelow {
		buf := make([]byte, 0, size+1)
		for _, p := range parts {
			buf = append(buf, p...)
		}
		line = net.Buffers{append(buf, '\n')}
	} else {
		line = append(append(make(net.Buffers, 0, len(parts)+1), parts...), []byte{'\n'})
	}

	// Cancellation interrupts a write blocked on a full pipe (a server that
	// stopped reading) by moving the write deadline into the past.
	interrupted := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(interrupted)
		c.stdin.SetWriteDeadline(time.Unix(1, 0))
	})
	c.writing.Store(true)
	n, err := line.WriteTo(c.in)
	c.writing.Store(false)
	if !stop() {
		<-interrupted
		c.stdin.SetWriteDeadline(time.Time{})
	}
	if err == nil {
		return nil
	}
	if c.isClosing() {
		return ErrClosed
	}
	if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		if n > 0 {
			c.writeErr = errors.New("writing to server: an interrupted write left a partial message on the server's stdin; reconnect")
		}
		return ctxErr
	}
	if errors.Is(err, syscall.EPIPE) {
		// The read end is gone: the server exited or closed stdin. Give
		// it a moment to be reaped so the error can say how it ended.
		if c.waitExit(c.grace) {
			return fmt.Errorf("writing to server: %w", c.exitError())
		}
		return errors.New("writing to server: server closed its stdin")
	}
	return fmt.Errorf("writing to server: %w", err)
}

// Close stops the server as described on [Command].
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() { c.closeErr = c.shutdown() })
	return c.closeErr
}

func (c *stdioConn) shutdown() error {
	// A write still in progress when Close starts is, but for a moment's
	// race, one blocked on a full pipe: the server has stopped reading its
	// stdin, so it would not see it close either, and the first grace
	// period is skipped.
	deaf := c.writing.Load()
	close(c.closing)
	c.stdin.Close()
	proc := c.cmd.Process
	signalled := false
	if deaf || !waitGrace(c.newGrace(), c.exited) {
		signalled = true
		terminateGroup(proc)
		if !waitGrace(c.newGrace(), c.exited) {
			killGroup(proc)
			<-c.exited
		}
	}
	if groupAlive(proc) {
		if !signalled {
			terminateGroup(proc)
		}
		if !c.waitGroupGone(proc) {
			killGroup(proc)
		}
	}

	c.stdout.Close() // unblocks readLoop if it is in a read
	<-c.readDone

	if !waitGrace(c.newGrace(), c.stderrDone) {
		c.stderr.Close()
		<-c.stderrDone
	}
	c.stderr.Close()

	if signalled || c.cmd.ProcessState.Success() {
		return nil
	}
	return c.exitError()
}

// waitGroupGone polls, up to the grace period, until no process is left in
// the child's group. Polling is the only option: they are not our children,
// so nothing notifies us when they exit.
func (c *stdioConn) waitGroupGone(proc *os.Process) bool {
	g := c.newGrace()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for groupAlive(proc) {
		if !waitGrace(g, tick.C) {
			return !groupAlive(proc)
		}
	}
	return true
}

// ShortenGrace implements [GraceShortener].
func (c *stdioConn) ShortenGrace() {
	c.hastenOnce.Do(func() { close(c.hastened) })
}

// grace is one grace period of Close: c.grace from its start, or
// QuickGrace from its start once ShortenGrace is called, whichever is
// shorter.
type grace struct {
	start    time.Time
	timer    *time.Timer
	hastened <-chan struct{} // nil once the timer is short
	quick    time.Duration   // what the period shrinks to
}

// newGrace starts a grace period. (A timer left running when a wait ends
// early is collected with the grace.)
func (c *stdioConn) newGrace() *grace {
	g := &grace{start: time.Now(), hastened: c.hastened, quick: min(QuickGrace, c.grace)}
	d := c.grace
	select {
	case <-c.hastened:
		d, g.hastened = g.quick, nil
	default:
	}
	g.timer = time.NewTimer(d)
	return g
}

// waitGrace waits for done until g is over, and reports whether done came
// first.
func waitGrace[T any](g *grace, done <-chan T) bool {
	for {
		select {
		case <-done:
			return true
		case <-g.timer.C:
			return false
		case <-g.hastened:
			g.hastened = nil
			g.timer.Reset(g.quick - time.Since(g.start))
		}
	}
}

// Kill stops the server's process group at once with SIGKILL, for a user
// who will not wait for the polite shutdown (a second Ctrl-C). A Close in
// progress then finishes without its grace periods: the processes are gone.
func (c *stdioConn) Kill() error {
	if proc := c.cmd.Process; proc != nil {
		killNow(proc)
	}
	return nil
}
