package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/config"
	"github.com/mcpctl/mcpctl/proxy"
	"github.com/mcpctl/mcpctl/session"
	"github.com/mcpctl/mcpctl/transport"
)

// topicGovern is the help topic of the proxy's governance flags.
const topicGovern = "governance"

// ProxyGovernOptions are the flags that govern the calls a host makes
// through the stdio shim (docs/proxy.md, Governance).
type ProxyGovernOptions struct {
	// Server holds the policy and audit flags, as call has them.
	Server ServerOptions
	// Sign are the signing flags, as call has them.
	Sign SignOptions
	// Allow and Deny are the tool globs of --allow and --deny.
	Allow, Deny []string
	// RefuseAs is how a refused tool call is answered: result or jsonrpc.
	RefuseAs string
	// HostScopes are the scopes the host is granted (--host-scope);
	// HostToken is a JWT whose scope/scp claims grant them
	// (--host-token env:NAME|file:PATH), checked with JWTKey when given.
	HostScopes []string
	HostToken  string
	JWTKey     string
	// Given (not a flag) says a governance flag was given.
	Given bool
	// URL (not a flag) is the server of the HTTP reverse proxy, "" for
	// the stdio shim.
	URL string
	// Approver (not a flag) asks a person to approve held calls; nil
	// holds them in the approval queue (proxy_govern_hold.go).
	Approver proxy.Approver
	// Hold are the flags of approvals and pins (proxy_govern_hold.go).
	Hold ProxyHoldOptions
}

// addProxyGovernFlags registers the governance flags on cmd, all in the
// governance help topic (mcpctl help governance), so that the proxy's
// help names them in two lines.
func addProxyGovernFlags(cmd *cobra.Command, o *ProxyGovernOptions) {
	fs := cmd.Flags()
	before := map[string]bool{}
	fs.VisitAll(func(f *pflag.Flag) { before[f.Name] = true })
	addPolicyFlags(cmd, &o.Server)
	addAuditFlags(cmd, &o.Server)
	registerSignFlags(cmd, &o.Sign)
	fs.StringArrayVar(&o.Allow, "allow", nil, "Show and allow only the tools matching `GLOB` (repeatable)")
	fs.StringArrayVar(&o.Deny, "deny", nil, "Hide the tools matching `GLOB` and refuse their calls (repeatable)")
	fs.StringVar(&o.RefuseAs, "refuse-as", string(proxy.RefuseToolResult), "Answer a refused tool call with a tool `result` (isError) or a jsonrpc error")
	fs.StringArrayVar(&o.HostScopes, "host-scope", nil, "Grant the host the `SCOPE`s a policy may require (repeatable, or space-separated)")
	fs.StringVar(&o.HostToken, "host-token", "", "The host's JWT in `env:NAME|file:PATH`: its scope/scp claims grant its scopes")
	fs.StringVar(&o.JWTKey, "jwt-key", "", "Verify --host-token and the hosts' bearer tokens (HS256) with the key in `env:NAME|file:PATH`")
	addProxyHoldFlags(cmd, &o.Hold)
	fs.VisitAll(func(f *pflag.Flag) {
		if !before[f.Name] {
			_ = fs.SetAnnotation(f.Name, flagTopicAnnotation, []string{topicGovern})
			_ = fs.SetAnnotation(f.Name, flagSectionAnnotation, nil)
		}
	})
}

// given reports whether any governance flag is set.
func (o *ProxyGovernOptions) given(cmd *cobra.Command) bool {
	on := false
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Changed && len(f.Annotations[flagTopicAnnotation]) == 1 && f.Annotations[flagTopicAnnotation][0] == topicGovern {
			on = true
		}
	})
	return on
}

