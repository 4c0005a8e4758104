package cmd

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/config"
)

// editorOrigins are the editors --editor takes.
var editorOrigins = []string{config.OriginClaudeDesktop, config.OriginClaudeCode, config.OriginCursor, config.OriginVSCode, config.OriginWindsurf}

// ServersWrapOptions are the options of `mcpctl servers wrap` and
// `servers unwrap`.
type ServersWrapOptions struct {
	Names  []string
	All    bool
	Editor string
	File   string
}

func newCmdServersWrap(f *Factory) *cobra.Command {
	opts := &ServersWrapOptions{}
	cmd := &cobra.Command{
		Use:   "wrap {NAME... | --all} [--editor EDITOR] [--file FILE]",
		Short: "Run an editor's servers through mcpctl proxy",
		Long: `Rewrite an editor's MCP file so that its servers run through mcpctl
proxy, which records and checks every frame the editor exchanges with
them (see mcpctl proxy ls, watch --session, check and export).

Each stdio server's command becomes this mcpctl (by its absolute path)
and its args ["proxy", "--", COMMAND, ARGS...]. Each URL server becomes
a stdio server running the bridge: ["proxy", "--url", URL, "--transport",
TYPE, "-H", "Name: $MCPCTL_HEADER_NAME", ...], its type "stdio", and its
headers an env holding each value as the editor wrote it (${input:…} and
${env:…} references keep working; secrets stay out of the arguments).
A URL server that needs OAuth signs in with mcpctl's token store: run
'mcpctl auth login --url URL' once. Only those members are edited: key
order, formatting, comments and unknown fields stay.

The file is copied to FILE.mcpctl-backup before the first server is
wrapped; servers already wrapped are left alone, so wrapping twice
changes nothing. 'mcpctl servers unwrap' undoes it byte for byte.

The file is the one NAME comes from (mcpctl servers lists them), or the
file of --editor (claude-desktop, claude-code, cursor, vscode, windsurf;
the user's file if it exists, else the project's), or --file FILE.`,
		Example: `  mcpctl servers wrap everything  # needs: an editor's config with a server named everything
  mcpctl servers wrap --all --editor claude-desktop  # needs: Claude Desktop's config
  mcpctl servers wrap --all --file .vscode/mcp.json  # needs: a project with .vscode/mcp.json
  mcpctl servers unwrap --editor claude-desktop  # needs: Claude Desktop's config`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Names = args
			if opts.All == (len(args) > 0) {
				return flagErrorf("give server names or --all (not both)")
			}
			return runServersWrap(f, opts, false)
		},
	}
	addWrapFlags(cmd, opts)
	cmd.Flags().BoolVar(&opts.All, "all", false, "Wrap every server of the file")
	return cmd
}

func newCmdServersUnwrap(f *Factory) *cobra.Command {
	opts := &ServersWrapOptions{}
	cmd := &cobra.Command{
		Use:   "unwrap [NAME] [--editor EDITOR] [--file FILE]",
		Short: "Undo mcpctl servers wrap",
		Long: `Undo 'mcpctl servers wrap': when the file is as wrap left it, the backup
(FILE.mcpctl-backup) is restored byte for byte and removed; when it was
edited since, each wrapped server is turned back in place, the edits are
kept, and unwrap says so. The file is NAME's, --editor's or --file's.`,
		Example: `  mcpctl servers unwrap --editor claude-desktop  # needs: Claude Desktop's config, wrapped
  mcpctl servers unwrap --file .vscode/mcp.json  # needs: a project with .vscode/mcp.json, wrapped`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Names = args
			return runServersWrap(f, opts, true)
		},
	}
	addWrapFlags(cmd, opts)
	return cmd
}

func addWrapFlags(cmd *cobra.Command, opts *ServersWrapOptions) {
	cmd.Flags().StringVar(&opts.Editor, "editor", "", "The file of `EDITOR`: "+strings.Join(editorOrigins, ", "))
	cmd.Flags().StringVar(&opts.File, "file", "", "The editor's MCP `FILE` to edit")
	_ = cmd.RegisterFlagCompletionFunc("editor", cobra.FixedCompletions(editorOrigins, cobra.ShellCompDirectiveNoFileComp))
}

func runServersWrap(f *Factory, opts *ServersWrapOptions, unwrap bool) error {
	path, err := wrapTarget(f, opts)
	if err != nil {
		return err
	}
	var rep *config.WrapReport
	if unwrap {
		rep, err = config.UnwrapFile(path)
	} else {
		// selfPath (cmd/test.go): the name this mcpctl was started by,
		// made absolute, as the editor must start it.
		exe, xerr := selfPath()
		if xerr != nil {
			return fmt.Errorf("finding mcpctl's own path: %w", xerr)
		}
		var names []string
		if !opts.All {
			names = opts.Names
		}
		rep, err = config.WrapFile(path, names, exe)
	}
	if err != nil {
		return err
	}
	out, errOut := f.IOStreams.Out, f.IOStreams.ErrOut
	for _, c := range rep.Changes {
		if c.Why != "" {
			fmt.Fprintf(errOut, "%s: %s: %s\n", c.Name, c.Done, c.Why)
			continue
		}
		fmt.Fprintf(out, "%s\t%s\n", c.Name, c.Done)
	}
	switch {
	case !rep.Written:
		fmt.Fprintf(errOut, "%s: nothing to change\n", path)
	case unwrap && rep.Reversed:
		fmt.Fprintf(errOut, "%s changed since it was wrapped: its servers were unwrapped in place and the other edits kept", path)
		if rep.Backup != "" {
			fmt.Fprintf(errOut, " (the backup %s is kept)", rep.Backup)
		}
		fmt.Fprintln(errOut)
	case unwrap:
		fmt.Fprintf(errOut, "%s restored from %s\n", path, rep.Backup)
	case rep.Backup != "":
		fmt.Fprintf(errOut, "%s rewritten; the original is in %s\n", path, rep.Backup)
	default:
		fmt.Fprintf(errOut, "%s rewritten\n", path)
	}
	return nil
}

// wrapTarget is the editor file to edit: --file, --editor's, or the file
// the one server named comes from.
func wrapTarget(f *Factory, opts *ServersWrapOptions) (string, error) {
	if opts.File != "" && opts.Editor != "" {
		return "", flagErrorf("--file and --editor both name a file: give one")
	}
	if opts.File != "" {
		return opts.File, nil
	}
	if opts.Editor != "" {
		if !slices.Contains(editorOrigins, opts.Editor) {
			return "", flagErrorf("--editor %s: one of %s", opts.Editor, strings.Join(editorOrigins, ", "))
		}
		var candidates []string
		for _, src := range config.Sources(f.host(), "") {
			if src.Origin != opts.Editor {
				continue
			}
			candidates = append(candidates, src.Path)
			if _, err := os.Stat(src.Path); err == nil {
				return src.Path, nil
			}
		}
		return "", flagErrorf("%s has no MCP file here (looked for %s)", opts.Editor, strings.Join(candidates, ", "))
	}
	if len(opts.Names) != 1 {
		return "", flagErrorf("name one server, or give --editor or --file to say which file")
	}
	cat, err := f.Catalog()
	if err != nil {
		return "", err
	}
	s, _, err := cat.Find(opts.Names[0])
	if err != nil {
		return "", flagErrorf("%v", err)
	}
	if s.Origin == config.OriginMcpctl {
		return "", flagErrorf("server %q is defined in mcpctl's own config, not an editor's file: nothing to wrap", s.Name)
	}
	return s.File, nil
}
