package cmd

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/session"
)

// SkillsOptions are the options of `mcpctl skills list` and
// `mcpctl skills get`.
type SkillsOptions struct {
	Factory *Factory
	Server  ServerOptions
	Output  OutputOptions
	// Skill is get's argument: a skill's name or its SKILL.md URI.
	Skill string
	// Verify makes get read and verify every file the entry lists, not
	// only SKILL.md, before printing anything.
	Verify bool
	// File, relative to the skill's folder, is the file get prints instead
	// of SKILL.md (after SKILL.md is read and verified).
	File string
}

// NewCmdSkills builds `mcpctl skills` and its subcommands. runF replaces
// the run functions in tests; it receives the subcommand's name.
func NewCmdSkills(f *Factory, runF func(string, *SkillsOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "skills <command>",
		Short: "List and get a server's skills (skills extension)",
		Long: `Skills are folders of instructions (a SKILL.md and its files) a server offers
through the skills extension (io.modelcontextprotocol/skills, SEP-2640).

skills list shows the skills of skills/list and reads none of their files.
skills get reads a skill's SKILL.md and checks it against the skill's entry
before printing it: its size, its sha256 digest and its YAML frontmatter,
field by field. With --verify it reads and checks every file the entry
lists. A file that does not match is not printed: mcpctl prints one error
line and exits 5.`,
		Example: `  mcpctl skills list --url http://127.0.0.1:3001/mcp
  mcpctl skills get pdf-processing --url http://127.0.0.1:3001/mcp
  mcpctl skills get skill://pdf-processing/SKILL.md --verify --url http://127.0.0.1:3001/mcp
  mcpctl skills get pdf-processing --file references/FORMS.md -s myserver`,
	}
	cmd.AddCommand(newCmdSkillsList(f, runF), newCmdSkillsGet(f, runF))
	return cmd
}

func newSkillsOptions(f *Factory) *SkillsOptions {
	opts := &SkillsOptions{Factory: f}
	// The extension is declared only by the commands that use it.
	opts.Server.Extensions = map[string]any{client.SkillsExtension: map[string]any{}}
	return opts
}

func newCmdSkillsList(f *Factory, runF func(string, *SkillsOptions) error) *cobra.Command {
	opts := newSkillsOptions(f)
	cmd := &cobra.Command{
		Use:   "list [flags] [-- server command...]",
		Short: "List the server's skills",
		Long: `List the skills of skills/list: name, description, SKILL.md URI and the
number of files (or "dynamic"). No skill file is read.`,
		Example: `  mcpctl skills list --url http://127.0.0.1:3001/mcp
  mcpctl skills list -s myserver -o json --jq '.skills[].uri'`,
		RunE: func(cmd *cobra.Command, args []string) error {
			args = setServerArgs(cmd, args, &opts.Server)
			if len(args) != 0 {
				return flagErrorf("skills list takes no arguments, e.g. mcpctl skills list --url URL")
			}
			if err := opts.Output.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF("list", opts)
			}
			return skillsListRun(cmd.Context(), opts)
		},
	}
	addServerFlags(cmd, &opts.Server)
	addOutputFlags(cmd, &opts.Output)
	return cmd
}

func newCmdSkillsGet(f *Factory, runF func(string, *SkillsOptions) error) *cobra.Command {
	opts := newSkillsOptions(f)
	cmd := &cobra.Command{
		Use:   "get <name|uri> [flags] [-- server command...]",
		Short: "Print a skill's SKILL.md, verified against its entry",
		Long: `Find a skill by name (in skills/list) or by its SKILL.md URI (skills/get),
read its SKILL.md (resources/read) and print it once it matches the entry:
size, sha256 digest and YAML frontmatter. --verify reads and checks every
file the entry lists first; --file prints one of those files instead of
SKILL.md. On any mismatch nothing of the content is printed, and mcpctl
exits 5.`,
		Example: `  mcpctl skills get pdf-processing --url http://127.0.0.1:3001/mcp
  mcpctl skills get pdf-processing --verify -s myserver
  mcpctl skills get skill://pdf-processing/SKILL.md --file references/FORMS.md -s myserver`,
		RunE: func(cmd *cobra.Command, args []string) error {
			args = setServerArgs(cmd, args, &opts.Server)
			if len(args) != 1 {
				return flagErrorf("skills get takes exactly one skill name or URI, e.g. mcpctl skills get pdf-processing --url URL")
			}
			opts.Skill = args[0]
			if err := opts.Output.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF("get", opts)
			}
			return skillsGetRun(cmd.Context(), opts)
		},
	}
	addServerFlags(cmd, &opts.Server)
	addOutputFlags(cmd, &opts.Output)
	cmd.Flags().BoolVar(&opts.Verify, "verify", false, "Read and verify every file the skill lists, not only SKILL.md")
	cmd.Flags().StringVar(&opts.File, "file", "", "Print the skill's file at `PATH` (relative to the skill's folder) instead of SKILL.md")
	return cmd
}

