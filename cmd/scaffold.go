package cmd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/scaffold"
)

// scaffoldExample takes a reader from nothing to a listed, called tool. It
// is the Example of `mcpctl scaffold` and the flow the README shows.
const scaffoldExample = `  # A Go server (official go-sdk) with a tool that has typed input and output:
  mcpctl scaffold server weather --lang go
  cd weather
  mcpctl scaffold tool forecast --arg city:string:required:'The city' --arg days:integer --output summary:string --read-only
  go test ./...
  go build -o weather . && mcpctl list -- ./weather
  mcpctl call forecast city=Paris days=2 -- ./weather

  # The same in TypeScript (@modelcontextprotocol/sdk, zod, tsc strict, node --test):
  mcpctl scaffold server weather-ts --lang ts
  cd weather-ts
  mcpctl scaffold tool forecast --arg city:string:required:'The city' --output summary:string --read-only
  npm install && npm test
  mcpctl call forecast city=Paris -- node dist/index.js

  # A server on Streamable HTTP at 127.0.0.1 (--port, or $PORT):
  mcpctl scaffold server weather-http --lang go --transport http`

// NewCmdScaffold builds `mcpctl scaffold` and its subcommands.
func NewCmdScaffold(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "scaffold {server|tool} <name> [flags]",
		Short: "Generate an MCP server project, or add a tool to one",
		Long: `Generate MCP servers and tools in Go (the official go-sdk) or TypeScript
(@modelcontextprotocol/sdk with zod).

"scaffold server" writes a project with one example tool, a test that calls
it through an in-process client, a README and a manifest,
.mcpctl-scaffold.json. "scaffold tool" adds a tool to such a project: typed
input (and output) from which the tool's schemas derive, annotations, a
handler stub with a TODO, and a test; it registers the tool by regenerating
one generated file (tools_gen.go, or src/tools/index.ts) from the manifest,
so code you wrote is never edited.

Existing files are never overwritten without --force.`,
		Example: scaffoldExample,
		Args:    cobra.NoArgs,
		// scaffold's flags are not the settings of the same names (its
		// --output is an output property, not a format): MCPCTL_OUTPUT
		// and the config file must not fill them.
		Annotations: map[string]string{noSettingsAnnotation: "true"},
		RunE: func(cmd *cobra.Command, args []string) error {
			return &FlagError{Err: errors.New("scaffold needs a subcommand: server or tool"), Hint: true}
		},
	}
	cmd.AddCommand(NewCmdScaffoldServer(f, nil), NewCmdScaffoldTool(f, nil))
	return cmd
}

// ScaffoldServerOptions are the options of `mcpctl scaffold server`.
type ScaffoldServerOptions struct {
	Factory *Factory
	scaffold.ServerOptions
}

// NewCmdScaffoldServer builds `mcpctl scaffold server`. runF replaces the
// run function in tests.
func NewCmdScaffoldServer(f *Factory, runF func(*ScaffoldServerOptions) error) *cobra.Command {
	opts := &ScaffoldServerOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "server <name> --lang {go|ts} [--dir DIR] [--transport {stdio|http}] [--force]",
		Short: "Generate a new MCP server project",
		Long: `Generate a new MCP server project in DIR (default: ./NAME) with one example
tool, greet.

Go: go.mod on github.com/modelcontextprotocol/go-sdk, main.go, server.go,
tools_gen.go (generated), greet.go, tests on mcp.NewInMemoryTransports.
TypeScript: package.json (@modelcontextprotocol/sdk, zod, typescript),
tsconfig.json (strict), src/…, tests for node --test on InMemoryTransport.
Both get a README with the commands to build, test and try the server, a
.gitignore and .mcpctl-scaffold.json.

--transport http makes a Streamable HTTP server on 127.0.0.1 whose port
comes from --port or $PORT (default 8080).

NAME follows the MCP tool-name rules (1 to 128 of A-Z a-z 0-9 _ - .) and
starts with a letter or digit.`,
		Annotations: map[string]string{noSettingsAnnotation: "true"},
		Example: `  mcpctl scaffold server weather --lang go
  mcpctl scaffold server weather-ts --lang ts --dir ./servers/weather
  mcpctl scaffold server weather-http --lang go --transport http`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return flagErrorf("scaffold server needs one name, e.g. mcpctl scaffold server weather --lang go")
			}
			opts.Name = args[0]
			if runF != nil {
				return runF(opts)
			}
			return scaffoldServerRun(opts)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.Lang, "lang", "", "Language of the project: go or ts (required)")
	fs.StringVar(&opts.Dir, "dir", "", "Write the project into `DIR` (default: ./NAME)")
	fs.StringVar(&opts.Transport, "transport", scaffold.TransportStdio, "Transport the server speaks: stdio or http (Streamable HTTP on 127.0.0.1)")
	fs.BoolVar(&opts.Force, "force", false, "Overwrite files that exist")
	return cmd
}

