package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/session"
)

// completionTimeout bounds everything a completion does with a server,
// start-up and shutdown included: a shell must never hang on Tab. The
// server gets completionTimeout-completionShutdown to answer, and stdio
// servers completionGrace at each step of their shutdown.
const (
	completionTimeout  = 3 * time.Second
	completionShutdown = 500 * time.Millisecond
	completionGrace    = 100 * time.Millisecond
)

// NewCmdCompletion builds `mcpctl completion`, which prints cobra's
// completion scripts.
func NewCmdCompletion(f *Factory) *cobra.Command {
	var noDesc bool
	cmd := &cobra.Command{
		Use:   "completion {bash|zsh|fish|powershell}",
		Short: "Print a shell completion script",
		Long: `Print the completion script for bash, zsh, fish or PowerShell.

Besides commands and flags, it completes server names after -s, and, once a
server is chosen with -s NAME, --demo or --url URL, tool names and argument
keys (key=) for call and validate, prompt names, arguments and argument
values (from the server's completion/complete) for prompt, names for
describe, and resource URIs for read. Those ask the server, for 3 seconds at most;
if it does not answer in time nothing is offered. Words after -- are the
server's command line and complete as files.

Load it in the current shell, or install it for new ones:

  bash:        source <(mcpctl completion bash)
               mcpctl completion bash > ~/.local/share/bash-completion/completions/mcpctl
               (needs the bash-completion package)
  zsh:         mcpctl completion zsh > "${fpath[1]}/_mcpctl"
               (with "autoload -U compinit; compinit" in ~/.zshrc)
  fish:        mcpctl completion fish > ~/.config/fish/completions/mcpctl.fish
  PowerShell:  mcpctl completion powershell | Out-String | Invoke-Expression
               (add that line to $PROFILE to keep it)`,
		Example: `  source <(mcpctl completion bash)
  mcpctl completion zsh > "${fpath[1]}/_mcpctl"
  mcpctl completion fish --no-descriptions > ~/.config/fish/completions/mcpctl.fish`,
		Args:                  completionShellArg,
		ValidArgs:             completionShells(),
		DisableFlagsInUseLine: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			root, out := cmd.Root(), f.IOStreams.Out
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(out, !noDesc)
			case "zsh":
				if noDesc {
					return root.GenZshCompletionNoDesc(out)
				}
				return root.GenZshCompletion(out)
			case "fish":
				return root.GenFishCompletion(out, !noDesc)
			default:
				if noDesc {
					return root.GenPowerShellCompletion(out)
				}
				return root.GenPowerShellCompletionWithDesc(out)
			}
		},
	}
	cmd.Flags().BoolVar(&noDesc, "no-descriptions", false, "Leave out descriptions of the completions")
	return cmd
}

// registerCompletions adds the completions that need the Factory: server
// names for -s on every command with server flags, and what a server offers
// for call, validate, prompt and read. Call it once the tree is built.
func registerCompletions(root *cobra.Command, f *Factory) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if serverOptionsOf(c) != nil {
			_ = c.RegisterFlagCompletionFunc("server", f.completeServerNames)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for _, c := range root.Commands() {
		switch c.Name() {
		case "call", "validate":
			c.ValidArgsFunction = f.completeToolArgs
		case "prompt":
			c.ValidArgsFunction = f.completePromptArgs
		case "complete":
			c.ValidArgsFunction = f.completeCompleteArgs
		case "read":
			c.ValidArgsFunction = f.completeResourceArgs
		}
	}
}

