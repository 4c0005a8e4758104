package lint

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/schema"
)

// checker accumulates the findings of one [Check].
type checker struct {
	version  string
	official *schema.Checker
	// modern says the session speaks the modern era: it opened with
	// server/discover, and results carry resultType.
	modern   bool
	findings []Finding
}

// opened names the request whose result opened the session.
func (c *checker) opened() string {
	if c.modern {
		return "server/discover"
	}
	return "initialize"
}

func (c *checker) add(f Finding) { c.findings = append(c.findings, f) }

// report adds a finding of rule id with the rule's severity and reference.
func (c *checker) report(id, subject, format string, args ...any) {
	r := rule(id)
	c.add(Finding{RuleID: id, Severity: r.Severity, Subject: subject, Message: fmt.Sprintf(format, args...), SpecRef: r.SpecRef})
}

// item is one entry of a list, with its position across all pages.
type item struct {
	index int // 1-based
	raw   json.RawMessage
}

// Check returns the findings about what a server sent, errors first, each
// severity in the order found: initialize (or server/discover), then
// tools, resources, resource templates and prompts.
func Check(s *Server) []Finding {
	return CheckWith(new(schema.Checker), s)
}

// CheckWith is [Check] with the official definitions compiled by official,
// which a caller that checks other messages too can share (compiling a
// definition costs milliseconds).
func CheckWith(official *schema.Checker, s *Server) []Finding {
	c := &checker{version: sessionVersion(s), official: official, modern: s.Options.modern()}
	if c.modern {
		c.discover(s.Initialize)
	} else {
		c.shape(s.Initialize, "InitializeResult", "initialize", "")
	}
	declared := declaredCapabilities(s.Initialize)
	items := map[string][]item{}
	for _, m := range client.ListMethods() {
		for _, l := range s.Lists {
			if l.Method == m.Method {
				items[m.Key] = c.list(l, m, declared[m.Capability])
			}
		}
	}
	c.stdout(s.StdoutNoise)
	c.tools(items["tools"])
	c.resources(items["resources"])
	c.templates(items["resourceTemplates"])
	c.prompts(items["prompts"])
	sortFindings(c.findings)
	return c.findings
}

// list checks the pages of one list and returns its items.
func (c *checker) list(l List, m client.ListKind, declared bool) []item {
	capSubject := fmt.Sprintf("capability %q", m.Capability)
	stop := l.Stopped
	switch {
	case stop == nil:
	case stop.Reason == client.PaginationRequestFailed && stop.Page == 1:
		// Refusing a list whose capability is not declared is what a server must do.
		if declared {
			c.report(CapabilityUndeclared, capSubject, "the server declared %q, but %s failed: %v", m.Capability, m.Method, stop.Err)
		}
	case stop.Reason == client.PaginationRequestFailed:
		c.report(PaginationCursorRejected, fmt.Sprintf("%s page %d", m.Method, stop.Page),
			"the server rejected the cursor %q that its page %d gave as nextCursor: %v", stop.Cursor, stop.Page-1, stop.Err)
	case stop.Reason == client.PaginationRepeatedCursor:
		c.report(PaginationRepeatedCursor, m.Method,
			"page %d gave nextCursor %q, which an earlier page gave already; following it would never end", stop.Page, stop.NextCursor)
	case stop.Reason == client.PaginationPageLimit:
		c.report(PaginationRepeatedCursor, m.Method, "each of %d pages gave a new nextCursor; stopped there", stop.Page)
	case stop.Reason == client.PaginationItemLimit:
		// So long a list may be honest; what it shows is that the later
		// items went unchecked.
		f := Finding{RuleID: PaginationRepeatedCursor, Severity: SeverityWarning, Subject: m.Method, SpecRef: rule(PaginationRepeatedCursor).SpecRef,
			Message: fmt.Sprintf("%d pages held %d items, mcpctl's limit (client.MaxListItems), and page %d still gave a nextCursor; stopped there, so the rest went unchecked", stop.Page, stop.Items, stop.Page)}
		c.add(f)
	case stop.Reason == client.PaginationBadPage:
		// The page is not a list result: its shape, checked below as
		// message-schema, says how; the list stopped at it.
	}
	var (
		items []item
		seen  []string // each page's items, compacted
	)
	for i, p := range l.Pages {
		subject := m.Method
		if len(l.Pages) > 1 {
			subject = fmt.Sprintf("%s page %d", m.Method, i+1)
		}
		// The items are checked one by one, each with its own subject.
		res := c.shape(p.Result, listResultDef(m.Key), subject, "/"+m.Key+"/")
		if c.modern {
			c.resultType(p.Result, m.Method, subject)
		}
		var list []json.RawMessage
		if json.Unmarshal(res[m.Key], &list) != nil {
			continue
		}
		var compact bytes.Buffer
		_ = json.Compact(&compact, res[m.Key]) // it decoded, so it compacts
		repeat := slices.Contains(seen, compact.String())
		seen = append(seen, compact.String())
		if repeat && stop != nil && stop.Reason == client.PaginationRepeatedCursor && i == len(l.Pages)-1 {
			// A server that repeats a cursor usually serves the same page
			// again: that is the one repeated-cursor defect, not a list of
			// duplicate names.
			continue
		}
		for _, raw := range list {
			items = append(items, item{index: len(items) + 1, raw: raw})
		}
	}
	if !declared && len(items) > 0 {
		c.report(CapabilityUndeclared, capSubject,
			"the server answered %s with %d %s but did not declare the %q capability in %s", m.Method, len(items), plural(len(items), "item", "items"), m.Capability, c.opened())
	}
	return items
}

