package cmd

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcpctl/mcpctl/config"
)

// HelpTopic is one of mcpctl's help topics: `mcpctl help NAME` prints it.
// The topics document once what many commands share (the server flags,
// OAuth, signing, policy, output, the environment, exit codes), so that
// each command's help names those flags without repeating them.
type HelpTopic struct {
	Name  string
	Short string
	intro string // prose, wrapped at 78 columns
	flags string // the topic of the shared flags it lists in full, or ""
	after string // prose after the flags
	// unlisted keeps the topic out of mcpctl --help, whose screen is
	// full: the one command whose flags it explains names it.
	unlisted bool
}

// HelpTopics returns mcpctl's help topics in the order `mcpctl --help`
// lists them; the reference generator (internal/gendocs) writes a page for
// each.
func HelpTopics() []HelpTopic { return helpTopics() }

// Text is the topic as `mcpctl help NAME` prints it, its flag lists
// wrapped to width.
func (t HelpTopic) Text(width int) string {
	if width <= 0 {
		width = defaultTerminalWidth
	}
	var b strings.Builder
	b.WriteString(strings.TrimSpace(t.intro) + "\n")
	if t.flags != "" {
		b.WriteString("\nFlags:\n" + sharedFlagSet(t.flags).FlagUsagesWrapped(width))
	}
	if t.after != "" {
		b.WriteString("\n" + strings.TrimSpace(t.after) + "\n")
	}
	return b.String()
}

// Markdown is the topic for the generated reference: its text as the help
// prints it, and the exit-code table as a Markdown table.
func (t HelpTopic) Markdown(width int) string {
	if t.Name == "exit-codes" {
		return exitCodeMarkdown()
	}
	return "```\n" + t.Text(width) + "```\n"
}

// sharedFlagSet holds the shared flags of topic as a command that has them
// all registers them, for the topic's full list.
func sharedFlagSet(topic string) *pflag.FlagSet {
	c := &cobra.Command{Use: "call"} // a command that calls tools has every flag
	addServerFlags(c, &ServerOptions{})
	addOutputFlags(c, &OutputOptions{})
	addSignFlags(c, &SignOptions{})
	p := &cobra.Command{Use: "proxy"} // the proxy's governance flags
	addProxyGovernFlags(p, &ProxyGovernOptions{})
	fs := pflag.NewFlagSet(topic, pflag.ContinueOnError)
	for _, c := range []*cobra.Command{c, p} {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if flagTopic(f) == topic {
				fs.AddFlag(f)
			}
		})
	}
	return fs
}

// findHelpTopic returns the topic named name.
func findHelpTopic(name string) (HelpTopic, bool) {
	i := slices.IndexFunc(helpTopics(), func(t HelpTopic) bool { return t.Name == name })
	if i < 0 {
		return HelpTopic{}, false
	}
	return helpTopics()[i], true
}