// completeServerNames offers the named servers, described by origin and
// target.
func (f *Factory) completeServerNames(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	cat, err := f.quiet().Catalog()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	seen := map[string]bool{}
	for _, s := range cat.Servers {
		if seen[s.Name] || !strings.HasPrefix(s.Name, toComplete) {
			continue
		}
		seen[s.Name] = true
		out = append(out, cobra.CompletionWithDesc(s.Name, s.Origin+": "+target(s)))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeServerArg completes the one argument of servers show and remove.
func (f *Factory) completeServerArg(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return f.completeServerNames(cmd, args, toComplete)
}

// quiet returns a copy of f for completions: nothing is read from the
// terminal (no VS Code input is asked for) and nothing is written to
// stderr, which belongs to the shell.
func (f *Factory) quiet() *Factory {
	ios := *f.IOStreams
	ios.In = strings.NewReader("")
	ios.ErrOut = io.Discard
	ios.stdinTTY, ios.stderrTTY = false, false
	q := *f
	q.IOStreams = &ios
	q.built = f.state()
	return &q
}

// completionSession connects to the server the partial command line
// chooses, within completionTimeout. The caller must call done.
func (f *Factory) completionSession(cmd *cobra.Command, args []string) (s *session.Session, ctx context.Context, done func(), err error) {
	q := f.quiet()
	if err := q.applySettings(cmd); err != nil {
		return nil, nil, nil, err
	}
	bound := serverOptionsOf(cmd)
	if bound == nil {
		return nil, nil, nil, errors.New("the command takes no server flags")
	}
	// A copy: completion adjusts it for the shell's sake.
	o := *bound
	o.Given = givenFlags(cmd.Flags())
	o.Command = nil
	if afterDash(cmd, args) {
		o.Command = args[cmd.ArgsLenAtDash():]
	}
	o.Timeout = min(o.Timeout, completionTimeout-completionShutdown)
	o.Trace, o.ServerStderr, o.Verbose, o.Elicit = "", "quiet", false, ""
	o.Record = "" // a completion must not overwrite the recording
	o.Grace = completionGrace
	parent := cmd.Context()
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithTimeout(parent, completionTimeout-completionShutdown)
	s, err = q.Connect(ctx, &o)
	if err != nil {
		cancel()
		return nil, nil, nil, err
	}
	done = func() {
		// A server slow to exit must not hold the shell: give it a moment,
		// then leave it to the end of its stdin.
		closed := make(chan struct{})
		go func() { s.Close(); close(closed) }()
		select {
		case <-closed:
		case <-time.After(completionShutdown):
		}
		cancel()
	}
	return s, ctx, done, nil
}

// afterDash reports whether the word being completed follows "--", so
// belongs to the server's command line: those complete as files. Cobra
// parses the flags once with a "--" of its own appended, which leaves
// ArgsLenAtDash at len(args) when the user typed none.
func afterDash(cmd *cobra.Command, args []string) bool {
	dash := cmd.ArgsLenAtDash()
	return dash >= 0 && dash < len(args)
}

// completeToolArgs completes call and validate: the tool name first, then
// the keys of its inputSchema not given yet, as "key=". validate --schema
// FILE takes keys from the file, with no server.
func (f *Factory) completeToolArgs(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if afterDash(cmd, args) {
		return nil, cobra.ShellCompDirectiveDefault
	}
	if file, _ := cmd.Flags().GetString("schema"); file != "" {
		raw, err := os.ReadFile(file)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return argumentKeys(raw, args, toComplete)
	}
	s, ctx, done, err := f.completionSession(cmd, args)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer done()
	tools, err := s.ListTools(ctx)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	if len(args) == 0 {
		var out []cobra.Completion
		for _, t := range tools {
			if strings.HasPrefix(t.Name, toComplete) {
				out = append(out, cobra.CompletionWithDesc(t.Name, firstLine(t.Description)))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	tool := findTool(tools, args[0])
	if tool == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return argumentKeys(tool.InputSchema, args[1:], toComplete)
}

// argumentKeys offers "key=" for each property of inputSchema that the
// arguments given do not set yet.
func argumentKeys(inputSchema []byte, given []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if strings.ContainsAny(toComplete, "=") {
		// A value: nothing sensible to offer.
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	props, err := schema.Properties(inputSchema)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	set := map[string]bool{}
	for _, a := range given {
		k, _, _ := strings.Cut(a, "=")
		set[strings.TrimSuffix(k, ":")] = true
	}
	var out []cobra.Completion
	for _, p := range props {
		if set[p.Name] || !strings.HasPrefix(p.Name, toComplete) {
			continue
		}
		desc := p.Type
		if p.Required {
			desc = strings.TrimPrefix(desc+", required", ", ")
		}
		if d := firstLine(p.Description); d != "" {
			desc = strings.TrimPrefix(desc+": "+d, ": ")
		}
		out = append(out, cobra.CompletionWithDesc(p.Name+"=", desc))
	}
	// No space after "key=": the value comes next.
	return out, cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
}

// completePromptArgs completes prompt: the prompt name, then "key=" for
// its arguments, then their values as the server completes them
// (completion/complete).
func (f *Factory) completePromptArgs(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if afterDash(cmd, args) {
		return nil, cobra.ShellCompDirectiveDefault
	}
	s, ctx, done, err := f.completionSession(cmd, args)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer done()
	if len(args) > 0 && strings.Contains(toComplete, "=") {
		// A value: the server's completion/complete, if it offers one.
		return completeArgumentValue(ctx, s, args[0], toComplete, args[1:]), cobra.ShellCompDirectiveNoFileComp
	}
	prompts, err := s.ListPrompts(ctx)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	if len(args) == 0 {
		for _, p := range prompts {
			if strings.HasPrefix(p.Name, toComplete) {
				out = append(out, cobra.CompletionWithDesc(p.Name, firstLine(p.Description)))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	set := map[string]bool{}
	for _, a := range args[1:] {
		k, _, _ := strings.Cut(a, "=")
		set[k] = true
	}
	for _, p := range prompts {
		if p.Name != args[0] {
			continue
		}
		for _, a := range p.Arguments {
			if !set[a.Name] && strings.HasPrefix(a.Name, toComplete) {
				out = append(out, cobra.CompletionWithDesc(a.Name+"=", firstLine(a.Description)))
			}
		}
	}
	return out, cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
}

// completeResourceArgs completes read with the URIs of the server's
// resources.
func (f *Factory) completeResourceArgs(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if afterDash(cmd, args) {
		return nil, cobra.ShellCompDirectiveDefault
	}
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	s, ctx, done, err := f.completionSession(cmd, args)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer done()
	var resources []client.Resource
	if s.HasCapability("resources") {
		resources, _ = s.ListResources(ctx)
	}
	var out []cobra.Completion
	for _, r := range resources {
		if strings.HasPrefix(r.URI, toComplete) {
			out = append(out, cobra.CompletionWithDesc(r.URI, firstLine(r.Description)))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// firstLine is the first line of a description, for a completion's
// one-line description.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// completionShells are the shells `mcpctl completion` writes scripts for.
func completionShells() []string { return []string{"bash", "zsh", "fish", "powershell"} }

// completionShellArg wants one shell among [completionShells]; the error
// for none, more or an unknown one lists them, with the closest name.
func completionShellArg(_ *cobra.Command, args []string) error {
	shells := completionShells()
	list := strings.Join(shells, ", ")
	switch {
	case len(args) == 0:
		return flagErrorf("completion needs a shell: %s (e.g. mcpctl completion bash)", list)
	case len(args) > 1:
		return flagErrorf("completion takes one shell, got %d arguments: %s", len(args), list)
	case slices.Contains(shells, args[0]):
		return nil
	}
	msg := fmt.Sprintf("unknown shell %q; the shells are: %s", args[0], list)
	if s := schema.Suggest(args[0], append(shells, "pwsh")); s != "" {
		if s == "pwsh" {
			s = "powershell"
		}
		msg = fmt.Sprintf("unknown shell %q; did you mean %q? The shells are: %s", args[0], s, list)
	}
	return flagErrorf("%s", msg)
}