// maxStdoutFindings bounds the stdout-not-jsonrpc findings: a server that
// logs to stdout may write thousands of lines, and the first few say it.
const maxStdoutFindings = 5

// stdout reports the lines a stdio server wrote to stdout that are not
// JSON-RPC messages, each different line once.
func (c *checker) stdout(lines []string) {
	var seen []string
	for _, l := range lines {
		if slices.Contains(seen, l) {
			continue
		}
		seen = append(seen, l)
		if len(seen) <= maxStdoutFindings {
			c.report(StdoutNotJSONRPC, "stdout", "%s", l)
		}
	}
	if more := len(seen) - maxStdoutFindings; more > 0 {
		c.report(StdoutNotJSONRPC, "stdout", "and %d more different %s that %s not JSON-RPC", more, plural(more, "line", "lines"), plural(more, "is", "are"))
	}
}

// named checks an item's shape and returns its fields (nil when it is not
// an object), the string at key ("" when absent or not a string) and the
// subject of findings about it: `tool "name"`, or `tool #3` without a name.
func (c *checker) named(it item, kind, key, def string) (map[string]json.RawMessage, string, string) {
	var probe map[string]json.RawMessage
	_ = json.Unmarshal(it.raw, &probe) // not an object: shape reports it
	name := stringField(probe, key)
	subject := fmt.Sprintf("%s #%d", kind, it.index)
	if name != "" {
		subject = fmt.Sprintf("%s %q", kind, name)
	}
	return c.shape(it.raw, def, subject, ""), name, subject
}

func (c *checker) tools(items []item) {
	names := newCounter()
	for _, it := range items {
		m, name, subject := c.named(it, "tool", "name", "Tool")
		if m == nil {
			continue
		}
		if nameRaw, ok := m["name"]; ok && schema.RawKind(nameRaw) == "string" {
			if msg := checkToolName(name); msg != "" {
				c.report(ToolNameInvalid, subject, "tool name %q %s", name, msg)
			}
			names.add(name)
		}
		if d, ok := m["description"]; !ok || schema.RawKind(d) == "string" && strings.TrimSpace(stringField(m, "description")) == "" {
			c.report(DescriptionMissing, subject, "the tool has no description; models choose tools by their descriptions")
		}
		c.toolSchema(m["inputSchema"], subject, "inputSchema", InputSchemaNotObject, InputSchemaInvalid)
		if c.modern {
			for _, p := range paramHeaderProblems(m["inputSchema"]) {
				c.report(p.rule, subject, "%s; clients exclude the tool", p.msg)
			}
		}
		if c.version >= "2025-06-18" { // outputSchema is new in 2025-06-18; older clients ignore it
			c.toolSchema(m["outputSchema"], subject, "outputSchema", OutputSchemaNotObject, OutputSchemaInvalid)
		}
	}
	for _, d := range names.duplicates() {
		c.report(ToolNameDuplicate, fmt.Sprintf("tool %q", d.name), "%d tools are named %q; tools/call cannot tell them apart", d.count, d.name)
	}
}

