package cmd

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/session"
)

// CompleteOptions are the options of `mcpctl complete`.
type CompleteOptions struct {
	Factory *Factory
	Server  ServerOptions
	Output  OutputOptions
	// Kind is "prompt" or "template".
	Kind string
	// Target is the prompt's name or the resource template's URI template
	// (or name).
	Target string
	// Arg and Value are the argument to complete and what is typed of it.
	// Arg may be set by --arg before the arguments are read.
	Arg, Value string
	// Context are the other arguments given, sent as context.arguments.
	Context map[string]string
}

// NewCmdComplete builds `mcpctl complete`. runF replaces the run function
// in tests.
func NewCmdComplete(f *Factory, runF func(*CompleteOptions) error) *cobra.Command {
	opts := &CompleteOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "complete {prompt <name>|template <uri-template>} <arg=partial> [arg=value ...] [flags] [-- server command...]",
		Short: "Ask the server to complete a prompt argument or a template variable",
		Long: `Ask the server for the values of a prompt argument, or of a resource
template variable, that begin with what is typed so far (completion/complete).

The argument completed is the one --arg names, else the last one with an
empty value ("language="), else the last one given, as a shell completes
the word being typed; its value is the partial text. The other key=value
pairs are arguments already chosen, sent as context so the server can
narrow its answer. A template is named by its URI template or its name.

Values are printed one per line; -o json prints the result (values, total,
hasMore). A server that did not declare the "completions" capability offers
none: mcpctl says so and exits 1. Shell completion (mcpctl completion) uses
the same request for prompt argument values.`,
		Example: `  mcpctl complete prompt review_code language=Py --demo
  mcpctl complete prompt summarize style= --demo
  mcpctl complete template 'demo://greeting/{name}' name=A --demo
  mcpctl complete template greeting name= -o json --demo`,
		RunE: func(cmd *cobra.Command, args []string) error {
			args = setServerArgs(cmd, args, &opts.Server)
			if len(args) < 3 && (len(args) < 2 || opts.Arg == "") {
				return flagErrorf("complete needs a kind, a name and arg=partial, e.g. mcpctl complete prompt review_code language=P --demo")
			}
			opts.Kind = args[0]
			if opts.Kind != "prompt" && opts.Kind != "template" {
				return flagErrorf("unknown kind %q: expected prompt or template", opts.Kind)
			}
			opts.Target = args[1]
			if err := opts.pickArgument(args[2:]); err != nil {
				return err
			}
			if err := opts.Output.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return completeRun(cmd.Context(), opts)
		},
	}
	addServerFlags(cmd, &opts.Server)
	addOutputFlags(cmd, &opts.Output)
	cmd.Flags().StringVar(&opts.Arg, "arg", "", "The argument to complete (default: the last one with an empty value, else the last one)")
	return cmd
}

// pickArgument reads the key=value pairs: the one to complete is the one
// --arg names (with an empty partial if it is not among them), else the
// last one whose value is empty, else the last one, as a shell completes
// the word being typed; the others are context.
func (o *CompleteOptions) pickArgument(pairs []string) error {
	type pair struct{ key, value string }
	var given []pair
	seen := map[string]bool{}
	for _, a := range pairs {
		k, v, ok := strings.Cut(a, "=")
		if !ok || k == "" {
			return flagErrorf("%q is not key=value (e.g. language=Py; an empty value asks for every completion: language=)", a)
		}
		if seen[k] {
			return flagErrorf("argument %q is given more than once", k)
		}
		seen[k] = true
		given = append(given, pair{k, v})
	}
	pick := -1
	for i, p := range given {
		switch {
		case o.Arg != "":
			if p.key == o.Arg {
				pick = i
			}
		case p.value == "":
			pick = i
		}
	}
	if pick < 0 && o.Arg == "" {
		pick = len(given) - 1
	}
	if pick >= 0 {
		o.Arg, o.Value = given[pick].key, given[pick].value
	}
	o.Context = map[string]string{}
	for i, p := range given {
		if i != pick {
			o.Context[p.key] = p.value
		}
	}
	return nil
}

