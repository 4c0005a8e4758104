package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/schema"
)

// DescribeOptions are the options of `mcpctl describe`.
type DescribeOptions struct {
	Factory *Factory
	Server  ServerOptions
	Output  OutputOptions
	// Kind is tool, prompt or resource (a resource or a resource template).
	Kind string
	Name string
}

// describeKinds are the kinds describe takes; "template" is an alias of
// "resource" that looks at resource templates only.
var describeKinds = []string{"tool", "prompt", "resource", "template"}

// NewCmdDescribe builds `mcpctl describe`. runF replaces the run function
// in tests.
func NewCmdDescribe(f *Factory, runF func(*DescribeOptions) error) *cobra.Command {
	opts := &DescribeOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "describe {tool|prompt|resource} <name> [flags] [-- server command...]",
		Short: "Describe one tool, prompt or resource in full",
		Long: `Describe one tool, prompt, resource or resource template as a person
reads it.

A tool: its title and description, its annotations in words (read-only,
idempotent, closed world…), its execution.taskSupport, a table of its
arguments (name; type with format, range, length, pattern, item type and
alternatives such as "string | integer"; required; default; allowed
values; description), nested properties named by path (location.lat,
tags[].name), and a summary of its outputSchema.

A prompt: its arguments, which are required, and what each is for.

A resource, by URI or name: URI, MIME type, size and annotations; a
resource template, by URI template or name: its variables too.

-o json prints the definition exactly as the server listed it. A name the
server does not have exits 2 with the names closest to it.`,
		Example: `  mcpctl describe tool weather --demo
  mcpctl describe prompt review_code --demo
  mcpctl describe resource demo://readme --demo
  mcpctl describe resource greeting --demo
  mcpctl describe tool add -o json --demo`,
		ValidArgsFunction: f.completeDescribeArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			args = setServerArgs(cmd, args, &opts.Server)
			if len(args) != 2 {
				return flagErrorf("describe needs a kind and a name, e.g. %s", f.commandHint("describe tool echo", "--demo"))
			}
			opts.Kind, opts.Name = strings.TrimSuffix(args[0], "s"), args[1]
			if !slices.Contains(describeKinds, opts.Kind) {
				return flagErrorf("unknown kind %q: expected tool, prompt or resource", args[0])
			}
			if err := opts.Output.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return describeRun(cmd.Context(), opts)
		},
	}
	addServerFlags(cmd, &opts.Server)
	addOutputFlags(cmd, &opts.Output)
	return cmd
}

func describeRun(ctx context.Context, opts *DescribeOptions) error {
	f := opts.Factory
	s, err := f.Connect(ctx, &opts.Server)
	if err != nil {
		return err
	}
	defer s.Close()
	p := f.printer()
	show := func(raw json.RawMessage, describe func() error) error {
		if opts.Output.structured() {
			return opts.Output.write(p, raw)
		}
		return describe()
	}
	capability := map[string]string{"tool": "tools", "prompt": "prompts", "resource": "resources", "template": "resources"}[opts.Kind]
	if !s.HasCapability(capability) {
		return fmt.Errorf("%s offers no %ss: it did not declare the %q capability in initialize", s.Name(), opts.Kind, capability)
	}
	switch opts.Kind {
	case "tool":
		tools, err := s.ListTools(ctx)
		if err != nil {
			return fmt.Errorf("listing the tools of %s to find %q: %w", s.Name(), opts.Name, err)
		}
		t := findTool(tools, opts.Name)
		if t == nil {
			return notFoundError("tool", opts.Name, itemNames(tools, func(t client.Tool) string { return t.Name }), f)
		}
		return show(t.Raw, func() error { return p.DescribeTool(t) })
	case "prompt":
		prompts, err := s.ListPrompts(ctx)
		if err != nil {
			return fmt.Errorf("listing the prompts of %s to find %q: %w", s.Name(), opts.Name, err)
		}
		for i := range prompts {
			if pr := &prompts[i]; pr.Name == opts.Name {
				return show(pr.Raw, func() error { return p.DescribePrompt(pr) })
			}
		}
		return notFoundError("prompt", opts.Name, itemNames(prompts, func(p client.Prompt) string { return p.Name }), f)
	}
	// A resource by URI or name, else a resource template by URI template
	// or name.
	var known []string
	if opts.Kind == "resource" {
		resources, err := s.ListResources(ctx)
		if err != nil {
			return fmt.Errorf("listing the resources of %s to find %q: %w", s.Name(), opts.Name, err)
		}
		if r := findResource(resources, opts.Name); r != nil {
			return show(r.Raw, func() error { return p.DescribeResource(r) })
		}
		for _, r := range resources {
			known = append(known, r.URI, r.Name)
		}
	}
	templates, err := s.ListResourceTemplates(ctx)
	if err != nil {
		return fmt.Errorf("listing the resource templates of %s to find %q: %w", s.Name(), opts.Name, err)
	}
	for i := range templates {
		if t := &templates[i]; t.URITemplate == opts.Name || t.Name == opts.Name {
			return show(t.Raw, func() error { return p.DescribeTemplate(t) })
		}
	}
	for _, t := range templates {
		known = append(known, t.URITemplate, t.Name)
	}
	return notFoundError(opts.Kind, opts.Name, known, f)
}

