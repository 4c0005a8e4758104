package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/lint"
	"github.com/mcpctl/mcpctl/render"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/session"
	"github.com/mcpctl/mcpctl/testrun"
)

// ValidateOptions are the options of `mcpctl validate`.
type ValidateOptions struct {
	Factory *Factory
	Server  ServerOptions
	Output  OutputOptions
	// Tool is the tool whose inputSchema the arguments are checked
	// against; empty to lint the whole server (or with SchemaFile).
	Tool     string
	Args     []string
	ArgsJSON string
	// SchemaFile, when set, is a JSON Schema file to check the arguments
	// against, without any server.
	SchemaFile string
	// AllowUnknown accepts arguments the schema does not declare, as
	// call's --allow-unknown sends them.
	AllowUnknown bool
	// ProbeUndeclared makes lint ask for the lists whose capability the
	// server did not declare, too.
	ProbeUndeclared bool
	// CallTools makes lint call each tool once with example arguments
	// (--call-tools), so that what a server writes to stdout while a tool
	// runs is found too.
	CallTools bool
}

// NewCmdValidate builds `mcpctl validate`. runF replaces the run function in
// tests.
func NewCmdValidate(f *Factory, runF func(*ValidateOptions) error) *cobra.Command {
	opts := &ValidateOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "validate [<tool> [key=value | key:=json | key=@file ...]] [flags] [-- server command...]",
		Short: "Check arguments against a tool's inputSchema, or lint a whole server",
		Long: `With a tool, check arguments against the tool's inputSchema without calling
it (typed as for call). Valid arguments print "arguments are valid" on
stderr; otherwise every violation is printed, one per line, and the exit
status is 5. An argument the schema does not declare is a violation, as for
call (--allow-unknown accepts it). A "format" mismatch is a warning unless
--strict. With --schema FILE, check them against that JSON Schema, with no
server at all.

Without a tool, lint the whole server for CI: its initialize (or
server/discover) result, every page of its lists and its stdout are checked
against the specification of the protocol version spoken. Only declared
capabilities are asked for (--probe-undeclared asks for the others too).
Findings are printed errors first; the exit status is 5 when there is an
error, or with --strict a warning too. With --policy FILE the tool policy is
linted against the server as well. The rules: mcpctl help lint-rules.`,
		Example: `  mcpctl validate --demo weather city=Paris days=3
  mcpctl validate --demo weather city=Paris days=0 -o json   # the violations as JSON (exit 5)
  mcpctl validate --schema <(echo '{"type":"object","properties":{"days":{"type":"integer","minimum":1}}}') days=0   # exit 5
  mcpctl validate --demo
  mcpctl validate --probe-undeclared --demo
  mcpctl validate --strict -- npx -y @modelcontextprotocol/server-everything`,
		RunE: func(cmd *cobra.Command, args []string) error {
			args = setServerArgs(cmd, args, &opts.Server)
			switch {
			case opts.SchemaFile != "":
				opts.Args = args
			case len(args) > 0:
				opts.Tool, opts.Args = args[0], args[1:]
			}
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return validateRun(cmd.Context(), opts)
		},
	}
	addServerFlags(cmd, &opts.Server)
	addOutputFlags(cmd, &opts.Output)
	cmd.Flags().StringVar(&opts.ArgsJSON, "args", "", "The arguments as a JSON object, @file, or - for stdin")
	cmd.Flags().BoolVar(&opts.ProbeUndeclared, "probe-undeclared", false, "Lint: also ask for the lists whose capability the server did not declare (it must refuse them)")
	cmd.Flags().BoolVar(&opts.AllowUnknown, "allow-unknown", false, "Accept arguments the schema does not declare, as call --allow-unknown sends them")
	cmd.Flags().BoolVar(&opts.CallTools, "call-tools", false, "Lint: also call each tool once with minimal example arguments, to find stdout noise while tools run")
	cmd.Flags().StringVar(&opts.SchemaFile, "schema", "", "Check the arguments against the JSON Schema in `FILE`, without a server")
	return cmd
}

// ruleHelp lists the lint rules for the help text.
func ruleHelp() string {
	var s string
	for _, r := range lint.Rules() {
		s += fmt.Sprintf("  %-27s %-7s %s\n", r.ID, r.Severity, r.SpecRef)
	}
	return s
}

func (o *ValidateOptions) validate() error {
	if err := o.Output.validate(); err != nil {
		return err
	}
	lintMode := o.Tool == "" && o.SchemaFile == ""
	switch {
	case o.SchemaFile != "" && o.Server.chosen():
		return flagErrorf("--schema checks arguments against a local schema file, without a server: drop -s, --url, --demo or the server command (or drop --schema to check against a tool of the server)")
	case o.CallTools && !lintMode:
		return flagErrorf("--call-tools applies to the lint of a whole server: drop the tool and --schema")
	case o.ProbeUndeclared && !lintMode:
		return flagErrorf("--probe-undeclared applies to the lint of a whole server: drop the tool and --schema")
	case o.AllowUnknown && lintMode:
		return flagErrorf("--allow-unknown applies to arguments: give a tool or --schema")
	case o.ArgsJSON != "" && lintMode:
		return flagErrorf("--args needs a tool or --schema, e.g. mcpctl validate --demo weather --args '{\"city\": \"Paris\"}'")
	}
	return nil
}