func completeRun(ctx context.Context, opts *CompleteOptions) error {
	f := opts.Factory
	s, err := f.Connect(ctx, &opts.Server)
	if err != nil {
		return err
	}
	defer s.Close()
	if !s.HasCapability("completions") {
		return fmt.Errorf("%s offers no completions: it did not declare the \"completions\" capability", s.Name())
	}
	ref := client.PromptRef(opts.Target)
	if opts.Kind == "template" {
		uri, err := templateURI(ctx, s, opts.Target, f)
		if err != nil {
			return err
		}
		ref = client.TemplateRef(uri)
	}
	res, err := s.Complete(ctx, ref, opts.Arg, opts.Value, opts.Context)
	if err != nil {
		return fmt.Errorf("completing %s of %s %q on %s: %w", opts.Arg, opts.Kind, opts.Target, s.Name(), err)
	}
	p := f.printer()
	if opts.Output.structured() {
		return opts.Output.write(p, res.Raw)
	}
	var b strings.Builder
	for _, v := range res.Completion.Values {
		// One value per line, whatever the server put in it.
		b.WriteString(p.Untrusted(strings.ReplaceAll(strings.ReplaceAll(v, "\r", " "), "\n", " ")))
		b.WriteByte('\n')
	}
	if _, err := io.WriteString(p.Out, b.String()); err != nil {
		return err
	}
	c := res.Completion
	if p.TTY {
		switch {
		case len(c.Values) == 0:
			fmt.Fprintln(p.ErrOut, "No completions.")
		case c.Total != nil && *c.Total > len(c.Values):
			fmt.Fprintf(p.ErrOut, "(%d of %d)\n", len(c.Values), *c.Total)
		case c.HasMore:
			fmt.Fprintf(p.ErrOut, "(%d shown; the server has more)\n", len(c.Values))
		}
	}
	return nil
}

// templateURI is the URI template target names: itself when it looks like
// one, else the URI template of the template of that name.
func templateURI(ctx context.Context, s *session.Session, target string, f *Factory) (string, error) {
	if strings.Contains(target, "{") {
		return target, nil
	}
	templates, err := s.ListResourceTemplates(ctx)
	if err != nil {
		return "", fmt.Errorf("listing the resource templates of %s to find %q: %w", s.Name(), target, err)
	}
	var known []string
	for _, t := range templates {
		if t.Name == target || t.URITemplate == target {
			return t.URITemplate, nil
		}
		known = append(known, t.URITemplate, t.Name)
	}
	return "", notFoundError("template", target, known, f)
}

// completeArgumentValue asks the server for the values of a prompt
// argument, for shell completion: typed is "key=partial", given the other
// key=value arguments on the line. It offers "key=value" words; nothing
// when the server declared no completions.
func completeArgumentValue(ctx context.Context, s *session.Session, prompt, typed string, given []string) []cobra.Completion {
	if !s.HasCapability("completions") {
		return nil
	}
	key, partial, _ := strings.Cut(typed, "=")
	others := map[string]string{}
	for _, a := range given {
		if k, v, ok := strings.Cut(a, "="); ok && k != key {
			others[k] = v
		}
	}
	res, err := s.Complete(ctx, client.PromptRef(prompt), key, partial, others)
	if err != nil {
		return nil
	}
	out := make([]cobra.Completion, 0, len(res.Completion.Values))
	for _, v := range res.Completion.Values {
		if strings.ContainsAny(v, "\r\n\t") {
			continue // no shell takes such a word from a completion
		}
		out = append(out, key+"="+v)
	}
	return out
}

// completeCompleteArgs completes complete itself: the kind, then prompt
// names or URI templates.
func (f *Factory) completeCompleteArgs(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if afterDash(cmd, args) {
		return nil, cobra.ShellCompDirectiveDefault
	}
	switch len(args) {
	case 0:
		return []cobra.Completion{"prompt", "template"}, cobra.ShellCompDirectiveNoFileComp
	case 1:
	default:
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	s, ctx, done, err := f.completionSession(cmd, args)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer done()
	var out []cobra.Completion
	if args[0] == "prompt" {
		prompts, _ := s.ListPrompts(ctx)
		for _, p := range prompts {
			if strings.HasPrefix(p.Name, toComplete) {
				out = append(out, cobra.CompletionWithDesc(p.Name, firstLine(p.Description)))
			}
		}
	} else if s.HasCapability("resources") {
		templates, _ := s.ListResourceTemplates(ctx)
		for _, t := range templates {
			if strings.HasPrefix(t.URITemplate, toComplete) {
				out = append(out, cobra.CompletionWithDesc(t.URITemplate, firstLine(t.Description)))
			}
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
