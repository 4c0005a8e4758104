package cmd

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcpctl/mcpctl/schema"
)

// secondsValue is a duration flag that also takes a bare number of
// seconds: --timeout 5 is five seconds, as MCPCTL_TIMEOUT=5 and
// "timeout: 5" in the config file already were, where pflag's own
// duration flag refuses "5" for want of a unit.
type secondsValue struct{ p *time.Duration }

// newSecondsValue sets *p to def and returns the flag value bound to it.
func newSecondsValue(p *time.Duration, def time.Duration) *secondsValue {
	*p = def
	return &secondsValue{p: p}
}

func (v *secondsValue) String() string {
	if v.p == nil {
		return "0s"
	}
	return v.p.String()
}

func (v *secondsValue) Set(s string) error {
	d, err := parseSeconds(s)
	if err != nil {
		return err
	}
	*v.p = d
	return nil
}

func (v *secondsValue) Type() string { return "duration" }

// parseSeconds reads a Go duration ("1m30s", "500ms") or a number of
// seconds ("5", "2.5").
func parseSeconds(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		return time.Duration(n * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("want a duration such as 5 (seconds), 30s, 500ms or 2m")
	}
	return d, nil
}

// durationVar registers a duration flag that takes seconds too (see
// [secondsValue]).
func durationVar(fs *pflag.FlagSet, p *time.Duration, name string, def time.Duration, usage string) {
	fs.Var(newSecondsValue(p, def), name, usage)
}

// suggestSubcommands makes every command with subcommands refuse an
// unknown one with the closest name, at every level: cobra itself does
// so only for the root, and a group such as `auth` would print its help
// and exit 0 on `mcpctl auth logn`. A command's own argument check runs
// first; its error gets the suggestion when one is close.
func suggestSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		suggestSubcommands(sub)
	}
	if !c.HasSubCommands() {
		return
	}
	if !c.Runnable() {
		// cobra prints a group's help before it checks the arguments:
		// running it is what lets the check below see them.
		c.RunE = func(cmd *cobra.Command, args []string) error { return cmd.Help() }
		c.Args = nil
		if c.Annotations == nil {
			c.Annotations = map[string]string{}
		}
		c.Annotations[groupAnnotation] = "true"
	}
	own := c.Args
	c.Args = func(cmd *cobra.Command, args []string) error {
		if own != nil {
			err := own(cmd, args)
			if err != nil && len(args) > 0 {
				if s := closestSubcommand(cmd, args[0]); s != "" {
					return fmt.Errorf("%w; did you mean %q?", err, s)
				}
			}
			return err
		}
		if len(args) == 0 || !groupOnly(cmd) {
			return nil
		}
		return unknownCommandError(cmd, args[0])
	}
}

// helpTopicError returns the usage error for a help topic whose words do
// not name a command of root's tree, else nil.
func helpTopicError(root *cobra.Command, topic []string) error {
	c := root
	for i, w := range topic {
		if !c.HasAvailableSubCommands() {
			return nil
		}
		next := findSubcommand(c, w)
		if next == nil {
			msg := fmt.Sprintf("unknown help topic %q", strings.Join(topic[:i+1], " "))
			if s := closestSubcommand(c, w); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", strings.Join(append(slices.Clone(topic[:i]), s), " "))
			} else {
				msg += fmt.Sprintf("; the commands of %q are: %s", c.CommandPath(), strings.Join(subcommandNames(c), ", "))
			}
			return &FlagError{Err: errors.New(msg)}
		}
		c = next
	}
	return nil
}

// unknownCommandError says that word is not a subcommand of c, naming the
// closest one or else all of them.
func unknownCommandError(c *cobra.Command, word string) error {
	msg := fmt.Sprintf("unknown command %q for %q", word, c.CommandPath())
	if s := closestSubcommand(c, word); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	} else {
		msg += "; its commands are: " + strings.Join(subcommandNames(c), ", ")
	}
	return errors.New(msg)
}

// unknownCommandFirst returns, for a command line whose words name no
// command of the tree (`mcpctl lsit --demo`), the unknown command error
// for the first word that is not one: the flags after it failed to parse
// only because the command was not found. Else nil.
func unknownCommandFirst(root *cobra.Command, args []string) error {
	c := root
	for _, w := range args {
		if strings.HasPrefix(w, "-") || !groupOnly(c) {
			return nil
		}
		next := findSubcommand(c, w)
		if next == nil {
			return unknownCommandError(c, w)
		}
		c = next
	}
	return nil
}

// findSubcommand returns c's subcommand named or aliased word, or nil.
func findSubcommand(c *cobra.Command, word string) *cobra.Command {
	for _, sub := range c.Commands() {
		if sub.Name() == word || slices.Contains(sub.Aliases, word) {
			return sub
		}
	}
	return nil
}

// groupOnly reports whether c does nothing but hold subcommands: its run
// is the help that [suggestSubcommands] gave it.
func groupOnly(c *cobra.Command) bool { return c.Annotations[groupAnnotation] != "" }

// groupAnnotation marks a command whose only run is its help.
const groupAnnotation = "mcpctl/group"

// subcommandNames lists the names of c's available subcommands.
func subcommandNames(c *cobra.Command) []string {
	var names []string
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	return names
}

