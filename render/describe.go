package render

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"

	"github.com/mcpctl/mcpctl/client"
)

// DescribeTool writes a tool for a person to read: name, title,
// description, its annotations in words, its execution.taskSupport, a
// table of its arguments ([SchemaFields] of the inputSchema: name, type
// with constraints, required, default, allowed values, description) and
// a summary of its outputSchema. On a terminal the default and values
// columns are left out when no argument has one; piped, every table has
// all six columns, tab-separated.
func (p *Printer) DescribeTool(t *client.Tool) error {
	fields := [][2]string{{"Name", t.Name}}
	if title := t.DisplayName(); title != t.Name && !TitleRestatesName(title, t.Name) {
		fields = append(fields, [2]string{"Title", title})
	}
	if t.Description != "" {
		fields = append(fields, [2]string{"Description", t.Description})
	}
	if a := AnnotationWords(t.Annotations); a != "" {
		fields = append(fields, [2]string{"Annotations", a})
	}
	if ts := declaredTaskSupport(t.Raw); ts != "" {
		fields = append(fields, [2]string{"Task support", taskSupportWords(ts)})
	}
	args := SchemaFields(t.InputSchema)
	if len(args) == 0 {
		fields = append(fields, [2]string{"Arguments", "none"})
	}
	var output []SchemaField
	if len(t.OutputSchema) > 0 {
		output = SchemaFields(t.OutputSchema)
		if len(output) == 0 {
			fields = append(fields, [2]string{"Output", "structuredContent: " + SchemaType(t.OutputSchema)})
		}
	}
	if err := p.Fields(fields); err != nil {
		return err
	}
	if len(args) > 0 {
		if err := p.schemaTable("Arguments", args); err != nil {
			return err
		}
	}
	if len(output) > 0 {
		return p.schemaTable("Output (structuredContent)", output)
	}
	return nil
}

// schemaTable writes a heading and the table of fields under it.
func (p *Printer) schemaTable(heading string, fields []SchemaField) error {
	if err := p.describeHeading(heading); err != nil {
		return err
	}
	showDefault, showValues := !p.TTY, !p.TTY
	for _, f := range fields {
		showDefault = showDefault || f.Default != ""
		showValues = showValues || f.Values != ""
	}
	headers := []string{"NAME", "TYPE", "REQUIRED"}
	if showDefault {
		headers = append(headers, "DEFAULT")
	}
	if showValues {
		headers = append(headers, "VALUES")
	}
	headers = append(headers, "DESCRIPTION")
	rows := make([][]string, 0, len(fields))
	for _, f := range fields {
		req := ""
		if f.Required {
			req = "yes"
		}
		row := []string{f.Name, f.Type, req}
		if showDefault {
			row = append(row, f.Default)
		}
		if showValues {
			row = append(row, f.Values)
		}
		rows = append(rows, append(row, f.Description))
	}
	return p.Table(headers, rows, "")
}

// describeHeading writes the heading of a table in a description; on a
// terminal a blank line sets it apart, piped the output stays compact.
func (p *Printer) describeHeading(heading string) error {
	sep := ""
	if p.TTY {
		sep = "\n"
	}
	_, err := fmt.Fprintln(p.out(), sep+p.Heading(heading))
	return err
}

// AnnotationWords says a tool's behaviour hints in words, in the order
// the spec lists them: "read-only, idempotent, closed world". Only what
// the server declared is said; "" for none. destructiveHint and
// idempotentHint mean something only for a tool that is not read-only
// (server/tools.mdx), so they are left out for a read-only one.
func AnnotationWords(a *client.ToolAnnotations) string {
	if a == nil {
		return ""
	}
	var words []string
	say := func(hint *bool, yes, no string) {
		if hint != nil {
			if *hint {
				words = append(words, yes)
			} else {
				words = append(words, no)
			}
		}
	}
	say(a.ReadOnlyHint, "read-only", "may modify its environment")
	if a.ReadOnlyHint == nil || !*a.ReadOnlyHint {
		say(a.DestructiveHint, "may be destructive", "additive only (not destructive)")
	}
	say(a.IdempotentHint, "idempotent", "not idempotent")
	say(a.OpenWorldHint, "open world (reaches outside entities)", "closed world")
	return strings.Join(words, ", ")
}

