package cmd

import (
	"context"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/config"
	"github.com/mcpctl/mcpctl/transport"
)

// ServerOptions select and configure the server a command talks to, or,
// for `servers add`, the server a definition describes. They are the one
// declaration of the server flags: [registerServerFlags] registers them,
// [setServerArgs] fills in what the command line gives beyond the flags,
// and [ServerOptions.validate] checks them, once, for every command.
type ServerOptions struct {
	// Server names a server defined in mcpctl's config or an editor's file
	// (-s NAME); Connect fills the fields below from its definition.
	Server    string
	Demo      bool
	URL       string   // an HTTP server
	Transport string   // auto, http or sse, for URL
	Headers   []string // -H 'Name: value', parsed by parseHeader
	// NamedHeaders are the headers of a named server's definition, already
	// expanded; -H wins over them.
	NamedHeaders http.Header
	Bearer       string // env:VAR or file:PATH holding a bearer token
	CACert       string
	Insecure     bool
	// AuthCACert is a CA file for the authorization servers on other
	// origins than the server's (--auth-cacert); CACert and Insecure
	// apply to the server's origin only.
	AuthCACert string
	// Elicit is how to answer elicitation/create (--elicit); "" declares
	// elicitation only at a terminal, where a form is shown.
	Elicit string
	// Roots are the directories answered to roots/list (--root); none
	// declares no roots.
	Roots []string
	// Sample is how to answer sampling/createMessage (--sample: @FILE,
	// exec:CMD or decline); "" declares sampling only at a terminal,
	// where the user types the answer.
	Sample  string
	Command []string // the stdio server's argv, after "--"
	Env     []string // -e KEY=VAL for the stdio server, parsed by parseEnvVar
	Cwd     string
	// InheritEnv gives the stdio server mcpctl's whole environment rather
	// than the safe default set; Env is added in both cases.
	InheritEnv bool
	// MaxMessageSize limits one message in bytes; zero means
	// [transport.DefaultMaxMessageSize] (for servers add: no limit of the
	// server's own).
	MaxMessageSize  int64
	Timeout         time.Duration
	ProtocolVersion string // "": the newest of the era
	// Era is auto, legacy or modern (--era); for servers add, "" when not
	// given. See [ServerOptions.era] for how it combines with
	// ProtocolVersion.
	Era string
	// FreshEra (not a flag) probes the era even when the cache knows it:
	// connect shows what the server says now.
	FreshEra bool
	// Lazy (not a flag) says the command needs nothing server/discover
	// tells (capabilities, server name, instructions): a modern session
	// opened from the era cache then sends no request of its own before
	// the command's.
	Lazy  bool
	Trace string // "", "-" (stderr) or a file
	// TraceTo (not a flag) receives the trace too, as NDJSON: the ui's
	// protocol pane.
	TraceTo io.Writer
	// ElicitForm (not a flag) answers form elicitation requests when
	// --elicit is not given: the ui's form. It declares elicitation.
	ElicitForm func(context.Context, *client.ElicitRequest) (client.ElicitResult, error)
	// SampleForm (not a flag) answers sampling requests when --sample is
	// not given: the ui's sampling form. It declares sampling.
	SampleForm client.SampleFunc
	// DeclareRoots (not a flag) declares roots even without --root, so
	// that the list can change while the session runs (the ui's roots
	// pane).
	DeclareRoots bool
	// Record is the file --record writes the session to, for mcpctl mock.
	Record       string
	ServerStderr string // "" (stream to stderr), "quiet" or a file
	// Grace is how long a stdio server gets at each step of its shutdown;
	// zero means transport.DefaultGrace. Not a flag: completions shorten it.
	Grace   time.Duration
	Verbose bool
	// Strict makes results that break the official schema fail the run
	// (exit 5) instead of only warning; validate also fails on lint
	// warnings.
	Strict bool
	// LintsResults (not a flag) says the command checks results against the official
	// schema itself (validate's lint), so Connect adds no check of its own.
	LintsResults bool
	// Sign (not a flag) are the signing options of a command that signs
	// or verifies calls (call --sign-key/--verify-key): the session's
	// pipeline signs and verifies every tools/call with them.
	Sign *SignOptions
	// OnStdoutNoise (not a flag) receives, besides the warning, what a
	// stdio server wrote to stdout that is not a JSON-RPC message, one
	// description per line (validate's lint reports them as errors).
	OnStdoutNoise func(msg string)
	// OnViolation (not a flag) receives, besides the warning, each protocol
	// violation the session sees, worded as the warning is: a line on a
	// stdio server's stdout that is not JSON-RPC, an HTTP server's
	// misbehaviour, a problem the client reports with a server message
	// (a response whose id matches no request…), a result breaking the
	// official schema. The session then checks its results on its own,
	// outside the run's --strict verdict (test attributes them to steps).
	OnViolation func(msg string)
	// SurfaceFeatures (not a flag) declares the fixed client capabilities
	// of snapshot and diff ([surfaceCapabilities]) whatever the terminal,
	// so that a server that adapts its tools to them offers the same ones
	// on every run.
	SurfaceFeatures bool
	// Extensions (not a flag) are the extensions the command declares under
	// the client's capabilities.extensions, by identifier (skills declares
	// io.modelcontextprotocol/skills).
	Extensions map[string]any
	// OnNotification (not a flag) replaces the printing of server logs and
	// progress on stderr for a command that shows notifications itself
	// (watch). It runs on the client's read loop: it must not block.
	OnNotification func(client.Notification)

	// Policy are the tool-policy flags (policy.go).
	Policy PolicyOptions

	// Auth are the OAuth settings (--client-id, --grant, …); a named
	// server's own fill in what the command line does not give.
	Auth config.Auth
	// NoBrowser prints the authorization URL instead of opening it, and
	// accepts a pasted redirect URL.
	NoBrowser bool

	// Audit is the audit trail file (--audit, or audit: in the config);
	// AuditKey (--audit-key env:VAR or file:PATH) makes its chain an HMAC
	// chain.
	Audit    string
	AuditKey string

	// Given holds the flags of [overridable] that the command line gave:
	// they win over a named server's own settings. It comes from the
	// command being run (see [setServerArgs]), never from shared state.
	Given map[string]bool
}