// toolSchema checks an inputSchema or outputSchema that is an object (the
// message-schema rule reports one that is missing or not an object).
func (c *checker) toolSchema(raw json.RawMessage, subject, key, notObjectRule, invalidRule string) {
	if schema.RawKind(raw) != "object" {
		return
	}
	var root struct {
		Type json.RawMessage `json:"type"`
	}
	_ = json.Unmarshal(raw, &root) // an object always decodes
	if string(root.Type) != `"object"` {
		got := "no \"type\""
		if root.Type != nil {
			got = "\"type\": " + string(root.Type)
		}
		c.report(notObjectRule, subject, "%s must have \"type\": \"object\" at its root, got %s", key, got)
	}
	if _, err := schema.Compile(raw); err != nil {
		f := Finding{RuleID: invalidRule, Subject: subject, Message: key + ": " + err.Error(), SpecRef: rule(invalidRule).SpecRef, Severity: SeverityError}
		var (
			remote  *schema.RemoteRefError
			dialect *schema.DialectError
		)
		if errors.As(err, &remote) || errors.As(err, &dialect) {
			// Valid, perhaps, but not something mcpctl (or many clients) can check.
			f.Severity = SeverityWarning
		}
		c.add(f)
	}
}

// checkToolName checks a name against server/tools.mdx "Tool Names": 1 to
// 128 characters, each an ASCII letter, digit, "_", "-" or ".". It returns
// what is wrong, or "".
func checkToolName(name string) string {
	n := utf8.RuneCountInString(name)
	switch {
	case n == 0:
		return "is empty; tool names have 1 to 128 characters"
	case n > 128:
		return fmt.Sprintf("has %d characters; tool names have at most 128", n)
	}
	for i, r := range name {
		if r < utf8.RuneSelf && (isAlpha(byte(r)) || isDigit(byte(r)) || r == '_' || r == '-' || r == '.') {
			continue
		}
		return fmt.Sprintf("has %s at offset %d; tool names use only A-Z, a-z, 0-9, \"_\", \"-\" and \".\"", describeRune(r), i)
	}
	return ""
}

func (c *checker) resources(items []item) {
	uris, shown := newCounter(), newShownAlike()
	for _, it := range items {
		m, uri, subject := c.named(it, "resource", "uri", "Resource")
		if m == nil {
			continue
		}
		if raw, ok := m["uri"]; ok && schema.RawKind(raw) == "string" {
			if msg := checkURI(uri); msg != "" {
				c.report(ResourceURIInvalid, subject, "URI %q %s", uri, msg)
			}
			uris.add(uri)
		}
		shown.add(m)
	}
	for _, d := range uris.duplicates() {
		c.report(ResourceURIDuplicate, fmt.Sprintf("resource %q", d.name), "%d resources have the URI %q", d.count, d.name)
	}
	shown.report(c, "resource", "resources")
}

func (c *checker) templates(items []item) {
	shown := newShownAlike()
	for _, it := range items {
		m, _, subject := c.named(it, "template", "name", "ResourceTemplate")
		if m == nil {
			continue
		}
		if raw, ok := m["uriTemplate"]; ok && schema.RawKind(raw) == "string" {
			tmpl := stringField(m, "uriTemplate")
			if msg := checkURITemplate(tmpl); msg != "" {
				c.report(ResourceTemplateInvalid, subject, "uriTemplate %q %s (RFC 6570)", tmpl, msg)
			}
		}
		shown.add(m)
	}
	shown.report(c, "template", "resource templates")
}

