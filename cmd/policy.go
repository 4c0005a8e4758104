package cmd

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/config"
	"github.com/mcpctl/mcpctl/lint"
	"github.com/mcpctl/mcpctl/policy"
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

// addPolicyFlags registers the policy flags, bound to o.
func addPolicyFlags(cmd *cobra.Command, o *ServerOptions) {
	fs := cmd.Flags()
	fs.StringVar(&o.Policy.File, "policy", "", "Enforce the tool policy in `FILE` (approval, scopes, rate limits; default: policy: in the config or the named server, else .mcpctl/policy.yaml of the project)")
	fs.StringArrayVar(&o.Policy.Approve, "approve", nil, "Approve calls the policy says need approval, without asking: every tool, or `TOOL` with --approve=TOOL (repeatable, globs allowed)")
	fs.Lookup("approve").NoOptDefVal = "*"
	fs.BoolVar(&o.Policy.Wait, "wait", false, "Wait for the next free slot when the policy's rate limit is reached, instead of refusing (exit 9)")
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

// policyCheck returns the guard's check for the policy in force for o. It
// governs tools/call: the required scopes against the credential mcpctl
// sends, then approval, then the rate limit (last, so that a call refused
// otherwise uses no slot). A refusal is a [*policy.Refusal] (exit 9) naming
// the rule.
//
// A policy file named for the server (--policy, a named server's policy:)
// is read at once, so that a bad one stops the command before it connects.
// Otherwise the policy is looked for (MCPCTL_POLICY, the config, the
// project) on the first request the guard rules on: commands that only list
// read no file for it.
func (f *Factory) policyCheck(o *ServerOptions) (func(context.Context, *guardRequest) (guardDecision, error), error) {
	var (
		loadOnce    sync.Once
		p           *policy.Policy
		loadErr     error
		scopesOnce  sync.Once
		granted     []string
		grantedFrom string
		grantedNote string
		scopesErr   error
		askMu       sync.Mutex // one prompt at a time (mcpctl test --parallel)
		limiter     *policy.Limiter
		limiterErr  error
		limiterOnce sync.Once
		approvals   = o.Policy.Approve
		wait        = o.Policy.Wait
	)
	load := func() (*policy.Policy, error) {
		loadOnce.Do(func() { p, loadErr = f.loadPolicy(o) })
		return p, loadErr
	}
	if o.Policy.File != "" {
		if _, err := load(); err != nil {
			return nil, err
		}
	}
	return func(ctx context.Context, r *guardRequest) (guardDecision, error) {
		p, err := load()
		if err != nil {
			return guardDecision{}, err
		}
		if p == nil {
			return guardDecision{Allowed: true}, nil
		}
		d := guardDecision{Allowed: true, By: "policy"}
		if r.Method != "tools/call" {
			return d, nil
		}
		var ann policy.Annotations
		if r.Tool != nil && r.Tool.Annotations != nil {
			ann = policy.Annotations{ReadOnly: r.Tool.Annotations.ReadOnlyHint, Destructive: r.Tool.Annotations.DestructiveHint}
		}
		rule, source := p.Decide(r.Name, ann)
		d.Rule, d.Sensitivity, d.Mask = source, rule.Sensitivity, rule.SensitiveArguments
		refuse := func(check, reason string) (guardDecision, error) {
			d.Allowed, d.By = false, "refused: "+check
			return d, &policy.Refusal{Tool: r.Name, Rule: check, Entry: source, Reason: reason}
		}
		// fail ends a check that could not be made: nothing is sent.
		fail := func(err error) (guardDecision, error) {
			d.Allowed = false
			return d, err
		}

		if len(rule.RequiredScopes) > 0 {
			scopesOnce.Do(func() { granted, grantedFrom, grantedNote, scopesErr = f.grantedScopes(o) })
			if scopesErr != nil {
				return refuse("required_scopes", fmt.Sprintf("cannot read the credential's scopes: %v", scopesErr))
			}
			if missing := policy.MissingScopes(rule.RequiredScopes, granted); len(missing) > 0 {
				reason := "missing scope " + strings.Join(missing, ", ") + ": "
				switch {
				case grantedFrom == "":
					reason += "mcpctl sends no credential that could grant it (" + grantedNote + ")"
				case grantedNote != "":
					reason += "the " + grantedFrom + " grants none that can be read (" + grantedNote + ")"
				case len(granted) == 0:
					reason += "the " + grantedFrom + " grants none"
				default:
					reason += "the " + grantedFrom + " grants " + strings.Join(granted, " ")
				}
				return refuse("required_scopes", reason)
			}
		}

		if rule.RequiresApproval {
			switch {
			case approved(approvals, r.Name):
				d.By = "--approve"
			case f.canAsk():
				askMu.Lock()
				yes, err := f.askApproval(r, rule, source)
				askMu.Unlock()
				if err != nil {
					return refuse("requires_approval", fmt.Sprintf("asking for approval: %v", err))
				}
				if !yes {
					return refuse("requires_approval", "not approved at the prompt")
				}
				d.By = "tty-approved"
			default:
				return refuse("requires_approval", fmt.Sprintf("a person must approve this call, and there is no terminal to ask on (or CI=true); pass --approve=%s (or --approve for every tool) to approve it in advance", r.Name))
			}
		}

		if rule.RateLimit > 0 {
			limiterOnce.Do(func() {
				dir, err := f.stateDir()
				if err != nil {
					limiterErr = err
					return
				}
				limiter = &policy.Limiter{Dir: dir}
			})
			if limiterErr != nil {
				return fail(fmt.Errorf("policy rate limit of %s: %w", r.Name, limiterErr))
			}
			for {
				ok, next, err := limiter.Take(rateKey(r.Server, r.Name), rule.RateLimit)
				if err != nil {
					return fail(fmt.Errorf("policy rate limit of %s: %w", r.Name, err))
				}
				if ok {
					break
				}
				in := fmt.Sprintf("%ds", int(math.Ceil(time.Until(next).Seconds())))
				if !wait {
					return refuse("rate_limit", fmt.Sprintf("%d calls a minute allowed at this server, all used; the next slot opens at %s (in %s); pass --wait to wait for it", rule.RateLimit, next.Format("15:04:05"), in))
				}
				fmt.Fprintf(f.IOStreams.ErrOut, "mcpctl: policy: rate limit of %s reached (%d a minute); waiting %s for the next slot\n", r.Name, rule.RateLimit, in)
				t := time.NewTimer(time.Until(next))
				select {
				case <-ctx.Done():
					t.Stop()
					return fail(ctx.Err())
				case <-t.C:
				}
			}
		}
		return d, nil
	}, nil
}

// rateKey is the rate limiter's key for tool at server: the tool's name
// and a digest of the server's description, which may be a command line
// holding a secret that has no business in the state directory.
func rateKey(server, tool string) string {
	sum := sha256.Sum256([]byte(server))
	return tool + "@" + hex.EncodeToString(sum[:8])
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

// approved reports whether --approve covers tool.
func approved(approvals []string, tool string) bool {
	for _, a := range approvals {
		if a == tool {
			return true
		}
		if m, _ := path.Match(a, tool); m {
			return true
		}
	}
	return false
}

// askApproval shows the call on stderr and asks on the terminal.
func (f *Factory) askApproval(r *guardRequest, rule policy.Rule, source string) (bool, error) {
	ios := f.IOStreams
	red := f.Redactor()
	w := ios.ErrOut
	fmt.Fprintf(w, "The policy (entry %q) requires approval to call %s on %s.\n", source, r.Name, red.String(r.Server))
	if rule.Sensitivity != "" {
		fmt.Fprintf(w, "  sensitivity: %s\n", rule.Sensitivity)
	}
	if r.Tool != nil && r.Tool.Annotations != nil {
		if hints := annotationHints(r.Tool); hints != "" {
			fmt.Fprintf(w, "  annotations: %s\n", hints)
		}
	}
	args := "{}"
	if len(r.Args) > 0 {
		args = string(r.Args)
	}
	fmt.Fprintf(w, "  arguments:   %s\n", sanitizeLine(red.String(args)))
	fmt.Fprintf(w, "Call %s? [y/N] ", r.Name)
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

// annotationHints lists the hints a tool's annotations set, e.g.
// "destructiveHint, openWorldHint: false".
func annotationHints(t *client.Tool) string {
	a := t.Annotations
	var parts []string
	for _, h := range []struct {
		name string
		v    *bool
	}{{"readOnlyHint", a.ReadOnlyHint}, {"destructiveHint", a.DestructiveHint}, {"idempotentHint", a.IdempotentHint}, {"openWorldHint", a.OpenWorldHint}} {
		switch {
		case h.v == nil:
		case *h.v:
			parts = append(parts, h.name)
		default:
			parts = append(parts, h.name+": false")
		}
	}
	return strings.Join(parts, ", ")
}

// sanitizeLine makes control characters of server-supplied or user text
// visible, so that the prompt cannot be redrawn by it.
func sanitizeLine(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			fmt.Fprintf(&b, "\\x%02x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
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
func (f *Factory) policyFindings(ctx context.Context, s *session, o *ServerOptions) ([]lint.Finding, error) {
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
