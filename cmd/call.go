package cmd

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/session"
	"github.com/mcpctl/mcpctl/transport"
)

// CallOptions are the options of `mcpctl call`.
type CallOptions struct {
	Factory    *Factory
	Server     ServerOptions
	Output     OutputOptions
	Tool       string
	Args       []string
	ArgsJSON   string
	SaveDir    string
	NoValidate bool
	// AllowUnknown sends arguments the inputSchema does not declare
	// (--allow-unknown); without it they fail the check before sending
	// unless the schema explicitly allows others.
	AllowUnknown bool
	Sign         SignOptions
	// Task asks for the call to run as a task (--task); a tool whose
	// taskSupport is "required" runs as one without it.
	Task     bool
	LogLevel string // --log-level: server logs at this level and above
	// Batch is --batch: a file of NDJSON calls, or "-" for stdin (see
	// batchRun); Parallel is how many of them run at once.
	Batch    string
	Parallel int
}

// NewCmdCall builds `mcpctl call`. runF replaces the run function in tests.
func NewCmdCall(f *Factory, runF func(*CallOptions) error) *cobra.Command {
	opts := &CallOptions{Factory: f, Sign: SignOptions{LoadKey: f.LoadKey}}
	cmd := &cobra.Command{
		Use:   "call <tool> [key=value | key:=json | key=@file ...] [flags] [-- server command...]",
		Short: "Call a tool",
		Long: `Call a tool with arguments typed by its inputSchema (the httpie convention):
  key=value     typed by the tool's inputSchema (integer, number, boolean
                parsed; string kept)
  key:=json     a raw JSON value, e.g. tags:='["a","b"]'
  key=@file     the file's contents
  --args JSON   the whole arguments object (or @file, or - for stdin);
                key=value arguments are merged over it

The arguments are checked before anything is sent: a wrong type, a missing
or unknown argument exits 5, every violation listed (--no-validate sends
them as given; --allow-unknown sends undeclared ones; a.b=v sets a nested
field). Text content is printed; images, audio and blobs are saved under
--save-dir (on a terminal, a cache folder) and their paths printed;
structuredContent is printed as JSON, once when the text restates it. A
tool result with isError: true exits 4, a JSON-RPC error 3.

A tool whose taskSupport is "required" (or "optional", with --task) runs as
a task: mcpctl polls it, shows its status on stderr and prints its result.
--batch FILE makes many calls in one session, one JSON line each (guide:
docs/batches.md). --sign-key and --verify-key sign the request and check
the result's signature (mcpctl help signing).`,
		Example: `  mcpctl call --demo add a=2 b=3
  mcpctl call --demo echo message='hello world'
  mcpctl call --demo weather city=Paris days=3 -o json
  mcpctl call --demo image --save-dir ./out
  mcpctl call echo message=hi -- npx -y @modelcontextprotocol/server-everything
  printf '{"tool":"add","arguments":{"a":1,"b":2}}\n' | mcpctl call --demo --batch -
  mcpctl call simulate-research-query topic=tides --timeout 2m -- npx -y @modelcontextprotocol/server-everything
` + exampleKey + `
  mcpctl call --sign-key env:MCP_SIGNING_KEY --verify-key env:MCP_SIGNING_KEY --canonical python --inherit-env get_weather city=Lyon -- python3 docs/signing_server.py`,
		RunE: func(cmd *cobra.Command, args []string) error {
			args = setServerArgs(cmd, args, &opts.Server)
			if cmd.Flags().Changed("batch") || cmd.Flags().Changed("parallel") {
				if err := opts.validateBatch(args); err != nil {
					return err
				}
				if runF != nil {
					return runF(opts)
				}
				return batchRun(cmd.Context(), opts)
			}
			if len(args) == 0 {
				return flagErrorf("call needs the name of a tool, e.g. %s", f.commandHint("call echo message=hi", "--demo"))
			}
			opts.Tool, opts.Args = args[0], args[1:]
			if err := opts.Output.validate(); err != nil {
				return err
			}
			if err := checkLogLevelFlag(opts.LogLevel); err != nil {
				return err
			}
			if err := opts.Sign.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return callRun(cmd.Context(), opts)
		},
	}
	addServerFlags(cmd, &opts.Server)
	addOutputFlags(cmd, &opts.Output)
	addSignFlags(cmd, &opts.Sign)
	inSection(cmd, "Argument", func() {
		cmd.Flags().StringVar(&opts.ArgsJSON, "args", "", "The arguments as a JSON object, @file, or - for stdin")
		cmd.Flags().BoolVar(&opts.NoValidate, "no-validate", false, "Send the arguments even if they break the tool's inputSchema (to test the server's own checks)")
		cmd.Flags().BoolVar(&opts.AllowUnknown, "allow-unknown", false, "Send arguments the tool's inputSchema does not declare")
	})
	inSection(cmd, "Call", func() {
		cmd.Flags().BoolVar(&opts.Task, "task", false, `Run the call as a task (for a tool whose taskSupport is "optional"; "required" ones always are)`)
		addLogLevelFlag(cmd, &opts.LogLevel)
		cmd.Flags().StringVar(&opts.SaveDir, "save-dir", "", "Folder for images, audio and blobs; files there are never replaced (default: on a terminal, a cache folder kept to the newest 100 files; piped, none)")
		addBatchFlags(cmd, opts)
	})
	return cmd
}

