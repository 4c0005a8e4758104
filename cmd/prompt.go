package cmd

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/schema"
)

// PromptOptions are the options of `mcpctl prompt`.
type PromptOptions struct {
	Factory *Factory
	Server  ServerOptions
	Output  OutputOptions
	Name    string
	Args    []string
	SaveDir string
	// AllowUnknown sends arguments the prompt does not declare
	// (--allow-unknown), as call's flag does for a tool.
	AllowUnknown bool
}

// NewCmdPrompt builds `mcpctl prompt`. runF replaces the run function in tests.
func NewCmdPrompt(f *Factory, runF func(*PromptOptions) error) *cobra.Command {
	opts := &PromptOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "prompt <name> [key=value | key=@file ...] [flags] [-- server command...]",
		Short: "Get a prompt with its arguments filled in",
		Long: `Get a prompt (prompts/get) and print its messages by role. Prompt
arguments are strings: key=value, or key=@file for a file's contents.

The prompt is checked as call checks a tool: an unknown prompt is a usage
error (exit 2) naming the closest one; a missing required argument or an
argument the prompt does not declare fails with exit 5 before anything is
sent (--allow-unknown sends it). A server that did not declare the
"prompts" capability is not asked.`,
		Example: `  mcpctl prompt --demo review_code code='print(1)' language=python
  mcpctl prompt --demo summarize text=@README.md
  mcpctl prompt -o json --demo summarize text=hello`,
		RunE: func(cmd *cobra.Command, args []string) error {
			args = setServerArgs(cmd, args, &opts.Server)
			if len(args) == 0 {
				return flagErrorf("prompt needs the name of a prompt, e.g. mcpctl prompt --demo summarize text=hi")
			}
			opts.Name, opts.Args = args[0], args[1:]
			if err := opts.Output.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return promptRun(cmd.Context(), opts)
		},
	}
	addServerFlags(cmd, &opts.Server)
	addOutputFlags(cmd, &opts.Output)
	cmd.Flags().BoolVar(&opts.AllowUnknown, "allow-unknown", false, "Send arguments the prompt does not declare")
	cmd.Flags().StringVar(&opts.SaveDir, "save-dir", "", "Folder for images, audio and blobs in messages; files there are never replaced (default: on a terminal, a cache folder kept to the newest 100 files; piped, none)")
	return cmd
}

func promptRun(ctx context.Context, opts *PromptOptions) error {
	f := opts.Factory
	parsed, err := schema.ParseArgs(opts.Args, nil, schema.ArgOptions{Stdin: f.IOStreams.In, MaxSize: argumentLimit(&opts.Server)})
	if err != nil {
		return err
	}
	args := make(map[string]string, len(parsed))
	for k, v := range parsed {
		s, ok := v.(string)
		if !ok {
			return flagErrorf("prompt argument %q must be a string (prompt arguments are always strings; use key=value)", k)
		}
		args[k] = s
	}
	// The capability decides whether there are prompts to get, as for
	// list: the handshake's result is needed, even in the modern era.
	s, err := f.Connect(ctx, &opts.Server)
	if err != nil {
		return err
	}
	defer s.Close()
	if !s.HasCapability("prompts") {
		return fmt.Errorf("%s offers no prompts: it did not declare the \"prompts\" capability in initialize", s.Name())
	}
	prompts, err := s.ListPrompts(ctx)
	if err != nil {
		return fmt.Errorf("listing the prompts of %s to find %q: %w", s.Name(), opts.Name, err)
	}
	prompt := findPrompt(prompts, opts.Name)
	if prompt == nil {
		return unknownPromptError(opts.Name, prompts, f.commandHint("list prompts", ""))
	}
	if err := checkPromptArgs(prompt, args, opts.AllowUnknown); err != nil {
		return err
	}
	res, err := s.GetPrompt(ctx, opts.Name, args)
	if err != nil {
		return fmt.Errorf("getting prompt %q from %s: %w", opts.Name, s.Name(), err)
	}
	p := f.printer()
	if opts.Output.structured() {
		return opts.Output.write(p, res.Raw)
	}
	if res.Description != "" {
		if err := p.Fields([][2]string{{"Description", res.Description}}); err != nil {
			return err
		}
	}
	copts, done := f.contentOptions(opts.SaveDir, opts.Server.Verbose)
	err = p.Messages(res.Messages, copts)
	done()
	return err
}

func findPrompt(prompts []client.Prompt, name string) *client.Prompt {
	for i := range prompts {
		if prompts[i].Name == name {
			return &prompts[i]
		}
	}
	return nil
}

// unknownPromptError names the prompt, the closest names and how to list
// them, as [unknownToolError] does for tools.
func unknownPromptError(name string, prompts []client.Prompt, listHint string) error {
	names := make([]string, len(prompts))
	for i, p := range prompts {
		names[i] = p.Name
	}
	sort.Strings(names)
	msg := fmt.Sprintf("the server has no prompt %q", name)
	if close := schema.Suggest(name, names); close != "" {
		msg += fmt.Sprintf("; did you mean %q?", close)
	} else if len(names) > 0 && len(names) <= 20 {
		msg += "; its prompts are: " + strings.Join(names, ", ")
	}
	msg += " (see: " + listHint + ")"
	return &FlagError{Err: fmt.Errorf("%s", msg)}
}

// checkPromptArgs checks the arguments against the prompt's declared ones
// before anything is sent, as call checks a tool's against its
// inputSchema: a missing required argument or an unknown one (unless
// allowUnknown) fails with exit 5, every problem listed.
func checkPromptArgs(p *client.Prompt, args map[string]string, allowUnknown bool) error {
	declared := make([]string, len(p.Arguments))
	var violations []schema.Violation
	for i, a := range p.Arguments {
		declared[i] = a.Name
		if _, ok := args[a.Name]; a.Required && !ok {
			violations = append(violations, schema.Violation{Path: "/" + a.Name, Keyword: "required", Msg: "required argument is missing"})
		}
	}
	for k := range args {
		if allowUnknown || slices.Contains(declared, k) {
			continue
		}
		msg := "unknown argument"
		if close := schema.Suggest(k, declared); close != "" {
			msg += fmt.Sprintf("; did you mean %q?", close)
		} else if len(declared) == 0 {
			msg += " (the prompt takes none)"
		} else {
			msg += " (its arguments are: " + strings.Join(declared, ", ") + ")"
		}
		violations = append(violations, schema.Violation{Path: "/" + k, Keyword: "additionalProperties", Msg: msg})
	}
	sort.SliceStable(violations, func(i, j int) bool { return violations[i].String() < violations[j].String() })
	return violationsError(fmt.Sprintf("arguments for prompt %q do not match its declared arguments (nothing was sent)", p.Name), violations)
}
