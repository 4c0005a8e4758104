package cmd

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// setUsage makes every command of root's tree print its usage with
// [commandUsage], wrapped to width(): a command's own flags in full, the
// shared ones named in a few lines that point to their help topics.
func setUsage(root *cobra.Command, width func() int) {
	root.SetUsageFunc(func(c *cobra.Command) error {
		_, err := io.WriteString(c.OutOrStderr(), commandUsage(c, width()))
		return err
	})
}

// sharedTopics are the help topics of shared flags in the order a
// command's help names them.
func sharedTopics() []string {
	return []string{topicConnection, topicAuth, topicSigning, topicPolicy, topicGovern, topicOutput}
}

// commandUsage is c's usage: the usage line, aliases, examples,
// subcommands (and, on the root, the help topics), c's own flags in full
// by section, then the shared flags by topic, named only.
func commandUsage(c *cobra.Command, width int) string {
	if width <= 0 {
		width = defaultTerminalWidth
	}
	var b strings.Builder
	b.WriteString("Usage:\n")
	switch {
	case c.Runnable() && !groupOnly(c):
		b.WriteString("  " + c.UseLine() + "\n")
	case c.HasAvailableSubCommands():
		b.WriteString("  " + c.CommandPath() + " <command> [flags]\n")
	}
	if len(c.Aliases) > 0 {
		b.WriteString("\nAliases:\n  " + c.NameAndAliases() + "\n")
	}
	if c.HasExample() {
		b.WriteString("\nExamples:\n" + c.Example + "\n")
	}
	if c.HasAvailableSubCommands() {
		b.WriteString("\nCommands:\n")
		pad := 0
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() {
				pad = max(pad, len(sub.Name()))
			}
		}
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() {
				fmt.Fprintf(&b, "  %-*s  %s\n", pad, sub.Name(), sub.Short)
			}
		}
	}
	if !c.HasParent() {
		// The topics by name only, so that the root's help fits a screen
		// beside its commands; each topic's first line says what it is.
		b.WriteString("\nHelp topics (mcpctl help TOPIC; a command's own: mcpctl COMMAND --help):\n")
		var names []string
		for _, t := range helpTopics() {
			if !t.unlisted {
				names = append(names, t.Name)
			}
		}
		for i := range names[:len(names)-1] {
			names[i] += ","
		}
		b.WriteString(wrapList("  ", names, 80))
	}

	own, shared := map[string]*pflag.FlagSet{}, map[string][]*pflag.Flag{}
	var sections []string
	c.LocalFlags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden || (f.Name == "help" && c.HasParent()) {
			// -h is named with the global flags.
			return
		}
		if t := flagTopic(f); t != "" {
			shared[t] = append(shared[t], f)
			return
		}
		section := ""
		if v := f.Annotations[flagSectionAnnotation]; len(v) > 0 {
			section = v[0]
		}
		if own[section] == nil {
			own[section] = pflag.NewFlagSet(section, pflag.ContinueOnError)
			sections = append(sections, section)
		}
		own[section].AddFlag(f)
	})
	// The sections in the order their first flag was registered; the
	// flags without one (help among them) last.
	named := 0
	for _, sec := range sections {
		if sec != "" {
			named++
			b.WriteString("\n" + sec + " flags:\n" + own[sec].FlagUsagesWrapped(width))
		}
	}
	if fs := own[""]; fs != nil {
		title := "Flags:"
		if named > 0 {
			title = "Other flags:"
		}
		b.WriteString("\n" + title + "\n" + fs.FlagUsagesWrapped(width))
	}

	// The global flags are shared too: a subcommand lists them under the
	// same heading, which its help always has then.
	if len(shared) > 0 || c.HasParent() {
		b.WriteString("\nShared flags, explained in full by mcpctl help TOPIC:\n")
		for _, t := range sharedTopics() {
			if fl := shared[t]; len(fl) > 0 {
				lines := sharedLines
				if t == topicGovern {
					// The proxy's help is full: its governance flags are
					// named in one line, the topic lists them all.
					lines = 1
				}
				b.WriteString(wrapListLines("  "+fmt.Sprintf("%-12s", t), topicFlagNames(t, fl), width, lines))
			}
		}
	}
	if c.HasParent() {
		var names []string
		c.InheritedFlags().VisitAll(func(f *pflag.Flag) {
			if !f.Hidden {
				names = append(names, flagName(f)+",")
			}
		})
		names = append(names, "-h")
		b.WriteString(wrapList("  "+fmt.Sprintf("%-12s", "global"), names, width))
	}
	if !c.HasParent() {
		b.WriteString("\n" + exitCodeSummary(width))
	}
	if c.HasAvailableSubCommands() && c.HasParent() {
		fmt.Fprintf(&b, "\nRun '%s <command> --help' for a command's flags and examples.\n", c.CommandPath())
	}
	return b.String()
}

