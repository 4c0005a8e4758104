package policy

import (
	"fmt"
	"path"
)

// Lint finding ids, stable for scripts.
const (
	// LintNoEntry: a tool of the server has no entry, not even "*": it
	// falls back to its annotations.
	LintNoEntry = "policy-tool-without-entry"
	// LintUnknownTool: an entry names a tool the server does not have, or
	// a glob matches none of its tools.
	LintUnknownTool = "policy-entry-without-tool"
	// LintLowDestructive: an entry gives sensitivity low to a tool whose
	// annotations say it is destructive.
	LintLowDestructive = "policy-low-sensitivity-destructive"
)

// Tool is what linting needs to know of a server's tool.
type Tool struct {
	Name        string
	Annotations Annotations
}

// Finding is one problem [Lint] found.
type Finding struct {
	// ID is one of the Lint* constants.
	ID string
	// Error says the finding is an error rather than a warning.
	Error bool
	// Tool is the tool concerned, "" for an entry without a tool.
	Tool string
	// Entry is the policy entry concerned, "" for a tool without an entry.
	Entry string
	// Line is the entry's line in the file, 0 when there is no entry.
	Line int
	// Message says what is wrong and what to do.
	Message string
}

// Lint checks p against the tools a server lists: tools without an entry
// (warnings: they fall back to their annotations), entries for tools that
// do not exist (warnings: a policy may serve several servers), and
// sensitivity low on a destructive tool (an error: the policy would
// understate what the tool can do).
func Lint(p *Policy, tools []Tool) []Finding {
	var out []Finding
	for _, t := range tools {
		e, ok := p.Match(t.Name)
		if !ok {
			msg := fmt.Sprintf("tool %s has no entry and no \"*\" entry applies: it falls back to its annotations", t.Name)
			if t.Annotations.destructive() {
				msg += " (destructive: approval required)"
			}
			out = append(out, Finding{ID: LintNoEntry, Tool: t.Name, Message: msg + "; add an entry for it"})
			continue
		}
		if e.Rule.Sensitivity == "low" && t.Annotations.destructive() {
			out = append(out, Finding{ID: LintLowDestructive, Error: true, Tool: t.Name, Entry: e.Pattern, Line: e.Line,
				Message: fmt.Sprintf("entry %q gives sensitivity low to %s, whose annotations say it is destructive (destructiveHint: true); give it high, and consider requires_approval", e.Pattern, t.Name)})
		}
	}
	for _, e := range p.Entries {
		if e.Pattern == "*" {
			continue
		}
		found := false
		for _, t := range tools {
			if m, _ := path.Match(e.Pattern, t.Name); m || e.Pattern == t.Name {
				found = true
				break
			}
		}
		if !found {
			msg := fmt.Sprintf("entry %q (line %d): the server has no tool of that name; remove it or fix the name", e.Pattern, e.Line)
			if e.IsGlob() {
				msg = fmt.Sprintf("entry %q (line %d): the glob matches none of the server's tools; remove it or fix the pattern", e.Pattern, e.Line)
			}
			out = append(out, Finding{ID: LintUnknownTool, Entry: e.Pattern, Line: e.Line, Message: msg})
		}
	}
	return out
}
