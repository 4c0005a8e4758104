package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/render"
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
}

// NewCmdPrompt builds `mcpctl prompt`. runF replaces the run function in tests.
func NewCmdPrompt(f *Factory, runF func(*PromptOptions) error) *cobra.Command {
	opts := &PromptOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "prompt <name> [key=value | key=@file ...] [flags] [-- server command...]",
		Short: "Get a prompt with its arguments filled in",
		Long: `Get a prompt (prompts/get) and print its messages by role. Prompt
arguments are strings: key=value, or key=@file for a file's contents.`,
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
	cmd.Flags().StringVar(&opts.SaveDir, "save-dir", "", "Folder for images, audio and blobs in messages; files there are never replaced (default: a new temporary folder)")
	return cmd
}

func promptRun(ctx context.Context, opts *PromptOptions) error {
	f := opts.Factory
	parsed, err := schema.ParseArgs(opts.Args, nil, schema.ArgOptions{Stdin: f.IOStreams.In})
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
	opts.Server.Lazy = true
	s, err := f.Connect(ctx, &opts.Server)
	if err != nil {
		return err
	}
	defer s.Close()
	res, err := s.GetPrompt(ctx, opts.Name, args)
	if err != nil {
		return fmt.Errorf("getting prompt %q from %s: %w", opts.Name, s.name, err)
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
	return p.Messages(res.Messages, render.ContentOptions{SaveDir: opts.SaveDir})
}