func validateRun(ctx context.Context, opts *ValidateOptions) error {
	switch {
	case opts.SchemaFile != "":
		return validateSchemaFileRun(opts)
	case opts.Tool == "":
		return lintRun(ctx, opts)
	}
	return validateToolRun(ctx, opts)
}

// validateToolRun checks arguments against a tool's inputSchema. It never
// calls the tool.
func validateToolRun(ctx context.Context, opts *ValidateOptions) error {
	f := opts.Factory
	s, err := f.Connect(ctx, &opts.Server)
	if err != nil {
		return err
	}
	defer s.Close()
	if !s.HasCapability("tools") {
		return fmt.Errorf("%s offers no tools: it did not declare the \"tools\" capability in initialize", s.Name())
	}
	tool, err := lookupTool(ctx, f, s, opts.Tool)
	if err != nil {
		return err
	}
	compiled, err := schema.Compile(tool.InputSchema)
	if err != nil {
		return fmt.Errorf("the inputSchema of tool %q cannot be checked: %w (mcpctl validate without a tool lints the whole server)", tool.Name, err)
	}
	return checkArgs(opts, compiled, fmt.Sprintf("the inputSchema of tool %q", tool.Name))
}

// validateSchemaFileRun checks arguments against a schema file.
func validateSchemaFileRun(opts *ValidateOptions) error {
	raw, err := os.ReadFile(opts.SchemaFile)
	if err != nil {
		return flagErrorf("--schema: %v", err)
	}
	compiled, err := schema.Compile(raw)
	if err != nil {
		return flagErrorf("--schema %s: %v", opts.SchemaFile, err)
	}
	return checkArgs(opts, compiled, "the schema in "+opts.SchemaFile)
}

// argsReport is the -o json form of an arguments check. Warnings are the
// "format" violations, which fail the check only with --strict.
type argsReport struct {
	Valid      bool               `json:"valid"`
	Violations []schema.Violation `json:"violations"`
	Warnings   []schema.Violation `json:"warnings,omitempty"`
}

// checkArgs parses the arguments, typed by the schema, validates them as
// call does (an argument the schema does not declare included) and prints
// the outcome; what names the schema in messages.
func checkArgs(opts *ValidateOptions, compiled *schema.Schema, what string) error {
	f := opts.Factory
	// As for call: a value of the wrong type is one more violation.
	var mismatches []schema.Violation
	args, err := compiled.ParseArgs(opts.Args, schema.ArgOptions{
		Stdin:      f.IOStreams.In,
		ArgsJSON:   opts.ArgsJSON,
		Mismatches: &mismatches,
		MaxSize:    argumentLimit(&opts.Server),
	})
	if err != nil {
		return err
	}
	p := f.printer()
	for _, w := range compiled.Warnings() {
		p.Warning(w)
	}
	found, unknown := compiled.ValidateArgs(args, opts.AllowUnknown)
	violations := schema.MergeViolations(mismatches, found)
	var format []schema.Violation
	if !opts.Server.Strict {
		violations, format = schema.SplitFormat(violations)
	}
	if opts.Output.structured() {
		if err := opts.Output.write(p, argsReport{Valid: len(violations) == 0, Violations: nonNil(violations), Warnings: format}); err != nil {
			return err
		}
	} else {
		for _, v := range format {
			p.Warning(v.String() + " (format is an annotation: call sends it; --strict refuses it)")
		}
		for _, v := range violations {
			if _, err := fmt.Fprintln(p.Out, v.String()); err != nil {
				return err
			}
		}
	}
	if len(violations) > 0 {
		msg := fmt.Sprintf("the arguments do not match %s (%d %s)", what, len(violations), plural(len(violations), "problem", "problems"))
		if unknown > 0 {
			msg += "; --allow-unknown accepts arguments it does not declare"
		}
		return &ExitCodeError{Code: ExitValidation, Msg: msg}
	}
	if !opts.Output.structured() {
		fmt.Fprintln(f.IOStreams.ErrOut, "arguments are valid")
	}
	return nil
}

// lintReport is the -o json form of a lint.
type lintReport struct {
	Findings []lint.Finding `json:"findings"`
	Errors   int            `json:"errors"`
	Warnings int            `json:"warnings"`
}