// displayLabel is what a client shows for a resource or template: its
// title, or its name when it has no title; titled says which. The
// specification leaves names free to repeat (the URI identifies a
// resource); only items shown alike are a problem.
func displayLabel(m map[string]json.RawMessage) (label string, titled bool) {
	if raw, ok := m["title"]; ok && schema.RawKind(raw) == "string" && stringField(m, "title") != "" {
		return stringField(m, "title"), true
	}
	if raw, ok := m["name"]; ok && schema.RawKind(raw) == "string" {
		return stringField(m, "name"), false
	}
	return "", false
}

// shownAlike counts the labels of resources or templates (see
// displayLabel) and reports those that several share.
type shownAlike struct {
	labels *counter
	titled map[string]bool // a label some item has as its title
}

func newShownAlike() *shownAlike { return &shownAlike{labels: newCounter(), titled: map[string]bool{}} }

func (s *shownAlike) add(m map[string]json.RawMessage) {
	label, titled := displayLabel(m)
	if label == "" {
		return // no name: message-schema says so
	}
	s.labels.add(label)
	s.titled[label] = s.titled[label] || titled
}

func (s *shownAlike) report(c *checker, kind, kinds string) {
	for _, d := range s.labels.duplicates() {
		if s.titled[d.name] {
			c.report(ResourceNameDuplicate, fmt.Sprintf("%s title %q", kind, d.name),
				"%d %s are shown as %q (their title, or their name when they have no title); give each its own title", d.count, kinds, d.name)
			continue
		}
		c.report(ResourceNameDuplicate, fmt.Sprintf("%s name %q", kind, d.name),
			"%d %s are named %q and have no title, so clients show them alike; give each its own name or a title", d.count, kinds, d.name)
	}
}

func (c *checker) prompts(items []item) {
	names := newCounter()
	for _, it := range items {
		m, name, subject := c.named(it, "prompt", "name", "Prompt")
		if m == nil {
			continue
		}
		if raw, ok := m["name"]; ok && schema.RawKind(raw) == "string" {
			names.add(name)
		}
		var args []json.RawMessage
		if json.Unmarshal(m["arguments"], &args) != nil {
			continue
		}
		for i, a := range args {
			var arg map[string]json.RawMessage
			if json.Unmarshal(a, &arg) != nil {
				continue
			}
			if raw, ok := arg["name"]; ok && schema.RawKind(raw) == "string" && strings.TrimSpace(stringField(arg, "name")) == "" {
				c.report(PromptArgumentUnnamed, fmt.Sprintf("%s argument #%d", subject, i+1),
					"argument #%d has an empty name; prompts/get passes arguments by name", i+1)
			}
		}
	}
	for _, d := range names.duplicates() {
		c.report(PromptNameDuplicate, fmt.Sprintf("prompt %q", d.name), "%d prompts are named %q; prompts/get cannot tell them apart", d.count, d.name)
	}
}

// stringField is m[key] when it is a string, else "".
func stringField(m map[string]json.RawMessage, key string) string {
	var s string
	if json.Unmarshal(m[key], &s) != nil {
		return ""
	}
	return s
}

// counter finds names given more than once, in the order first seen.
type counter struct {
	order  []string
	counts map[string]int
}

type duplicate struct {
	name  string
	count int
}

func newCounter() *counter { return &counter{counts: map[string]int{}} }

func (c *counter) add(name string) {
	if c.counts[name] == 0 {
		c.order = append(c.order, name)
	}
	c.counts[name]++
}

func (c *counter) duplicates() []duplicate {
	var out []duplicate
	for _, name := range c.order {
		if n := c.counts[name]; n > 1 {
			out = append(out, duplicate{name: name, count: n})
		}
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Lint collects what the server behind c sent and checks it: [Collect],
// then [Check]. initialize is the result that opened the session: that of
// initialize, or of server/discover when opts name the modern era.
func Lint(ctx context.Context, c Caller, initialize json.RawMessage, opts Options) ([]Finding, error) {
	s, err := Collect(ctx, c, initialize, opts)
	if err != nil {
		return nil, err
	}
	return Check(s), nil
}
