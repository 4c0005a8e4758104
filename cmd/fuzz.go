package cmd

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/argfuzz"
	"github.com/mcpctl/mcpctl/session"
)

// FuzzOptions are the options of `mcpctl fuzz`.
type FuzzOptions struct {
	Factory          *Factory
	Server           ServerOptions
	Tool             string
	Seed             uint64
	MaxCalls         int
	Duration         time.Duration
	Format           string // text or json
	JUnit            string // a file for a JUnit XML report
	AllowDestructive bool
}

// fuzzTimeout is fuzz's --timeout unless given: a hang costs one per
// occurrence, and the minimising of it several.
const fuzzTimeout = 5 * time.Second

// NewCmdFuzz builds `mcpctl fuzz`. runF replaces the run function in tests.
func NewCmdFuzz(f *Factory, runF func(*FuzzOptions) error) *cobra.Command {
	opts := &FuzzOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "fuzz <tool> [flags] [-- server command...]",
		Short: "Call a tool with generated arguments to find crashes and hangs",
		Long: `Call a tool many times with arguments generated from its inputSchema:
valid ones spread over the schema's space (types, formats, enums, bounds,
lengths, nesting, optional properties present or not) and, every third
call, invalid ones at its edges. The same --seed makes the same calls.

A finding is the server exiting, a call exceeding --timeout (default 5s
here), a JSON-RPC internal error (-32603) where an isError result was due,
or a result breaking the tool's outputSchema or the official schema. Each
is minimised to the fewest, simplest arguments that still fail the same
way, and printed as the mcpctl call line that reproduces it. A stdio
server that exits is started again; an HTTP server that stops answering
cannot be, so the run stops there with what it found. Findings exit 5.

Every call passes the tool policy and the audit trail; a refusal stops the
run (exit 9). Tools annotated destructive are refused without
--allow-destructive. Guide: docs/load-and-fuzz.md.`,
		Example: `  mcpctl fuzz add --demo
  mcpctl fuzz weather --demo --seed 7 --max-calls 500 -o json
  mcpctl fuzz search --duration 1m --junit fuzz.xml -- npx -y my-mcp-server
  mcpctl fuzz lookup --url http://127.0.0.1:3001/mcp --timeout 2s`,
		RunE: func(cmd *cobra.Command, args []string) error {
			args = setServerArgs(cmd, args, &opts.Server)
			if len(args) != 1 {
				return flagErrorf("fuzz needs the name of one tool, e.g. %s", f.commandHint("fuzz add", "--demo"))
			}
			opts.Tool = args[0]
			switch {
			case opts.Format != "text" && opts.Format != "json":
				return flagErrorf("invalid --output %q: expected text or json", opts.Format)
			case opts.MaxCalls < 1:
				return flagErrorf("--max-calls must be at least 1, got %d", opts.MaxCalls)
			case opts.Duration < 0:
				return flagErrorf("--duration must not be negative, got %s (0: stop at --max-calls)", opts.Duration)
			}
			if !cmd.Flags().Changed("seed") {
				opts.Seed = rand.Uint64() % 1_000_000
			}
			if !cmd.Flags().Changed("timeout") {
				opts.Server.Timeout = fuzzTimeout
			}
			if runF != nil {
				return runF(opts)
			}
			return fuzzRun(cmd.Context(), opts)
		},
	}
	addServerFlags(cmd, &opts.Server)
	inSection(cmd, "Fuzz", func() {
		fl := cmd.Flags()
		fl.Uint64Var(&opts.Seed, "seed", 0, "Seed of the generated arguments (default: a random one, printed)")
		fl.IntVar(&opts.MaxCalls, "max-calls", 200, "Generate at most `N` cases")
		fl.DurationVar(&opts.Duration, "duration", 0, "Stop after this `duration` (default: at --max-calls)")
		fl.BoolVar(&opts.AllowDestructive, "allow-destructive", false, "Fuzz a tool annotated destructiveHint: true")
		fl.StringVarP(&opts.Format, "output", "o", "text", "Output `format`: text or json")
		fl.StringVar(&opts.JUnit, "junit", "", "Write a JUnit XML report to `FILE`")
	})
	return cmd
}

// fuzzSession is a session with the protocol violations seen in it.
type fuzzSession struct {
	*session.Session
	mu   *sync.Mutex
	seen *[]string
}

func (s fuzzSession) Violations() []string {
	s.Checks().Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	out := *s.seen
	*s.seen = nil
	return out
}

