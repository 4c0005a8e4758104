// Package lint checks what an MCP server sends against the specification:
// its initialize result (in the modern era, 2026-07-28 and later, its
// server/discover result) and every page of tools/list, resources/list,
// resources/templates/list and prompts/list. `mcpctl validate` without a
// tool runs it, for CI.
//
// It is a package of its own because it fits none of the others: client
// must stay lenient and take whatever a server sends so that commands keep
// working, while lint is deliberately strict about the same messages; and
// cmd holds no protocol logic. lint therefore reads the raw JSON a server
// sent, not client's decoded types, which forgive exactly what lint must
// see (a missing field, a number where a string belongs).
//
// Collect asks only for the lists whose capability the server declared,
// unless [Options.ProbeUndeclared] says to probe the others too (the
// lifecycle says both parties MUST use only negotiated capabilities). What a
// stdio server wrote to its stdout besides messages is for the caller, who
// owns the transport, to put in [Server.StdoutNoise]: each such line is an
// error.
//
// [Collect] fetches everything through [Caller.Call], page by page, so that
// a repeated cursor or a failed list becomes a finding rather than an
// error; [Check] turns what was collected into [Finding]s. Each finding
// names its rule (see [Rules]): a stable ID for CI, a severity, and the
// part of the specification it rests on, as a path in the repository
// modelcontextprotocol/modelcontextprotocol
// ("docs/specification/2025-11-25/server/tools.mdx#tool-names", or for the
// message-schema rule "schema/2025-06-18/schema.json#/definitions/Tool",
// the official schema of the negotiated protocol version).
//
// What a server must send depends on the protocol era, which [Options]
// says: a modern server answers server/discover instead of initialize,
// marks every result with resultType and may annotate tool arguments with
// x-mcp-header; the rules of the modern era check those against the
// 2026-07-28 revision.
package lint

import (
	"cmp"
	"slices"
)

// Severity says how bad a finding is.
type Severity string

// The severities. An error breaks the specification or a client; a
// warning is a likely problem the specification allows.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Finding is one problem with what a server sent.
type Finding struct {
	// RuleID names the rule, such as "tool-name-invalid"; see [Rules].
	RuleID string `json:"ruleId"`
	// Severity is the rule's severity, except where a rule's
	// documentation says otherwise.
	Severity Severity `json:"severity"`
	// Subject is what the finding is about: `tool "get weather"`,
	// `resource "files/a b"`, `prompt "p" argument #2`, `tools/list page 2`,
	// `capability "prompts"`, `initialize` (`server/discover` in the
	// modern era).
	Subject string `json:"subject"`
	// Message says what is wrong.
	Message string `json:"message"`
	// SpecRef is the path of the specification text (or official schema
	// definition) the rule rests on, in modelcontextprotocol/modelcontextprotocol.
	SpecRef string `json:"specRef"`
}

// Rule describes one check.
type Rule struct {
	ID       string
	Severity Severity
	// SpecRef is the specification text the rule rests on; see [Finding].
	SpecRef string
	// Summary says what the rule checks, in one sentence.
	Summary string
}

// Rule IDs. They are stable: CI configurations may depend on them.
const (
	ToolNameInvalid          = "tool-name-invalid"
	ToolNameDuplicate        = "tool-name-duplicate"
	InputSchemaInvalid       = "input-schema-invalid"
	InputSchemaNotObject     = "input-schema-not-object"
	OutputSchemaInvalid      = "output-schema-invalid"
	OutputSchemaNotObject    = "output-schema-not-object"
	DescriptionMissing       = "description-missing"
	PaginationRepeatedCursor = "pagination-repeated-cursor"
	PaginationCursorRejected = "pagination-cursor-rejected"
	ResourceURIInvalid       = "resource-uri-invalid"
	ResourceURIDuplicate     = "resource-uri-duplicate"
	ResourceTemplateInvalid  = "resource-template-invalid"
	ResourceNameDuplicate    = "resource-name-duplicate"
	PromptNameDuplicate      = "prompt-name-duplicate"
	PromptArgumentUnnamed    = "prompt-argument-unnamed"
	CapabilityUndeclared     = "capability-undeclared"
	StdoutNotJSONRPC         = "stdout-not-jsonrpc"
	MessageSchema            = "message-schema"

	// The rules of the modern era (2026-07-28 and later).

	DiscoverVersionsInvalid = "discover-versions-invalid"
	ServerInfoMissing       = "server-info-missing"
	ResultTypeMissing       = "result-type-missing"
	ResultTypeInvalid       = "result-type-invalid"
	ParamHeaderNameInvalid  = "param-header-name-invalid"
	ParamHeaderDuplicate    = "param-header-duplicate"
	ParamHeaderTypeInvalid  = "param-header-type-invalid"
	ParamHeaderUnreachable  = "param-header-unreachable"
)

