package cmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
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
one item per line and no header (list all starts each line with the kind:
tool, resource, template or prompt). A kind may be given in the singular.
-l describes each item in full, as
mcpctl describe does: a tool's arguments as a table, its annotations, task
support and output. -o json prints the protocol result with all pages
merged, e.g. {"tools": [...]}, schemas included.`,
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
				opts.Kind = listKind(args[0])
			}
			if _, known := client.LookupList(opts.Kind); !known && opts.Kind != "all" {
				msg := fmt.Sprintf("unknown kind %q: expected tools, resources, templates, prompts or all", opts.Kind)
				if s := schema.Suggest(opts.Kind, listKinds()); s != "" {
					msg = fmt.Sprintf("unknown kind %q; did you mean %q? (expected tools, resources, templates, prompts or all)", opts.Kind, s)
				}
				return flagErrorf("%s", msg)
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
	cmd.Flags().BoolVarP(&opts.Long, "long", "l", false, "Describe each item in full, as mcpctl describe does (raw schemas: -o json)")
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
			return fmt.Errorf("%s does not offer %s: it did not declare the %q capability in initialize", s.Name(), k.Kind, k.Capability)
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
			return fmt.Errorf("listing %s of %s: %w", k.Kind, s.Name(), err)
		}
		out[k.Key] = items
	}

	p := f.printer()
	if opts.Output.structured() {
		return opts.Output.write(p, out)
	}
	if all && !p.TTY && !opts.Long {
		return printAllRows(p, out, &l)
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
		if err := printResources(p, l.Resources, opts.Long); err != nil {
			return err
		}
	}
	if _, ok := out["resourceTemplates"]; ok {
		section("Resource templates")
		if err := printTemplates(p, l.Templates, opts.Long); err != nil {
			return err
		}
	}
	if _, ok := out["prompts"]; ok {
		section("Prompts")
		if err := printPrompts(p, l.Prompts, opts.Long); err != nil {
			return err
		}
	}
	return nil
}

// describeAll writes each item in full (list -l), or the empty message.
func describeAll[T any](p *render.Printer, items []T, describe func(*T) error, empty string) error {
	if len(items) == 0 {
		if p.TTY {
			fmt.Fprintln(p.ErrOut, empty)
		}
		return nil
	}
	return render.DescribeList(p, items, describe)
}

func printTools(p *render.Printer, tools []client.Tool, long bool) error {
	if long {
		return describeAll(p, tools, p.DescribeTool, "No tools.")
	}
	rows := make([][]string, 0, len(tools))
	for _, t := range tools {
		title := t.Title
		if title == "" && t.Annotations != nil {
			title = t.Annotations.Title
		}
		rows = append(rows, []string{t.Name, title, toolArgs(t.InputSchema, argSep(p)), t.Description})
	}
	return nameTable(p, rows, "No tools.")
}

// nameTable writes tools or prompts: NAME, TITLE, ARGS, DESCRIPTION. On a
// terminal the name is never cut, a title that only restates the name is
// left out, and so is the TITLE column when no title is left or the
// description would be cramped beside it (list -l shows titles); piped,
// every row keeps all four fields.
func nameTable(p *render.Printer, rows [][]string, empty string) error {
	cols := []render.Column{{Header: "NAME", Whole: true}, {Header: "TITLE", Optional: true}, {Header: "ARGS"}, {Header: "DESCRIPTION"}}
	if !p.TTY {
		return p.Columns(cols, rows, empty)
	}
	titled := false
	for _, r := range rows {
		if render.TitleRestatesName(r[1], r[0]) {
			r[1] = ""
		}
		titled = titled || r[1] != ""
	}
	if !titled {
		cols = append(cols[:1], cols[2:]...)
		for i, r := range rows {
			rows[i] = append(r[:1], r[2:]...)
		}
	}
	return p.Columns(cols, rows, empty)
}

// argSep separates arguments: with a space on a terminal, so that a long
// list wraps between two arguments; piped, without.
func argSep(p *render.Printer) string {
	if p.TTY {
		return ", "
	}
	return ","
}

func printResources(p *render.Printer, resources []client.Resource, long bool) error {
	if long {
		return describeAll(p, resources, p.DescribeResource, "No resources.")
	}
	rows := make([][]string, 0, len(resources))
	for _, r := range resources {
		rows = append(rows, []string{r.URI, r.Name, r.MIMEType, r.Description})
	}
	return p.Columns([]render.Column{{Header: "URI", Whole: true}, {Header: "NAME", Optional: true}, {Header: "MIME TYPE", Optional: true}, {Header: "DESCRIPTION"}}, rows, "No resources.")
}

func printTemplates(p *render.Printer, templates []client.ResourceTemplate, long bool) error {
	if long {
		return describeAll(p, templates, p.DescribeTemplate, "No resource templates.")
	}
	rows := make([][]string, 0, len(templates))
	for _, t := range templates {
		rows = append(rows, []string{t.URITemplate, t.Name, t.MIMEType, t.Description})
	}
	return p.Columns([]render.Column{{Header: "URI TEMPLATE", Whole: true}, {Header: "NAME", Optional: true}, {Header: "MIME TYPE", Optional: true}, {Header: "DESCRIPTION"}}, rows, "No resource templates.")
}

func printPrompts(p *render.Printer, prompts []client.Prompt, long bool) error {
	if long {
		return describeAll(p, prompts, p.DescribePrompt, "No prompts.")
	}
	rows := make([][]string, 0, len(prompts))
	for _, pr := range prompts {
		var args []string
		for _, a := range pr.Arguments {
			args = append(args, argName(a.Name, "", a.Required))
		}
		rows = append(rows, []string{pr.Name, pr.Title, strings.Join(args, argSep(p)), pr.Description})
	}
	return nameTable(p, rows, "No prompts.")
}

// toolArgs names a tool's arguments with their types, in the schema's
// order, the optional ones marked: "city:string, days?:integer".
func toolArgs(inputSchema []byte, sep string) string {
	props, err := schema.Properties(inputSchema)
	if err != nil {
		return "?"
	}
	args := make([]string, 0, len(props))
	for _, pr := range props {
		args = append(args, argName(pr.Name, pr.Type, pr.Required))
	}
	return strings.Join(args, sep)
}

// argName is one argument as the list shows it: "days?:integer" for an
// optional one, "city:string" for a required one, without the type when
// there is none (prompt arguments are strings).
func argName(name, typ string, required bool) string {
	if !required {
		name += "?"
	}
	if typ != "" {
		name += ":" + typ
	}
	return name
}

// nonNil makes empty lists print as [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// listKind reads a kind as list takes it: the singular (tool) and the
// protocol's name (resourceTemplates) are accepted for the kind.
func listKind(arg string) string {
	switch strings.ToLower(arg) {
	case "tool":
		return "tools"
	case "resource":
		return "resources"
	case "template", "resourcetemplates", "resource-templates", "resourcetemplate":
		return "templates"
	case "prompt":
		return "prompts"
	}
	return arg
}

// printAllRows writes piped `list all`: every line tab-separated, its
// first column the kind (tool, resource, template, prompt), where a
// terminal gets a section per kind. Each kind's rows are the ones its own
// list prints piped, so a script cuts the kind off and has them.
func printAllRows(p *render.Printer, out map[string]any, l *listing) error {
	sections := []struct {
		key, kind string
		print     func(*render.Printer) error
	}{
		{"tools", "tool", func(p *render.Printer) error { return printTools(p, l.Tools, false) }},
		{"resources", "resource", func(p *render.Printer) error { return printResources(p, l.Resources, false) }},
		{"resourceTemplates", "template", func(p *render.Printer) error { return printTemplates(p, l.Templates, false) }},
		{"prompts", "prompt", func(p *render.Printer) error { return printPrompts(p, l.Prompts, false) }},
	}
	for _, sec := range sections {
		if _, ok := out[sec.key]; !ok {
			continue
		}
		pw := &prefixWriter{w: p.Out, prefix: sec.kind + "\t", start: true}
		sp := *p
		sp.Out = pw
		if err := sec.print(&sp); err != nil {
			return err
		}
		if pw.err != nil {
			return pw.err
		}
	}
	return nil
}

// prefixWriter writes prefix at the start of every line.
type prefixWriter struct {
	w      io.Writer
	prefix string
	start  bool // the next byte begins a line
	err    error
}

func (pw *prefixWriter) Write(b []byte) (int, error) {
	if pw.err != nil {
		return 0, pw.err
	}
	n := len(b)
	for len(b) > 0 {
		if pw.start {
			if _, pw.err = io.WriteString(pw.w, pw.prefix); pw.err != nil {
				return 0, pw.err
			}
			pw.start = false
		}
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			_, pw.err = pw.w.Write(b)
			return n, pw.err
		}
		if _, pw.err = pw.w.Write(b[:i+1]); pw.err != nil {
			return 0, pw.err
		}
		b = b[i+1:]
		pw.start = true
	}
	return n, nil
}

// listKinds are the kinds list takes: the client's list methods, and "all".
func listKinds() []string {
	var kinds []string
	for _, l := range client.ListMethods() {
		kinds = append(kinds, l.Kind)
	}
	return append(kinds, "all")
}