// overridable are the flags a named server's definition also sets.
func overridable() []string {
	return []string{"timeout", "transport", "max-message-size", "inherit-env", "era"}
}

// serverFlagUse says what the server flags are for.
type serverFlagUse int

const (
	// connectFlags: the command talks to the server; every flag, with the
	// global defaults.
	connectFlags serverFlagUse = iota
	// defineFlags: servers add writes a definition; only what a definition
	// holds, and no defaults (what is not given is not written).
	defineFlags
)

// addServerFlags registers the server flags of a command that talks to a
// server.
func addServerFlags(cmd *cobra.Command, o *ServerOptions) {
	registerServerFlags(cmd, o, connectFlags)
}

// registerServerFlags registers the server flags on cmd, bound to o: the
// one place they are declared. `mcpctl help connection` documents them
// (the OAuth, policy and audit ones in their own topics), so that a
// command's help only names them.
func registerServerFlags(cmd *cobra.Command, o *ServerOptions, use serverFlagUse) {
	inTopic(cmd, topicConnection, func() { registerServerFlagSet(cmd, o, use) })
}

// registerServerFlagSet is [registerServerFlags] without the help topics.
func registerServerFlagSet(cmd *cobra.Command, o *ServerOptions, use serverFlagUse) {
	fs := cmd.Flags()
	connect := use == connectFlags
	if connect {
		// The value type lets completion find o (see serverOptionsOf).
		fs.VarP(&serverNameValue{o: o}, "server", "s", "Use the server `NAME` from mcpctl's config or an editor's MCP file (see mcpctl servers)")
		fs.BoolVar(&o.Demo, "demo", false, "Use the built-in demo server (in-process, nothing to install)")
	}
	fs.StringVar(&o.URL, "url", "", "`URL` of an HTTP server (Streamable HTTP, or legacy HTTP+SSE)")
	transportDefault, transportHelp := "auto", "HTTP transport for --url: auto, http (Streamable HTTP) or sse (legacy HTTP+SSE)"
	headerHelp := "Send the HTTP header `'Name: value'` (repeatable; ${VAR} is expanded from the environment)"
	envHelp := "Set `KEY=VAL` in the stdio server's environment (repeatable)"
	if !connect {
		transportDefault, transportHelp = "", "HTTP transport: http (Streamable HTTP) or sse (legacy HTTP+SSE); default: detect"
		headerHelp = "HTTP header `'Name: value'` for the URL server (repeatable; write ${VAR} to keep a secret out of the file)"
		envHelp = "`KEY=VAL` in the stdio server's environment (repeatable; write ${VAR} to keep a secret out of the file)"
	}
	fs.StringVar(&o.Transport, "transport", transportDefault, transportHelp)
	fs.StringArrayVarP(&o.Headers, "header", "H", nil, headerHelp)
	if connect {
		fs.StringVar(&o.Bearer, "bearer", "", "Send Authorization: Bearer with the token in `env:VAR` or file:PATH")
		fs.StringVar(&o.CACert, "cacert", "", "Trust the CA certificates in PEM `FILE` for the --url server's origin")
		fs.BoolVar(&o.Insecure, "insecure", false, "Do not verify the TLS certificate of the --url server's origin (unsafe; authorization servers elsewhere are still verified)")
		fs.StringVar(&o.Elicit, "elicit", "", "Answer the server's elicitation requests: accept-defaults, decline, cancel or @answers.json, checked against the form (declares elicitation; default: a form at a terminal)")
		fs.StringArrayVar(&o.Roots, "root", nil, "Expose the directory `DIR` to the server as a root (repeatable; declares roots)")
		fs.StringVar(&o.Sample, "sample", "", "Answer the server's sampling requests: @FILE (a CreateMessageResult, or NDJSON of them in order), exec:CMD (the request on its stdin, the result on its stdout) or decline (declares sampling; default: type the answer at a terminal)")
		_ = cmd.RegisterFlagCompletionFunc("elicit", cobra.FixedCompletions([]cobra.Completion{"accept-defaults", "decline", "cancel"}, cobra.ShellCompDirectiveDefault))
		_ = cmd.RegisterFlagCompletionFunc("sample", cobra.FixedCompletions([]cobra.Completion{"decline", "exec:"}, cobra.ShellCompDirectiveDefault))
		addPolicyFlags(cmd, o)
		_ = cmd.RegisterFlagCompletionFunc("root", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveFilterDirs
		})
	}
	addAuthFlags(cmd, o, use)
	fs.StringArrayVarP(&o.Env, "env", "e", nil, envHelp)
	fs.StringVar(&o.Cwd, "cwd", "", "Working `directory` for the stdio server")
	fs.BoolVar(&o.InheritEnv, "inherit-env", false, "Give the stdio server mcpctl's whole environment (default: a safe set such as HOME, PATH, USER, SHELL, TERM and LANG, plus -e)")
	sizeZero := transport.FormatSize(transport.DefaultMaxMessageSize)
	sizeZero = strings.ReplaceAll(sizeZero, " ", "")
	sizeHelp := "Largest single message (stdio line, HTTP body, SSE event) to accept, as `SIZE`: bytes, or with KiB, MiB, GiB, KB, MB, GB"
	if !connect {
		sizeZero, sizeHelp = "", "The server's own limit on one message, as `SIZE` (default: the global one)"
	}
	fs.Var(&sizeValue{p: &o.MaxMessageSize, zero: sizeZero}, "max-message-size", sizeHelp)
	eraDefault, eraHelp := config.EraAuto, "Protocol `era`: auto (detect, and remember per server), legacy (initialize and sessions, up to 2025-11-25) or modern (stateless, 2026-07-28 on)"
	if !connect {
		eraDefault, eraHelp = "", "The server's protocol `era`: auto, legacy or modern (default: auto)"
	}
	fs.StringVar(&o.Era, "era", eraDefault, eraHelp)
	_ = cmd.RegisterFlagCompletionFunc("era", cobra.FixedCompletions([]cobra.Completion{"auto", "legacy", "modern"}, cobra.ShellCompDirectiveNoFileComp))
	if connect {
		durationVar(fs, &o.Timeout, "timeout", client.DefaultTimeout, "Timeout for each request to the server, not counting time spent answering its elicitation or sampling requests: a `duration` such as 30s or 2m, or a number of seconds")
		fs.StringVar(&o.ProtocolVersion, "protocol-version", "", "MCP protocol `version` to speak, which pins its era: a legacy one ("+client.LatestProtocolVersion+" and older) is offered in initialize, "+client.ModernProtocolVersion+" is sent with every request (default: the newest of the era detected)")
		markSetting(cmd, "timeout")
		markSetting(cmd, "protocol-version")
		fs.StringVar(&o.Trace, "trace", "", "Write every JSON-RPC message as NDJSON to `FILE` (- for stderr)")
		fs.StringVar(&o.Record, "record", "", "Record the session to `FILE` (NDJSON, secrets redacted) for mcpctl mock to replay")
		fs.StringVar(&o.ServerStderr, "server-stderr", "", "Where the stdio server's stderr goes: quiet, or a `FILE` (default: mcpctl's stderr)")
		fs.BoolVarP(&o.Verbose, "verbose", "v", false, "Show connection details on stderr, and which definition -s NAME uses")
		addAuditFlags(cmd, o)
		fs.BoolVar(&o.Strict, "strict", false, "Fail (exit 5) when a result breaks the official MCP schema, or an argument its format, not only warn; with validate, also on lint warnings")
		_ = cmd.RegisterFlagCompletionFunc("transport", cobra.FixedCompletions([]cobra.Completion{"auto", "http", "sse"}, cobra.ShellCompDirectiveNoFileComp))
		return
	}
	durationVar(fs, &o.Timeout, "timeout", 0, "The server's own request timeout, as a `duration` or a number of seconds (default: the global one)")
	_ = cmd.RegisterFlagCompletionFunc("transport", cobra.FixedCompletions([]cobra.Completion{"http", "sse"}, cobra.ShellCompDirectiveNoFileComp))
}