func fuzzRun(ctx context.Context, opts *FuzzOptions) error {
	f := opts.Factory
	connect := func(ctx context.Context) (argfuzz.Session, error) {
		var mu sync.Mutex
		var seen []string
		so := opts.Server
		so.Lazy = true
		so.OnViolation = func(msg string) {
			mu.Lock()
			seen = append(seen, msg)
			mu.Unlock()
		}
		s, err := f.Connect(ctx, &so)
		if err != nil {
			return nil, err
		}
		return fuzzSession{Session: s, mu: &mu, seen: &seen}, nil
	}
	first, err := connect(ctx)
	if err != nil {
		return err
	}
	name := first.(fuzzSession).Name()
	tool, err := destructiveChecked(ctx, f, first.(fuzzSession).Session, opts.Tool, opts.AllowDestructive)
	if err != nil {
		first.Close()
		return err
	}
	// The run's first session is this one; later ones are opened anew.
	open := connect
	connect = func(ctx context.Context) (argfuzz.Session, error) {
		if first != nil {
			s := first
			first = nil
			return s, nil
		}
		return open(ctx)
	}
	var valid func(map[string]any) bool
	if sch, err := f.toolSchema(tool.InputSchema); err == nil && len(tool.InputSchema) > 0 {
		valid = func(args map[string]any) bool {
			v, unknown := sch.ValidateArgs(args, false)
			return len(v) == 0 && unknown == 0
		}
	}
	ios := f.IOStreams
	fmt.Fprintf(ios.ErrOut, "fuzzing %s with seed %d (--seed %d repeats this run)\n", tool.Name, opts.Seed, opts.Seed)
	fo := argfuzz.Options{
		Tool: tool, Connect: connect, Seed: opts.Seed,
		MaxCalls: opts.MaxCalls, Duration: opts.Duration, Timeout: opts.Server.Timeout,
		Valid: valid, Server: serverWords(&opts.Server),
	}
	if ios.IsStderrTTY() {
		fo.Progress = func(calls, findings int) {
			fmt.Fprintf(ios.ErrOut, "\r\x1b[K%d calls, %d findings", calls, findings)
		}
	}
	rep, runErr := argfuzz.Run(ctx, fo)
	if fo.Progress != nil {
		fmt.Fprint(ios.ErrOut, "\r\x1b[K")
	}
	if rep == nil {
		return runErr
	}
	red := f.Redactor()
	for _, fd := range rep.Findings {
		fd.Reproduce = red.String(fd.Reproduce)
	}
	if opts.Format == "json" {
		err = rep.WriteJSON(ios.Out)
	} else {
		err = rep.WriteText(ios.Out)
	}
	if err != nil {
		return err
	}
	if opts.JUnit != "" {
		if err := writeJUnitFile(opts.JUnit, rep); err != nil {
			return err
		}
	}
	if gone := (*argfuzz.ServerGoneError)(nil); errors.As(runErr, &gone) && len(rep.Findings) > 0 {
		// A server mcpctl did not start cannot be restarted: the findings
		// so far are the outcome (the last one as far as it was minimised
		// before the server went), not a connection failure.
		return &ExitCodeError{Code: ExitValidation, Msg: fmt.Sprintf(
			"fuzzing %s on %s: %v; %s so far (the last not minimised further): restart the server to go on",
			tool.Name, name, gone, problems(len(rep.Findings)))}
	}
	if runErr != nil {
		return fmt.Errorf("fuzzing %s on %s: %w", tool.Name, name, runErr)
	}
	if len(rep.Findings) > 0 {
		return &ExitCodeError{Code: ExitValidation, Msg: fmt.Sprintf("fuzzing %s found %s", tool.Name, problems(len(rep.Findings)))}
	}
	return nil
}

// problems is n problems in words.
func problems(n int) string {
	if n == 1 {
		return "1 problem"
	}
	return fmt.Sprintf("%d problems", n)
}

func writeJUnitFile(path string, rep *argfuzz.Report) error {
	file, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--junit: %w", err)
	}
	if err := rep.WriteJUnit(file); err != nil {
		file.Close()
		return fmt.Errorf("--junit: writing %s: %w", path, err)
	}
	return file.Close()
}

// serverWords are the words of o's server selection on a command line,
// for a reproducing `mcpctl call` line.
func serverWords(o *ServerOptions) []string {
	var w []string
	switch {
	case o.Demo:
		w = append(w, "--demo")
	case o.Server != "":
		w = append(w, "-s", o.Server)
	case o.URL != "":
		w = append(w, "--url", o.URL)
		if o.Transport != "" && o.Transport != "auto" {
			w = append(w, "--transport", o.Transport)
		}
	}
	for _, h := range o.Headers {
		w = append(w, "-H", h)
	}
	for _, e := range o.Env {
		w = append(w, "-e", e)
	}
	if len(o.Command) > 0 {
		w = append(w, "--")
		w = append(w, o.Command...)
	}
	return w
}