// lintRun lints the whole server.
func lintRun(ctx context.Context, opts *ValidateOptions) error {
	f := opts.Factory
	// Lint checks every result against the official schema itself and
	// reports it as message-schema findings; warnings would say it twice.
	opts.Server.LintsResults = true
	// What a stdio server writes to stdout besides messages; the client's
	// read loop reports it, so it is all in once the last list answered.
	var (
		noiseMu sync.Mutex
		noise   []string
	)
	opts.Server.OnStdoutNoise = func(msg string) {
		noiseMu.Lock()
		defer noiseMu.Unlock()
		noise = append(noise, msg)
	}
	s, err := f.Connect(ctx, &opts.Server)
	if err != nil {
		return err
	}
	defer s.Close()
	// In the modern era the session opened with server/discover, whose
	// result InitializeResult holds; lint checks it as such.
	srv, err := lint.Collect(ctx, s, s.InitializeResult().Raw, lint.Options{Era: s.Era(), ProtocolVersion: s.ProtocolVersion(), ProbeUndeclared: opts.ProbeUndeclared})
	if err != nil {
		return fmt.Errorf("linting %s: %w", s.Name(), err)
	}
	if opts.CallTools {
		if err := callEachTool(ctx, f, s); err != nil {
			return err
		}
	}
	noiseMu.Lock()
	srv.StdoutNoise = slices.Clone(noise)
	noiseMu.Unlock()
	findings := lint.Check(srv)
	if opts.Server.Policy.File != "" {
		pf, err := f.policyFindings(ctx, s, &opts.Server)
		if err != nil {
			return err
		}
		findings = append(findings, pf...)
	}
	errs, warnings := lint.Count(findings)
	p := f.printer()
	if opts.Output.structured() {
		err = opts.Output.write(p, lintReport{Findings: nonNil(findings), Errors: errs, Warnings: warnings})
	} else {
		err = printFindings(p, findings)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(f.IOStreams.ErrOut, "%d %s, %d %s\n", errs, plural(errs, "error", "errors"), warnings, plural(warnings, "warning", "warnings"))
	if errs > 0 || opts.Server.Strict && warnings > 0 {
		return &ExitCodeError{Code: ExitValidation} // the summary said why
	}
	return nil
}

// callEachTool calls every tool of s once, with the minimal arguments its
// inputSchema allows (as test --init writes them) and as a task when call
// would make one, for lint to see what the server writes meanwhile. What a
// call returns, a JSON-RPC error or isError included, is no finding: the
// arguments are only examples.
func callEachTool(ctx context.Context, f *Factory, s *session.Session) error {
	tools, err := s.ListTools(ctx)
	if err != nil {
		return fmt.Errorf("--call-tools: listing the tools of %s: %w", s.Name(), err)
	}
	p := f.printer()
	for i := range tools {
		t := &tools[i]
		args, err := testrun.ExampleArguments(t.InputSchema)
		if err != nil {
			p.Warning(fmt.Sprintf("--call-tools: not calling tool %q: %v", t.Name, err))
			continue
		}
		asTask, err := s.PlanTask(t, client.TaskAuto)
		if err != nil {
			p.Warning(fmt.Sprintf("--call-tools: not calling tool %q: %v", t.Name, err))
			continue
		}
		if asTask {
			var data json.RawMessage
			if data, err = client.MarshalArguments(args); err == nil {
				_, err = s.CallToolTask(ctx, t.Name, data, client.CallOptions{}, client.TaskOptions{})
			}
		} else {
			_, err = s.CallTool(ctx, t.Name, args, client.CallOptions{})
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var rpc *client.RPCError
		if err != nil && !errors.As(err, &rpc) {
			p.Warning(fmt.Sprintf("--call-tools: calling tool %q: %v", t.Name, err))
		}
	}
	return nil
}

// printFindings writes the findings as a table. On a terminal the rule
// and subject keep their width, the message wraps, and the spec reference
// becomes a numbered footnote under the table ("has a space [1]"), so
// that messages stay readable at 80 columns; piped, it is the fifth field
// of each line, and -o json carries it too.
func printFindings(p *render.Printer, findings []lint.Finding) error {
	rows := make([][]string, 0, len(findings))
	var notes []string
	noteOf := map[string]int{}
	for _, fd := range findings {
		row := []string{string(fd.Severity), fd.RuleID, fd.Subject, fd.Message}
		switch {
		case !p.TTY:
			row = append(row, fd.SpecRef)
		case fd.SpecRef != "":
			n, ok := noteOf[fd.SpecRef]
			if !ok {
				notes = append(notes, fd.SpecRef)
				n = len(notes)
				noteOf[fd.SpecRef] = n
			}
			row[3] += fmt.Sprintf(" [%d]", n)
		}
		rows = append(rows, row)
	}
	cols := []render.Column{{Header: "SEVERITY", Whole: true}, {Header: "RULE", Whole: true}, {Header: "SUBJECT"}, {Header: "MESSAGE"}}
	if err := p.Columns(cols, rows, "No findings."); err != nil {
		return err
	}
	if len(notes) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("\n")
	for i, ref := range notes {
		fmt.Fprintf(&b, "[%d] %s\n", i+1, ref)
	}
	_, err := io.WriteString(p.Out, b.String())
	return err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
