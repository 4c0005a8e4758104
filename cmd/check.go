package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/proxy"
	"github.com/mcpctl/mcpctl/render"
	"github.com/mcpctl/mcpctl/testrun"
)

// CheckOptions are the options of `mcpctl check`.
type CheckOptions struct {
	// Session is a proxy session's id (or "latest"), a log file, or "-".
	Session     string
	Gate        proxy.Gate
	Baseline    string
	Update      bool
	JUnit       string
	Output      OutputOptions
	allowKinds  []string
	maxDuration time.Duration
}

// NewCmdCheck builds `mcpctl check [SESSION|FILE|-]`.
func NewCmdCheck(f *Factory) *cobra.Command {
	opts := &CheckOptions{}
	cmd := &cobra.Command{
		Use:   "check [SESSION|FILE|-]",
		Short: "Gate a captured session in CI: protocol findings, tool drift, expected tools",
		Long: `Check a captured session: a proxy session (its id, a prefix of it, or
latest, the default), a session log, trace or recording file, or - for
stdin. The session is replayed through the proxy's checks and passes
when it has no schema violations against the negotiated revision, no
stdout pollution, no responses without a request or duplicate ids, no
JSON-RPC error answers, no request left unanswered, no tools changing
mid-session, no pinned tool changed or hiding text, and no frames the
checks missed (--allow KIND lets a kind through: schema, pollution,
malformed, unknown-id, duplicate-id, error, pending, tools-changed,
pin-changed, hidden-text, dropped).

--baseline FILE pins the server's tools: the session's last full
tools/list must match it (--update-baseline writes it from the session).
--expect-tool and --forbid-tool name tools the host must or must not have
called; --max-duration bounds every call's latency.

Exit 0 when everything holds, 5 when something does not; -o json prints
the verdicts and the session's calls, --junit FILE writes JUnit XML.`,
		Example: `  mcpctl call echo message=hi -- mcpctl proxy -- npx -y @modelcontextprotocol/server-everything
  mcpctl check
  mcpctl check latest --expect-tool echo --forbid-tool delete_file --max-duration 30s
  mcpctl check latest --baseline tools.json --update-baseline
  mcpctl check latest --baseline tools.json --junit check.xml`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Session = args[0]
			}
			if err := opts.Output.validate(); err != nil {
				return err
			}
			return runCheck(f, opts)
		},
	}
	cmd.Flags().StringArrayVar(&opts.Gate.ExpectTools, "expect-tool", nil, "Fail unless the tool `NAME` was called (repeatable)")
	cmd.Flags().StringArrayVar(&opts.Gate.ForbidTools, "forbid-tool", nil, "Fail if the tool `NAME` was called (repeatable)")
	cmd.Flags().DurationVar(&opts.maxDuration, "max-duration", 0, "Fail if any call took longer than `DURATION`")
	cmd.Flags().StringArrayVar(&opts.allowKinds, "allow", nil, "Let findings of `KIND` pass (repeatable; see above)")
	cmd.Flags().StringVar(&opts.Baseline, "baseline", "", "Compare the session's tools with the pinned ones in `FILE`")
	cmd.Flags().BoolVar(&opts.Update, "update-baseline", false, "Write the session's tools to the --baseline file instead of comparing")
	cmd.Flags().StringVar(&opts.JUnit, "junit", "", "Write a JUnit XML report to `FILE`")
	addOutputFlags(cmd, &opts.Output)
	return cmd
}

// checkKinds are the flag kinds --allow takes.
var checkKinds = []string{proxy.FlagSchema, proxy.FlagPollution, proxy.FlagMalformed, proxy.FlagUnknownID, proxy.FlagDuplicate, proxy.FlagError, proxy.FlagPending, proxy.FlagTools, proxy.FlagDropped, proxy.PinChanged, proxy.PinHidden}

func runCheck(f *Factory, opts *CheckOptions) error {
	for _, k := range opts.allowKinds {
		if !slices.Contains(checkKinds, k) {
			return flagErrorf("--allow %s: not a kind of finding; one of %s", k, strings.Join(checkKinds, ", "))
		}
	}
	if opts.maxDuration < 0 {
		return flagErrorf("--max-duration must not be negative, got %s", opts.maxDuration)
	}
	if opts.Update && opts.Baseline == "" {
		return flagErrorf("--update-baseline needs --baseline FILE")
	}
	opts.Gate.Allow, opts.Gate.MaxDuration = opts.allowKinds, opts.maxDuration
	name, r, closeFn, err := openCheckInput(f, opts.Session)
	if err != nil {
		return err
	}
	checks := proxy.Checks{KeepCalls: true}
	last, err := proxy.ReadLog(r, name, &checks)
	closeFn()
	if err := r.result(f, name, "check", err); err != nil {
		return err
	}
	checks.End(last)
	sum := checks.Summary()

	if opts.Baseline != "" {
		if opts.Update {
			if sum.Tools == nil {
				return fmt.Errorf("%s never listed its tools (tools/list): nothing to pin in %s", name, opts.Baseline)
			}
			if err := writeBaseline(opts.Baseline, sum.Tools); err != nil {
				return err
			}
			fmt.Fprintf(f.IOStreams.ErrOut, "pinned %d tools in %s\n", len(sum.Tools), opts.Baseline)
		} else {
			base, err := readBaseline(opts.Baseline)
			if err != nil {
				return err
			}
			opts.Gate.Baseline = base
		}
	}
	verdicts := opts.Gate.Judge(sum)
	failed := 0
	for _, v := range verdicts {
		if !v.Passed {
			failed++
		}
	}
	p := f.IOStreams.Printer()
	if opts.Output.structured() {
		if err := opts.Output.write(p, map[string]any{"session": name, "passed": failed == 0, "checks": verdicts, "summary": sum}); err != nil {
			return err
		}
	} else {
		out := f.IOStreams.Out
		for _, v := range verdicts {
			mark := "ok  "
			if !v.Passed {
				mark = "FAIL"
			}
			fmt.Fprintf(out, "%s %s\n", mark, v.Name)
			for _, line := range strings.Split(v.Failure, "\n") {
				if line != "" {
					fmt.Fprintf(out, "     %s\n", f.Redactor().String(line))
				}
			}
		}
		fmt.Fprintf(out, "%s: %d calls, %d of %d checks failed\n", name, sum.CallCount, failed, len(verdicts))
	}
	// The report file is written after the verdicts are shown, so that
	// a --junit path that cannot be written loses nothing but itself.
	if opts.JUnit != "" {
		if err := writeReportFile(opts.JUnit, false, func(w *os.File) error { return testrun.WriteJUnit(w, checkJUnit(name, verdicts)) }); err != nil {
			return fmt.Errorf("writing the JUnit report: %w", err)
		}
	}
	if failed > 0 {
		return &ExitCodeError{Code: ExitValidation, Msg: fmt.Sprintf("%s: %d of %d checks failed", name, failed, len(verdicts))}
	}
	return nil
}

