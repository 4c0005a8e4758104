package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/config"
	"github.com/mcpctl/mcpctl/loadtest"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/session"
)

// BenchOptions are the options of `mcpctl bench`.
type BenchOptions struct {
	Factory *Factory
	Server  ServerOptions
	// Tool is the tool to call, "" to time tools/list (or ping, with
	// Ping); Args its key=value arguments, ArgsJSON --args.
	Tool     string
	Args     []string
	ArgsJSON string
	Ping     bool

	Concurrency int
	Warmup      int
	Requests    int
	Duration    time.Duration
	Format      string // text or json
	// Compare is a baseline report (-o json of an earlier run);
	// MaxRegression how much worse a figure may be, in percent.
	Compare          string
	MaxRegression    string
	AllowDestructive bool
}

// NewCmdBench builds `mcpctl bench`. runF replaces the run function in
// tests.
func NewCmdBench(f *Factory, runF func(*BenchOptions) error) *cobra.Command {
	opts := &BenchOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "bench [tool [key=value | key:=json ...]] [flags] [-- server command...]",
		Short: "Load-test a server: throughput and latency percentiles",
		Long: `Make many requests at once and report throughput, latency (min, mean,
p50, p90, p99, max) and errors by kind. Over stdio one session carries
--concurrency requests in flight; over HTTP each of them has its own
session. Without a tool, tools/list is timed (--ping: ping).

The latency is what mcpctl sees, its own share included (small beside
most servers: docs/performance.md measures it). Every call passes the tool
policy and the audit trail; a refusal stops the run (exit 9). Tools
annotated destructive are refused without --allow-destructive.

-o json prints a report that --compare reads back as a baseline: a
throughput, p50 or p90 more than --max-regression worse fails (exit 5).
Guide: docs/load-and-fuzz.md.`,
		Example: `  mcpctl bench --demo echo message=hi --requests 500 --concurrency 8
  mcpctl bench --demo --ping --requests 500
  mcpctl bench --demo echo message=hi -n 500 -o json > baseline.json
  mcpctl bench --url http://127.0.0.1:3001/mcp --duration 30s -c 16
  mcpctl bench -s api search q=x -n 1000 --compare baseline.json --max-regression 10%`,
		RunE: func(cmd *cobra.Command, args []string) error {
			args = setServerArgs(cmd, args, &opts.Server)
			if len(args) > 0 {
				opts.Tool, opts.Args = args[0], args[1:]
			}
			if err := opts.validate(cmd); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return benchRun(cmd.Context(), opts)
		},
	}
	addServerFlags(cmd, &opts.Server)
	inSection(cmd, "Load", func() {
		fl := cmd.Flags()
		fl.IntVarP(&opts.Concurrency, "concurrency", "c", 1, "Requests in flight at once (over HTTP, sessions)")
		fl.IntVarP(&opts.Requests, "requests", "n", 0, "Make `N` requests in all (instead of --duration)")
		fl.DurationVar(&opts.Duration, "duration", 0, "Run for this `duration` (default 10s unless --requests)")
		fl.IntVar(&opts.Warmup, "warmup", 1, "Requests per session made first and not counted")
		fl.BoolVar(&opts.Ping, "ping", false, "Without a tool, time ping instead of tools/list")
		fl.StringVar(&opts.ArgsJSON, "args", "", "The tool's arguments as a JSON object, @file, or - for stdin")
		fl.BoolVar(&opts.AllowDestructive, "allow-destructive", false, "Call a tool annotated destructiveHint: true")
		fl.StringVarP(&opts.Format, "output", "o", "text", "Output `format`: text or json")
		fl.StringVar(&opts.Compare, "compare", "", "Compare with a baseline `FILE` (-o json of an earlier run)")
		fl.StringVar(&opts.MaxRegression, "max-regression", "10%", "With --compare, how much worse a figure may be")
	})
	return cmd
}

// maxBenchConcurrency bounds --concurrency.
const maxBenchConcurrency = 1024