// declaredTaskSupport is the tool's execution.taskSupport as sent, "" when
// the tool has no execution member.
func declaredTaskSupport(raw json.RawMessage) string {
	var x struct {
		Execution *struct {
			TaskSupport string `json:"taskSupport"`
		} `json:"execution"`
	}
	if json.Unmarshal(raw, &x) != nil || x.Execution == nil {
		return ""
	}
	if x.Execution.TaskSupport == "" {
		return client.TaskSupportForbidden
	}
	return x.Execution.TaskSupport
}

func taskSupportWords(ts string) string {
	switch ts {
	case client.TaskSupportRequired:
		return ts + " (mcpctl call runs it as a task)"
	case client.TaskSupportOptional:
		return ts + " (mcpctl call --task runs it as a task)"
	case client.TaskSupportForbidden:
		return ts + " (never a task)"
	}
	return ts + " (unknown value: treated as forbidden)"
}

// DescribePrompt writes a prompt for a person to read: name, title,
// description, and a table of its arguments (name, required, description).
func (p *Printer) DescribePrompt(pr *client.Prompt) error {
	fields := [][2]string{{"Name", pr.Name}}
	if pr.Title != "" && !TitleRestatesName(pr.Title, pr.Name) {
		fields = append(fields, [2]string{"Title", pr.Title})
	}
	if pr.Description != "" {
		fields = append(fields, [2]string{"Description", pr.Description})
	}
	if len(pr.Arguments) == 0 {
		fields = append(fields, [2]string{"Arguments", "none"})
	}
	if err := p.Fields(fields); err != nil {
		return err
	}
	if len(pr.Arguments) == 0 {
		return nil
	}
	if err := p.describeHeading("Arguments"); err != nil {
		return err
	}
	rows := make([][]string, 0, len(pr.Arguments))
	for _, a := range pr.Arguments {
		req := ""
		if a.Required {
			req = "yes"
		}
		desc := a.Description
		if desc == "" {
			desc = a.Title
		}
		rows = append(rows, []string{a.Name, req, desc})
	}
	return p.Table([]string{"NAME", "REQUIRED", "DESCRIPTION"}, rows, "")
}

// DescribeResource writes a resource for a person to read: URI, name,
// title, description, MIME type, size and annotations.
func (p *Printer) DescribeResource(r *client.Resource) error {
	fields := [][2]string{{"URI", r.URI}, {"Name", r.Name}}
	fields = appendCommon(fields, distinctTitle(r.Title, r.Name), r.Description, r.MIMEType)
	if r.Size != nil {
		fields = append(fields, [2]string{"Size", SizeWords(*r.Size)})
	}
	if a := resourceAnnotations(r.Raw); a != "" {
		fields = append(fields, [2]string{"Annotations", a})
	}
	return p.Fields(fields)
}

// DescribeTemplate writes a resource template for a person to read: URI
// template, its variables, name, title, description, MIME type and
// annotations.
func (p *Printer) DescribeTemplate(t *client.ResourceTemplate) error {
	fields := [][2]string{{"URI template", t.URITemplate}}
	if vars := TemplateVariables(t.URITemplate); len(vars) > 0 {
		fields = append(fields, [2]string{"Variables", strings.Join(vars, ", ")})
	}
	fields = append(fields, [2]string{"Name", t.Name})
	fields = appendCommon(fields, distinctTitle(t.Title, t.Name), t.Description, t.MIMEType)
	if a := resourceAnnotations(t.Raw); a != "" {
		fields = append(fields, [2]string{"Annotations", a})
	}
	return p.Fields(fields)
}

// distinctTitle is title, or "" when it only restates name.
func distinctTitle(title, name string) string {
	if TitleRestatesName(title, name) {
		return ""
	}
	return title
}

func appendCommon(fields [][2]string, title, desc, mime string) [][2]string {
	for _, f := range [][2]string{{"Title", title}, {"Description", desc}, {"MIME type", mime}} {
		if f[1] != "" {
			fields = append(fields, f)
		}
	}
	return fields
}

