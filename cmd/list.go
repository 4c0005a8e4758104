package cmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/render"
	"github.com/mcpctl/mcpctl/schema"
)

// ListOptions are the options of `mcpctl list`.
type ListOptions struct {
	Factory *Factory
	Server  ServerOptions
	Output  OutputOptions
	Kind    string
	Long    bool
}

// NewCmdList builds `mcpctl list`. runF replaces the run function in tests.
func NewCmdList(f *Factory, runF func(*ListOptions) error) *cobra.Command {
	opts := &ListOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "list [tools|resources|templates|prompts|all] [flags] [-- server command...]",
		Short: "List a server's tools, resources, resource templates or prompts",
		Long: `List what a server offers, merged across every page of results.

On a terminal the list is a table; when piped it is tab-separated text with
one item per line and no header. -o json prints the protocol result with all
pages merged, e.g. {"tools": [...]}.`,
		Example: `  mcpctl list --demo
  mcpctl list all --demo
  mcpctl list tools -l --demo
  mcpctl list -o json -- npx -y @modelcontextprotocol/server-everything | jq '.tools[].name'`,
		ValidArgs: listKinds(),
		RunE: func(cmd *cobra.Command, args []string) error {
			args = setServerArgs(cmd, args, &opts.Server)
			if len(args) > 1 {
				return flagErrorf("list takes at most one kind, got %q", args)
			}
			opts.Kind = "tools"
			if len(args) == 1 {
				opts.Kind = args[0]
			}
			if _, known := client.LookupList(opts.Kind); !known && opts.Kind != "all" {
				return flagErrorf("unknown kind %q: expected tools, resources, templates, prompts or all", opts.Kind)
			}
			if err := opts.Output.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return listRun(cmd.Context(), opts)
		},
	}
	addServerFlags(cmd, &opts.Server)
	addOutputFlags(cmd, &opts.Output)
	cmd.Flags().BoolVarP(&opts.Long, "long", "l", false, "Print each tool's input and output schema")
	return cmd
}

// listing holds the fetched lists for the text output.
type listing struct {
	Tools     []client.Tool
	Resources []client.Resource
	Templates []client.ResourceTemplate
	Prompts   []client.Prompt
}

func listRun(ctx context.Context, opts *ListOptions) error {
	f := opts.Factory
	s, err := f.Connect(ctx, &opts.Server)
	if err != nil {
		return err
	}
	defer s.Close()

	all := opts.Kind == "all"
	out := map[string]any{}
	var l listing
	for _, k := range client.ListMethods() {
		if !all && k.Kind != opts.Kind {
			continue
		}
		if !s.HasCapability(k.Capability) {
			if all {
				continue
			}
			return fmt.Errorf("%s does not offer %s: it did not declare the %q capability in initialize", s.name, k.Kind, k.Capability)
		}
		var (
			items any
			err   error
		)
		switch k.Kind {
		case "tools":
			l.Tools, err = s.ListTools(ctx)
			items = nonNil(l.Tools)
		case "resources":
			l.Resources, err = s.ListResources(ctx)
			items = nonNil(l.Resources)
		case "templates":
			l.Templates, err = s.ListResourceTemplates(ctx)
			items = nonNil(l.Templates)
		case "prompts":
			l.Prompts, err = s.ListPrompts(ctx)
			items = nonNil(l.Prompts)
		}
		if err != nil {
			return fmt.Errorf("listing %s of %s: %w", k.Kind, s.name, err)
		}
		out[k.Key] = items
	}

	p := f.printer()
	if opts.Output.structured() {
		return opts.Output.write(p, out)
	}
	sections := 0
	section := func(title string) {
		if all {
			if sections > 0 {
				fmt.Fprintln(p.Out)
			}
			fmt.Fprintln(p.Out, p.Heading(title))
		}
		sections++
	}
	if _, ok := out["tools"]; ok {
		section("Tools")
		if err := printTools(p, l.Tools, opts.Long); err != nil {
			return err
		}
	}
	if _, ok := out["resources"]; ok {
		section("Resources")
		rows := make([][]string, 0, len(l.Resources))
		for _, r := range l.Resources {
			rows = append(rows, []string{r.URI, r.Name, r.MIMEType, r.Description})
		}
		if err := p.Table([]string{"URI", "NAME", "MIME TYPE", "DESCRIPTION"}, rows, "No resources."); err != nil {
			return err
		}
	}
	if _, ok := out["resourceTemplates"]; ok {
		section("Resource templates")
		rows := make([][]string, 0, len(l.Templates))
		for _, t := range l.Templates {
			rows = append(rows, []string{t.URITemplate, t.Name, t.MIMEType, t.Description})
		}
		if err := p.Table([]string{"URI TEMPLATE", "NAME", "MIME TYPE", "DESCRIPTION"}, rows, "No resource templates."); err != nil {
			return err
		}
	}
	if _, ok := out["prompts"]; ok {
		section("Prompts")
		rows := make([][]string, 0, len(l.Prompts))
		for _, pr := range l.Prompts {
			var req []string
			for _, a := range pr.Arguments {
				if a.Required {
					req = append(req, a.Name)
				}
			}
			rows = append(rows, []string{pr.Name, pr.Title, strings.Join(req, ","), pr.Description})
		}
		if err := p.Table([]string{"NAME", "TITLE", "REQUIRED ARGS", "DESCRIPTION"}, rows, "No prompts."); err != nil {
			return err
		}
	}
	return nil
}

func printTools(p *render.Printer, tools []client.Tool, long bool) error {
	if long {
		for i, t := range tools {
			if i > 0 {
				fmt.Fprintln(p.Out)
			}
			if err := p.Fields([][2]string{{"Name", t.Name}, {"Title", t.DisplayName()}, {"Description", t.Description}}); err != nil {
				return err
			}
			fmt.Fprintln(p.Out, "Input schema:")
			if err := p.JSON(t.InputSchema); err != nil {
				return err
			}
			if len(t.OutputSchema) > 0 {
				fmt.Fprintln(p.Out, "Output schema:")
				if err := p.JSON(t.OutputSchema); err != nil {
					return err
				}
			}
		}
		return nil
	}
	rows := make([][]string, 0, len(tools))
	for _, t := range tools {
		title := t.Title
		if title == "" && t.Annotations != nil {
			title = t.Annotations.Title
		}
		rows = append(rows, []string{t.Name, title, requiredArgs(t.InputSchema), t.Description})
	}
	return p.Table([]string{"NAME", "TITLE", "REQUIRED ARGS", "DESCRIPTION"}, rows, "No tools.")
}

// requiredArgs names a tool's required arguments with their types.
func requiredArgs(inputSchema []byte) string {
	props, err := schema.Properties(inputSchema)
	if err != nil {
		return "?"
	}
	var req []string
	for _, pr := range props {
		if pr.Required {
			req = append(req, pr.Name+":"+pr.Type)
		}
	}
	return strings.Join(req, ",")
}

// nonNil makes empty lists print as [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// listKinds are the kinds list takes: the client's list methods, and "all".
func listKinds() []string {
	var kinds []string
	for _, l := range client.ListMethods() {
		kinds = append(kinds, l.Kind)
	}
	return append(kinds, "all")
}