func (o *BenchOptions) validate(cmd *cobra.Command) error {
	switch {
	case o.Format != "text" && o.Format != "json":
		return flagErrorf("invalid --output %q: expected text or json", o.Format)
	case o.Concurrency < 1:
		return flagErrorf("--concurrency must be at least 1, got %d", o.Concurrency)
	case o.Concurrency > maxBenchConcurrency:
		// Over HTTP each worker opens a session before the run starts:
		// a mistyped count would open that many, one by one.
		return flagErrorf("--concurrency must be at most %d, got %d", maxBenchConcurrency, o.Concurrency)
	case o.Warmup < 0:
		return flagErrorf("--warmup must be positive, got %d", o.Warmup)
	case o.Requests < 0 || (o.Requests == 0 && cmd.Flags().Changed("requests")):
		return flagErrorf("--requests must be positive, got %d", o.Requests)
	case o.Duration < 0 || (o.Duration == 0 && cmd.Flags().Changed("duration")):
		return flagErrorf("--duration must be positive, got %s", o.Duration)
	case cmd.Flags().Changed("requests") && cmd.Flags().Changed("duration"):
		return flagErrorf("--requests and --duration both say when to stop: give one")
	case o.Ping && o.Tool != "":
		return flagErrorf("--ping times ping, not a tool: drop --ping or the tool %q", o.Tool)
	case o.Tool == "" && (len(o.Args) > 0 || o.ArgsJSON != ""):
		return flagErrorf("arguments need a tool to call")
	}
	if o.Requests == 0 && o.Duration <= 0 {
		o.Duration = 10 * time.Second
	}
	if _, err := parsePercent(o.MaxRegression); err != nil {
		return flagErrorf("--max-regression: %v", err)
	}
	return nil
}

// parsePercent reads "10%" or "10".
func parsePercent(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("want a percentage such as 10%%, got %q", s)
	}
	return v, nil
}

// benchReport is bench's JSON output: the report, and the comparison when
// --compare was given.
type benchReport struct {
	loadtest.Report
	Comparison []loadtest.Change `json:"comparison,omitempty"`
}

func benchRun(ctx context.Context, opts *BenchOptions) error {
	f := opts.Factory
	var base *loadtest.Report
	if opts.Compare != "" {
		b, err := loadtest.ReadReport(opts.Compare)
		if err != nil {
			return &FlagError{Err: fmt.Errorf("--compare: %w", err)}
		}
		base = &b
	}
	transportName, err := f.transportName(&opts.Server)
	if err != nil {
		return err
	}
	opts.Server.Lazy = true
	first, err := f.Connect(ctx, &opts.Server)
	if err != nil {
		return err
	}
	sessions := []*session.Session{first}
	defer func() {
		for _, s := range sessions {
			s.Close()
		}
	}()
	target := loadtest.Target{Ping: opts.Ping}
	if opts.Tool != "" {
		if target, err = benchTarget(ctx, f, first, opts); err != nil {
			return err
		}
	}
	if transportName == "http" {
		// One session a worker, as that many clients would open.
		for len(sessions) < opts.Concurrency {
			s, err := f.Connect(ctx, &opts.Server)
			if err != nil {
				return err
			}
			sessions = append(sessions, s)
		}
	}
	lo := loadtest.Options{Target: target, Concurrency: opts.Concurrency, Requests: opts.Requests, Duration: opts.Duration,
		Warmup: opts.Warmup * len(sessions)}
	for _, s := range sessions {
		lo.Sessions = append(lo.Sessions, s)
	}
	ios := f.IOStreams
	if ios.IsStderrTTY() {
		lo.Progress = func(done, failed uint64, elapsed time.Duration) {
			fmt.Fprintf(ios.ErrOut, "\r\x1b[K%d requests, %d errors, %.0f/s, %s", done, failed,
				float64(done)/elapsed.Seconds(), elapsed.Truncate(time.Second))
		}
	}
	res, err := loadtest.Run(ctx, lo)
	if lo.Progress != nil {
		fmt.Fprint(ios.ErrOut, "\r\x1b[K")
	}
	if err != nil {
		return fmt.Errorf("bench of %s on %s: %w", target, first.Name(), err)
	}
	out := benchReport{Report: loadtest.NewReport(lo, transportName, res)}
	var regressed bool
	if base != nil {
		maxPct, _ := parsePercent(opts.MaxRegression)
		out.Comparison = loadtest.Compare(*base, out.Report, maxPct)
		regressed = loadtest.Regressed(out.Comparison)
	}
	if opts.Format == "json" {
		data, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(ios.Out, string(data))
	} else {
		if err := out.WriteText(ios.Out); err != nil {
			return err
		}
		if base != nil {
			maxPct, _ := parsePercent(opts.MaxRegression)
			if err := loadtest.WriteComparison(ios.Out, opts.Compare, out.Comparison, maxPct); err != nil {
				return err
			}
		}
	}
	if regressed {
		return &ExitCodeError{Code: ExitValidation, Msg: fmt.Sprintf("slower than the baseline %s by more than %s", opts.Compare, opts.MaxRegression)}
	}
	return nil
}

