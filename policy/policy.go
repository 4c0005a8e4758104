// Package policy reads a tool policy and turns it into plain decisions that
// the command layer acts on: which tools need a person's approval, which
// scopes a caller's credential must carry, and how many calls a minute a
// tool allows.
//
// A policy file maps tool names, or glob patterns of them, to rules, in the
// form of the design mcpctl learned from:
//
//	web_search:
//	  required_scopes: [tool:web_search]
//	  sensitivity: low
//	  rate_limit: 60          # calls per minute
//	  requires_approval: false
//	db_*:
//	  required_scopes: [tool:database]
//	  sensitivity: high
//	  requires_approval: true
//	  sensitive_arguments: [password]
//	"*":
//	  sensitivity: low
//
// A tool with no entry of its own falls back to the first glob that matches
// it, then to "*", and without any to its annotations (see [Policy.Decide]).
package policy

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Sensitivities are the values sensitivity may take, least sensitive first.
func Sensitivities() []string { return []string{"low", "medium", "high", "critical"} }

// Rule is what a policy says about a tool.
type Rule struct {
	// RequiredScopes are the scopes the caller's credential must carry.
	RequiredScopes []string `yaml:"required_scopes"`
	// Sensitivity is one of [Sensitivities], "" when not said.
	Sensitivity string `yaml:"sensitivity"`
	// RateLimit is the most calls a minute per tool and server; zero means
	// no limit.
	RateLimit int `yaml:"rate_limit"`
	// RequiresApproval says a person must approve each call.
	RequiresApproval bool `yaml:"requires_approval"`
	// SensitiveArguments name arguments whose values an audit trail must
	// not keep.
	SensitiveArguments []string `yaml:"sensitive_arguments"`
}

// Entry is one key of a policy file and its rule.
type Entry struct {
	// Pattern is the tool name or glob ([path.Match] syntax) as written.
	Pattern string
	// Line is the entry's line in the file.
	Line int
	Rule Rule
}

