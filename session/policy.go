package session

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/policy"
)

// PolicyGate is the policy stage: it governs tools/call by the tool policy
// in force — the required scopes against the credential mcpctl sends,
// then approval, then the rate limit (last, so that a call refused
// otherwise uses no slot). A refusal is a [*policy.Refusal] (exit 9)
// naming the rule. Other governed methods pass, decided "policy".
type PolicyGate struct {
	// Load returns the policy in force, nil for none; it is called once,
	// on the first request.
	Load func() (*policy.Policy, error)
	// Approve are the tools approved in advance (globs allowed; "*" is
	// every tool).
	Approve []string
	// Wait makes a call over its rate limit wait for the next slot rather
	// than be refused.
	Wait bool
	// Scopes returns the scopes of the credential mcpctl sends and names
	// it (from is "" when none is sent; note says more when the scopes are
	// unknown). Called once, when a rule first requires scopes.
	Scopes func() (granted []string, from, note string, err error)
	// Ask asks a person to approve a call; nil when no one can be asked
	// (no terminal, or CI), and then NoAsk says why.
	Ask   func(c *Call, rule policy.Rule, entry string) (bool, error)
	NoAsk string
	// AskContext, when set, is used in place of Ask: it may hold the call
	// until a person answers or ctx ends, several calls may wait at once,
	// and it says who answered (by) and, for a refusal, why (reason). The
	// proxy sets it.
	AskContext func(ctx context.Context, c *Call, rule policy.Rule, entry string) (yes bool, by, reason string, err error)
	// StateDir returns the folder of the rate limits shared across
	// processes.
	StateDir func() (string, error)
	// Notify tells the user of a wait for a rate-limit slot.
	Notify func(msg string)

	loadOnce    sync.Once
	loaded      atomic.Bool // the policy was loaded without error
	p           *policy.Policy
	loadErr     error
	scopesOnce  sync.Once
	scopesRead  atomic.Bool // granted and the rest are set
	granted     []string
	grantedFrom string
	grantedNote string
	scopesErr   error
	askMu       sync.Mutex // one prompt at a time (mcpctl test --parallel)
	limiterOnce sync.Once
	limiter     *policy.Limiter
	limiterErr  error
}

// Policy returns the policy in force, loading it on first use.
func (g *PolicyGate) Policy() (*policy.Policy, error) {
	g.loadOnce.Do(func() {
		if g.Load != nil {
			g.p, g.loadErr = g.Load()
		}
		g.loaded.Store(g.loadErr == nil)
	})
	return g.p, g.loadErr
}