// serverNameValue is the value of -s: a string, whose type lets
// [serverOptionsOf] find the options it belongs to.
type serverNameValue struct{ o *ServerOptions }

func (v *serverNameValue) String() string {
	if v.o == nil {
		return ""
	}
	return v.o.Server
}
func (v *serverNameValue) Set(s string) error { v.o.Server = s; return nil }
func (v *serverNameValue) Type() string       { return "string" }

// serverOptionsOf returns the server options cmd's flags are bound to, or
// nil for a command without server flags. Completion uses it to read the
// partial command line as the command itself would.
func serverOptionsOf(cmd *cobra.Command) *ServerOptions {
	f := cmd.Flags().Lookup("server")
	if f == nil {
		return nil
	}
	if v, ok := f.Value.(*serverNameValue); ok {
		return v.o
	}
	return nil
}

// sizeValue is a flag holding a size in bytes (see [config.ParseSize]);
// zero is written as zero, the default it stands for.
type sizeValue struct {
	p    *int64
	zero string
}

func (v *sizeValue) String() string {
	if v.p == nil || *v.p == 0 {
		return v.zero
	}
	return strings.ReplaceAll(transport.FormatSize(*v.p), " ", "")
}

func (v *sizeValue) Set(s string) error {
	n, err := config.ParseSize(s)
	if err != nil {
		return err
	}
	*v.p = n
	return nil
}