// IsGlob reports whether the entry's pattern is a glob rather than a name.
func (e Entry) IsGlob() bool { return strings.ContainsAny(e.Pattern, `*?[\`) }

// Policy is a parsed policy file.
type Policy struct {
	// Path is the file the policy was read from, "" when parsed from bytes.
	Path string
	// Entries are the file's entries in the order written.
	Entries []Entry
}

// ruleKeys are the keys a rule may have.
func ruleKeys() []string {
	return []string{"required_scopes", "sensitivity", "rate_limit", "requires_approval", "sensitive_arguments"}
}

// Load reads and parses the policy file at file.
func Load(file string) (*Policy, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading policy: %w", err)
	}
	p, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", file, err)
	}
	p.Path = file
	return p, nil
}

// Parse parses a policy file's content. Unknown keys, bad sensitivities,
// negative rate limits and malformed globs are errors naming their line:
// a policy that is silently half-read protects nothing.
func Parse(data []byte) (*Policy, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	p := &Policy{}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return p, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("line %d: want a mapping of tool names (or globs such as db_* and *) to rules", root.Line)
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		name := k.Value
		if line, dup := seen[name]; dup {
			return nil, fmt.Errorf("line %d: %q is already given on line %d", k.Line, name, line)
		}
		seen[name] = k.Line
		if _, err := path.Match(name, ""); err != nil {
			return nil, fmt.Errorf("line %d: %q is not a valid glob: %w", k.Line, name, err)
		}
		e := Entry{Pattern: name, Line: k.Line}
		switch {
		case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
			// An entry with no rule: known, allowed, nothing required.
		case v.Kind != yaml.MappingNode:
			return nil, fmt.Errorf("line %d: %s: want a mapping with required_scopes, sensitivity, rate_limit, requires_approval", v.Line, name)
		default:
			for j := 0; j+1 < len(v.Content); j += 2 {
				if key := v.Content[j].Value; !slices.Contains(ruleKeys(), key) {
					return nil, fmt.Errorf("line %d: %s: unknown key %q (known: %s)", v.Content[j].Line, name, key, strings.Join(ruleKeys(), ", "))
				}
			}
			if err := v.Decode(&e.Rule); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
		if s := e.Rule.Sensitivity; s != "" && !slices.Contains(Sensitivities(), s) {
			return nil, fmt.Errorf("line %d: %s: sensitivity %q is not one of %s", v.Line, name, s, strings.Join(Sensitivities(), ", "))
		}
		if e.Rule.RateLimit < 0 {
			return nil, fmt.Errorf("line %d: %s: rate_limit %d: want calls per minute, 0 or more", v.Line, name, e.Rule.RateLimit)
		}
		p.Entries = append(p.Entries, e)
	}
	return p, nil
}

// Match returns the entry that governs tool: the entry of that name, else
// the first glob in file order that matches it (other than "*"), else "*".
// ok is false when none does.
func (p *Policy) Match(tool string) (e Entry, ok bool) {
	var star *Entry
	for i := range p.Entries {
		if p.Entries[i].Pattern == tool {
			return p.Entries[i], true
		}
	}
	for i := range p.Entries {
		e := &p.Entries[i]
		if e.Pattern == "*" {
			star = e
			continue
		}
		if m, _ := path.Match(e.Pattern, tool); m && e.IsGlob() {
			return *e, true
		}
	}
	if star != nil {
		return *star, true
	}
	return Entry{}, false
}

// Annotations are the hints of a tool's listing that the fallback reads;
// nil pointers are hints the server did not give.
type Annotations struct {
	ReadOnly    *bool
	Destructive *bool
}

// destructive reports an explicit destructiveHint: true without
// readOnlyHint: true. The spec's default for a missing destructiveHint is
// true, but a fallback that demanded approval of every unannotated tool
// would make any policy unusable with most servers; only a server that says
// so is taken at its word.
func (a Annotations) destructive() bool {
	return a.Destructive != nil && *a.Destructive && (a.ReadOnly == nil || !*a.ReadOnly)
}

// AnnotationsRule is the rule name of a decision made from a tool's
// annotations.
const AnnotationsRule = "annotations"

// Decide returns the rule that applies to tool, and the name of its
// source: the matching entry's pattern, or, for a tool no entry matches,
// "annotations": a destructive tool (destructiveHint without readOnlyHint)
// requires approval and is sensitivity high, any other is allowed,
// sensitivity low.
func (p *Policy) Decide(tool string, a Annotations) (rule Rule, source string) {
	if e, ok := p.Match(tool); ok {
		return e.Rule, e.Pattern
	}
	if a.destructive() {
		return Rule{Sensitivity: "high", RequiresApproval: true}, AnnotationsRule
	}
	return Rule{Sensitivity: "low"}, AnnotationsRule
}

// MissingScopes returns the scopes of required that granted lacks, in
// required's order.
func MissingScopes(required, granted []string) []string {
	var missing []string
	for _, s := range required {
		if !slices.Contains(granted, s) {
			missing = append(missing, s)
		}
	}
	return missing
}

// Refusal is a call the policy refused. Its message names the rule.
type Refusal struct {
	// Tool is the tool refused.
	Tool string
	// Rule is the check that refused: "requires_approval",
	// "required_scopes" or "rate_limit".
	Rule string
	// Entry is the policy entry that applied ("db_*", "*", "annotations").
	Entry string
	// Reason says why and what to do.
	Reason string
}

// Error says what was refused and by which rule, for the error line.
func (r *Refusal) Error() string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "refused by policy: %s", r.Tool)
	if r.Entry != "" && r.Entry != r.Tool {
		fmt.Fprintf(&b, " (entry %q)", r.Entry)
	}
	fmt.Fprintf(&b, ": %s: %s", r.Rule, r.Reason)
	return b.String()
}

// IsRefusal reports whether err is, or wraps, a [*Refusal].
func IsRefusal(err error) bool {
	var r *Refusal
	return errors.As(err, &r)
}