// topicFlagNames names the shared flags of topic a command has, the
// common ones first: for the connection topic, the server selection as a
// usage line would write it.
func topicFlagNames(topic string, flags []*pflag.Flag) []string {
	var names []string
	byName := map[string]bool{}
	for _, f := range flags {
		byName[f.Name] = true
	}
	if topic == topicConnection && byName["server"] && byName["url"] && byName["demo"] {
		names = append(names, "-s NAME | --url URL | --demo | -- COMMAND...;")
		delete(byName, "server")
		delete(byName, "url")
		delete(byName, "demo")
	}
	order := commonFlags()[topic]
	slices.SortStableFunc(flags, func(a, b *pflag.Flag) int {
		ia, ib := slices.Index(order, a.Name), slices.Index(order, b.Name)
		if ia < 0 {
			ia = len(order)
		}
		if ib < 0 {
			ib = len(order)
		}
		return ia - ib
	})
	var rest []string
	for _, f := range flags {
		if byName[f.Name] {
			rest = append(rest, flagName(f))
		}
	}
	for i := range rest[:max(len(rest)-1, 0)] {
		rest[i] += ","
	}
	return append(names, rest...)
}

// commonFlags are, by topic, the shared flags a command's help names
// first, the most used first; the others follow in alphabetical order.
func commonFlags() map[string][]string {
	return map[string][]string{
		topicConnection: {"header", "env", "timeout", "trace", "verbose", "transport", "bearer", "record", "inherit-env", "cwd", "server-stderr", "protocol-version", "era", "strict"},
		topicAuth:       {"client-id", "client-secret", "grant", "scope", "no-browser", "issuer"},
		topicSigning:    {"sign-key", "verify-key", "canonical", "sign-timestamp", "kid", "max-skew"},
		topicPolicy:     {"policy", "approve", "wait", "audit", "audit-key"},
		topicGovern:     {"policy", "allow", "deny", "approve", "audit", "sign-key", "verify-key", "host-scope", "host-token", "refuse-as"},
		topicOutput:     {"output", "json", "jq", "exit-status"},
	}
}

// sharedLines is how many lines of a command's help name the shared flags
// of one topic: the rest are counted, and their topic lists them.
const sharedLines = 2

// flagName is how a shared flag is named in a list: its shorthand when it
// has one, else its long name.
func flagName(f *pflag.Flag) string {
	if f.Shorthand != "" {
		return "-" + f.Shorthand
	}
	return "--" + f.Name
}

// wrapList writes words after lead, wrapped to width under the column lead
// ends at; a word that itself holds spaces (the server selection) is kept
// on one line.
func wrapList(lead string, words []string, width int) string {
	return wrapListLines(lead, words, width, 0)
}

// wrapListLines is [wrapList] in at most lines lines (0: any number),
// the words that do not fit counted at the end: "… (N more)".
func wrapListLines(lead string, words []string, width, lines int) string {
	var b strings.Builder
	indent := strings.Repeat(" ", len(lead))
	b.WriteString(lead)
	col := len(lead)
	line := 1
	for i, w := range words {
		if lines > 0 && line == lines && i > 0 {
			need := col + 1 + len(w)
			if i < len(words)-1 {
				need += len(fmt.Sprintf(" … (%d more)", len(words)-i-1))
			}
			if need > width {
				fmt.Fprintf(&b, " … (%d more)", len(words)-i)
				break
			}
		}
		if i > 0 {
			if col+1+len(w) > width {
				line++
				b.WriteString("\n" + indent)
				col = len(indent)
			} else {
				b.WriteByte(' ')
				col++
			}
		}
		b.WriteString(w)
		col += len(w)
	}
	b.WriteByte('\n')
	return b.String()
}
