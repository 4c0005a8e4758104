// Package testserver provides the MCP servers that mcpctl's end-to-end tests
// run as child processes.
//
// The testscript harness registers [Main] as the command testserver:
//
//	testserver [-log FILE] [-pidfile FILE] [-ready FILE] [-answer-version V] [-delay D]
//	           [-sign-key-env NAME] [-sign-mode M] [-canonical jcs|python] [-kid K] MODE
//
// Every mode speaks newline-delimited JSON-RPC on stdin and stdout and starts
// by writing "testserver: started MODE" to stderr. Most modes run the
// official Go SDK's server; nonjson, repeat-cursor and version run a small
// hand-written loop instead, because they break the protocol in ways the SDK
// will not. The modes:
//
//   - basic: the demo server of mcpctl --demo (package demo).
//   - pages: page size 3 and nine each of tools (tool01…tool09), resources,
//     resource templates and prompts, so every list takes exactly three pages.
//   - crash: tools/call writes "fatal: simulated crash in tool handler" to
//     stderr and exits with status 3 without answering.
//   - hang: tools/call never answers; the handler returns only when the call
//     is cancelled (notifications/cancelled; over HTTP also the client
//     closing the request) or stdin closes. A call with a progress token
//     first gets one progress notification. When the call ends, "hang:
//     cancelled" is appended to the -log file, then READY.cancelled is
//     created (READY being the -ready file).
//   - nonjson: writes the line "hello from a misbehaving server" to stdout
//     before every response.
//   - big: tool big(bytes) returns one text block of exactly that many bytes,
//     'x' repeated and ending in "END" (default 50 MiB).
//   - stubborn: ignores SIGTERM, SIGINT, SIGHUP and SIGPIPE and keeps running
//     after stdin closes, until it is killed.
//   - repeat-cursor: tools/list always answers with nextCursor "same".
//   - version: answers initialize with the protocol version given by
//     -answer-version (default 1999-01-01).
//   - errors: tool rpc_error answers with JSON-RPC error -32001 "backend
//     unavailable"; tool tool_error returns isError: true.
//   - sign: the reference signing server of package signserver (tools echo
//     and add): it verifies the signature of every tools/call and signs its
//     result with the key in the environment variable named by -sign-key-env
//     (default MCPCTL_TEST_KEY), in the canonical form given by -canonical,
//     misbehaving as -sign-mode says (good, wrong-signature, stale, replay,
//     unsigned). Without the key it starts, and refuses every call.
//   - defects: the server of package defectserver, with seeded defects of
//     every kind `mcpctl validate` lints for.
//   - headers: tools with x-mcp-header annotations (2026-07-28): route,
//     whose annotations are valid, and bad_name, dup_header, number_header
//     and items_header, each breaking one constraint (see headersmode.go).
//   - long-names: server-everything's kind of names, long and kebab-case
//     (see longnamesmode.go).
//   - secrets: tool login, whose inputSchema marks password and
//     profile.token writeOnly (see secretsmode.go).
//   - args: tools links, open, labels and place, each answering with the
//     arguments it received: undeclared, open and nested arguments (see
//     argsmode.go).
//   - scan-a, scan-b: two servers seeded with what mcpctl scan finds
//     (see scanmode.go).
//   - load-fuzz: the target of mcpctl bench and fuzz: echo waits -delay,
//     limit crashes at its upper bound, lookup hangs on an empty key, wipe
//     is destructive (see loadfuzzmode.go).
//   - surface-v1, surface-v2, surface-v3: three versions of one surface
//     for mcpctl snapshot and diff (see surfacemode.go).
//   - rugpull: tools lookup and notes; $TESTSERVER_RUGPULL changes
//     lookup's description, so that the proxy's pins see one server change
//     between sessions (see rugpullmode.go).
//
// With -http FILE a go-sdk mode is served over HTTP instead, on 127.0.0.1
// and a free port, until SIGINT or SIGTERM; the endpoint URL is written to
// FILE. -http-mode picks the handler: stateful (the default), stateless,
// json (JSON responses), origin (stateful, refusing a foreign Origin), sse
// (legacy HTTP+SSE, endpoint /sse), html500 (a
// 500 with an HTML body) or unauthorized (a 401 with a WWW-Authenticate
// challenge). -headers-log FILE records the Authorization and X-* headers
// that arrive.
//
// Flags let scripts observe the server without sleeping: -log appends the
// method of every request and notification received, one per line, synced to
// disk before the message is handled; -ready creates a file whenever a
// tools/call arrives (after logging it); -pidfile records the process id
// before the server starts.
package testserver

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/mcpctl/mcpctl/internal/defectserver"
	"github.com/mcpctl/mcpctl/internal/pipeio"
)

// Exit statuses of Main.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
	exitCrash = 3 // the crash mode's simulated crash
)

// modeNames lists the modes in the order usage shows them.
func modeNames() []string {
	return []string{"basic", "pages", "crash", "hang", "nonjson", "big", "stubborn", "repeat-cursor", "version", "errors", "sign", "defects", "headers", "tasks", "watch", "features", "long-names", "surface-v1", "surface-v2", "surface-v3", "secrets", "args", "scan-a", "scan-b", "load-fuzz", "rugpull"}
}

// modeFunc runs one mode until its client goes away and returns the exit
// status.
type modeFunc func(ctx context.Context, e *env) int

