// Package faultserver is an MCP server that misbehaves on purpose, one
// fault per mode, over stdio or HTTP, so mcpctl's end-to-end tests can show
// that every fault gets a clear error, the right exit code, no hang and no
// orphan process. The testscript harness registers [Main] as the command
// faultserver:
//
//	faultserver [-log FILE] [-pidfile FILE] [-ready FILE] [-http ADDR]
//	            [-n N] [-size BYTES] [-page-size N] [-delay D] [-method M]
//	            [-secret-env NAME] [-redirect-host HOST] [-target-log FILE]
//	            [-lifetime D] [-sse] MODE
//
// It is written at the raw JSON-RPC level rather than with the official
// SDK, which will not send most of these faults. Outside its fault, every
// mode is a small well-behaved server: initialize (echoing the client's
// revision when it knows it), ping, logging/setLevel, and one tool, fault,
// whose tools/call answers "ok" (or the message argument). The faults come
// at the first request after initialize unless said otherwise.
//
// Modes for stdio and HTTP:
//
//   - ok: no fault.
//   - never-answers: reads everything, answers nothing (not even initialize).
//   - notification-flood: tools/call sends -n (10000) notifications/message first.
//   - request-flood: tools/call sends -n (10000) server→client requests of
//     method -method (roots/list) first, ids "flood-1"….
//   - many-tools: tools/list offers -n (50000) tools, tool00001…, in pages
//     of -page-size (0: one page).
//   - cursor-loop: tools/list cursors go "" → "a" → "b" → "a" ….
//   - fresh-cursor-forever: each tools/list page comes after -delay (500ms)
//     with a new cursor, page-1, page-2, … forever.
//   - unknown-id: tools/call is answered with id 999999 ([UnknownID]) only.
//   - string-id: tools/call with id 3 is answered with id "3" only.
//   - deep-nesting: tools/call's result holds arrays nested -n (100000) deep.
//   - batch-answer: every answer after initialize is a one-element JSON array.
//   - huge-result: tools/call returns one text block of -size (100 MiB)
//     bytes, x's ending in "END".
//   - echo-secret: tools/call sends a log notification and a JSON-RPC
//     error -32001 whose texts echo the credentials: over stdio the value
//     of the environment variable -secret-env (FAULT_SECRET), over HTTP the
//     Authorization header and every X-* header value.
//   - escape-injection: tools/call writes [EscapeText] (OSC 52, OSC 0,
//     ESC[2J) to stderr, in a log notification and as its text.
//   - invalid-utf8: tools/call's text has bytes that are not UTF-8
//     ([InvalidUTF8Text]).
//   - print-env: tools/call returns the server's environment, KEY=VALUE
//     lines, sorted.
//   - image-no-mimetype: tools/call returns an image block ([ImageData], a
//     PNG) without the mimeType every revision of the schema requires.
//   - result-shapes: tools/call answers in the shape its message
//     argument names: "file" (a text block and structuredContent
//     {"content": the same text}, as filesystem servers answer), "json"
//     (a text block holding structuredContent's JSON), "empty" (no
//     content), "images" (two PNG image blocks, [ImageData]); anything
//     else is echoed as text.
//   - announces-lists: tools are declared with listChanged, and the first
//     tools/list is preceded by two notifications/tools/list_changed that
//     change nothing, as servers announce their lists at start
//     (server-everything does).
//   - prompt-system-role: the server offers prompts: one, [PromptName],
//     whose prompts/get message has the role "system", which no revision
//     allows (only "user" and "assistant").
//
// Modes for stdio only:
//
//   - crash-before-init: exits with status 3 when initialize arrives.
//   - crash-after-init: answers initialize, exits with status 3 at the next request.
//   - closes-stdout: answers initialize, then closes stdout and keeps
//     running until stdin closes.
//   - ignores-sigterm: ignores SIGTERM, SIGINT, SIGHUP and SIGPIPE and stays
//     after stdin closes, until killed (or -lifetime ends).
//   - stuck: answers initialize and tools/list, then hangs: stdin is no
//     longer read (so its closing goes unnoticed) and nothing more is
//     answered. -ready is created once the tools/list answer is written.
//     At SIGTERM it appends {"signal": "SIGTERM"} to the -log and exits
//     with status 0, so a script can tell SIGTERM from SIGKILL.
//   - non-json-lines: writes -n (1) lines that are not JSON before every answer.
//   - noisy-calls: writes -n (1) lines that are not JSON before each answer
//     to tools/call only, as a server that logs to stdout when a tool runs:
//     the handshake and the lists are clean.
//   - endless-line: starts a line and writes to it forever (or -size bytes,
//     then waits), never ending it.
//   - huge-line: writes a line of -size (8 MiB) x's, then answers.
//   - flood-not-reading: at tools/call (not at the first request: mcpctl
//     call lists the tools first), stops reading stdin, sends -n (100000)
//     requests of method -method (roots/list), ids "flood-1"…, answers the
//     call -delay (5s) after it arrived, and only then reads stdin again.
//     The answers to the flood fill the server's stdin while it is not read.
//     -ready is created once the flood is written, not at the first request.
//
// Modes for HTTP only (-http ADDR, e.g. 127.0.0.1:0; the endpoint is /mcp):
//
//   - redirect-other-origin: answers everything with 307 to the same path
//     on a second listener (host -redirect-host, default 127.0.0.1, another
//     port) that logs every request it gets, headers included, to
//     -target-log and then serves as mode ok would.
//   - redirect-same-origin: answers /mcp with 307 to /mcp/moved on the same
//     origin, which works.
//   - sse-silent: accepts connections and never answers.
//   - sse-comments-only: GET answers 200 text/event-stream with comment
//     lines only, never an endpoint event; POST gets 405.
//   - huge-json-body: the first answer after initialize is an
//     application/json body of -size (8 MiB) bytes.
//   - huge-sse-event: the same as one SSE event.
//   - html-500: every POST gets 500 with an HTML page.
//   - html-200: every POST gets 200 text/html.
//   - dropped-sse-with-id: tools/call answers on an SSE stream that sends
//     an event with id "ev-1" and ends; a GET with Last-Event-ID: ev-1
//     gets the answer.
//   - dropped-sse-without-id: the stream ends after an event without id.
//   - expired-session: the first session (s1) expires after the handshake:
//     the first request with it after initialize gets 404; later sessions work.
//   - session-ends: every session ends after answering -n (1) requests:
//     later messages carrying it get 404, and a new initialize gets a new
//     session (s1, s2, …). Initialize always negotiates
//     [SessionEndsVersion], declares tools (listChanged), prompts
//     (listChanged) and logging, and gives the server version 1.0.0-sN,
//     so a script can see which session's answer a command shows.
//   - http-401: everything gets 401 with a WWW-Authenticate challenge.
//
// Over HTTP a request body is read up to 16 MiB, or up to -size and a MiB
// more when that is larger, so a test can send a large argument.
//
// With -sse, an HTTP server answers every POST that carries requests with
// a text/event-stream body, one event per message, where it would send one
// application/json body: huge-result then delivers its -size text as one
// SSE event.
//
// Two modes are checks for scripts, not servers: check-utf8 FILE fails
// unless FILE is valid UTF-8, and check-size MAX FILE fails if FILE holds
// more than MAX bytes.
//
// Flags let scripts observe the server without sleeping: -log appends every
// message received as a JSON line ({"message": …}, or {"line": …} for
// non-JSON; over HTTP with "http" (method and path) and the headers that
// matter), synced before the message is acted on; -pidfile records the
// process id before the server starts; over stdio -ready creates FILE when
// the first request after initialize arrives (the fault is about to
// start); over HTTP -ready receives the endpoint URL once the server
// listens. -lifetime (default 60s) ends the server whatever happens,
// so a client that fails to give up cannot hang a test forever.
package faultserver

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/mcpctl/mcpctl/internal/pipeio"
)