// findResource finds a resource by URI, else by name.
func findResource(resources []client.Resource, name string) *client.Resource {
	for i := range resources {
		if resources[i].URI == name {
			return &resources[i]
		}
	}
	for i := range resources {
		if resources[i].Name == name {
			return &resources[i]
		}
	}
	return nil
}

func itemNames[T any](items []T, name func(T) string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = name(it)
	}
	return out
}

// notFoundError is the one line for a name the server does not have: the
// close matches, or every name when there are few, and how to list them.
// It is a usage error, as an unknown tool is for call.
func notFoundError(kind, name string, known []string, f *Factory) error {
	msg := fmt.Sprintf("the server has no %s %q", kind, name)
	if close := closeMatches(name, known); len(close) > 0 {
		msg += "; close matches: " + strings.Join(close, ", ")
	} else if uniq := dedupSorted(known); len(uniq) > 0 && len(uniq) <= 20 {
		msg += "; it has: " + strings.Join(uniq, ", ")
	} else if len(uniq) == 0 {
		msg += fmt.Sprintf("; it has no %ss", kind)
	}
	list := map[string]string{"tool": "tools", "prompt": "prompts", "resource": "resources", "template": "templates"}[kind]
	msg += fmt.Sprintf(" (see: %s)", f.commandHint("list "+list, ""))
	return &FlagError{Err: fmt.Errorf("%s", msg)}
}

// closeMatches are the known names name most likely means: the one
// [schema.Suggest] picks, then those that contain name or are contained in
// it (case-insensitively); five at most, each once.
func closeMatches(name string, known []string) []string {
	const most = 5
	var out []string
	add := func(s string) {
		if s != "" && s != name && len(out) < most && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	add(schema.Suggest(name, known))
	lname := strings.ToLower(name)
	if len(lname) >= 2 {
		for _, k := range known {
			lk := strings.ToLower(k)
			if strings.Contains(lk, lname) || (len(lk) >= 3 && strings.Contains(lname, lk)) {
				add(k)
			}
		}
	}
	return out
}

func dedupSorted(list []string) []string {
	var out []string
	for _, s := range list {
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// completeDescribeArgs completes describe: the kind, then the names of
// that kind the server offers.
func (f *Factory) completeDescribeArgs(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if afterDash(cmd, args) {
		return nil, cobra.ShellCompDirectiveDefault
	}
	if len(args) == 0 {
		return []cobra.Completion{"tool", "prompt", "resource"}, cobra.ShellCompDirectiveNoFileComp
	}
	if len(args) > 1 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	s, ctx, done, err := f.completionSession(cmd, args)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer done()
	var out []cobra.Completion
	offer := func(name, desc string) {
		if strings.HasPrefix(name, toComplete) {
			out = append(out, cobra.CompletionWithDesc(name, firstLine(desc)))
		}
	}
	switch strings.TrimSuffix(args[0], "s") {
	case "tool":
		tools, _ := s.ListTools(ctx)
		for _, t := range tools {
			offer(t.Name, t.Description)
		}
	case "prompt":
		prompts, _ := s.ListPrompts(ctx)
		for _, p := range prompts {
			offer(p.Name, p.Description)
		}
	case "resource", "template":
		if s.HasCapability("resources") {
			resources, _ := s.ListResources(ctx)
			for _, r := range resources {
				offer(r.URI, r.Description)
			}
			templates, _ := s.ListResourceTemplates(ctx)
			for _, t := range templates {
				offer(t.URITemplate, t.Description)
			}
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