func (v *sizeValue) Type() string { return "size" }

// setServerArgs splits cobra's positional arguments at "--": the words after
// it are the stdio server's command line. It also records which of the
// flags a named server may set were given on cmd's command line.
func setServerArgs(cmd *cobra.Command, args []string, o *ServerOptions) []string {
	o.Given = givenFlags(cmd.Flags())
	if dash := cmd.ArgsLenAtDash(); dash >= 0 {
		o.Command = args[dash:]
		return args[:dash]
	}
	return args
}

// givenFlags reports which [overridable] flags fs was given; nil for none.
func givenFlags(fs *pflag.FlagSet) map[string]bool {
	var given map[string]bool
	for _, name := range overridable() {
		if fs.Changed(name) {
			if given == nil {
				given = map[string]bool{}
			}
			given[name] = true
		}
	}
	return given
}

// addAuditFlags registers --audit and --audit-key, bound to o.
func addAuditFlags(cmd *cobra.Command, o *ServerOptions) {
	fs := cmd.Flags()
	inTopic(cmd, topicPolicy, func() {
		fs.StringVar(&o.Audit, "audit", "", "Append a line per tool call, read and prompt get to the audit trail `FILE` (hash-chained; see mcpctl audit); off records nothing, even when the config names a trail")
		fs.StringVar(&o.AuditKey, "audit-key", "", "HMAC-chain the audit trail with the key in `env:VAR` or file:PATH")
	})
}