// openCheckInput opens what `check` and `export` read: stdin, a file, or
// a proxy session of the state dir.
func openCheckInput(f *Factory, ref string) (string, *logInput, func(), error) {
	if ref == "-" {
		return "stdin", &logInput{r: f.IOStreams.In}, func() {}, nil
	}
	if ref != "" && ref != "latest" {
		fi, err := os.Stat(ref)
		switch {
		case err == nil && fi.IsDir():
			return "", nil, nil, flagErrorf("%s is a directory: give a session log file, a proxy session id (mcpctl proxy ls) or - for stdin", ref)
		case err == nil:
			file, err := os.Open(ref)
			if err != nil {
				return "", nil, nil, flagErrorf("opening %s: %v", ref, err)
			}
			return ref, &logInput{r: file}, func() { file.Close() }, nil
		case !errors.Is(err, fs.ErrNotExist):
			return "", nil, nil, flagErrorf("opening %s: %v", ref, err)
		}
	}
	store, err := f.proxyStore()
	if err != nil {
		return "", nil, nil, err
	}
	si, err := store.Find(ref)
	if err != nil {
		if ref != "" && strings.ContainsAny(ref, `/\.`) {
			return "", nil, nil, flagErrorf("no file %s and no proxy session of that id", ref)
		}
		return "", nil, nil, flagErrorf("%v", err)
	}
	file, err := os.Open(si.Path)
	if err != nil {
		return "", nil, nil, err
	}
	return "session " + si.ID, &logInput{r: file}, func() { file.Close() }, nil
}

// logInput is a session log being read, noting whether it held anything
// but white space.
type logInput struct {
	r    io.Reader
	seen bool
}

func (l *logInput) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if !l.seen && len(bytes.TrimSpace(p[:n])) > 0 {
		l.seen = true
	}
	return n, err
}

// result is what reading the log named name to do verb ends with: a log
// whose last line was cut off is checked as far as it goes, with a
// warning, and an empty one is an error, since a gate passing a session
// that recorded nothing would hide that the proxy never ran.
func (l *logInput) result(f *Factory, name, verb string, err error) error {
	var cut *proxy.CutOffError
	if errors.As(err, &cut) {
		ios := f.IOStreams
		fmt.Fprintln(ios.ErrOut, render.Warning(cut.Error(), ios.ColorErrEnabled()))
		return nil
	}
	if err != nil {
		return err
	}
	if !l.seen {
		return fmt.Errorf("%s is empty: no session log entries to %s (was the proxy in the host's data path?)", name, verb)
	}
	return nil
}

// checkJUnit is the verdicts as a test run, one test per check.
func checkJUnit(name string, verdicts []proxy.Verdict) []testrun.FileResult {
	res := testrun.FileResult{Path: "mcpctl check " + name}
	for _, v := range verdicts {
		res.Tests = append(res.Tests, testrun.TestResult{Name: v.Name, Passed: v.Passed, Failure: v.Failure})
	}
	return []testrun.FileResult{res}
}

// baselineFile is the --baseline file: the pinned tools, sorted by name.
type baselineFile struct {
	Tools []json.RawMessage `json:"tools"`
}

func writeBaseline(path string, tools map[string]json.RawMessage) error {
	names := make([]string, 0, len(tools))
	for n := range tools {
		names = append(names, n)
	}
	slices.Sort(names)
	var b baselineFile
	for _, n := range names {
		b.Tools = append(b.Tools, tools[n])
	}
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return err
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("writing the baseline: %w", err)
		}
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing the baseline: %w", err)
	}
	return nil
}

func readBaseline(path string) (map[string]json.RawMessage, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, flagErrorf("no baseline %s: pin one with --baseline %s --update-baseline", path, path)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the baseline: %w", err)
	}
	var b baselineFile
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, flagErrorf("the baseline %s is not a tools file: %v", path, err)
	}
	out := make(map[string]json.RawMessage, len(b.Tools))
	for _, t := range b.Tools {
		var named struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(t, &named) != nil || named.Name == "" {
			return nil, flagErrorf("the baseline %s has a tool without a name", path)
		}
		out[named.Name] = t
	}
	return out, nil
}