// callProgressToken is the progress token of `mcpctl call`'s request.
const callProgressToken = "mcpctl-call"

func callRun(ctx context.Context, opts *CallOptions) error {
	f := opts.Factory
	opts.Server.Lazy = true
	// Progress for the call tells a timeout from a server that never
	// answered: the count goes into the timeout's message.
	var progress atomic.Int64
	if opts.Server.OnNotification == nil {
		show := f.notificationPrinter()
		opts.Server.OnNotification = func(n client.Notification) {
			if n.Progress != nil && string(n.Progress.Token) == `"`+callProgressToken+`"` {
				progress.Add(1)
			}
			show(n)
		}
	}
	// The arguments go out in one message: a file larger than its limit
	// is refused before a server is started for it.
	argOpts := schema.ArgOptions{
		Stdin:    f.IOStreams.In,
		ArgsJSON: opts.ArgsJSON,
		MaxSize:  argumentLimit(&opts.Server),
	}
	if err := schema.CheckFileSizes(opts.Args, argOpts); err != nil {
		return err
	}
	// The session's pipeline signs the call and verifies its result.
	opts.Server.Sign = &opts.Sign
	s, err := f.Connect(ctx, &opts.Server)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := applyLogLevel(ctx, f, s, opts.LogLevel); err != nil {
		return err
	}

	tool, err := lookupTool(ctx, f, s, opts.Tool)
	if err != nil {
		return err
	}
	// A value of the wrong type is kept as typed: validation lists it with
	// every other violation (exit 5), and --no-validate sends the text.
	var mismatches []schema.Violation
	argOpts.Mismatches = &mismatches
	args, err := f.parseToolArgs(tool, opts.Args, argOpts)
	if err != nil {
		return err
	}
	if !opts.NoValidate {
		if err := argumentsCheck(f, tool, opts.Server.Strict, opts.AllowUnknown)(args, mismatches); err != nil {
			return err
		}
	}
	mode := client.TaskAuto
	if opts.Task {
		mode = client.TaskAsk
	}
	asTask, err := s.PlanTask(tool, mode)
	if err != nil {
		var se *client.TaskSupportError
		if errors.As(err, &se) && se.Asked {
			return &FlagError{Err: fmt.Errorf("--task: %w", err)}
		}
		return fmt.Errorf("calling tool %q on %s: %w", tool.Name, s.Name(), err)
	}
	callOpts := client.CallOptions{ProgressToken: callProgressToken}
	var res *client.CallToolResult
	if asTask {
		res, err = callTask(ctx, f, s, tool.Name, args, callOpts)
	} else {
		res, err = s.CallTool(ctx, tool.Name, args, callOpts)
	}
	if f.IOStreams.IsStderrTTY() {
		// Clear a progress line, if one was drawn.
		fmt.Fprint(f.IOStreams.ErrOut, "\r\x1b[K")
	}
	// A result that breaks its outputSchema, or whose audit record was
	// lost, is still shown; one that fails its signature check is not.
	var afterErr error
	if res != nil && err != nil && shownDespite(err) {
		afterErr, err = err, nil
	}
	if err != nil {
		if res != nil {
			return err // the signature check: its error names the tool
		}
		var te *client.TimeoutError
		if errors.As(err, &te) && te.Progress == 0 {
			te.Progress = int(progress.Load())
		}
		return fmt.Errorf("calling tool %q on %s: %w", tool.Name, s.Name(), err)
	}
	if opts.Sign.verifying() {
		fmt.Fprintln(f.IOStreams.ErrOut, "signature verified")
	}
	p := f.printer()
	if opts.Output.structured() {
		if err := opts.Output.write(p, opts.Sign.jsonOutput(res.Raw)); err != nil {
			return err
		}
	} else if err := f.printToolResult(p, res, opts.SaveDir, opts.Server.Verbose); err != nil {
		return err
	}
	var auditErr *session.AuditError
	if res.IsError && !errors.As(afterErr, &auditErr) {
		return &ExitCodeError{Code: ExitToolError, Msg: fmt.Sprintf("tool %q reported an error (isError: true)", tool.Name)}
	}
	return afterErr
}

