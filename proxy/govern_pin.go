package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/pin"
	"github.com/mcpctl/mcpctl/policy"
	"github.com/mcpctl/mcpctl/session"
	"github.com/mcpctl/mcpctl/textguard"
)

// PinMode is what the proxy does with a tool whose definition changed
// since it was pinned.
type PinMode string

// The pin modes: flag a change (the default with governance on), hide the
// changed tool and refuse its calls until a person accepts it, or pin
// nothing.
const (
	PinWarn   PinMode = "warn"
	PinStrict PinMode = "strict"
	PinOff    PinMode = "off"
)

// The kinds of the "pin" events a [PinGuard] notes, which [Checks] raises
// as flags of the same names.
const (
	PinChanged = "pin-changed" // a pinned tool's definition changed (a rug pull)
	PinHidden  = "hidden-text" // hidden characters or terminal escapes in a tool definition
)

// PinGuard pins the definition of each tool the server lists (package
// pin, shared by every proxy of the user) and flags, in the session and
// the audit trail, a tool whose definition changed since it was pinned and
// one whose text hides characters a person cannot see. Under [PinStrict]
// a changed tool is left out of tools/list answers and its calls are
// refused until `mcpctl proxy accept` pins its new definition.
type PinGuard struct {
	// Store holds the pins.
	Store pin.Store
	// Server names the server as `mcpctl proxy pins` and `accept` do.
	Server string
	// Mode is what a change does; "" is PinWarn.
	Mode PinMode
	// Recorder writes each flag to the audit trail; nil writes none.
	Recorder session.Recorder

	mu      sync.Mutex
	listed  bool            // a tools/list answer was observed
	changed map[string]bool // tools changed at the last listing
	flagged map[string]bool // "kind tool" flags already raised
}

// acceptHint is the command that accepts tool's change.
func (p *PinGuard) acceptHint(tool string) string {
	return fmt.Sprintf("mcpctl proxy accept %s %s", pin.Key(p.Server)[:pin.ShortKeyLen], tool)
}

// pinTools observes a tools/list answer's tools: it pins new ones, flags
// changed ones and hidden text, and returns the tools to hide from the
// host (under strict pinning, the changed ones).
func (c *Conn) pinTools(tools []client.Tool) map[string]bool {
	p := c.g.Pins
	if p == nil || p.Mode == PinOff {
		return nil
	}
	raws := make([]json.RawMessage, 0, len(tools))
	for _, t := range tools {
		raws = append(raws, t.Raw)
	}
	rep, err := p.Store.Observe(p.Server, raws)
	if err != nil {
		c.note(map[string]any{"pin_error": err.Error()})
		return nil
	}
	changed := map[string]bool{}
	for _, ch := range rep.Changed {
		changed[ch.Tool] = true
		msg := fmt.Sprintf("tool %s changed since it was pinned; %s shows the diff and pins it", textguard.Safe(ch.Tool), p.acceptHint(ch.Tool))
		c.pinFlag(PinChanged, ch.Tool, msg, p.Mode == PinStrict)
	}
	for _, t := range tools {
		found, err := textguard.JSON(t.Name, t.Raw)
		if err != nil || len(found) == 0 {
			continue
		}
		parts := make([]string, 0, len(found))
		for _, f := range found {
			parts = append(parts, f.String())
		}
		c.pinFlag(PinHidden, t.Name, fmt.Sprintf("tool %s hides characters: %s", textguard.Safe(t.Name), strings.Join(parts, "; ")), false)
	}
	p.mu.Lock()
	p.listed, p.changed = true, changed
	p.mu.Unlock()
	if p.Mode != PinStrict {
		return nil
	}
	return changed
}

// pinFlag raises a flag once per proxy: a "pin" event for the session's
// checks, and an audit record.
func (c *Conn) pinFlag(kind, tool, msg string, hidden bool) {
	p := c.g.Pins
	key := kind + " " + tool
	p.mu.Lock()
	seen := p.flagged[key]
	if p.flagged == nil {
		p.flagged = map[string]bool{}
	}
	p.flagged[key] = true
	p.mu.Unlock()
	if seen {
		return
	}
	c.note(map[string]any{"pin": kind, "tool": tool, "msg": msg, "hidden": hidden})
	if p.Recorder == nil {
		return
	}
	by := "flagged: " + kind
	if hidden {
		by = "hidden: " + kind
	}
	_ = p.Recorder.Record(&session.Call{Method: "tools/list", Name: tool, Server: c.g.Server, Host: c.Host()},
		session.Decision{Allowed: !hidden, By: by, Rule: "pin"}, nil)
}

// Policy returns the policy stage that, under strict pinning, refuses the
// calls of a changed tool not yet accepted, and passes the others to next
// (nil: allowed).
func (p *PinGuard) Policy(next session.Policy) session.Policy {
	return &pinPolicy{p: p, next: next}
}

type pinPolicy struct {
	p    *PinGuard
	next session.Policy
}

// Immediate implements [session.ImmediatePolicy]: under strict pinning a
// call whose pins are to be read (a tool seen changed, or any before the
// first listing) reads a file; any other call is immediate when the next
// stage says so.
func (pp *pinPolicy) Immediate(c *session.Call) bool {
	if p := pp.p; c.Method == "tools/call" && p.Mode == PinStrict {
		p.mu.Lock()
		check := !p.listed || p.changed[c.Name]
		p.mu.Unlock()
		if check {
			return false
		}
	}
	if pp.next == nil {
		return true
	}
	ip, ok := pp.next.(session.ImmediatePolicy)
	return ok && ip.Immediate(c)
}

func (pp *pinPolicy) Decide(ctx context.Context, c *session.Call) (session.Decision, error) {
	if p := pp.p; c.Method == "tools/call" && p.Mode == PinStrict {
		p.mu.Lock()
		check := !p.listed || p.changed[c.Name]
		p.mu.Unlock()
		// The pins are read only for a tool seen changed, or before the
		// first listing: accepting from another terminal shows at once.
		if check {
			if changed, err := p.Store.Changed(p.Server, c.Name); err == nil && changed {
				return session.Decision{Allowed: false, By: "refused: pin", Rule: "pin"},
					&policy.Refusal{Tool: c.Name, Rule: "pin", Reason: "its definition changed since it was pinned, and no one accepted it: " + p.acceptHint(c.Name)}
			}
		}
	}
	if pp.next == nil {
		return session.Decision{Allowed: true}, nil
	}
	return pp.next.Decide(ctx, c)
}

// pinEvent raises the flag of a "govern" event a [PinGuard] noted, read
// live or from a session log.
func (c *Checks) pinEvent(e Event) {
	d, ok := e.Detail.(map[string]any)
	if !ok {
		return
	}
	kind, _ := d["pin"].(string)
	if kind != PinChanged && kind != PinHidden {
		return
	}
	msg, _ := d["msg"].(string)
	c.flag(Frame{Time: e.Time}, kind, "", "tools/list", textguard.Safe(msg))
}