// benchTarget finds the tool, refuses a destructive one unless allowed,
// and types and checks its arguments as `mcpctl call` does.
func benchTarget(ctx context.Context, f *Factory, s *session.Session, opts *BenchOptions) (loadtest.Target, error) {
	tool, err := destructiveChecked(ctx, f, s, opts.Tool, opts.AllowDestructive)
	if err != nil {
		return loadtest.Target{}, err
	}
	argOpts := schema.ArgOptions{Stdin: f.IOStreams.In, ArgsJSON: opts.ArgsJSON, MaxSize: argumentLimit(&opts.Server)}
	var mismatches []schema.Violation
	argOpts.Mismatches = &mismatches
	args, err := f.parseToolArgs(tool, opts.Args, argOpts)
	if err != nil {
		return loadtest.Target{}, err
	}
	if err := argumentsCheck(f, tool, opts.Server.Strict, false)(args, mismatches); err != nil {
		return loadtest.Target{}, err
	}
	if args == nil {
		args = map[string]any{}
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return loadtest.Target{}, err
	}
	return loadtest.Target{Tool: tool.Name, Args: raw}, nil
}

// destructiveChecked lists the tools, finds name and refuses it when its
// annotations say destructive (destructiveHint: true, not readOnlyHint:
// true) unless allow: bench and fuzz call a tool many times with
// arguments nobody chose.
func destructiveChecked(ctx context.Context, f *Factory, s *session.Session, name string, allow bool) (*client.Tool, error) {
	tool, err := lookupTool(ctx, f, s, name)
	if err != nil {
		return nil, err
	}
	if a := tool.Annotations; !allow && a != nil && a.DestructiveHint != nil && *a.DestructiveHint &&
		(a.ReadOnlyHint == nil || !*a.ReadOnlyHint) {
		return nil, flagErrorf("tool %q is annotated destructive (destructiveHint: true): calling it many times could do real damage; --allow-destructive calls it anyway", name)
	}
	return tool, nil
}

// transportName says how o reaches its server: "demo", "stdio" or "http".
// A named server's definition is looked up, not vetted or expanded
// (Connect does that, once).
func (f *Factory) transportName(o *ServerOptions) (string, error) {
	switch {
	case o.Demo:
		return "demo", nil
	case o.URL != "":
		return "http", nil
	case o.Server == "":
		return "stdio", nil
	}
	cat, err := f.Catalog()
	if err != nil {
		return "", err
	}
	def, _, err := cat.Find(o.Server)
	if err != nil {
		return "", &FlagError{Err: err}
	}
	if def.Transport == config.TransportStdio {
		return "stdio", nil
	}
	return "http", nil
}