// helpTopics are the topics; see [HelpTopics].
func helpTopics() []HelpTopic {
	return []HelpTopic{
		{
			Name:  topicConnection,
			Short: "Choosing a server and how to connect to it (-s, --url, --demo, --)",
			intro: `Every command that talks to a server chooses it one way:

  -s NAME               a named server from mcpctl's config or an editor's
                        MCP file (.mcp.json, Claude, Cursor, VS Code…);
                        mcpctl servers lists them
  --url URL             an HTTP server: Streamable HTTP, or the legacy
                        HTTP+SSE transport (--transport auto tries the first
                        and falls back to the second)
  --demo                the built-in demo server (in-process, nothing to
                        install)
  -- COMMAND [ARGS...]  a stdio server, started without a shell, in its own
                        process group; everything after -- is its command

A stdio server gets a safe environment (HOME, PATH, USER, SHELL, TERM,
LANG…) plus -e KEY=VAL; --inherit-env gives it mcpctl's whole environment.
Its stderr goes to mcpctl's stderr unless --server-stderr says otherwise.
On exit mcpctl closes its stdin, waits, then sends SIGTERM, then SIGKILL.

--timeout bounds each request (default 1m); on timeout or Ctrl-C mcpctl
sends notifications/cancelled. The protocol era is detected and remembered
per server (--era, --protocol-version pin it). --trace FILE writes every
message as NDJSON with secrets redacted; --record FILE keeps a session for
mcpctl mock to replay. The guide: docs/servers.md.`,
			flags: topicConnection,
		},
		{
			Name:  topicAuth,
			Short: "OAuth 2.1 sign-in for protected servers, and its flags",
			intro: `Most remote MCP servers are protected with OAuth. mcpctl follows the
authorization flow of the MCP specification by itself: when a server
answers 401 it discovers the authorization server, registers (a
pre-registered client, a Client ID Metadata Document, or dynamic
registration), opens the browser for the authorization code with PKCE,
stores the token and sends the request again. Tokens are refreshed when
they expire, stepped up on insufficient_scope, and kept in
$XDG_STATE_HOME/mcpctl/auth.json (mode 0600).

--bearer env:VAR or -H 'Authorization: …' turn the OAuth client off for a
run. A named server keeps the same settings as config keys (client-id:,
grant:, …); secrets there are env: or file: references, never values.`,
			flags: topicAuth,
			after: `The auth command signs in and manages stored tokens: mcpctl auth login,
status, token, logout (mcpctl auth --help). Authorization that is required
and cannot be completed here exits 8. The guide: docs/auth.md.`,
		},
		{
			Name:  topicSigning,
			Short: "HMAC-signed tool calls and verified results (call --sign-key)",
			intro: `mcpctl call can sign each request and verify the result's signature:

  params._meta.signature = {alg: "HMAC-SHA256", kid?, nonce, timestamp, value}

The value is the HMAC-SHA256 of the canonical JSON of
{"tool", "params" (the arguments), "nonce", "timestamp"}; the result's
signature covers {"tool", "result" (without its signature), "nonce",
"timestamp"} and must echo the request's nonce. The canonical form is RFC
8785 JCS by default; --canonical python reproduces Python's
json.dumps(obj, sort_keys=True). A missing, wrong, stale (beyond
--max-skew) or replayed signature exits 6.

Keys come from env:NAME or file:PATH, never from the command line, and are
never echoed or traced. mcpctl sign signs and checks payloads, requests and
tokens offline with the same keys (mcpctl sign --help).`,
			flags: topicSigning,
			after: `The wire convention, with a reference server in Python: docs/signing.md.`,
		},
		{
			Name:  topicPolicy,
			Short: "The tool policy (approval, scopes, rate limits) and the audit trail",
			intro: `A tool policy file says which tool calls need approval, which scopes
they require and how often they may run. mcpctl looks for it in --policy
FILE, else the named server's policy:, else MCPCTL_POLICY or policy: in
the config, else .mcpctl/policy.yaml in the project (the working directory
and its parents up to the repository root). A call the policy refuses
exits 9; a call that needs approval is asked for at a terminal, and
refused in CI unless --approve gives it. The policy governs tool calls, so
only the commands that make them (call, shell, test, tasks) take
--policy, --approve and --wait.

The audit trail (--audit FILE, MCPCTL_AUDIT or audit: in the config)
records every tool call, resource read and prompt get, one hash-chained
JSON line each; --audit-key makes the chain an HMAC chain. mcpctl audit
shows it, mcpctl audit verify checks it.`,
			flags: topicPolicy,
			after: `The guide, with the policy file's format: docs/policy.md. The same
policy at mcpctl proxy, for a host's calls: mcpctl help governance.`,
		},
		governTopic(),
		{
			Name:  topicOutput,
			Short: "Output formats: text, -o json|yaml, --jq",
			intro: `Data goes to stdout; progress, warnings, the server's stderr and errors
go to stderr. On a terminal, output is a table or styled text, with
server-supplied control characters made visible; piped, it is plain
tab-separated text with full values. -o json prints the protocol result as
JSON (--json is the same), -o yaml as YAML, and --jq EXPR filters the JSON
(strings are printed raw). MCPCTL_OUTPUT or output: in the config sets the
default format.`,
			flags: topicOutput,
			after: `Colour follows the terminal; NO_COLOR turns it off, CLICOLOR_FORCE or
FORCE_COLOR on, and --color always|never overrides both.`,
		},
		{
			Name:  "environment",
			Short: "Environment variables and the config file",
			intro: `Settings, from the first that gives one: the flag, the environment
variable, the config file, the built-in default.

  MCPCTL_OUTPUT            -o: text, json or yaml
  MCPCTL_TIMEOUT           --timeout: a duration or a number of seconds
  MCPCTL_PROTOCOL_VERSION  --protocol-version
  MCPCTL_AUDIT             --audit: the audit trail file
  MCPCTL_POLICY            the tool policy file (see mcpctl help policy)
  MCPCTL_INPUT_ID          the value of a named server's ${input:ID}

The config file is --config FILE, else ` + "$XDG_CONFIG_HOME/mcpctl/config.yaml" + `,
else ~/.config/mcpctl/config.yaml. Its keys are the settings above (` + strings.Join(config.SettingKeys(), ", ") + `,
policy) and servers:, the named servers (mcpctl servers --help).

  NO_COLOR                 no colour; CLICOLOR_FORCE or FORCE_COLOR: colour
                           even when not on a terminal
  CI                       CI=true: no prompts (approvals, forms, sign-in)
  BROWSER                  the browser that opens the sign-in page
  XDG_STATE_HOME           tokens, era cache, shell history, trust records
                           (default ~/.local/state/mcpctl)
  XDG_CONFIG_HOME          where the config file is

Secrets are never given as values: flags and config keys that take one
read it from env:NAME or file:PATH.`,
		},
		{
			Name:  "lint-rules",
			Short: "The rules mcpctl validate checks a server against",
			intro: `mcpctl validate, without a tool, lints a server: its initialize (or
server/discover) result, every page of tools/list, resources/list,
resources/templates/list and prompts/list, and its stdout (a stdio server's
line that is not a JSON-RPC message is an error), against the
specification of the protocol version spoken. Findings are a table on a
terminal, tab-separated (severity, rule, subject, message, spec reference)
when piped, {"findings": [...], "errors": N, "warnings": M} with -o json.

Rules (severity, then the specification text each rests on, in the
modelcontextprotocol/modelcontextprotocol repository):
` + ruleHelp() + `
tool-name-invalid is an error although the specification says SHOULD:
clients and model APIs reject such names.

With --policy FILE the tool policy is linted against the server too:
policy-tool-without-entry (warning: the tool falls back to its
annotations), policy-entry-without-tool (warning: a name or glob that
matches no tool) and policy-low-sensitivity-destructive (error:
sensitivity low on a tool whose annotations say destructiveHint).`,
		},
		{
			Name:  "exit-codes",
			Short: "What each exit status means",
			intro: exitCodeHelp(),
		},
	}
}