// SizeWords is a size in bytes, with a binary-prefixed figure beside it
// from 1 KiB on: "1536 bytes (1.5 KiB)".
func SizeWords(n int64) string {
	s := strconv.FormatInt(n, 10) + " bytes"
	if n == 1 {
		s = "1 byte"
	}
	f := float64(n)
	for _, unit := range []string{"KiB", "MiB", "GiB", "TiB"} {
		if f < 1024 {
			break
		}
		f /= 1024
		if f < 1024 || unit == "TiB" {
			return s + " (" + strconv.FormatFloat(f, 'f', 1, 64) + " " + unit + ")"
		}
	}
	return s
}

// resourceAnnotations says a resource's annotations (audience, priority,
// lastModified) in words; "" for none.
func resourceAnnotations(item json.RawMessage) string {
	var x struct {
		Annotations *struct {
			Audience     []string        `json:"audience"`
			Priority     json.RawMessage `json:"priority"`
			LastModified string          `json:"lastModified"`
		} `json:"annotations"`
	}
	if json.Unmarshal(item, &x) != nil || x.Annotations == nil {
		return ""
	}
	a := x.Annotations
	var parts []string
	if len(a.Audience) > 0 {
		parts = append(parts, "for "+strings.Join(a.Audience, " and "))
	}
	if pr := raw(a.Priority); pr != "" {
		parts = append(parts, "priority "+pr+" (0 optional … 1 required)")
	}
	if a.LastModified != "" {
		parts = append(parts, "last modified "+a.LastModified)
	}
	return strings.Join(parts, "; ")
}

// TemplateVariables lists the variables of an RFC 6570 URI template in
// order of appearance, each once, with what its operator makes of it:
// "owner", "path (may contain reserved characters)", "q (query)",
// "ids (list)".
func TemplateVariables(tmpl string) []string {
	var out []string
	seen := map[string]bool{}
	for {
		open := strings.IndexByte(tmpl, '{')
		if open < 0 {
			return out
		}
		end := strings.IndexByte(tmpl[open:], '}')
		if end < 0 {
			return out
		}
		expr := tmpl[open+1 : open+end]
		tmpl = tmpl[open+end+1:]
		var notes []string
		if expr != "" {
			switch expr[0] {
			case '+':
				notes = append(notes, "may contain reserved characters")
			case '#':
				notes = append(notes, "fragment")
			case '.':
				notes = append(notes, "label")
			case '/':
				notes = append(notes, "path segment")
			case ';':
				notes = append(notes, "path parameter")
			case '?', '&':
				notes = append(notes, "query")
			}
			if len(notes) > 0 {
				expr = expr[1:]
			}
		}
		for _, spec := range strings.Split(expr, ",") {
			name, n := spec, notes
			if base, ok := strings.CutSuffix(name, "*"); ok {
				name, n = base, append(append([]string{}, n...), "list")
			} else if base, prefix, ok := strings.Cut(name, ":"); ok {
				name, n = base, append(append([]string{}, n...), "first "+prefix+" characters")
			}
			if name == "" || seen[name] {
				continue
			}
			seen[name] = true
			if len(n) > 0 {
				name += " (" + strings.Join(n, ", ") + ")"
			}
			out = append(out, name)
		}
	}
}

// DescribeList writes each item with describe, a blank line between two.
func DescribeList[T any](p *Printer, items []T, describe func(*T) error) error {
	for i := range items {
		if i > 0 {
			if _, err := io.WriteString(p.out(), "\n"); err != nil {
				return err
			}
		}
		if err := describe(&items[i]); err != nil {
			return err
		}
	}
	return nil
}

// TitleRestatesName says whether title only restates name: the same
// letters and digits in the same order, ignoring case, spaces and
// punctuation ("Toggle Simulated Logging" for toggle-simulated-logging).
// An empty title restates nothing.
func TitleRestatesName(title, name string) bool {
	if title == "" {
		return false
	}
	return alnumFold(title) == alnumFold(name)
}

// alnumFold keeps the letters and digits of s, lower-cased.
func alnumFold(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, s)
}