func skillsListRun(ctx context.Context, opts *SkillsOptions) error {
	f := opts.Factory
	s, err := f.Connect(ctx, &opts.Server)
	if err != nil {
		return err
	}
	defer s.Close()
	skills, err := s.ListSkills(ctx)
	if err != nil {
		return fmt.Errorf("listing the skills of %s: %w", s.Name(), err)
	}
	p := f.printer()
	if opts.Output.structured() {
		if skills == nil {
			skills = []client.SkillEntry{}
		}
		return opts.Output.write(p, map[string]any{"skills": skills})
	}
	rows := make([][]string, 0, len(skills))
	for _, sk := range skills {
		files := strconv.Itoa(len(sk.Resources))
		if sk.Dynamic {
			files = "dynamic"
		}
		rows = append(rows, []string{sk.Name(), sk.FrontmatterString("description"), sk.URI, files})
	}
	return p.Table([]string{"NAME", "DESCRIPTION", "URI", "FILES"}, rows, "No skills.")
}

func skillsGetRun(ctx context.Context, opts *SkillsOptions) error {
	f := opts.Factory
	s, err := f.Connect(ctx, &opts.Server)
	if err != nil {
		return err
	}
	defer s.Close()
	entry, err := findSkill(ctx, s, opts.Skill)
	if err != nil {
		return err
	}
	// SKILL.md first: reading it loads the skill, and no other file may be
	// read before that, nor after it fails.
	uris := []string{entry.URI}
	switch {
	case opts.Verify:
		for _, r := range entry.Resources {
			if r.URI != entry.URI {
				uris = append(uris, r.URI)
			}
		}
	case opts.File != "":
		uris = append(uris, skillFileURI(entry.URI, opts.File))
	}
	show := uris[0]
	if opts.File != "" {
		show = skillFileURI(entry.URI, opts.File)
		if opts.Verify && !slices.Contains(uris, show) {
			uris = append(uris, show)
		}
	}
	var shown *client.ReadResourceResult
	for _, uri := range uris {
		res, err := readVerified(ctx, s, *entry, uri)
		if err != nil {
			return err
		}
		if uri == show {
			shown = res
		}
	}
	p := f.printer()
	if opts.Output.structured() {
		return opts.Output.write(p, map[string]any{"skill": entry, "contents": shown.Contents})
	}
	blocks := make([]client.Content, len(shown.Contents))
	for i := range shown.Contents {
		blocks[i] = client.Content{Type: "resource", Resource: &shown.Contents[i]}
	}
	copts, done := f.contentOptions("", false)
	copts.Bare = len(blocks) == 1
	_, err = p.Content(blocks, copts)
	done()
	return err
}

// findSkill finds the entry of a skill by name in skills/list, or by its
// SKILL.md URI through skills/get (through skills/list when the server
// has no skills/get).
func findSkill(ctx context.Context, s *session.Session, skill string) (*client.SkillEntry, error) {
	isURI := strings.Contains(skill, "://")
	if isURI {
		e, err := s.GetSkill(ctx, skill)
		if err == nil {
			return e, nil
		}
		var rpc *client.RPCError
		if !errors.As(err, &rpc) || rpc.Code != client.CodeMethodNotFound {
			return nil, fmt.Errorf("getting the skill %q from %s: %w", skill, s.Name(), err)
		}
	}
	skills, err := s.ListSkills(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing the skills of %s: %w", s.Name(), err)
	}
	var names []string
	for i := range skills {
		if isURI && skills[i].URI == skill || !isURI && skills[i].Name() == skill {
			return &skills[i], nil
		}
		names = append(names, skills[i].Name())
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s lists no skills, so there is no %q", s.Name(), skill)
	}
	return nil, fmt.Errorf("%s has no skill %q (its skills: %s; see mcpctl skills list)", s.Name(), skill, strings.Join(names, ", "))
}

// readVerified reads uri and verifies every content item against entry; a
// mismatch is a validation failure (exit 5) and nothing of it is returned.
func readVerified(ctx context.Context, s *session.Session, entry client.SkillEntry, uri string) (*client.ReadResourceResult, error) {
	res, err := s.ReadResource(ctx, uri)
	if err != nil {
		return nil, fmt.Errorf("reading %q from %s: %w", uri, s.Name(), err)
	}
	if len(res.Contents) != 1 {
		return nil, &ExitCodeError{Code: ExitValidation, Msg: fmt.Sprintf("verifying %s: resources/read returned %d contents, expected the one file", uri, len(res.Contents))}
	}
	data, err := client.ContentBytes(res.Contents[0])
	if err == nil {
		err = client.VerifySkillFile(entry, uri, data)
	}
	if err != nil {
		return nil, &ExitCodeError{Code: ExitValidation, Msg: err.Error() + " (not used)"}
	}
	return res, nil
}

// skillFileURI is the URI of rel in the folder of the skill whose SKILL.md
// is skillURI; a full URI is kept as given.
func skillFileURI(skillURI, rel string) string {
	if strings.Contains(rel, "://") {
		return rel
	}
	dir := skillURI
	if i := strings.LastIndex(dir, "/"); i >= 0 {
		dir = dir[:i+1]
	}
	return dir + strings.TrimPrefix(rel, "/")
}
