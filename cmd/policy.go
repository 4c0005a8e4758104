package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/config"
	"github.com/mcpctl/mcpctl/lint"
	"github.com/mcpctl/mcpctl/policy"
	"github.com/mcpctl/mcpctl/render"
	"github.com/mcpctl/mcpctl/session"
)

// PolicyOptions are the tool-policy flags of a command that talks to a
// server.
type PolicyOptions struct {
	// File is the policy file (--policy); "" looks for one (see
	// [Factory.policyFile]).
	File string
	// Approve are the tools approved in advance (--approve[=TOOL], globs
	// allowed); "*" approves every tool.
	Approve []string
	// Wait makes a call over its rate limit wait for the next slot rather
	// than be refused.
	Wait bool
	// From (not a flag) says where File came from when not from --policy (a
	// named server's definition), for messages.
	From string
}

// policyKey is the config key and setting (MCPCTL_POLICY) naming a policy
// file; a named server's definition may have its own.
const policyKey = "policy"

// projectPolicyFile is where a project keeps its policy, looked for in the
// working directory and its parents up to the repository root, as the
// editors' .mcp.json is.
const projectPolicyFile = ".mcpctl/policy.yaml"

// addPolicyFlags registers the policy flags, bound to o. The policy
// governs tool calls only (see [session.PolicyGate]): a command that makes
// none keeps the flags, so that a script passing them everywhere still
// runs, but its help does not offer them.
func addPolicyFlags(cmd *cobra.Command, o *ServerOptions) {
	fs := cmd.Flags()
	inTopic(cmd, topicPolicy, func() {
		fs.StringVar(&o.Policy.File, "policy", "", "Enforce the tool policy in `FILE` (approval, scopes, rate limits; default: policy: in the config or the named server, else .mcpctl/policy.yaml of the project)")
		fs.StringArrayVar(&o.Policy.Approve, "approve", nil, "Approve calls the policy says need approval, without asking: every tool, or `TOOL` with --approve=TOOL (repeatable, globs allowed)")
		fs.Lookup("approve").NoOptDefVal = "*"
		fs.BoolVar(&o.Policy.Wait, "wait", false, "Wait for the next free slot when the policy's rate limit is reached, instead of refusing (exit 9)")
	})
	if !callsTools(cmd) {
		for _, name := range []string{"policy", "approve", "wait"} {
			_ = fs.MarkHidden(name)
		}
	}
}

// callsTools reports whether cmd, a command with server flags, makes tool
// calls, which the policy governs. A command without a name is a flag set
// built to read the flags' names (the shell's), which keeps them all.
func callsTools(cmd *cobra.Command) bool {
	switch cmd.Name() {
	case "", "call", "shell", "test", "tasks", "proxy":
		return true
	}
	return false
}

// policyFile finds the policy in force for o: --policy, else the named
// server's policy:, else MCPCTL_POLICY or the config's policy:, else the
// project's .mcpctl/policy.yaml. It returns "" when there is none, and
// where the file was named, for -v.
func (f *Factory) policyFile(o *ServerOptions) (file, source string, err error) {
	if o.Policy.File != "" {
		if o.Policy.From != "" {
			return o.Policy.File, o.Policy.From, nil
		}
		return o.Policy.File, "--policy", nil
	}
	value, source, err := config.ResolveSetting(policyKey, nil, f.LookupEnv, f.Config)
	if err != nil {
		return "", "", err
	}
	if value != "" {
		if cfg, _ := f.Config(); cfg != nil && source == cfg.Path && !filepath.IsAbs(value) {
			// A relative path in the config file is the config's neighbour.
			value = filepath.Join(filepath.Dir(cfg.Path), value)
		}
		return value, source, nil
	}
	dir := f.host().Cwd
	for dir != "" {
		candidate := filepath.Join(dir, filepath.FromSlash(projectPolicyFile))
		if _, err := os.Stat(candidate); err == nil {
			return candidate, "project", nil
		}
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "", "", nil
}

// loadPolicy reads the policy in force for o, nil when there is none. A
// missing or broken file is a usage error: a policy the user asked for and
// that is not applied would be worse than none.
func (f *Factory) loadPolicy(o *ServerOptions) (*policy.Policy, error) {
	file, source, err := f.policyFile(o)
	if err != nil || file == "" {
		return nil, err
	}
	p, err := policy.Load(file)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, flagErrorf("%s: policy file %s does not exist", source, file)
		}
		return nil, flagErrorf("%v (from %s)", err, source)
	}
	if o.Verbose {
		fmt.Fprintf(f.IOStreams.ErrOut, "using policy %s (from %s)\n", file, source)
	}
	return p, nil
}