// Config selects a fault and tunes it. Zero values take the mode's defaults.
type Config struct {
	// Mode names the fault (see the package documentation).
	Mode string
	// Count is -n: messages, tools, lines or nesting levels.
	Count int
	// Size is -size in bytes.
	Size int64
	// PageSize is -page-size.
	PageSize int
	// Delay is -delay.
	Delay time.Duration
	// Method is -method: what request-flood and flood-not-reading send.
	Method string
	// SecretEnv is -secret-env.
	SecretEnv string
	// RedirectHost is -redirect-host.
	RedirectHost string
	// TargetLog is -target-log.
	TargetLog string
	// SSE is -sse: over HTTP, answers come as text/event-stream, never as
	// an application/json body.
	SSE bool
}

// mode describes one mode: where it works and its defaults.
type mode struct {
	stdio, http bool
	count       int
	size        int64
	delay       time.Duration
}

// modes lists every server mode.
var modes = map[string]mode{
	"ok":                   {stdio: true, http: true},
	"never-answers":        {stdio: true, http: true},
	"notification-flood":   {stdio: true, http: true, count: 10000},
	"request-flood":        {stdio: true, http: true, count: 10000},
	"many-tools":           {stdio: true, http: true, count: 50000},
	"cursor-loop":          {stdio: true, http: true},
	"fresh-cursor-forever": {stdio: true, http: true, delay: 500 * time.Millisecond},
	"unknown-id":           {stdio: true, http: true},
	"string-id":            {stdio: true, http: true},
	"deep-nesting":         {stdio: true, http: true, count: 100000},
	"batch-answer":         {stdio: true, http: true},
	"huge-result":          {stdio: true, http: true, size: 100 << 20},
	"echo-secret":          {stdio: true, http: true},
	"escape-injection":     {stdio: true, http: true},
	"invalid-utf8":         {stdio: true, http: true},
	"print-env":            {stdio: true, http: true},
	"image-no-mimetype":    {stdio: true, http: true},
	"prompt-system-role":   {stdio: true, http: true},
	"result-shapes":        {stdio: true, http: true},
	"announces-lists":      {stdio: true, http: true},

	"crash-before-init": {stdio: true},
	"crash-after-init":  {stdio: true},
	"closes-stdout":     {stdio: true},
	"ignores-sigterm":   {stdio: true},
	"stuck":             {stdio: true},
	"non-json-lines":    {stdio: true, count: 1},
	"noisy-calls":       {stdio: true, count: 1},
	"endless-line":      {stdio: true},
	"huge-line":         {stdio: true, size: 8 << 20},
	"flood-not-reading": {stdio: true, count: 100000, delay: 5 * time.Second},

	"redirect-other-origin":  {http: true},
	"redirect-same-origin":   {http: true},
	"sse-silent":             {http: true},
	"sse-comments-only":      {http: true},
	"huge-json-body":         {http: true, size: 8 << 20},
	"huge-sse-event":         {http: true, size: 8 << 20},
	"html-500":               {http: true},
	"html-200":               {http: true},
	"dropped-sse-with-id":    {http: true},
	"dropped-sse-without-id": {http: true},
	"expired-session":        {http: true},
	"session-ends":           {http: true, count: 1},
	"http-401":               {http: true},
}

