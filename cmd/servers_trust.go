package cmd

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/config"
)

// trustStore loads the approvals of project entries from mcpctl's state
// folder.
func (f *Factory) trustStore() (*config.TrustStore, error) {
	dir, err := f.stateDir()
	if err != nil {
		return nil, fmt.Errorf("trusted servers: %w", err)
	}
	return config.LoadTrust(filepath.Join(dir, config.TrustFileName))
}

// vetNamed checks the definition -s picked before anything is started or
// contacted: it reports project files that were ignored and a project
// entry the user's own definition wins over, and lets a project entry
// through only when the user approved it (on a terminal, it asks). It
// returns def marked trusted, or an error that says what to run.
func (f *Factory) vetNamed(cat *config.Catalog, def config.Server, shadowed []config.Server) (config.Server, error) {
	p := f.printer()
	for _, pr := range cat.Problems {
		if unsafe := (*config.UnsafeFileError)(nil); errors.As(pr.Err, &unsafe) {
			p.Warning(pr.Error())
		}
	}
	for _, sh := range shadowed {
		if def.Scope != config.ScopeProject && sh.Scope == config.ScopeProject {
			p.Warning(fmt.Sprintf("server %q is also defined in the project file %s; using yours from %s (-s project:%s picks the project's)",
				def.Name, sh.File, def.File, def.Name))
			break
		}
	}
	store, err := f.trustStore()
	if err != nil {
		if def.Scope != config.ScopeProject {
			return def, nil
		}
		return def, err
	}
	marked, err := store.Mark(def)
	if err == nil {
		return marked, nil
	}
	if !f.canAsk() {
		return def, &FlagError{Err: err}
	}
	ok, aerr := f.askTrust(def, err)
	if aerr != nil {
		return def, aerr
	}
	if !ok {
		return def, &FlagError{Err: err}
	}
	store.Trust(def)
	if err := store.Save(); err != nil {
		return def, err
	}
	def.Trusted = true
	return def, nil
}

// askTrust shows a project entry as written and asks whether to trust it.
func (f *Factory) askTrust(s config.Server, why error) (bool, error) {
	w := f.IOStreams.ErrOut
	fmt.Fprintf(w, "%v.\n", why)
	fmt.Fprintln(w, trustSummary(s))
	fmt.Fprintf(w, "Trust %q from %s and use it? [y/N] ", s.Name, s.File)
	line, err := readLine(f.IOStreams.In)
	if err != nil {
		return false, fmt.Errorf("reading the answer: %w", err)
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}

// trustSummary is what a person approves: the command, its folder and
// the environment it sets, or the URL and the headers, as written, ${…}
// unexpanded, and the variables it would read. The entry's text goes
// through the terminal sanitiser, so that it cannot redraw the question.
func trustSummary(s config.Server) string {
	var b strings.Builder
	if s.Transport == config.TransportStdio {
		words := []string{quoteWord(s.Command)}
		for _, a := range s.Args {
			words = append(words, quoteWord(a))
		}
		fmt.Fprintf(&b, "  runs: %s", promptText(strings.Join(words, " ")))
		if s.Cwd != "" {
			fmt.Fprintf(&b, "\n  in: %s", promptText(s.Cwd))
		}
		// An environment such as NODE_OPTIONS or LD_PRELOAD runs code as
		// surely as the command does.
		for _, k := range slices.Sorted(maps.Keys(s.Env)) {
			fmt.Fprintf(&b, "\n  env: %s=%s", promptText(k), promptText(s.Env[k]))
		}
	} else {
		fmt.Fprintf(&b, "  contacts: %s", promptText(s.URL))
		for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
			fmt.Fprintf(&b, "\n  header: %s: %s", promptText(k), promptText(s.Headers[k]))
		}
	}
	if refs := s.EnvRefs(); len(refs) > 0 {
		fmt.Fprintf(&b, "\n  reads environment variables: %s", promptText(strings.Join(refs, ", ")))
	}
	return b.String()
}

// ServersTrustOptions are the options of `mcpctl servers trust` and
// `mcpctl servers untrust`.
type ServersTrustOptions struct {
	Factory *Factory
	Names   []string
	All     bool
	// Untrust forgets approvals rather than giving them.
	Untrust bool
}

func newCmdServersTrust(f *Factory, untrust bool) *cobra.Command {
	opts := &ServersTrustOptions{Factory: f, Untrust: untrust}
	cmd := &cobra.Command{
		Use:   "trust {<name>... | --all}",
		Short: "Approve servers defined in project files",
		Long: `Approve servers defined in project files (.mcp.json, .cursor/mcp.json,
.vscode/mcp.json in the working directory or a parent up to the repository
root or your home folder). Until you do, -s NAME neither starts nor
contacts such a server and expands none of its ${…} references; on a
terminal mcpctl asks instead. The approval holds for the entry as written:
an edit to it asks again. Approvals are kept in mcpctl's state folder
($XDG_STATE_HOME/mcpctl, else ~/.local/state/mcpctl).`,
		Example: `  mcpctl servers show project:github
  mcpctl servers trust github
  mcpctl servers trust --all`,
		ValidArgsFunction: f.completeServerArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Names = args
			if opts.All == (len(args) > 0) {
				return flagErrorf("name the servers to %s, or give --all", cmd.Name())
			}
			return serversTrustRun(opts)
		},
	}
	if untrust {
		cmd.Use = "untrust {<name>... | --all}"
		cmd.Short = "Forget approvals of servers defined in project files"
		cmd.Long = `Forget the approval of servers defined in the project files found from here
(see mcpctl servers trust): -s NAME refuses them again until trusted.`
		cmd.Example = `  mcpctl servers untrust github
  mcpctl servers untrust --all`
	}
	cmd.Flags().BoolVar(&opts.All, "all", false, "Every server defined in the project files found from here")
	return cmd
}

func serversTrustRun(opts *ServersTrustOptions) error {
	f := opts.Factory
	cat, err := f.Catalog()
	if err != nil {
		return err
	}
	var picked []config.Server
	if opts.All {
		for _, s := range cat.Servers {
			if s.Scope == config.ScopeProject {
				picked = append(picked, s)
			}
		}
		if len(picked) == 0 {
			return flagErrorf("no project file from here defines a server")
		}
	}
	for _, name := range opts.Names {
		_, bare := config.SplitScope(name)
		s, _, err := cat.Find(config.ScopeProject + ":" + bare)
		if err != nil {
			return &FlagError{Err: fmt.Errorf("%w; only servers of project files need trust", err)}
		}
		picked = append(picked, s)
	}
	store, err := f.trustStore()
	if err != nil {
		return err
	}
	w := f.IOStreams.ErrOut
	for _, s := range picked {
		if opts.Untrust {
			if store.Untrust(s.File, s.Name) {
				fmt.Fprintf(w, "untrusted server %q from %s\n", s.Name, s.File)
			}
			continue
		}
		store.Trust(s)
		fmt.Fprintf(w, "trusted server %q from %s\n%s\n", s.Name, s.File, trustSummary(s))
	}
	return store.Save()
}