// closestSubcommand is the subcommand of c, or an alias of one, closest to
// arg, or "".
func closestSubcommand(c *cobra.Command, arg string) string {
	var cands []string
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			cands = append(cands, sub.Name())
			cands = append(cands, sub.Aliases...)
		}
	}
	return schema.Suggest(arg, cands)
}

// flagError turns pflag's error for an unknown flag into one naming the
// closest flag of the command, inherited ones included.
func flagError(c *cobra.Command, err error) error {
	msg := err.Error()
	var name string
	switch {
	case strings.HasPrefix(msg, "unknown flag: --"):
		name, _, _ = strings.Cut(strings.TrimPrefix(msg, "unknown flag: --"), "=")
	case strings.HasPrefix(msg, "unknown shorthand flag: "):
		// "unknown shorthand flag: 'x' in -xyz": a long flag written with
		// one dash (-timeout) is the likely mistake.
		if _, word, ok := strings.Cut(msg, " in -"); ok {
			name, _, _ = strings.Cut(word, "=")
		}
	}
	if name == "" {
		return &FlagError{Err: err, Hint: true}
	}
	var cands []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			cands = append(cands, f.Name)
		}
	})
	c.InheritedFlags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			cands = append(cands, f.Name)
		}
	})
	if s := schema.Suggest(name, cands); s != "" {
		err = fmt.Errorf("%w; did you mean --%s?", err, s)
	} else if len(name) > 1 && strings.HasPrefix(msg, "unknown shorthand flag: ") && slices.Contains(cands, name) {
		err = fmt.Errorf("%w; did you mean --%s?", err, name)
	}
	return &FlagError{Err: err, Hint: true}
}

// isServerLauncher reports whether word names a program that starts MCP
// servers, whose name on a command line without -- is a server command
// given the wrong way.
func isServerLauncher(word string) bool {
	switch word {
	case "npx", "uvx", "uv", "node", "python", "python3", "docker", "podman", "deno",
		"bun", "bunx", "pipx", "go", "java", "ruby", "dotnet", "pnpm", "yarn":
		return true
	}
	return false
}

// serverCommandHint returns, for a command line that failed to parse and
// names a server launcher (npx, uvx, docker, …) before any --, the same
// line with -- put before it; else "".
func serverCommandHint(args []string) string {
	for i, a := range args {
		if a == "--" {
			return ""
		}
		if i == 0 || !isServerLauncher(a) {
			continue
		}
		if i > 0 && strings.HasPrefix(args[i-1], "-") && !strings.Contains(args[i-1], "=") && flagTakesValue(args[i-1]) {
			continue
		}
		line := append([]string{"mcpctl"}, args[:i]...)
		line = append(line, "--")
		line = append(line, args[i:]...)
		return "put -- before the server command: " + strings.Join(line, " ")
	}
	return ""
}

// flagTakesValue reports whether the flag word is one whose next word is
// its value, so that `-e npx` is not read as a server command. Only the
// short value flags that could plausibly precede a launcher name matter.
func flagTakesValue(word string) bool {
	switch word {
	case "-s", "-e", "-H", "-o", "--server", "--env", "--header", "--output", "--cwd", "--url":
		return true
	}
	return false
}

// Flag annotations that say where a flag's help lives. A flag with a
// topic is one of the shared flags (server and connection, OAuth, signing,
// policy and audit, output) that `mcpctl help TOPIC` documents in full and
// each command's help only names (see [commandUsage]); a flag with a
// section is a command's own, listed in full under "SECTION flags:".
const (
	flagTopicAnnotation   = "mcpctl/topic"
	flagSectionAnnotation = "mcpctl/section"
)

// The help topics of shared flags, by name (see helptopics.go).
const (
	topicConnection = "connection"
	topicAuth       = "auth"
	topicSigning    = "signing"
	topicPolicy     = "policy"
	topicOutput     = "output"
)

// inTopic runs add, which registers flags on cmd, and marks each flag it
// added that has no topic yet as documented in topic: nested calls keep
// the innermost topic (the OAuth flags inside the server flags).
func inTopic(cmd *cobra.Command, topic string, add func()) {
	annotateAdded(cmd, flagTopicAnnotation, topic, add)
}

// inSection runs add, which registers flags on cmd, and lists the flags it
// added under "SECTION flags:" in cmd's help.
func inSection(cmd *cobra.Command, section string, add func()) {
	annotateAdded(cmd, flagSectionAnnotation, section, add)
}

// annotateAdded runs add and sets key to value on each flag it added that
// does not have key already.
func annotateAdded(cmd *cobra.Command, key, value string, add func()) {
	before := map[string]bool{}
	cmd.Flags().VisitAll(func(f *pflag.Flag) { before[f.Name] = true })
	add()
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !before[f.Name] && f.Annotations[key] == nil {
			_ = cmd.Flags().SetAnnotation(f.Name, key, []string{value})
		}
	})
}

// flagTopic is the help topic that documents f, or "" for a command's own
// flag.
func flagTopic(f *pflag.Flag) string {
	if v := f.Annotations[flagTopicAnnotation]; len(v) > 0 {
		return v[0]
	}
	return ""
}