// checkHelpTopics makes `mcpctl help TOPIC` print a help topic (see
// [helpTopics]) and refuse a TOPIC that names neither a topic nor a
// command, at every level (`mcpctl help lsit`, `mcpctl help servers ad`),
// with the closest command, as a usage error: cobra's help command would
// print the nearest group's help and exit 0, hiding the typo. A topic wins
// over a command of the same name (`mcpctl help auth`; the command's own
// help is `mcpctl auth --help`). Words after a command without subcommands
// (`mcpctl help call add`) are left to that command's help, as before.
func checkHelpTopics(root *cobra.Command, width func() int) {
	root.InitDefaultHelpCmd()
	help, _, err := root.Find([]string{"help"})
	if err != nil || help == root {
		return
	}
	help.Short = "Help about any command or topic"
	help.Args = func(_ *cobra.Command, args []string) error {
		if len(args) == 1 {
			if _, ok := findHelpTopic(args[0]); ok {
				return nil
			}
		}
		return helpTopicError(root, args)
	}
	run := help.Run
	help.Run = func(c *cobra.Command, args []string) {
		if len(args) == 1 {
			if t, ok := findHelpTopic(args[0]); ok {
				c.Print(t.Text(width()))
				return
			}
		}
		run(c, args)
	}
	complete := help.ValidArgsFunction
	help.ValidArgsFunction = func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var comps []cobra.Completion
		dir := cobra.ShellCompDirectiveNoFileComp
		if complete != nil {
			comps, dir = complete(c, args, toComplete)
		}
		if len(args) == 0 {
			for _, t := range helpTopics() {
				if strings.HasPrefix(t.Name, toComplete) && !slices.Contains(comps, t.Name) {
					comps = append(comps, cobra.CompletionWithDesc(t.Name, t.Short))
				}
			}
		}
		return comps, dir
	}
}