const (
	specTools      = "docs/specification/2025-11-25/server/tools.mdx"
	specResources  = "docs/specification/2025-11-25/server/resources.mdx"
	specPrompts    = "docs/specification/2025-11-25/server/prompts.mdx"
	specPagination = "docs/specification/2025-11-25/server/utilities/pagination.mdx"
	specBasic      = "docs/specification/2025-11-25/basic/index.mdx"
	specLifecycle  = "docs/specification/2025-11-25/basic/lifecycle.mdx"
	specStdio      = "docs/specification/2025-11-25/basic/transports.mdx#stdio"
	specSchema     = "schema/2025-11-25/schema.json"

	specModernSchema = "schema/2026-07-28/schema.json"
	specModernBasic  = "docs/specification/2026-07-28/basic/index.mdx"
	specModernMRTR   = "docs/specification/2026-07-28/basic/patterns/mrtr.mdx"
	specParamHeaders = "docs/specification/2026-07-28/basic/transports/streamable-http.mdx#schema-extension"
)

// Rules lists every rule.
func Rules() []Rule {
	return []Rule{
		{MessageSchema, SeverityError, specSchema,
			"A message breaks the official schema of the negotiated protocol version (a required field missing, a wrong type, a value outside its enum or range), as mcpctl embeds it."},
		{StdoutNotJSONRPC, SeverityError, specStdio,
			"A stdio server wrote a line to stdout that is not a JSON-RPC message (\"The server MUST NOT write anything to its stdout that is not a valid MCP message\"): a banner or log line there breaks clients that stop at the first bad line."},
		{CapabilityUndeclared, SeverityError, specLifecycle + "#capability-negotiation",
			"A capability the server declared, but whose list fails; with --probe-undeclared (Options.ProbeUndeclared) also a list the server answered with items though it did not declare its capability (\"Both parties MUST: ... Only use capabilities that were successfully negotiated\")."},
		{ToolNameInvalid, SeverityError, specTools + "#tool-names",
			"A tool name is not 1 to 128 characters of A-Z, a-z, 0-9, \"_\", \"-\" and \".\" (the spec says SHOULD; clients and model APIs reject other names)."},
		{ToolNameDuplicate, SeverityError, specTools + "#tool-names",
			"Two tools share a name (\"Tool names SHOULD be unique within a server\"; tools/call names one tool)."},
		{InputSchemaNotObject, SeverityError, specSchema + "#/$defs/Tool/properties/inputSchema",
			"A tool's inputSchema does not have \"type\": \"object\" at its root."},
		{InputSchemaInvalid, SeverityError, specBasic + "#schema-validation",
			"A tool's inputSchema is not a valid JSON Schema of its dialect (\"Schemas MUST be valid according to their declared or default dialect\"); a warning when mcpctl cannot check it (a dialect it does not support, a $ref outside the document)."},
		{OutputSchemaNotObject, SeverityError, specSchema + "#/$defs/Tool/properties/outputSchema",
			"A tool's outputSchema does not have \"type\": \"object\" at its root (\"Currently restricted to type: \\\"object\\\" at the root level\")."},
		{OutputSchemaInvalid, SeverityError, specBasic + "#schema-validation",
			"A tool's outputSchema is not a valid JSON Schema of its dialect; a warning when mcpctl cannot check it."},
		{PaginationRepeatedCursor, SeverityError, specPagination + "#implementation-guidelines",
			"A list's pagination never ends: the server sent a cursor it had sent before (or a new one on each of 1000 pages); a warning when a list stopped at mcpctl's limit of 100,000 items, which leaves the rest unchecked."},
		{PaginationCursorRejected, SeverityError, specPagination + "#implementation-guidelines",
			"The server answered an error to a nextCursor it had sent itself (\"Servers SHOULD provide stable cursors\")."},
		{ResourceURIInvalid, SeverityError, specResources + "#custom-uri-schemes",
			"A resource URI is not an absolute URI by RFC 3986 (\"Custom URI schemes MUST be in accordance with RFC3986\")."},
		{ResourceURIDuplicate, SeverityError, specResources + "#resource",
			"Two resources share a URI, their unique identifier."},
		{ResourceTemplateInvalid, SeverityError, specResources + "#resource-templates",
			"A resource template's uriTemplate breaks the syntax of RFC 6570."},
		{ResourceNameDuplicate, SeverityWarning, specSchema + "#/$defs/BaseMetadata/properties/name",
			"Two resources, or two resource templates, are shown alike: they share a name and have no title, or the same title. The specification does not require unique names (a resource's URI is its identifier), but a name is what a client shows when there is no title (\"used as a display name ... fallback (if title isn't present)\"), so a user cannot tell them apart."},
		{PromptNameDuplicate, SeverityError, specPrompts + "#prompt",
			"Two prompts share a name, their unique identifier."},
		{PromptArgumentUnnamed, SeverityError, specPrompts + "#prompt",
			"A prompt argument has an empty name, so prompts/get cannot pass it."},
		{DescriptionMissing, SeverityWarning, specTools + "#tool",
			"A tool has no description, which is what a model reads to choose it."},
		{DiscoverVersionsInvalid, SeverityError, specModernSchema + "#/$defs/DiscoverResult/properties/supportedVersions",
			"The server/discover result lists no protocol version, or not the one it answered in, so a client cannot choose a version to speak (modern era)."},
		{ServerInfoMissing, SeverityWarning, specModernSchema + "#/$defs/ResultMetaObject/properties/io.modelcontextprotocol~1serverInfo",
			"The server/discover result has no _meta \"io.modelcontextprotocol/serverInfo\" (\"Servers SHOULD include this field on every response\"), so a client cannot say which server it talks to (modern era)."},
		{ResultTypeMissing, SeverityError, specModernBasic + "#resulttype",
			"A result has no resultType (\"The result MUST include a resultType field\"); a client takes it for a legacy server's (modern era)."},
		{ResultTypeInvalid, SeverityError, specModernBasic + "#resulttype",
			"A result's resultType is not a string, is a value the protocol does not define (\"any value unrecognized by the client MUST be considered invalid\"), or is \"input_required\" on a request that must not ask for input (" + specModernMRTR + "#supported-requests) (modern era)."},
		{ParamHeaderNameInvalid, SeverityError, specParamHeaders,
			"An x-mcp-header annotation in a tool's inputSchema is not a string, is empty, or is not an HTTP field-name token; clients exclude the tool (modern era)."},
		{ParamHeaderDuplicate, SeverityError, specParamHeaders,
			"Two x-mcp-header annotations of one inputSchema have the same name, ignoring case; clients exclude the tool (modern era)."},
		{ParamHeaderTypeInvalid, SeverityError, specParamHeaders,
			"An x-mcp-header annotation is on a property whose type is not string, integer or boolean (\"Parameters with type number are not permitted\"); clients exclude the tool (modern era)."},
		{ParamHeaderUnreachable, SeverityError, specParamHeaders,
			"An x-mcp-header annotation is not on a property reached from the root of the inputSchema through properties keys alone (it is at the root, or under items, a composition or conditional keyword, $ref or $defs); clients exclude the tool (modern era)."},
	}
}

// rule returns the rule with the given ID; it panics for an unknown ID,
// which is a bug in this package.
func rule(id string) Rule {
	for _, r := range Rules() {
		if r.ID == id {
			return r
		}
	}
	panic("lint: unknown rule " + id)
}

// Count returns the number of errors and warnings among findings.
func Count(findings []Finding) (errors, warnings int) {
	for _, f := range findings {
		switch f.Severity {
		case SeverityError:
			errors++
		case SeverityWarning:
			warnings++
		}
	}
	return errors, warnings
}

// sortFindings puts errors before warnings, keeping the order of discovery
// within each severity.
func sortFindings(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Compare(severityRank(a.Severity), severityRank(b.Severity))
	})
}

func severityRank(s Severity) int {
	if s == SeverityError {
		return 0
	}
	return 1
}