// argumentLimit is the most bytes an argument file, or the --args object
// on standard input, may hold: the message-size limit (--max-message-size),
// as given on the command line or its default. (A named server's own limit
// is applied when the message is sent.)
func argumentLimit(o *ServerOptions) int64 {
	if o.MaxMessageSize > 0 {
		return o.MaxMessageSize
	}
	return transport.DefaultMaxMessageSize
}

// shownDespite reports whether a call's result is shown although the
// pipeline returned err with it: the result breaks the tool's
// outputSchema (exit 5 after it), or its audit record was lost (exit 1
// after it). A result whose signature check failed is not shown.
func shownDespite(err error) bool {
	var outErr *session.OutputError
	var auditErr *session.AuditError
	return errors.As(err, &outErr) || errors.As(err, &auditErr)
}

// argumentsCheck compiles the tool's inputSchema once and returns the
// check of a call's arguments before anything is sent, for callers that
// check many calls of one tool (a batch): compiling costs far more than
// validating. mismatches are the key=value arguments whose text did not fit
// their type (see [schema.ArgOptions]), listed with the violations found.
// A "format" violation is a warning, the call going ahead (format is an
// annotation in JSON Schema 2020-12), unless strict. A schema that does not
// compile is the server's defect, reported as a warning: the call goes
// ahead unchecked. An argument the schema does not declare fails too (see
// [schema.Schema.UnknownArgs]) unless allowUnknown.
func argumentsCheck(f *Factory, tool *client.Tool, strict, allowUnknown bool) func(args map[string]any, mismatches []schema.Violation) error {
	headline := fmt.Sprintf("arguments for tool %q break its inputSchema (nothing was sent; --no-validate sends anyway)", tool.Name)
	if len(tool.InputSchema) == 0 {
		return func(_ map[string]any, mismatches []schema.Violation) error {
			return violationsError(headline, mismatches)
		}
	}
	sch, err := f.toolSchema(tool.InputSchema)
	if err != nil {
		f.printer().Warning(fmt.Sprintf("not checking the arguments: the inputSchema of tool %q does not compile: %v", tool.Name, err))
		return func(map[string]any, []schema.Violation) error { return nil }
	}
	var warned sync.Map // a batch warns of each format mismatch once
	return func(args map[string]any, mismatches []schema.Violation) error {
		found, unknown := sch.ValidateArgs(args, allowUnknown)
		violations := schema.MergeViolations(mismatches, found)
		if !strict {
			var format []schema.Violation
			violations, format = schema.SplitFormat(violations)
			for _, v := range format {
				if _, seen := warned.LoadOrStore(v.String(), true); seen {
					continue
				}
				f.printer().Warning(fmt.Sprintf("tool %q, argument %s (format is an annotation: sent anyway; --strict refuses it)", tool.Name, v.String()))
			}
		}
		if unknown > 0 {
			return violationsError(unknownHeadline(fmt.Sprintf("tool %q", tool.Name)), violations)
		}
		return violationsError(headline, violations)
	}
}

// unknownHeadline heads violations among which are arguments the
// inputSchema of what does not declare, saying how to send those.
func unknownHeadline(what string) string {
	return fmt.Sprintf("arguments for %s break its inputSchema (nothing was sent; --allow-unknown sends arguments it does not declare)", what)
}

// violationsError turns schema violations into one exit-5 error listing
// each on its own line.
func violationsError(headline string, violations []schema.Violation) error {
	if len(violations) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString(headline + ":")
	for _, v := range violations {
		b.WriteString("\n  " + v.String())
	}
	return &ExitCodeError{Code: ExitValidation, Msg: b.String()}
}

// lookupTool lists the tools of s and finds name among them; a name it
// does not list is a usage error that suggests the closest.
func lookupTool(ctx context.Context, f *Factory, s *session.Session, name string) (*client.Tool, error) {
	tools, err := s.ListTools(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing the tools of %s to find %q: %w", s.Name(), name, err)
	}
	tool := findTool(tools, name)
	if tool == nil {
		return nil, unknownToolError(name, tools, f.commandHint("list", ""))
	}
	return tool, nil
}

func findTool(tools []client.Tool, name string) *client.Tool {
	for i := range tools {
		if tools[i].Name == name {
			return &tools[i]
		}
	}
	return nil
}

// unknownToolError names the tool, the closest names and how to list them.
func unknownToolError(name string, tools []client.Tool, listHint string) error {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	sort.Strings(names)
	msg := fmt.Sprintf("the server has no tool %q", name)
	if close := schema.Suggest(name, names); close != "" {
		msg += fmt.Sprintf("; did you mean %q?", close)
	} else if len(names) > 0 && len(names) <= 20 {
		msg += "; its tools are: " + strings.Join(names, ", ")
	}
	msg += " (see: " + listHint + ")"
	return &FlagError{Err: fmt.Errorf("%s", msg)}
}
