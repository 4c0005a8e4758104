package cmd

import (
	"bytes"
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/surface"
)

// DiffOptions are the options of `mcpctl diff`.
type DiffOptions struct {
	Factory *Factory
	Server  ServerOptions
	Output  OutputOptions
	// Old is the snapshot file to compare from; New the one to compare
	// to, or "" to take the new snapshot from the server chosen.
	Old, New string
	// FailOn is which changes exit 5 (--fail-on).
	FailOn string
}

// NewCmdDiff builds `mcpctl diff`. runF replaces the run function in
// tests.
func NewCmdDiff(f *Factory, runF func(*DiffOptions) error) *cobra.Command {
	opts := &DiffOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "diff OLD.json {NEW.json | [flags] -- server command...}",
		Short: "Classify the changes between two snapshots of a server's surface",
		Long: `Compare a snapshot written by mcpctl snapshot with another, or with what a
server offers now, and classify every change:

  breaking     a client of the old surface may fail: a tool, prompt,
               resource or template removed; an argument removed; a new
               required argument, or one newly required; a type narrowed
               ("string|number" to "string", "number" to "integer"); an
               enum value removed; an output field removed or newly
               optional in outputSchema; outputSchema removed
  compatible   a new tool, prompt, resource or template; a new optional
               argument; a type widened; an enum value added; a new output
               field
  description  a description, title or annotation changed, or the server's
               instructions: clients keep working, but the model reads these
               words, and a description changed after it was reviewed is how
               a tool-poisoning "rug pull" happens. Read each one.
  other        the server's version, protocol revision, era or
               capabilities; a schema keyword the rules do not judge
               (pattern, minimum, additionalProperties…)

In outputSchema, which the server writes and the client reads, the rules
turn around: a widened type or an added enum value is breaking.
Nested object properties and array items are walked (filters.tags[]); a
$ref is compared as written, not followed, and a change to it is noted.

Exit 5 when a change fails the diff: breaking ones by default, any change
with --fail-on any, never with --fail-on none.`,
		Example: `  mcpctl snapshot --file v1.json -- python3 server.py
  mcpctl diff v1.json v2.json
  mcpctl diff v1.json -- python3 server.py
  mcpctl diff v1.json -s prod --fail-on any -o json`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			args = setServerArgs(cmd, args, &opts.Server)
			switch {
			case len(args) == 2 && opts.Server.chosen():
				return flagErrorf("diff compares OLD.json with NEW.json or with a server, not both")
			case len(args) == 2:
				opts.Old, opts.New = args[0], args[1]
			case len(args) == 1 && opts.Server.chosen():
				opts.Old = args[0]
			case len(args) == 1:
				return flagErrorf("diff needs NEW.json or a server (-s NAME, --url URL, or a command after --) to compare %s with", args[0])
			default:
				return flagErrorf("diff needs OLD.json, then NEW.json or a server, e.g. mcpctl diff v1.json -- python3 server.py")
			}
			if _, err := surface.ParseFailOn(opts.FailOn); err != nil {
				return &FlagError{Err: err}
			}
			if err := opts.Output.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return diffRun(cmd.Context(), opts)
		},
	}
	addServerFlags(cmd, &opts.Server)
	addOutputFlags(cmd, &opts.Output)
	cmd.Flags().StringVar(&opts.FailOn, "fail-on", "breaking", "Exit 5 on `changes` of this kind: breaking, any or none")
	_ = cmd.RegisterFlagCompletionFunc("fail-on", cobra.FixedCompletions([]cobra.Completion{"breaking", "any", "none"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// diffReport is what diff prints with -o json.
type diffReport struct {
	Changes []surface.Change      `json:"changes"`
	Counts  map[surface.Class]int `json:"counts"`
}

func diffRun(ctx context.Context, opts *DiffOptions) error {
	old, err := readSnapshot(opts.Old)
	if err != nil {
		return err
	}
	var new *surface.Snapshot
	if opts.New != "" {
		new, err = readSnapshot(opts.New)
	} else {
		new, err = takeSnapshot(ctx, opts.Factory, &opts.Server)
	}
	if err != nil {
		return err
	}
	if opts.New == "" && len(old.ClientCapabilities) == 0 {
		opts.Factory.printer().Warning(fmt.Sprintf("%s does not record the client capabilities it was taken with (an older mcpctl): a server that adapts its tools to them may show changes that are not; take it again with mcpctl snapshot", opts.Old))
	} else if len(old.ClientCapabilities) > 0 && len(new.ClientCapabilities) > 0 && !bytes.Equal(old.ClientCapabilities, new.ClientCapabilities) {
		opts.Factory.printer().Warning(fmt.Sprintf("the snapshots were taken with different client capabilities (%s, then %s): a server that adapts its tools to them may show changes that are not", old.ClientCapabilities, new.ClientCapabilities))
	}
	changes := surface.Diff(old, new)
	p := opts.Factory.printer()
	if opts.Output.structured() {
		counts := surface.Count(changes)
		for _, c := range surface.Classes() {
			counts[c] += 0 // every class present, zero or not
		}
		if changes == nil {
			changes = []surface.Change{}
		}
		err = opts.Output.write(p, diffReport{Changes: changes, Counts: counts})
	} else {
		err = surface.WriteText(p.Out, changes)
	}
	if err != nil {
		return err
	}
	failOn, _ := surface.ParseFailOn(opts.FailOn)
	if failOn.Fails(changes) {
		n := surface.Count(changes)
		return &ExitCodeError{Code: ExitValidation, Msg: fmt.Sprintf("changes found: %d breaking, %d compatible, %d description, %d other (--fail-on %s)",
			n[surface.Breaking], n[surface.Compatible], n[surface.Description], n[surface.Other], failOn)}
	}
	return nil
}

// readSnapshot reads a snapshot file written by mcpctl snapshot.
func readSnapshot(name string) (*surface.Snapshot, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("reading the snapshot: %w", err)
	}
	s, err := surface.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}
