package scan

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpctl/mcpctl/pin"
	"github.com/mcpctl/mcpctl/surface"
)

// CheckPins compares a server's tools with the definitions the proxy
// pinned for it; a server without pins gives nothing. It never changes
// the pins.
func CheckPins(s *Server, pins *pin.Server) []Finding {
	if pins == nil || len(pins.Tools) == 0 {
		return nil
	}
	c := &checker{server: s}
	for _, raw := range s.Tools {
		def, err := pin.Canonical(raw)
		if err != nil {
			continue
		}
		p, ok := pins.Tools[def.Name]
		if !ok || p.SHA256 == def.SHA256 {
			continue
		}
		c.add(PinDrift, "", "tool", def.Name, "", "the definition differs from the one pinned "+p.PinnedAt.Format("2006-01-02")+":\n"+pin.Diff(p.Definition, def.JSON))
	}
	return c.findings
}

// CheckBaseline compares a server's tools and prompts with a snapshot
// written by mcpctl snapshot: every changed, added or removed item is a
// finding.
func CheckBaseline(s *Server, base *surface.Snapshot) ([]Finding, error) {
	now, err := surface.Take(surface.Source{Tools: s.Tools, Prompts: s.Prompts})
	if err != nil {
		return nil, err
	}
	// Only what a model reads counts here; the server's version and
	// capabilities are diff's business.
	old := &surface.Snapshot{Format: base.Format, Tools: base.Tools, Prompts: base.Prompts, Capabilities: json.RawMessage("{}")}
	now.Capabilities, now.Server, now.ProtocolVersion, now.Era = old.Capabilities, old.Server, old.ProtocolVersion, old.Era
	c := &checker{server: s}
	for _, ch := range surface.Diff(old, now) {
		if ch.Kind != "tool" && ch.Kind != "prompt" {
			continue
		}
		msg := ch.What
		if ch.Old != "" || ch.New != "" {
			msg += fmt.Sprintf(" (was %q, now %q)", ch.Old, ch.New)
		}
		c.add(BaselineDrift, "", ch.Kind, ch.Item, ch.Path, string(ch.Class)+" change since the baseline: "+msg)
	}
	slices.SortStableFunc(c.findings, func(a, b Finding) int { return strings.Compare(a.Item, b.Item) })
	return c.findings, nil
}