func scaffoldServerRun(opts *ScaffoldServerOptions) error {
	res, err := scaffold.NewServer(opts.ServerOptions)
	if err != nil {
		return scaffoldError(err)
	}
	return printScaffoldResult(opts.Factory, res)
}

// ScaffoldToolOptions are the options of `mcpctl scaffold tool`.
type ScaffoldToolOptions struct {
	Factory *Factory
	scaffold.ToolOptions
	Args       []string // --arg specs
	Outputs    []string // --output specs
	FromSchema string

	readOnly, destructive, idempotent, openWorld bool
}

// NewCmdScaffoldTool builds `mcpctl scaffold tool`. runF replaces the run
// function in tests.
func NewCmdScaffoldTool(f *Factory, runF func(*ScaffoldToolOptions) error) *cobra.Command {
	opts := &ScaffoldToolOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "tool <name> [--dir DIR] [--arg name:type[:required][:description] ...] [--output name:type[:description] ...] [--from-schema FILE] [flags]",
		Short: "Add a tool to a scaffolded project",
		Long: `Add a tool to the project in DIR (default: the current folder), which
mcpctl scaffold server made.

It writes the tool's file with typed input (a Go struct with jsonschema
tags, or a zod shape), typed output if --output is given, the annotations
from the flags, a handler stub and a test that calls the tool in-process;
then it records the tool in .mcpctl-scaffold.json and regenerates the
registry (tools_gen.go, or src/tools/index.ts).

--arg and --output take name:type[:required][:description]; type is string,
integer, number or boolean, or an array of them such as string[]. Input
properties are optional unless marked required; output properties are
always present. --from-schema reads the input from a JSON Schema file
instead: an object with properties of those types, "required" and
"description".

An annotation flag sets its hint (--destructive=false sets it false);
hints not given are left out (clients assume the spec's defaults).

NAME follows the MCP tool-name rules: 1 to 128 of A-Z a-z 0-9 _ - .`,
		Annotations: map[string]string{noSettingsAnnotation: "true"},
		Example: `  mcpctl scaffold tool weather-forecast --arg city:string:required:'The city' --arg days:integer --output summary:string --read-only
  mcpctl scaffold tool tag-files --arg 'paths:string[]:required' --arg tag:string:required --destructive=false --idempotent
  echo '{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}' > search.json
  mcpctl scaffold tool search --from-schema search.json --open-world --dir ./weather`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return flagErrorf("scaffold tool needs one name, e.g. mcpctl scaffold tool weather-forecast --arg city:string:required")
			}
			opts.Name = args[0]
			a := &opts.Annotations
			for _, h := range []struct {
				flag string
				v    bool
				dst  **bool
			}{
				{"read-only", opts.readOnly, &a.ReadOnly},
				{"destructive", opts.destructive, &a.Destructive},
				{"idempotent", opts.idempotent, &a.Idempotent},
				{"open-world", opts.openWorld, &a.OpenWorld},
			} {
				if cmd.Flags().Changed(h.flag) {
					*h.dst = new(h.v)
				}
			}
			if err := opts.parseFields(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return scaffoldToolRun(opts)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.Lang, "lang", "", "Language of the project, go or ts (default: the project's; checked if given)")
	fs.StringVar(&opts.Dir, "dir", "", "The project is in `DIR` (default: the current folder)")
	fs.StringVar(&opts.Description, "description", "", "What the tool does, for the model (default: a TODO)")
	fs.StringArrayVar(&opts.Args, "arg", nil, "An input property, `SPEC` = name:type[:required][:description]; type is string, integer, number, boolean or e.g. string[] (repeatable)")
	fs.StringArrayVar(&opts.Outputs, "output", nil, "An output property, `SPEC` = name:type[:description] (repeatable); gives the tool an outputSchema")
	fs.StringVar(&opts.FromSchema, "from-schema", "", "Read the input properties from a JSON Schema `FILE` instead of --arg")
	fs.BoolVar(&opts.readOnly, "read-only", false, "Annotate the tool readOnlyHint: it changes nothing")
	fs.BoolVar(&opts.destructive, "destructive", false, "Annotate the tool destructiveHint: it may delete or overwrite")
	fs.BoolVar(&opts.idempotent, "idempotent", false, "Annotate the tool idempotentHint: calling it again with the same arguments changes nothing more")
	fs.BoolVar(&opts.openWorld, "open-world", false, "Annotate the tool openWorldHint: it reaches outside systems")
	fs.BoolVar(&opts.Force, "force", false, "Overwrite the tool's files, replacing a tool of the same name")
	return cmd
}

