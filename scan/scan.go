// Package scan is mcpctl's security scan of MCP servers: it reads what the
// servers of one configuration show a model (tool and prompt definitions),
// and reports instructions aimed at the model (tool poisoning), hidden
// characters, names that shadow another server's tools, a risky surface
// (destructive tools without annotations, unconstrained command, path, URL
// and SQL arguments, secrets taken as plain arguments), definitions that
// drifted from a pinned or saved baseline, and HTTP endpoints that accept a
// foreign Origin or travel in clear text beyond loopback.
//
// The scan is passive: it reads lists that the caller fetched through the
// session pipeline, and its only request of its own is [ForeignOrigin].
// Every finding names a [Rule] with a stable ID (MCP-S001 …) for CI; local
// rules come from a file ([LoadLocalRules]). [WriteSARIF] writes findings
// as SARIF 2.1.0 for code scanning.
//
// Server lint (package lint) checks the same definitions against the
// specification; scan checks them against what an attacker would write.
// The two share nothing but the input, so they stay apart: a server can be
// valid and poisoned, or broken and harmless.
package scan

import (
	"cmp"
	"encoding/json"
	"slices"
)

// Severity says how bad a finding is.
type Severity string

// The severities, as SARIF's levels name them.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityNote    Severity = "note"
)

// Rank orders severities, most severe first; an unknown one ranks last.
func (s Severity) Rank() int {
	switch s {
	case SeverityError:
		return 0
	case SeverityWarning:
		return 1
	case SeverityNote:
		return 2
	}
	return 3
}

// Rule describes one check.
type Rule struct {
	ID       string   `json:"id"`
	Name     string   `json:"name"`
	Severity Severity `json:"severity"`
	// Summary says what the rule finds, in one sentence.
	Summary string `json:"summary"`
	// Help says why it matters and what to do.
	Help string `json:"help"`
}

// Finding is one problem found in what a server shows.
type Finding struct {
	RuleID   string   `json:"ruleId"`
	Severity Severity `json:"severity"`
	// Server is the server's name (from the config) or description.
	Server string `json:"server"`
	// Kind is what Item is: tool, prompt or endpoint.
	Kind string `json:"kind"`
	// Item is the tool's or prompt's name, or the endpoint's URL.
	Item string `json:"item,omitempty"`
	// Field is where in the item: "description",
	// "inputSchema.properties.path", "name".
	Field string `json:"field,omitempty"`
	// Message says what was found, with hidden characters written out.
	Message string `json:"message"`
	// File is the configuration file the server came from, when known.
	File string `json:"file,omitempty"`
}

// Rule IDs. They are stable: CI configurations and SARIF baselines depend
// on them.
const (
	HiddenBlock       = "MCP-S001"
	OverrideIntent    = "MCP-S002"
	Concealment       = "MCP-S003"
	CredentialAccess  = "MCP-S004"
	Exfiltration      = "MCP-S005"
	TagCharacters     = "MCP-S010"
	BidiControls      = "MCP-S011"
	ZeroWidth         = "MCP-S012"
	TerminalEscape    = "MCP-S013"
	Homoglyph         = "MCP-S014"
	NameCollision     = "MCP-S020"
	CrossReference    = "MCP-S021"
	DestructiveNoHint = "MCP-S030"
	Unconstrained     = "MCP-S031"
	PlainSecret       = "MCP-S032"
	PinDrift          = "MCP-S040"
	BaselineDrift     = "MCP-S041"
	OriginNotChecked  = "MCP-S050"
	ClearText         = "MCP-S051"
	AuthMetadata      = "MCP-S052"
)