// policyGate returns the pipeline's policy stage for the policy in force
// for o (see [session.PolicyGate]).
//
// A policy file named for the server (--policy, a named server's policy:)
// is read at once, so that a bad one stops the command before it connects.
// Otherwise the policy is looked for (MCPCTL_POLICY, the config, the
// project) on the first request the pipeline governs: commands that only
// list read no file for it.
func (f *Factory) policyGate(o *ServerOptions) (*session.PolicyGate, error) {
	g := &session.PolicyGate{
		Load:     func() (*policy.Policy, error) { return f.loadPolicy(o) },
		Approve:  o.Policy.Approve,
		Wait:     o.Policy.Wait,
		Scopes:   func() ([]string, string, string, error) { return f.grantedScopes(o) },
		NoAsk:    "there is no terminal to ask on (or CI=true)",
		StateDir: f.stateDir,
		Notify:   func(msg string) { fmt.Fprintln(f.IOStreams.ErrOut, msg) },
	}
	if f.canAsk() {
		g.Ask = f.askApproval
	}
	if o.Policy.File != "" {
		if _, err := g.Policy(); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// canAsk reports whether a person can be asked to approve a call: standard
// input and error are a terminal, and CI is not "true" (a CI job with a
// pseudo-terminal has no one to answer).
func (f *Factory) canAsk() bool {
	if ci, _ := f.LookupEnv("CI"); strings.EqualFold(ci, "true") {
		return false
	}
	return f.IOStreams.IsStdinTTY() && f.IOStreams.IsStderrTTY()
}

// askApproval shows the call on stderr and asks on the terminal. What the
// server or the user wrote is shown through the one terminal sanitiser.
func (f *Factory) askApproval(c *session.Call, rule policy.Rule, source string) (bool, error) {
	ios := f.IOStreams
	red := f.Redactor()
	w := ios.ErrOut
	fmt.Fprintf(w, "The policy (entry %q) requires approval to call %s on %s.\n", promptText(source), promptText(c.Name), promptText(red.String(c.Server)))
	if rule.Sensitivity != "" {
		fmt.Fprintf(w, "  sensitivity: %s\n", rule.Sensitivity)
	}
	if hints := session.AnnotationHints(c.Tool); hints != "" {
		fmt.Fprintf(w, "  annotations: %s\n", hints)
	}
	args := "{}"
	if len(c.Args) > 0 {
		args = string(c.Args)
	}
	fmt.Fprintf(w, "  arguments:   %s\n", promptText(red.String(args)))
	fmt.Fprintf(w, "Call %s? [y/N] ", promptText(c.Name))
	line, err := readLine(ios.In)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		fmt.Fprintln(w)
		return false, nil
	}
	if err != nil {
		return false, err
	}
	answer := strings.ToLower(strings.TrimSpace(line))
	return answer == "y" || answer == "yes", nil
}

// promptText is s made safe for one line of the approval prompt: what a
// terminal would act on made visible (see [render.Sanitize]), and line
// breaks and tabs escaped, so that nothing can redraw the question.
func promptText(s string) string {
	return strings.NewReplacer("\n", `\n`, "\r", `\r`, "\t", `\t`).Replace(render.Sanitize(s))
}

// grantedScopes returns the scopes of the credential mcpctl sends to o's
// server, and names it: a JWT bearer token (--bearer, -H Authorization or
// the named server's header), else the stored OAuth token. from is "" when
// no credential is sent; note says more when the scopes are unknown.
func (f *Factory) grantedScopes(o *ServerOptions) (scopes []string, from, note string, err error) {
	token, header, err := f.bearerToken(o)
	if err != nil {
		return nil, "", "", err
	}
	if header {
		s, ok := policy.JWTScopes(token)
		if !ok {
			return nil, "bearer token", "it is not a JWT, so its scopes cannot be read", nil
		}
		return s, "bearer token", "", nil
	}
	if o.URL == "" {
		return nil, "", "a stdio server is sent no credential", nil
	}
	az, err := f.authorizer(o, nil, nil)
	if err != nil {
		return nil, "", "", err
	}
	e, err := az.Status()
	if err != nil {
		return nil, "", "", err
	}
	if e == nil {
		return nil, "", "no bearer token and no OAuth token yet; " + loginHint(o), nil
	}
	return e.Scopes, "OAuth token", "", nil
}

// bearerToken returns the bearer token the HTTP requests carry, as
// [Factory.httpOptions] builds them, and whether there is one.
func (f *Factory) bearerToken(o *ServerOptions) (string, bool, error) {
	if o.URL == "" {
		return "", false, nil
	}
	if o.Bearer != "" {
		b, err := f.LoadKey("bearer", o.Bearer)
		if err != nil {
			return "", false, err
		}
		return strings.TrimSpace(string(b)), true, nil
	}
	value := ""
	for _, h := range o.Headers {
		name, v, err := parseHeader(h)
		if err != nil {
			return "", false, err
		}
		if strings.EqualFold(name, "Authorization") {
			value = os.Expand(v, func(k string) string { s, _ := f.LookupEnv(k); return s })
		}
	}
	if value == "" && o.NamedHeaders != nil {
		value = o.NamedHeaders.Get("Authorization")
	}
	scheme, cred, ok := strings.Cut(strings.TrimSpace(value), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false, nil
	}
	return strings.TrimSpace(cred), true, nil
}

// policyFindings lints the policy file named by --policy against the
// tools s lists, as lint findings for `mcpctl validate --policy FILE`. The
// spec reference is the policy file: the rules rest on it, not on the MCP
// specification.
func (f *Factory) policyFindings(ctx context.Context, s *session.Session, o *ServerOptions) ([]lint.Finding, error) {
	p, err := policy.Load(o.Policy.File)
	if err != nil {
		return nil, &FlagError{Err: err}
	}
	var tools []policy.Tool
	if s.HasCapability("tools") {
		listed, err := s.ListTools(ctx)
		if err != nil {
			return nil, fmt.Errorf("listing tools to lint the policy: %w", err)
		}
		for _, t := range listed {
			pt := policy.Tool{Name: t.Name}
			if t.Annotations != nil {
				pt.Annotations = policy.Annotations{ReadOnly: t.Annotations.ReadOnlyHint, Destructive: t.Annotations.DestructiveHint}
			}
			tools = append(tools, pt)
		}
	}
	var out []lint.Finding
	for _, pf := range policy.Lint(p, tools) {
		fd := lint.Finding{RuleID: pf.ID, Severity: lint.SeverityWarning, Message: pf.Message, SpecRef: o.Policy.File}
		if pf.Error {
			fd.Severity = lint.SeverityError
		}
		if pf.Tool != "" {
			fd.Subject = fmt.Sprintf("tool %q", pf.Tool)
		} else {
			fd.Subject = fmt.Sprintf("policy entry %q", pf.Entry)
		}
		if pf.Line > 0 {
			fd.SpecRef = fmt.Sprintf("%s:%d", o.Policy.File, pf.Line)
		}
		out = append(out, fd)
	}
	// Errors first, as lint orders its own.
	slices.SortStableFunc(out, func(a, b lint.Finding) int {
		switch {
		case a.Severity == b.Severity:
			return 0
		case a.Severity == lint.SeverityError:
			return -1
		}
		return 1
	})
	return out, nil
}
