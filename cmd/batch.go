package cmd

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/batch"
	"github.com/mcpctl/mcpctl/client"
)

func addBatchFlags(cmd *cobra.Command, opts *CallOptions) {
	cmd.Flags().StringVar(&opts.Batch, "batch", "", `Run the calls in an NDJSON `+"`file`"+` (- for stdin), one `+batch.LineForm+` a line, in one session; prints one JSON result a line`)
	cmd.Flags().IntVar(&opts.Parallel, "parallel", 1, "With --batch, how many calls run at once (results keep the input's order)")
}

// validateBatch checks the flags of `call --batch`; args are the
// positional arguments left once the server command is taken out.
func (o *CallOptions) validateBatch(args []string) error {
	switch {
	case o.Batch == "":
		return flagErrorf("--parallel needs --batch FILE (or --batch - for stdin)")
	case len(args) > 0:
		return flagErrorf("--batch takes the tools and their arguments from its lines, not from the command line (got %q); a line is %s", args[0], batch.LineForm)
	case o.ArgsJSON != "":
		return flagErrorf("--args cannot be used with --batch: each line gives its own arguments")
	case o.SaveDir != "":
		return flagErrorf("--save-dir cannot be used with --batch: results are printed as JSON, media included")
	case o.Parallel < 1 || o.Parallel > batch.MaxParallel:
		return flagErrorf("--parallel must be between 1 and %d, got %d", batch.MaxParallel, o.Parallel)
	}
	if err := o.Output.validate(); err != nil {
		return err
	}
	if o.Output.Format == "yaml" || o.Output.JQ != "" {
		return flagErrorf("--batch prints one JSON object a line (NDJSON); -o yaml and --jq do not apply")
	}
	if err := checkLogLevelFlag(o.LogLevel); err != nil {
		return err
	}
	// Loads the keys now: the calls of --parallel sign at once.
	return o.Sign.validate()
}

// batchRun runs `mcpctl call --batch` (see package batch): it opens the
// input, connects, and lends the batch the command's checks, signing and
// exit codes.
func batchRun(ctx context.Context, opts *CallOptions) error {
	f := opts.Factory
	in, total, closeIn, err := openBatch(f, opts.Batch)
	if err != nil {
		return err
	}
	defer closeIn()

	opts.Server.Lazy = true
	opts.Server.Sign = &opts.Sign // the session's pipeline signs and verifies
	s, err := f.Connect(ctx, &opts.Server)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := applyLogLevel(ctx, f, s, opts.LogLevel); err != nil {
		return err
	}
	bo := batch.Options{
		In: in, Total: total,
		Out: f.IOStreams.Out, OutTTY: f.IOStreams.IsStdoutTTY(),
		Parallel:    opts.Parallel,
		MaxLineSize: opts.Server.MaxMessageSize, // a line is one request
		Server:      s.Name(),
		Task:        opts.Task,
		Shown:       shownDespite,
		UnknownTool: func(name string, tools []client.Tool) error {
			return unknownToolError(name, tools, f.commandHint("list", ""))
		},
		ExitCode: func(err error) int { return exitCode(err, false) },
		Redact:   f.Redactor().String,
	}
	if f.IOStreams.IsStderrTTY() {
		bo.Progress = batch.NewTerminalProgress(f.IOStreams.ErrOut)
	}
	if !opts.NoValidate {
		bo.CheckArguments = func(t *client.Tool) func(map[string]any) error {
			check := argumentsCheck(f, t, opts.Server.Strict, opts.AllowUnknown)
			return func(args map[string]any) error { return check(args, nil) }
		}
	}
	return batch.Run(ctx, s, bo)
}

// openBatch opens the input of --batch. total is its number of calls
// when that is cheap to know in advance (a regular file, and a terminal to
// show progress on), or 0.
func openBatch(f *Factory, name string) (in io.Reader, total int, closeIn func(), err error) {
	if name == "-" {
		return f.IOStreams.In, 0, func() {}, nil
	}
	file, err := os.Open(name)
	if err != nil {
		return nil, 0, nil, &FlagError{Err: fmt.Errorf("--batch: %w", err)}
	}
	if f.IOStreams.IsStderrTTY() {
		if fi, err := file.Stat(); err == nil && fi.Mode().IsRegular() {
			total = batch.CountLines(file)
			if _, err := file.Seek(0, io.SeekStart); err != nil {
				file.Close()
				return nil, 0, nil, fmt.Errorf("--batch: rewinding %s: %w", name, err)
			}
		}
	}
	return file, total, func() { file.Close() }, nil
}
