package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/render"
	"github.com/mcpctl/mcpctl/session"
	"github.com/mcpctl/mcpctl/testrun"
)

// TestOptions are the options of `mcpctl test`.
type TestOptions struct {
	Factory  *Factory
	Server   ServerOptions
	Paths    []string
	Format   string // text or json
	JUnit    string
	Update   bool
	Run      string
	Repeat   int
	Parallel int
	// Init writes a starter file for the server (--init) instead of
	// running tests.
	Init bool
}

// NewCmdTest builds `mcpctl test`. runF replaces the run function in tests.
func NewCmdTest(f *Factory, runF func(*TestOptions) error) *cobra.Command {
	opts := &TestOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "test [file | dir ...] [flags] [-- server command...]",
		Short: "Run YAML test files against a server",
		Long: `Run test files (docs/testing.md) against a server.

With no file given, runs the files ending in .mcptest.yaml under
mcpctl-tests/, or else those in the current folder. Each file runs in one
session, its tests in order; a server selection on the command line (-s,
--url, --demo or a command after --) replaces the file's server:.

Each test calls a tool, reads a resource, gets a prompt or lists, and
checks its expectations: text, contains, matches, isError, error, jq,
schema or schemaFile, outputSchema (checked by default when the tool
declares one), snapshot (golden files in __snapshots__/ next to the file,
rewritten by --update) and maxMs. capture saves jq values as ${name} for
later tests of the file. A call runs as mcpctl call runs it: a task when
the tool requires one, or with task: true. Protocol violations are listed
with the step that saw them; --strict fails it (or the pseudo-test
"(session)" for those seen outside every step).

A summary goes to stdout (-o json for a JSON report); --junit FILE writes
JUnit XML; when $GITHUB_STEP_SUMMARY is set a Markdown summary is appended
to it. Exits 0 when every test passes, 1 when one fails, and the usual
codes when a server cannot be reached.

--init writes a starter file for the server the command line names
(mcpctl-tests/server.mcptest.yaml, or the path given) and its snapshot of
the tool list, with a smoke test per tool: example arguments from its
inputSchema, called once and expecting what the server did, so the file
passes. It never overwrites a file.`,
		Example: `  mcpctl test
  mcpctl test mcpctl-tests/ --junit junit.xml
  mcpctl test smoke.mcptest.yaml -- python3 server.py
  mcpctl test --run 'add' --repeat 20
  mcpctl test --update
  mcpctl test --init -- python3 server.py`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = setServerArgs(cmd, args, &opts.Server)
			switch opts.Format {
			case "text", "json":
			default:
				return flagErrorf("invalid --output %q: expected text or json", opts.Format)
			}
			if opts.Repeat < 1 {
				return flagErrorf("--repeat must be at least 1")
			}
			if opts.Parallel < 1 {
				return flagErrorf("--parallel must be at least 1")
			}
			if _, err := regexp.Compile(opts.Run); err != nil {
				return flagErrorf("invalid --run %q: %v", opts.Run, err)
			}
			if opts.Init && len(opts.Paths) > 1 {
				return flagErrorf("--init writes one file: give at most one path")
			}
			if runF != nil {
				return runF(opts)
			}
			if opts.Init {
				return testInit(cmd.Context(), opts)
			}
			return testRun(cmd.Context(), opts)
		},
	}
	addServerFlags(cmd, &opts.Server)
	cmd.Flags().StringVarP(&opts.Format, "output", "o", "text", "Output `format`: text or json")
	cmd.Flags().StringVar(&opts.JUnit, "junit", "", "Write a JUnit XML report to `FILE`")
	cmd.Flags().BoolVar(&opts.Update, "update", false, "Rewrite the snapshots instead of comparing them")
	cmd.Flags().StringVar(&opts.Run, "run", "", "Run only the tests whose names match the `regexp`")
	cmd.Flags().IntVar(&opts.Repeat, "repeat", 1, "Run each file's tests `N` times and report p50/p95 durations")
	cmd.Flags().IntVar(&opts.Parallel, "parallel", 1, "Run `N` files at once")
	cmd.Flags().BoolVar(&opts.Init, "init", false, "Write a starter test file for the server instead of running tests")
	return cmd
}

func testRun(ctx context.Context, opts *TestOptions) error {
	f := opts.Factory
	paths, err := testrun.Discover(opts.Paths)
	if err != nil {
		return &FlagError{Err: err}
	}
	var re *regexp.Regexp
	if opts.Run != "" {
		re = regexp.MustCompile(opts.Run)
	}
	// Files run at once with --parallel, handshakes included: the
	// Factory builds its shared parts under locks.
	connect := func(ctx context.Context, file *testrun.File, s *testrun.Server, hooks testrun.Hooks) (testrun.Session, error) {
		return testConnect(ctx, opts, file, s, hooks)
	}
	results := testrun.Run(ctx, paths, testrun.Options{
		Connect:  connect,
		Update:   opts.Update,
		Run:      re,
		Repeat:   opts.Repeat,
		Parallel: opts.Parallel,
		Strict:   opts.Server.Strict,
	})
	ios := f.IOStreams
	if opts.Format == "json" {
		err = testrun.WriteJSON(ios.Out, results)
	} else {
		err = testrun.WriteText(ios.Out, results, testrun.TextOptions{TTY: ios.IsStdoutTTY(), Color: ios.ColorEnabled()})
	}
	if err != nil {
		return err
	}
	if opts.JUnit != "" {
		if err := writeReportFile(opts.JUnit, false, func(w *os.File) error { return testrun.WriteJUnit(w, results) }); err != nil {
			return fmt.Errorf("writing the JUnit report: %w", err)
		}
	}
	if p, ok := f.LookupEnv("GITHUB_STEP_SUMMARY"); ok && p != "" {
		if err := writeReportFile(p, true, func(w *os.File) error { return testrun.WriteMarkdown(w, results) }); err != nil {
			return fmt.Errorf("appending to $GITHUB_STEP_SUMMARY: %w", err)
		}
	}
	for _, r := range results {
		if r.Err != nil {
			return fmt.Errorf("%s: %w", r.Path, r.Err)
		}
	}
	if testrun.Summarize(results).Failed > 0 {
		return &ExitCodeError{Code: ExitError}
	}
	return nil
}