// Rules lists the built-in rules in ID order.
func Rules() []Rule {
	return []Rule{
		{HiddenBlock, "hidden-instruction-block", SeverityError,
			"A definition holds a block addressed to the model: <IMPORTANT>, <SYSTEM>, <instructions> or a similar tag.",
			"Tool poisoning hides orders in tags the user never sees expanded. Remove the block; a description says what the tool does."},
		{OverrideIntent, "instruction-override", SeverityError,
			"A definition tells the model to ignore or override its previous instructions, or to always act before anything else.",
			"No honest tool description needs to overrule the host's instructions."},
		{Concealment, "concealment", SeverityError,
			"A definition tells the model to keep something from the user (\"do not tell the user\", \"don't mention\").",
			"Instructions to hide actions from the user are the mark of a poisoned tool."},
		{CredentialAccess, "credential-access", SeverityError,
			"A definition asks the model to read credentials: ~/.ssh, id_rsa, .env, ~/.aws/credentials, private keys, mcp.json.",
			"A tool has no reason to ask the model to read secrets on its behalf."},
		{Exfiltration, "exfiltration", SeverityError,
			"A definition asks the model to send, post or upload data to a URL or address.",
			"Data leaves through the model's next call; tools should not name destinations for the user's data."},
		{TagCharacters, "unicode-tag-characters", SeverityError,
			"A definition holds Unicode tag characters (U+E0000–U+E007F), invisible text that models read.",
			"Tag characters spell ASCII no one sees; there is no legitimate use in a tool definition."},
		{BidiControls, "bidi-controls", SeverityError,
			"A definition holds bidirectional controls, which reorder what a person sees.",
			"What a reviewer reads is not what the model gets (Trojan Source)."},
		{ZeroWidth, "zero-width-characters", SeverityWarning,
			"A definition holds zero-width characters.",
			"Zero-width characters hide text boundaries and make look-alike names; remove them."},
		{TerminalEscape, "terminal-escapes", SeverityError,
			"A definition holds terminal escape sequences or other control characters.",
			"Escape sequences rewrite what a terminal shows (and may set the clipboard or a link)."},
		{Homoglyph, "homoglyph-name", SeverityError,
			"A tool or prompt name holds letters outside ASCII that look like ASCII ones (Cyrillic а for Latin a), or mixes scripts.",
			"A look-alike name impersonates another tool; tool names are ASCII by the specification's advice."},
		{NameCollision, "tool-name-collision", SeverityWarning,
			"Two servers of one configuration offer a tool of the same name.",
			"Hosts resolve a shared name differently; one server's tool may shadow the other's."},
		{CrossReference, "cross-server-reference", SeverityError,
			"A server's definition names a tool of another server of the configuration.",
			"A tool that instructs the model about another server's tools can redirect or shadow them."},
		{DestructiveNoHint, "destructive-without-annotations", SeverityWarning,
			"A tool whose name sounds destructive (delete, drop, remove, kill, wipe …) has no destructiveHint or readOnlyHint annotation.",
			"Hosts ask for confirmation from annotations; declare destructiveHint: true (or readOnlyHint) so they can."},
		{Unconstrained, "unconstrained-argument", SeverityWarning,
			"A string argument named for a command, path, URL or SQL has no enum, pattern, format, const or maxLength.",
			"Free-form commands, paths, URLs and queries are where injected instructions do damage; constrain them."},
		{PlainSecret, "secret-argument", SeverityWarning,
			"An argument named for a secret (password, token, api key) is not marked writeOnly.",
			"Secrets passed through the model end up in its context and in logs; take them from the environment instead, or mark them writeOnly."},
		{PinDrift, "pin-drift", SeverityError,
			"A tool's definition differs from the one the proxy pinned.",
			"A definition that changes after it was approved is a rug pull until someone reviews it (mcpctl proxy accept)."},
		{BaselineDrift, "baseline-drift", SeverityError,
			"A tool or prompt differs from, or is missing in, the --baseline snapshot.",
			"Review the change, then take a new snapshot with mcpctl snapshot."},
		{OriginNotChecked, "origin-not-validated", SeverityError,
			"An HTTP server accepted an initialize request with a foreign Origin header.",
			"The specification says servers MUST validate Origin, or a web page can reach a local server through DNS rebinding."},
		{ClearText, "clear-text-beyond-loopback", SeverityError,
			"An HTTP server is reached without TLS at an address that is not loopback.",
			"Tokens and tool calls travel in clear text; use https, or bind to 127.0.0.1."},
		{AuthMetadata, "authorization-metadata-contradiction", SeverityError,
			"With --auth-metadata: the server's OAuth metadata contradicts itself (another resource, an issuer other than the one named, no PKCE S256, scopes or DPoP the authorization servers do not offer).",
			"Clients refuse contradictory metadata (or, worse, trust the wrong party); make the protected resource and authorization server documents agree."},
	}
}

// LookupRule returns the built-in rule with the given ID.
func LookupRule(id string) (Rule, bool) {
	i := slices.IndexFunc(Rules(), func(r Rule) bool { return r.ID == id })
	if i < 0 {
		return Rule{}, false
	}
	return Rules()[i], true
}

// Count returns the number of findings of each severity.
func Count(fs []Finding) map[Severity]int {
	n := map[Severity]int{}
	for _, f := range fs {
		n[f.Severity]++
	}
	return n
}

// Sort orders findings by server, then severity, rule, item and field.
func Sort(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Server, b.Server), cmp.Compare(a.Severity.Rank(), b.Severity.Rank()),
			cmp.Compare(a.RuleID, b.RuleID), cmp.Compare(a.Item, b.Item), cmp.Compare(a.Field, b.Field))
	})
}

// Server is what the scan reads of one server: its definitions as the
// server listed them.
type Server struct {
	// Name is the server's name in its configuration, or its description.
	Name string
	// File is the configuration file it came from, when there is one.
	File    string
	Tools   []json.RawMessage
	Prompts []json.RawMessage
}