func lookupMode(name string) (modeFunc, bool) {
	switch name {
	case "basic":
		return basicMode, true
	case "rugpull":
		return rugpullMode, true
	case "pages":
		return pagesMode, true
	case "crash":
		return crashMode, true
	case "hang":
		return hangMode, true
	case "nonjson":
		return nonJSONMode, true
	case "big":
		return bigMode, true
	case "stubborn":
		return stubbornMode, true
	case "repeat-cursor":
		return repeatCursorMode, true
	case "version":
		return versionMode, true
	case "errors":
		return errorsMode, true
	case "defects": // package defectserver: one of every defect mcpctl validate lints for
		return func(ctx context.Context, e *env) int {
			s := defectserver.Server{WarningsOnly: os.Getenv("DEFECTSERVER_ONLY") == "warnings"}
			return e.exitStatus(s.Serve(ctx, e.stdin, e.stdout, e.obs.received))
		}, true
	case "sign":
		return signMode, true
	case "headers":
		return headersMode, true
	case "secrets": // secretsmode.go: writeOnly arguments, for the audit trail's masking
		return secretsMode, true
	case "args": // argsmode.go: undeclared, open and nested arguments
		return argsMode, true
	case "load-fuzz": // loadfuzzmode.go: seeded defects and a -delay, for bench and fuzz
		return loadFuzzMode, true
	case "tasks": // tasksmode.go: tool calls as tasks, both eras
		return tasksMode, true
	case "watch": // watchmode.go: changes on demand, for mcpctl watch
		return watchMode, true
	case "features": // featuresmode.go: tools that need roots, sampling, elicitation
		return featuresMode, true
	case "long-names": // longnamesmode.go: server-everything's long names, for the golden tables
		return longNamesMode, true
	case "scan-a", "scan-b": // scanmode.go: seeded defects for mcpctl scan
		return scanMode(name), true
	case "surface-v1", "surface-v2", "surface-v3": // surfacemode.go: three versions of a surface, for snapshot and diff
		return surfaceMode(name), true
	}
	return nil, false
}

// env is what a mode works with: its configuration, its streams and the
// observer that records what arrives.
type env struct {
	mode          string
	answerVersion string
	era           string // legacy, modern or dual: see applyEra
	sign          signFlags
	http          httpFlags
	loadFuzz      loadFuzzFlags
	stdin         io.Reader
	stdout        io.Writer
	stderr        io.Writer
	obs           *observer
}

// Main runs the test server on the process's standard streams with the
// arguments in os.Args and returns the exit status: 0 when the client closed
// stdin, 1 on errors, 2 on usage errors and 3 for the crash mode's crash.
func Main() int {
	// Stdin through the poller: a Go 1.26 process waiting in a blocking
	// read can stall for a minute (pipeio.Reopen says why), and a test
	// server's client waits for every answer.
	stdin, restore := pipeio.Stdin()
	defer restore()
	return run(context.Background(), os.Args[1:], stdin, os.Stdout, os.Stderr)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("testserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	logPath := fs.String("log", "", "append the method of every message received to `FILE`")
	pidPath := fs.String("pidfile", "", "write the process id to `FILE` at start")
	readyPath := fs.String("ready", "", "create `FILE` when a tools/call arrives")
	answerVersion := fs.String("answer-version", "1999-01-01", "protocol `version` the version mode answers initialize with")
	eraDefault := eraLegacy
	if e := os.Getenv("TESTSERVER_ERA"); e != "" {
		// Lets a script change the era of a server whose command line
		// (and so its entry in mcpctl's era cache) stays the same.
		eraDefault = e
	}
	era := fs.String("era", eraDefault, "protocol `era` the SDK modes serve: legacy (server/discover unknown), modern (initialize refused) or dual; default $TESTSERVER_ERA, else legacy")
	var sign signFlags
	sign.register(fs)
	var httpf httpFlags
	httpf.register(fs)
	var loadFuzz loadFuzzFlags
	loadFuzz.register(fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: testserver [-log FILE] [-pidfile FILE] [-ready FILE] [-answer-version V] [-era E] [-sign-key-env NAME] [-sign-mode M] [-canonical F] [-kid K] [-http FILE [-http-mode M] [-headers-log FILE]] [-delay D] {%s}\n",
			strings.Join(modeNames(), "|"))
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "testserver: want exactly one MODE")
		fs.Usage()
		return exitUsage
	}
	mode := fs.Arg(0)
	runMode, ok := lookupMode(mode)
	if !ok {
		fmt.Fprintf(stderr, "testserver: unknown mode %q\n", mode)
		fs.Usage()
		return exitUsage
	}

	if mode == "stubborn" {
		// Before the pid file exists, so a script that waits for it and
		// then signals cannot be early.
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGPIPE)
	}
	obs, err := newObserver(*logPath, *readyPath, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "testserver: %v\n", err)
		return exitError
	}
	defer obs.close()
	if *pidPath != "" {
		if err := os.WriteFile(*pidPath, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
			fmt.Fprintf(stderr, "testserver: writing pid file: %v\n", err)
			return exitError
		}
	}
	fmt.Fprintf(stderr, "testserver: started %s\n", mode)
	return runMode(ctx, &env{
		mode:          mode,
		answerVersion: *answerVersion,
		era:           *era,
		sign:          sign,
		http:          httpf,
		loadFuzz:      loadFuzz,
		stdin:         stdin,
		stdout:        stdout,
		stderr:        stderr,
		obs:           obs,
	})
}

// exitStatus reports err, if any, and turns it into an exit status.
func (e *env) exitStatus(err error) int {
	if err != nil {
		fmt.Fprintf(e.stderr, "testserver: %s: %v\n", e.mode, err)
		return exitError
	}
	return exitOK
}
