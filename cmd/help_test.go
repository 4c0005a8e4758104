package cmd

import (
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// helpLimit is how many lines a command's --help may take at 80 columns:
// a screen. call, with its arguments, signing and batches, gets a little
// more.
func helpLimit(path string) int {
	if path == "mcpctl call" {
		return 80
	}
	return 60
}

// Every command's --help, and the root's, fits its limit at 80 columns:
// shared flags are named, not listed (mcpctl help TOPIC lists them).
func TestHelpFitsAScreen(t *testing.T) {
	t.Parallel()
	root := NewCmdRoot(NewFactory(testIOStreams()))
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		path := c.CommandPath()
		args := append(strings.Fields(path)[1:], "--help")
		ios, _, out, errOut := Test()
		ios.SetTerminalWidth(80)
		if code := run(context.Background(), ios, args); code != ExitOK {
			t.Errorf("%s --help exited %d: %s", path, code, errOut)
		}
		lines := strings.Count(out.String(), "\n")
		if lines > helpLimit(path) {
			t.Errorf("%s --help is %d lines, more than %d:\n%s", path, lines, helpLimit(path), out)
		}
		// The Commands section lists the subcommands and nothing else: a
		// reader (or the examples' walker) takes each line for one.
		for _, name := range listedCommands(out.String()) {
			if sub, _, err := c.Find([]string{name}); err != nil || sub == c || sub.Name() != name {
				t.Errorf("%s --help lists %q under Commands, which is not a subcommand", path, name)
			}
		}
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() {
				walk(sub)
			}
		}
	}
	walk(root)
}

// listedCommands are the first words of the lines of a help page's
// Commands section, up to the next heading or blank line.
func listedCommands(help string) []string {
	var out []string
	in := false
	for _, l := range strings.Split(help, "\n") {
		switch {
		case l == "Commands:":
			in = true
		case in && strings.HasPrefix(l, "  "):
			out = append(out, strings.Fields(l)[0])
		default:
			in = false
		}
	}
	return out
}

// testIOStreams are streams for building a tree that prints nothing.
func testIOStreams() *IOStreams {
	ios, _, _, _ := Test()
	return ios
}

// A command lists its own flags in full and names the shared ones: read
// has no use for the policy's --approve and does not offer it.
func TestHelpNamesSharedFlags(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args    []string
		want    []string
		notWant []string
	}{
		{[]string{"read", "--help"}, []string{"--save-dir string", "connection  -s NAME | --url URL | --demo | -- COMMAND...;", "policy      --audit, --audit-key"}, []string{"--approve", "--client-id ID"}},
		{[]string{"call", "--help"}, []string{"Argument flags:", "Call flags:", "--batch file", "signing     --sign-key", "policy      --policy, --approve, --wait"}, []string{"--sign-key env:NAME"}},
		{[]string{"servers", "add", "--help"}, []string{"auth        --client-id"}, []string{"-s NAME | --url URL"}},
		{[]string{"--help"}, []string{"Help topics (mcpctl help TOPIC;", "exit-codes", "Exit codes: 0 ok,"}, nil},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			ios, _, out, _ := Test()
			ios.SetTerminalWidth(80)
			if code := run(context.Background(), ios, tt.args); code != ExitOK {
				t.Fatalf("exit %d", code)
			}
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("no %q in:\n%s", w, out)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(out.String(), w) {
					t.Errorf("%q in:\n%s", w, out)
				}
			}
		})
	}
}

// mcpctl help TOPIC prints the topic, its shared flags in full; a topic
// wins over the command of the same name (auth), whose help stays
// mcpctl auth --help; a typo is a usage error.
func TestHelpTopicPages(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"help", "connection"}, "  -H, --header 'Name: value'", ExitOK},
		{[]string{"help", "auth"}, "--client-id ID", ExitOK},
		{[]string{"help", "signing"}, "--sign-key env:NAME|file:PATH", ExitOK},
		{[]string{"help", "policy"}, "--approve TOOL[=*]", ExitOK},
		{[]string{"help", "output"}, "--jq expression", ExitOK},
		{[]string{"help", "environment"}, "MCPCTL_TIMEOUT", ExitOK},
		{[]string{"help", "exit-codes"}, "  143  terminated (SIGTERM)", ExitOK},
		{[]string{"help", "auth", "login"}, "mcpctl auth login", ExitOK},
		{[]string{"auth", "--help"}, "mcpctl auth <command>", ExitOK},
		{[]string{"help", "polcy"}, `unknown help topic "polcy"`, ExitUsage},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			ios, _, out, errOut := Test()
			ios.SetTerminalWidth(80)
			code := run(context.Background(), ios, tt.args)
			if code != tt.code || !strings.Contains(out.String()+errOut.String(), tt.want) {
				t.Errorf("exit %d (want %d); want %q in:\n%s%s", code, tt.code, tt.want, out, errOut)
			}
		})
	}
}