// proxyGovernor returns the governor of the stdio shim, nil when no
// governance flag is given and neither a policy nor an audit trail is
// found the way call finds them (then the shim relays bytes as they come).
func (f *Factory) proxyGovernor(o *ProxyGovernOptions, serverArgs []string, tap *proxy.Tap) (*proxy.Governor, error) {
	so := &o.Server
	so.Command = serverArgs
	name := strings.Join(serverArgs, " ")
	if o.URL != "" {
		so.Command, so.URL, name = nil, o.URL, transport.RedactURL(o.URL)
	}
	if !o.Given {
		file, _, err := f.policyFile(so)
		if err != nil {
			return nil, err
		}
		trail, _, err := config.ResolveSetting(config.KeyAudit, nil, f.LookupEnv, f.Config)
		if err != nil {
			return nil, err
		}
		if file == "" && (trail == "" || trail == auditOff) {
			return nil, nil
		}
	}
	switch proxy.RefuseStyle(o.RefuseAs) {
	case proxy.RefuseToolResult, proxy.RefuseJSONRPC:
	default:
		return nil, flagErrorf("invalid --refuse-as %q: expected %s or %s", o.RefuseAs, proxy.RefuseToolResult, proxy.RefuseJSONRPC)
	}
	if o.HostToken != "" && len(o.HostScopes) > 0 {
		return nil, flagErrorf("--host-token and --host-scope both give the host's scopes: give one of them")
	}
	if o.JWTKey != "" && o.HostToken == "" && o.URL == "" {
		return nil, flagErrorf("--jwt-key verifies --host-token: give the token too")
	}
	o.Sign.LoadKey = f.LoadKey
	if err := o.Sign.validate(); err != nil {
		return nil, err
	}
	scopes, err := f.hostScopes(o)
	if err != nil {
		return nil, err
	}
	gate, err := f.policyGate(so)
	if err != nil {
		return nil, err
	}
	gate.Ask = nil // no terminal of the host's to ask on: the shim's stdio is the host's
	gate.NoAsk = "no one can be asked here (the proxy has no approval queue or host to ask)"
	gate.Scopes = scopes
	filter := proxy.ToolFilter{Allow: o.Allow, Deny: o.Deny}
	pins, err := f.proxyPins(&o.Hold, serverArgs)
	if err != nil {
		return nil, err
	}
	st := session.Stages{Policy: filter.Policy(gate)}
	if pins != nil {
		st.Policy = pins.Policy(st.Policy)
	}
	trail, prepare, err := f.auditTrail(so)
	if err != nil {
		return nil, err
	}
	if trail != nil {
		st.Recorder, st.Prepare = trail, prepare
		if pins != nil {
			pins.Recorder = trail
		}
	}
	st.Signer, st.Verifier = o.Sign.stages()
	st.Outputs = &session.OutputChecks{Schemas: &f.state().schemas, Warn: func(msg string) { f.printer().Warning(msg) }}
	if st.Prepare != nil {
		// Read now: a trail that cannot be opened stops the proxy before
		// the host's first call.
		if err := st.Prepare(); err != nil {
			return nil, err
		}
		st.Prepare = nil
	}
	g := &proxy.Governor{
		Pipeline:    session.NewPipeline(st),
		Server:      name,
		Filter:      filter,
		RefuseAs:    proxy.RefuseStyle(o.RefuseAs),
		GovernReads: trail != nil && trail.W != nil,
		Approver:    o.Approver,
		Tap:         tap,
		Pins:        pins,
	}
	if g.Approver == nil {
		if g.Approver, err = f.proxyApprover(&o.Hold); err != nil {
			return nil, err
		}
	}
	gate.AskContext = g.AskHook()
	return g, nil
}

// hostScopes returns the policy stage's source of the host's scopes:
// --host-scope, or the claims of --host-token.
func (f *Factory) hostScopes(o *ProxyGovernOptions) (func() ([]string, string, string, error), error) {
	switch {
	case o.HostToken != "":
		tok, err := f.LoadKey("host-token", o.HostToken)
		if err != nil {
			return nil, err
		}
		var key []byte
		if o.JWTKey != "" {
			if key, err = f.LoadKey("jwt-key", o.JWTKey); err != nil {
				return nil, err
			}
		}
		id, err := proxy.TokenIdentity(strings.TrimSpace(string(tok)), key, "host token")
		if err != nil {
			return nil, flagErrorf("--host-token: %v", err)
		}
		return func() ([]string, string, string, error) { return id.Scopes, id.From, "", nil }, nil
	case len(o.HostScopes) > 0:
		var s []string
		for _, v := range o.HostScopes {
			s = append(s, strings.Fields(v)...)
		}
		return func() ([]string, string, string, error) { return s, "--host-scope", "", nil }, nil
	}
	note := "the host was given none: --host-scope or --host-token"
	if o.URL != "" {
		note = "the host sent no bearer token, and no --host-scope grants any"
	}
	return func() ([]string, string, string, error) { return nil, "", note, nil }, nil
}

// governTopic is the help topic of the governance flags.
func governTopic() HelpTopic {
	return HelpTopic{
		Name:  topicGovern,
		Short: "Policy, signing and audit of the calls a host makes through mcpctl proxy",
		intro: fmt.Sprintf(`mcpctl proxy -- SERVER and mcpctl proxy --listen ADDR --url URL govern
the host's tools/call requests when a governance flag is given, or when
a policy or an audit trail is found as mcpctl call finds them (mcpctl
help policy); the bridges are not governed. Each call runs through the
same pipeline as mcpctl's own: --allow/--deny, the policy (scopes,
approval, rate limits shared by every proxy of the server), signing
(--sign-key), the server's answer, signature verification (--verify-key)
and the audit trail (--audit, which also records resources/read and
prompts/get). A refused call never reaches the server: the host gets a tool
result with isError and one sentence saying why, or with --refuse-as
jsonrpc a JSON-RPC error %d. A result whose signature fails is replaced
by a tool error naming the failure. The host's scopes come from
--host-scope or the scope/scp claims of --host-token; over HTTP, from
the scope/scp claims of each request's bearer token, verified with
--jwt-key when given (the OAuth --scope is the upstream's, for --url).

A call that needs approval (requires_approval, or a destructive tool)
waits for a person, unless --approve gives it: the host's user is asked
when the host declared elicitation (elicitation/create, or an
input-required result in the 2026-07-28 era), and the call is held in the
approval queue, where mcpctl proxy approvals, approve ID and deny ID
decide it from any terminal; the first answer wins, and no answer within
--approval-timeout denies it. Each tool the server lists is pinned (mcpctl
proxy pins); a changed definition or hidden characters are flagged in the
session and the audit, and --pin strict hides a changed tool until mcpctl
proxy accept SERVER TOOL.`, client.CodeRefused),
		flags:    topicGovern,
		after:    `The guide: docs/proxy.md (Governance).`,
		unlisted: true,
	}
}