// Modes returns the names of the server modes, sorted.
func Modes() []string {
	names := make([]string, 0, len(modes))
	for name := range modes {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// withDefaults fills the zero fields with the mode's defaults.
func (c Config) withDefaults() Config {
	m := modes[c.Mode]
	if c.Count == 0 {
		c.Count = m.count
	}
	if c.Size == 0 {
		c.Size = m.size
	}
	if c.Delay == 0 {
		c.Delay = m.delay
	}
	if c.Method == "" {
		c.Method = "roots/list"
	}
	if c.SecretEnv == "" {
		c.SecretEnv = "FAULT_SECRET"
	}
	if c.RedirectHost == "" {
		c.RedirectHost = "127.0.0.1"
	}
	return c
}

// server is one running fault server.
type server struct {
	cfg    Config
	log    *eventLog
	stderr io.Writer
	ready  string // -ready
	http   *httpState
	// listed is set by the first tools/list (announces-lists).
	listed atomic.Bool
}

// Exit statuses of Main.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// Main runs the fault server with the arguments in os.Args on the process's
// standard streams and returns the exit status: 0 when the client went away,
// 1 on errors, 2 on usage errors, 3 for the crash modes.
func Main() int {
	// Stdin through the poller: a Go 1.26 process waiting in a blocking
	// read can stall for a minute (pipeio.Reopen says why), and a test
	// server's client waits for every answer.
	stdin, restore := pipeio.Stdin()
	defer restore()
	return run(context.Background(), os.Args[1:], stdin, os.Stdout, os.Stderr)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout io.WriteCloser, stderr io.Writer) int {
	fs := flag.NewFlagSet("faultserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg Config
	var size sizeFlag
	logPath := fs.String("log", "", "append every message received, as JSON lines, to `FILE`")
	pidPath := fs.String("pidfile", "", "write the process id to `FILE` at start")
	readyPath := fs.String("ready", "", "stdio: create `FILE` when the first request after initialize arrives; HTTP: write the endpoint URL to it")
	httpAddr := fs.String("http", "", "serve over HTTP on `ADDR` (e.g. 127.0.0.1:0) instead of stdio")
	lifetime := fs.Duration("lifetime", time.Minute, "end the server after this `duration`, whatever happens")
	fs.IntVar(&cfg.Count, "n", 0, "`count` of messages, tools, lines or nesting levels (0: the mode's default)")
	fs.Var(&size, "size", "`bytes` of a huge message, with an optional unit (KiB, MiB, GiB; 0: the mode's default)")
	fs.IntVar(&cfg.PageSize, "page-size", 0, "tools per tools/list page (many-tools: 0 is one page)")
	fs.DurationVar(&cfg.Delay, "delay", 0, "fresh-cursor-forever: wait this `duration` before each page; flood-not-reading: answer the call this long after it arrived")
	fs.StringVar(&cfg.Method, "method", "", "request-flood, flood-not-reading: the `method` of the requests (default roots/list)")
	fs.StringVar(&cfg.SecretEnv, "secret-env", "", "echo-secret over stdio: the environment variable `NAME` to echo (default FAULT_SECRET)")
	fs.StringVar(&cfg.RedirectHost, "redirect-host", "", "redirect-other-origin: the `host` to redirect to (default 127.0.0.1)")
	fs.StringVar(&cfg.TargetLog, "target-log", "", "redirect-other-origin: log the requests the other origin gets to `FILE`")
	fs.BoolVar(&cfg.SSE, "sse", false, "HTTP: answer POSTs with text/event-stream, one event per message, never application/json")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: faultserver [flags] {%s}\n       faultserver check-utf8 FILE\n       faultserver check-size MAX FILE\n",
			strings.Join(Modes(), "|"))
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 && strings.HasPrefix(fs.Arg(0), "check-") {
		return check(fs.Args(), stderr)
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "faultserver: want exactly one MODE")
		fs.Usage()
		return exitUsage
	}
	cfg.Mode, cfg.Size = fs.Arg(0), size.n
	m, ok := modes[cfg.Mode]
	switch {
	case !ok:
		fmt.Fprintf(stderr, "faultserver: unknown mode %q\n", cfg.Mode)
		fs.Usage()
		return exitUsage
	case *httpAddr != "" && !m.http:
		fmt.Fprintf(stderr, "faultserver: mode %s works over stdio only\n", cfg.Mode)
		return exitUsage
	case *httpAddr == "" && !m.stdio:
		fmt.Fprintf(stderr, "faultserver: mode %s needs -http ADDR\n", cfg.Mode)
		return exitUsage
	case *httpAddr == "" && cfg.SSE:
		fmt.Fprintln(stderr, "faultserver: -sse needs -http ADDR")
		return exitUsage
	}
	cfg = cfg.withDefaults()

	if cfg.Mode == "ignores-sigterm" {
		// Before the pid file exists, so a script that waits for it and
		// then signals cannot be early.
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGPIPE)
	}
	log := openLog(*logPath, stderr)
	defer log.close()
	var sigterm chan os.Signal
	if cfg.Mode == "stuck" {
		// Before the pid file exists, as for ignores-sigterm.
		sigterm = make(chan os.Signal, 1)
		signal.Notify(sigterm, syscall.SIGTERM)
	}
	if *pidPath != "" {
		if err := os.WriteFile(*pidPath, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
			fmt.Fprintf(stderr, "faultserver: writing pid file: %v\n", err)
			return exitError
		}
	}
	fmt.Fprintf(stderr, "faultserver: started %s\n", cfg.Mode)
	ctx, cancel := context.WithTimeout(ctx, *lifetime)
	defer cancel()
	s := &server{cfg: cfg, log: log, stderr: stderr, ready: *readyPath}
	termed := make(chan struct{})
	if sigterm != nil {
		go func() {
			select {
			case <-sigterm:
				log.record(object{"signal": "SIGTERM"}, nil)
				close(termed)
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	var err error
	if *httpAddr != "" {
		err = s.serveHTTP(ctx, *httpAddr)
	} else {
		err = s.serveStdio(ctx, stdin, stdout)
	}
	select {
	case <-termed:
		fmt.Fprintf(stderr, "faultserver: %s: SIGTERM, exiting\n", cfg.Mode)
		return exitOK
	default:
	}
	switch {
	case errors.Is(err, errCrash):
		fmt.Fprintln(stderr, CrashLine)
		return exitCrash
	case errors.Is(err, context.DeadlineExceeded):
		fmt.Fprintf(stderr, "faultserver: %s: lifetime of %v over, exiting\n", cfg.Mode, *lifetime)
		return exitError
	case err != nil:
		fmt.Fprintf(stderr, "faultserver: %s: %v\n", cfg.Mode, err)
		return exitError
	}
	return exitOK
}

// check runs check-utf8 FILE or check-size MAX FILE.
func check(args []string, stderr io.Writer) int {
	switch {
	case args[0] == "check-utf8" && len(args) == 2:
		data, err := os.ReadFile(args[1])
		if err != nil {
			fmt.Fprintf(stderr, "faultserver: %v\n", err)
			return exitError
		}
		for i := 0; i < len(data); {
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n == 1 {
				fmt.Fprintf(stderr, "faultserver: %s is not valid UTF-8: byte %#x at offset %d\n", args[1], data[i], i)
				return exitError
			}
			i += n
		}
		return exitOK
	case args[0] == "check-size" && len(args) == 3:
		limit, err := parseSize(args[1])
		if err != nil {
			fmt.Fprintf(stderr, "faultserver: %v\n", err)
			return exitUsage
		}
		fi, err := os.Stat(args[2])
		if err != nil {
			fmt.Fprintf(stderr, "faultserver: %v\n", err)
			return exitError
		}
		if fi.Size() > limit {
			fmt.Fprintf(stderr, "faultserver: %s holds %d bytes, more than %d\n", args[2], fi.Size(), limit)
			return exitError
		}
		return exitOK
	}
	fmt.Fprintln(stderr, "usage: faultserver check-utf8 FILE | faultserver check-size MAX FILE")
	return exitUsage
}
