package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/mcpctl/mcpctl/cmd"
)

// helpWidth is the width the help topics are written at, a terminal's.
const helpWidth = 80

// tree builds mcpctl's command tree for the reference: no date, no
// machine's settings in it, so the pages are the same wherever they are
// generated.
func tree() *cobra.Command {
	ios, _, _, _ := cmd.Test()
	ios.SetTerminalWidth(helpWidth)
	root := cmd.NewCmdRoot(cmd.NewFactory(ios))
	disableAutoGenTag(root)
	return root
}

// disableAutoGenTag drops cobra's "Auto generated … on DATE" line.
func disableAutoGenTag(c *cobra.Command) {
	c.DisableAutoGenTag = true
	for _, sub := range c.Commands() {
		disableAutoGenTag(sub)
	}
}

// topicTree is the help topics as commands under a "help" command of
// their own root, so that their pages are named mcpctl_help_TOPIC and
// their man pages mcpctl-help-TOPIC(1): the real tree cannot hold them,
// as a topic may share a command's name (auth).
func topicTree() []*cobra.Command {
	root := &cobra.Command{Use: "mcpctl", DisableAutoGenTag: true}
	help := &cobra.Command{Use: "help", DisableAutoGenTag: true}
	root.AddCommand(help)
	var topics []*cobra.Command
	for _, t := range cmd.HelpTopics() {
		c := &cobra.Command{Use: t.Name, Short: t.Short, Long: t.Text(helpWidth), DisableAutoGenTag: true}
		help.AddCommand(c)
		topics = append(topics, c)
	}
	return topics
}

// writeMarkdown writes the reference pages to dir, replacing the pages
// there: one per command, one per help topic, and an index.
func writeMarkdown(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		return err
	}
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	if err := doc.GenMarkdownTree(tree(), dir); err != nil {
		return err
	}
	for _, t := range cmd.HelpTopics() {
		page := fmt.Sprintf("## mcpctl help %s\n\n%s\n\n%s\n### SEE ALSO\n\n* [mcpctl](mcpctl.md)\t - the commands and the other topics\n",
			t.Name, t.Short, t.Markdown(helpWidth))
		if err := os.WriteFile(filepath.Join(dir, "mcpctl_help_"+t.Name+".md"), []byte(page), 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "README.md"), []byte(index()), 0o644)
}

// index is docs/reference/README.md: the commands and the help topics.
func index() string {
	var b strings.Builder
	b.WriteString("# mcpctl reference\n\nGenerated from mcpctl's own help by `go run ./internal/gendocs`; do not edit.\n\n## Commands\n\n")
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if !c.IsAvailableCommand() && c.HasParent() {
			return
		}
		name := strings.ReplaceAll(c.CommandPath(), " ", "_") + ".md"
		fmt.Fprintf(&b, "- [%s](%s) — %s\n", c.CommandPath(), name, c.Short)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(tree())
	b.WriteString("\n## Help topics\n\n")
	for _, t := range cmd.HelpTopics() {
		fmt.Fprintf(&b, "- [mcpctl help %s](mcpctl_help_%s.md) — %s\n", t.Name, t.Name, t.Short)
	}
	return b.String()
}

// writeMan writes a man page per command and per help topic to dir.
func writeMan(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	header := &doc.GenManHeader{Title: "MCPCTL", Section: "1", Source: "mcpctl", Manual: "mcpctl manual"}
	if err := doc.GenManTree(tree(), header, dir); err != nil {
		return err
	}
	for _, t := range topicTree() {
		if err := doc.GenManTree(t, header, dir); err != nil {
			return err
		}
	}
	return nil
}