// Decide implements [Policy].
func (g *PolicyGate) Decide(ctx context.Context, c *Call) (Decision, error) {
	p, err := g.Policy()
	if err != nil {
		return Decision{}, err
	}
	if p == nil {
		return Decision{Allowed: true}, nil
	}
	d := Decision{Allowed: true, By: "policy"}
	if c.Method != "tools/call" {
		return d, nil
	}
	var ann policy.Annotations
	if c.Tool != nil && c.Tool.Annotations != nil {
		ann = policy.Annotations{ReadOnly: c.Tool.Annotations.ReadOnlyHint, Destructive: c.Tool.Annotations.DestructiveHint}
	}
	rule, source := p.Decide(c.Name, ann)
	d.Rule, d.Sensitivity, d.Mask = source, rule.Sensitivity, rule.SensitiveArguments
	refuse := func(check, reason string) (Decision, error) {
		d.Allowed, d.By = false, "refused: "+check
		return d, &policy.Refusal{Tool: c.Name, Rule: check, Entry: source, Reason: reason}
	}
	// fail ends a check that could not be made: nothing is sent.
	fail := func(err error) (Decision, error) {
		d.Allowed = false
		return d, err
	}

	if len(rule.RequiredScopes) > 0 {
		g.scopesOnce.Do(func() {
			if g.Scopes == nil {
				g.grantedNote = "no credential is known"
				return
			}
			g.granted, g.grantedFrom, g.grantedNote, g.scopesErr = g.Scopes()
		})
		g.scopesRead.Store(true)
		granted, from, note, scopesErr := g.granted, g.grantedFrom, g.grantedNote, g.scopesErr
		if id := c.Identity; id != nil {
			granted, from, note, scopesErr = id.Scopes, id.From, id.Note, nil
		}
		if scopesErr != nil {
			return refuse("required_scopes", fmt.Sprintf("cannot read the credential's scopes: %v", scopesErr))
		}
		if missing := policy.MissingScopes(rule.RequiredScopes, granted); len(missing) > 0 {
			reason := "missing scope " + strings.Join(missing, ", ") + ": "
			switch {
			case from == "":
				reason += "no credential is presented that could grant it (" + note + ")"
			case note != "":
				reason += "the " + from + " grants none that can be read (" + note + ")"
			case len(granted) == 0:
				reason += "the " + from + " grants none"
			default:
				reason += "the " + from + " grants " + strings.Join(granted, " ")
			}
			return refuse("required_scopes", reason)
		}
	}

	if rule.RequiresApproval {
		switch {
		case Approved(g.Approve, c.Name):
			d.By = "--approve"
		case g.AskContext != nil:
			yes, by, why, err := g.AskContext(ctx, c, rule, source)
			if err != nil {
				return refuse("requires_approval", fmt.Sprintf("asking for approval: %v", err))
			}
			if !yes {
				reason := "it needs approval, and it was declined"
				if by != "" {
					reason += " by " + by
				}
				if why != "" {
					reason += " (" + why + ")"
				}
				return refuse("requires_approval", reason)
			}
			d.By = "approved"
			if by != "" {
				d.By += " by " + by
			}
		case g.Ask != nil:
			g.askMu.Lock()
			yes, err := g.Ask(c, rule, source)
			g.askMu.Unlock()
			if err != nil {
				return refuse("requires_approval", fmt.Sprintf("asking for approval: %v", err))
			}
			if !yes {
				return refuse("requires_approval", "not approved at the prompt")
			}
			d.By = "tty-approved"
		default:
			return refuse("requires_approval", fmt.Sprintf("a person must approve this call, and %s; pass --approve=%s (or --approve for every tool) to approve it in advance", g.NoAsk, c.Name))
		}
	}

	if rule.RateLimit > 0 {
		g.limiterOnce.Do(func() {
			if g.StateDir == nil {
				g.limiterErr = fmt.Errorf("no state folder to keep the limit in")
				return
			}
			dir, err := g.StateDir()
			if err != nil {
				g.limiterErr = err
				return
			}
			g.limiter = &policy.Limiter{Dir: dir}
		})
		if g.limiterErr != nil {
			return fail(fmt.Errorf("policy rate limit of %s: %w", c.Name, g.limiterErr))
		}
		for {
			ok, next, err := g.limiter.Take(rateKey(c.Server, c.Name), rule.RateLimit)
			if err != nil {
				return fail(fmt.Errorf("policy rate limit of %s: %w", c.Name, err))
			}
			if ok {
				break
			}
			in := fmt.Sprintf("%ds", int(math.Ceil(time.Until(next).Seconds())))
			if !g.Wait {
				return refuse("rate_limit", fmt.Sprintf("%d calls a minute allowed at this server, all used; the next slot opens at %s (in %s); pass --wait to wait for it", rule.RateLimit, next.Format("15:04:05"), in))
			}
			if g.Notify != nil {
				g.Notify(fmt.Sprintf("mcpctl: policy: rate limit of %s reached (%d a minute); waiting %s for the next slot", c.Name, rule.RateLimit, in))
			}
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
}

// Immediate implements [ImmediatePolicy]: once the policy is loaded, a
// call is allowed at once when its rule asks for no approval a person must
// give (none, or approved in advance), sets no rate limit (taking a slot
// locks a file shared with other processes, and may wait) and requires
// no scope the credential lacks.
func (g *PolicyGate) Immediate(c *Call) bool {
	if !g.loaded.Load() {
		return false
	}
	p := g.p
	if p == nil || c.Method != "tools/call" {
		return true
	}
	var ann policy.Annotations
	if c.Tool != nil && c.Tool.Annotations != nil {
		ann = policy.Annotations{ReadOnly: c.Tool.Annotations.ReadOnlyHint, Destructive: c.Tool.Annotations.DestructiveHint}
	}
	rule, _ := p.Decide(c.Name, ann)
	if rule.RateLimit > 0 || (rule.RequiresApproval && !Approved(g.Approve, c.Name)) {
		return false
	}
	if len(rule.RequiredScopes) == 0 {
		return true
	}
	var granted []string
	switch {
	case c.Identity != nil:
		granted = c.Identity.Scopes
	case !g.scopesRead.Load() || g.scopesErr != nil:
		return false
	default:
		granted = g.granted
	}
	return len(policy.MissingScopes(rule.RequiredScopes, granted)) == 0
}

// rateKey is the rate limiter's key for tool at server: the tool's name
// and a digest of the server's description, which may be a command line
// holding a secret that has no business in the state directory.
func rateKey(server, tool string) string {
	sum := sha256.Sum256([]byte(server))
	return tool + "@" + hex.EncodeToString(sum[:8])
}

// Approved reports whether the approvals (names or globs) cover tool.
func Approved(approvals []string, tool string) bool {
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

// AnnotationHints lists the hints a tool's annotations set, e.g.
// "destructiveHint, openWorldHint: false".
func AnnotationHints(t *client.Tool) string {
	if t == nil || t.Annotations == nil {
		return ""
	}
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