// parseFields fills Input and Output from --arg, --output and
// --from-schema.
func (o *ScaffoldToolOptions) parseFields() error {
	if o.FromSchema != "" && len(o.Args) > 0 {
		return flagErrorf("use --arg or --from-schema, not both")
	}
	for _, spec := range o.Args {
		f, err := scaffold.ParseField(spec)
		if err != nil {
			return flagErrorf("invalid --arg %w", err)
		}
		o.Input = append(o.Input, f)
	}
	for _, spec := range o.Outputs {
		f, err := scaffold.ParseField(spec)
		if err != nil {
			return flagErrorf("invalid --output %w", err)
		}
		o.Output = append(o.Output, f)
	}
	if o.FromSchema == "" {
		return nil
	}
	data, err := os.ReadFile(o.FromSchema)
	if err != nil {
		return flagErrorf("reading --from-schema: %w", err)
	}
	fields, warnings, err := scaffold.FieldsFromSchema(data)
	if err != nil {
		return flagErrorf("--from-schema %s: %w", o.FromSchema, err)
	}
	o.Input, o.Warnings = fields, warnings
	return nil
}

func scaffoldToolRun(opts *ScaffoldToolOptions) error {
	res, err := scaffold.AddTool(opts.ToolOptions)
	if err != nil {
		return scaffoldError(err)
	}
	return printScaffoldResult(opts.Factory, res)
}

// scaffoldError makes the scaffold package's usage errors (bad names,
// existing files, a folder that is not a project) usage errors of mcpctl.
func scaffoldError(err error) error {
	var usage *scaffold.UsageError
	if errors.As(err, &usage) {
		return &FlagError{Err: err}
	}
	return err
}

// printScaffoldResult lists the files written on stdout, then warnings and
// the next steps on stderr.
func printScaffoldResult(f *Factory, res *scaffold.Result) error {
	ios := f.IOStreams
	for _, p := range res.Created {
		if _, err := fmt.Fprintf(ios.Out, "created %s\n", filepath.Join(res.Dir, p)); err != nil {
			return err
		}
	}
	for _, p := range res.Updated {
		if _, err := fmt.Fprintf(ios.Out, "updated %s\n", filepath.Join(res.Dir, p)); err != nil {
			return err
		}
	}
	p := ios.Printer()
	for _, w := range res.Warnings {
		p.Warning(w)
	}
	if len(res.Next) > 0 {
		fmt.Fprintln(ios.ErrOut, "\nNext:")
		for _, step := range res.Next {
			fmt.Fprintln(ios.ErrOut, "  "+step)
		}
	}
	return nil
}