func writeReportFile(path string, appendTo bool, write func(*os.File) error) error {
	flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if appendTo {
		flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	w, err := os.OpenFile(path, flag, 0o644)
	if err != nil {
		return err
	}
	if err := write(w); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// testConnect connects for one file: the command line's server when it
// names one, else the file's.
func testConnect(ctx context.Context, opts *TestOptions, file *testrun.File, fs *testrun.Server, hooks testrun.Hooks) (testrun.Session, error) {
	o := opts.Server // a copy: files connect at once
	o.Lazy = true
	// Notifications go to the runner's expectations, not to stderr
	// between its lines; violations to the step that saw them.
	o.OnNotification = hooks.Notify
	o.OnViolation = hooks.Violation
	given := o.Demo || o.URL != "" || o.Server != "" || len(o.Command) > 0
	if !given {
		if fs == nil {
			return nil, &FlagError{Err: errors.New("no server: the file has no server: section and the command line names none (-s NAME, --url URL, --demo or a command after --)")}
		}
		o.Command, o.URL, o.Server = fs.Command, fs.URL, fs.Name
		if fs.Recording != "" {
			// The recording is served by this very program, as
			// `mcpctl mock FILE` would serve it to any client.
			exe, err := selfPath()
			if err != nil {
				return nil, fmt.Errorf("serving the recording %s: %w", fs.Recording, err)
			}
			o.Command = []string{exe, "mock", fs.Recording}
		}
		if len(o.Command) > 0 && o.Cwd == "" {
			// A command in a file is relative to the file, wherever
			// mcpctl test is run from.
			o.Cwd = filepath.Dir(file.Path)
		}
		for _, k := range sortedKeys(fs.Headers) {
			o.Headers = append(o.Headers, k+": "+fs.Headers[k])
		}
		for _, k := range sortedKeys(fs.Env) {
			o.Env = append(o.Env, k+"="+fs.Env[k])
		}
		if fs.Era != "" && !o.Given["era"] {
			o.Era = fs.Era
			given := map[string]bool{"era": true}
			for k, v := range o.Given {
				given[k] = v
			}
			o.Given = given
		}
	}
	s, err := opts.Factory.Connect(ctx, &o)
	if err != nil {
		return nil, err
	}
	return testSession{s}, nil
}

// testSession is a session as the runner needs it: Settle waits for the
// checks of the results received so far, so that a violation is reported
// as the step's that received it.
type testSession struct{ *session.Session }

// Settle implements [testrun.Settler].
func (s testSession) Settle() { s.Checks().Wait() }

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// testInit writes a starter test file for the command line's server.
func testInit(ctx context.Context, opts *TestOptions) error {
	f := opts.Factory
	path := filepath.Join(testrun.DefaultDir, "server"+testrun.Suffix)
	if len(opts.Paths) == 1 {
		path = opts.Paths[0]
	}
	if _, err := os.Stat(path); err == nil {
		return flagErrorf("--init: %s exists already; give another path or remove it", path)
	}
	o := opts.Server
	o.Lazy = true
	// Notifications go nowhere: the probe's calls would print them.
	o.OnNotification = func(client.Notification) {}
	s, err := f.Connect(ctx, &o)
	if err != nil {
		return err
	}
	defer s.Close()
	// Headers and env are left out: they may hold secrets.
	server := &testrun.Server{Command: opts.Server.Command, URL: opts.Server.URL, Name: opts.Server.Server}
	if opts.Server.Demo || (len(server.Command) == 0 && server.URL == "" && server.Name == "") {
		server = nil
	}
	res, err := testrun.Init(ctx, testSession{s}, path, server)
	if err != nil {
		return fmt.Errorf("--init: %s: %w", s.Name(), err)
	}
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("--init: %w", err)
		}
	}
	if err := os.WriteFile(path, res.File, 0o644); err != nil {
		return fmt.Errorf("--init: %w", err)
	}
	errOut := f.IOStreams.ErrOut
	for _, n := range res.Notes {
		fmt.Fprintln(errOut, "mcpctl: "+f.Redactor().String(render.Sanitize(n)))
	}
	fmt.Fprintf(errOut, "wrote %s (%d smoke tests for %d tools) and %s; run mcpctl test %s\n", path, res.Tests, res.Tools, res.Snapshot, path)
	return nil
}

// selfPath is how to run this mcpctl again from another folder: the name
// it was started by, made absolute (found on PATH when it has no slash),
// so that a program that dispatches on its name is started by the same
// name; else the executable's own path.
func selfPath() (string, error) {
	if name := os.Args[0]; name != "" {
		if strings.ContainsRune(name, filepath.Separator) {
			return filepath.Abs(name)
		}
		if p, err := exec.LookPath(name); err == nil {
			return filepath.Abs(p)
		}
	}
	return os.Executable()
}
