package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Bounds on the work one schema can ask of Compile (the MCP specification
// asks clients to bound it). Tool schemas are kilobytes with tens of
// subschemas. Checking a schema against its meta-schema costs about a
// millisecond per kilobyte, and the library compiles 2020-12 schemas in time
// quadratic in the number of subschemas (half a second for 3000 on a slow
// machine), so a server sending more than this is broken or hostile.
const (
	maxSchemaSize = 1 << 20
	maxSubschemas = 5000
)

// baseURL is the address the compiled document is given. Its scheme is ours,
// so no loader knows it, and a relative $ref resolved against it is shown as
// the user wrote it (see displayRef).
const baseURL = "mcpctl:///schema.json"

// assertedFormats are the "format" values that Validate checks. Every other
// format is an annotation, as 2020-12 makes it by default: asserting the
// rest (regex in RE2, not ECMA 262; hostname, uri-reference…) would reject
// values servers accept.
var assertedFormats = []string{"email", "uri", "date", "date-time"}

// dialect maps a $schema value mcpctl accepts (normalised by dialectKey)
// to the name it shows, and any other to "".
func dialect(key string) string {
	switch key {
	case "https://json-schema.org/schema": // "the latest", which is what the library takes it for
		return "2020-12"
	case "https://json-schema.org/draft/2020-12/schema":
		return "2020-12"
	case "https://json-schema.org/draft/2019-09/schema":
		return "2019-09"
	case "https://json-schema.org/draft-07/schema":
		return "draft-07"
	case "https://json-schema.org/draft-06/schema":
		return "draft-06"
	case "https://json-schema.org/draft-04/schema":
		return "draft-04"
	}
	return ""
}

// supportedDialects is how errors list the dialects.
const supportedDialects = "2020-12 (the default), 2019-09, draft-07, draft-06 and draft-04"

// Schema is a compiled JSON Schema, ready to validate values. It is safe for
// concurrent use.
type Schema struct {
	compiled *jsonschema.Schema
	// index finds the compiled (sub)schema an error comes from by its
	// location, for the keyword values messages quote (enum members,
	// property names, limits).
	index    map[string]*jsonschema.Schema
	warnings []string
	// args is the reading of the schema that types key=value arguments,
	// built on first use.
	viewOnce sync.Once
	args     *argView
	// official marks a definition of an official MCP schema, whose
	// violations name the definition (see Checker).
	official bool
}

// Warnings lists parts of the schema that Validate does not check, each
// naming its place in the schema: today, "pattern" regular expressions that
// Go's RE2 engine cannot run (lookaround, backreferences, some \p classes).
// Rather than reject the whole schema, as the library would, mcpctl leaves
// those out and checks the rest.
func (s *Schema) Warnings() []string { return slices.Clone(s.warnings) }

// RemoteRefError reports a reference ($ref, $dynamicRef, $recursiveRef) to
// a schema outside the document, found while compiling. mcpctl never
// fetches one: the MCP specification forbids dereferencing network
// references automatically, and a file reference would read the user's disk
// on a server's say-so.
type RemoteRefError struct {
	// Ref is the reference as resolved against the document's $id; relative
	// to the document when it has none.
	Ref string
}

// Error reads like `schema refers to "https://example.com/x.json", which
// mcpctl does not fetch`.
func (e *RemoteRefError) Error() string {
	return fmt.Sprintf("schema refers to %q, which mcpctl does not fetch", e.Ref)
}

// DialectError reports a $schema that names no dialect mcpctl supports.
type DialectError struct {
	// Schema is the value of $schema as JSON text: a string with its
	// quotes, or whatever else the schema put there.
	Schema string
}

// Error names the $schema value and lists the supported dialects.
func (e *DialectError) Error() string {
	return fmt.Sprintf("unsupported JSON Schema dialect: \"$schema\" is %s (mcpctl supports %s)", e.Schema, supportedDialects)
}

// InvalidError reports a schema that breaks its dialect's meta-schema, such
// as a "type" that names no type or a "required" that is not an array.
type InvalidError struct {
	// Violations are the problems, with paths into the schema document.
	Violations []Violation
}

// Error reads like `invalid schema: /properties/days/minimum: must be a
// number, got string "1"`, followed by how many more problems there are.
func (e *InvalidError) Error() string {
	if len(e.Violations) == 0 {
		return "invalid schema"
	}
	msg := "invalid schema: " + e.Violations[0].String()
	if n := len(e.Violations) - 1; n > 0 {
		msg += fmt.Sprintf(" (and %d more %s)", n, plural(n, "problem", "problems"))
	}
	return msg
}

// Compile compiles a JSON Schema, such as a tool's inputSchema or
// outputSchema.
//
// The dialect is 2020-12 unless $schema names 2019-09, draft-07, draft-06 or
// draft-04; any other $schema is a [*DialectError]. References inside the
// document ($ref to "#/$defs/…", "#/definitions/…", any JSON pointer, $anchor
// and $id-based ones) are resolved; a reference outside it is never fetched
// and is a [*RemoteRefError]. A schema that breaks its meta-schema is an
// [*InvalidError]. The formats email, uri, date and date-time are asserted;
// other formats are annotations.
//
// Compiling costs about a millisecond for a typical tool schema, most of it
// checking the schema against its meta-schema: compile a schema once and
// keep the *Schema (it is safe for concurrent use) rather than compiling
// the same bytes again.
func Compile(raw json.RawMessage) (*Schema, error) {
	return compile(raw, nil)
}

// compile is Compile with a hook that sees every URL the library asks to
// load, for tests to prove that none is fetched.
func compile(raw json.RawMessage, onLoad func(url string)) (s *Schema, err error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0:
		return nil, errors.New("schema is empty")
	case len(raw) > maxSchemaSize:
		return nil, fmt.Errorf("schema is %d bytes; mcpctl compiles schemas up to %d", len(raw), maxSchemaSize)
	}
	doc, err := decodeJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	switch d := doc.(type) {
	case map[string]any:
		if v, ok := d["$schema"]; ok {
			if err := checkDialect(v); err != nil {
				return nil, err
			}
		}
	case bool:
	default:
		return nil, &InvalidError{Violations: []Violation{{
			Keyword: "type",
			Msg:     "must be an object or a boolean, got " + describe(d),
		}}}
	}
	w := &walk{}
	if w.inspect(doc, ""); w.count > maxSubschemas {
		return nil, fmt.Errorf("schema has more than %d subschemas; mcpctl does not compile schemas that large", maxSubschemas)
	}
	if w.changed {
		if raw, err = json.Marshal(doc); err != nil {
			return nil, fmt.Errorf("schema: %w", err)
		}
		slices.Sort(w.warnings)
	}

	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	c.ExtractAnnotations = true // descriptions, for Properties
	for name := range jsonschema.Formats {
		c.Formats[name] = func(any) bool { return true }
	}
	for _, name := range assertedFormats {
		c.Formats[name] = jsonschema.Formats[name]
	}
	c.LoadURL = func(url string) (io.ReadCloser, error) {
		if onLoad != nil {
			onLoad(url)
		}
		return nil, &RemoteRefError{Ref: displayRef(url)}
	}
	if err := c.AddResource(baseURL, bytes.NewReader(raw)); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	defer func() {
		// The library type-asserts its way through the document, trusting
		// the meta-schema check; should that trust be misplaced, a server's
		// schema must still not crash mcpctl.
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("schema cannot be compiled: %v", r)
		}
	}()
	compiled, err := c.Compile(baseURL)
	if err != nil {
		return nil, compileError(err, doc)
	}
	return &Schema{
		compiled: compiled,
		index:    indexSchemas(compiled),
		warnings: w.warnings,
	}, nil
}

// checkDialect reports a $schema value that names no dialect mcpctl
// supports.
func checkDialect(v any) error {
	if uri, ok := v.(string); ok {
		if dialect(dialectKey(uri)) != "" {
			return nil
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // a decoded JSON value always encodes
	return &DialectError{Schema: strings.TrimSuffix(buf.String(), "\n")}
}

// dialectKey normalises a $schema URI as the library does: http is https,
// and an empty fragment is dropped.
func dialectKey(uri string) string {
	if rest, ok := strings.CutPrefix(uri, "http://"); ok {
		uri = "https://" + rest
	}
	uri = strings.TrimSuffix(strings.TrimSuffix(uri, "#/"), "#")
	return uri
}

// displayRef shows a URL the library wanted to load as the schema wrote it:
// relative to the document when it was relative.
func displayRef(url string) string {
	if rest, ok := strings.CutPrefix(url, "mcpctl:///"); ok {
		return rest
	}
	return url
}

// compileError turns the library's compile errors into ours.
func compileError(err error, doc any) error {
	var remote *RemoteRefError
	if errors.As(err, &remote) {
		return remote
	}
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		f := &formatter{instance: doc, index: metaIndex(ve)}
		return &InvalidError{Violations: f.violations(ve)}
	}
	var loop jsonschema.InfiniteLoopError
	if errors.As(err, &loop) {
		return fmt.Errorf("schema has a $ref cycle that never reaches a schema: %s", displayLocation(string(loop)))
	}
	msg := err.Error()
	var se *jsonschema.SchemaError
	if errors.As(err, &se) && se.Err != nil {
		msg = se.Err.Error()
	}
	msg = strings.TrimPrefix(msg, "jsonschema: ")
	if ref, ok := strings.CutSuffix(msg, " not found"); ok {
		return fmt.Errorf("schema refers to %q, which is not in the document", displayLocation(ref))
	}
	return fmt.Errorf("invalid schema: %s", displayLocation(msg))
}

// displayLocation drops the document's made-up address from a location
// ("mcpctl:///schema.json#/$defs/X" is "#/$defs/X").
func displayLocation(s string) string {
	return strings.ReplaceAll(s, baseURL, "")
}

// metaIndex indexes the meta-schema that rejected a schema, so that its
// violations read as well as a value's. The library hands its meta-schemas
// back without loading anything when asked for their URLs.
func metaIndex(ve *jsonschema.ValidationError) map[string]*jsonschema.Schema {
	url, _, _ := strings.Cut(ve.AbsoluteKeywordLocation, "#")
	c := jsonschema.NewCompiler()
	c.LoadURL = func(url string) (io.ReadCloser, error) { return nil, &RemoteRefError{Ref: url} }
	meta, err := c.Compile(url)
	if err != nil {
		return nil
	}
	return indexSchemas(meta)
}

// indexSchemas maps the location of every schema reachable from root to
// the schema.
func indexSchemas(root *jsonschema.Schema) map[string]*jsonschema.Schema {
	idx := map[string]*jsonschema.Schema{}
	var walk func(*jsonschema.Schema)
	walkAll := func(list []*jsonschema.Schema) {
		for _, s := range list {
			walk(s)
		}
	}
	walkAny := func(v any) {
		switch v := v.(type) {
		case *jsonschema.Schema:
			walk(v)
		case []*jsonschema.Schema:
			walkAll(v)
		}
	}
	walk = func(s *jsonschema.Schema) {
		if s == nil {
			return
		}
		if _, seen := idx[s.Location]; seen {
			return
		}
		idx[s.Location] = s
		for _, sub := range []*jsonschema.Schema{
			s.Ref, s.RecursiveRef, s.DynamicRef, s.Not, s.If, s.Then, s.Else,
			s.PropertyNames, s.UnevaluatedProperties, s.Items2020, s.Contains,
			s.UnevaluatedItems, s.ContentSchema,
		} {
			walk(sub)
		}
		walkAll(s.AllOf)
		walkAll(s.AnyOf)
		walkAll(s.OneOf)
		walkAll(s.PrefixItems)
		for _, sub := range s.Properties {
			walk(sub)
		}
		for _, sub := range s.PatternProperties {
			walk(sub)
		}
		for _, sub := range s.DependentSchemas {
			walk(sub)
		}
		for _, dep := range s.Dependencies {
			walkAny(dep)
		}
		walkAny(s.AdditionalProperties)
		walkAny(s.AdditionalItems)
		walkAny(s.Items)
	}
	walk(root)
	return idx
}

// isSchemaKeyword, isSchemaMapKeyword and isSchemaListKeyword report the
// keywords whose value is a schema, a map of schemas or an array of
// schemas: what walk.inspect follows. enum, const, default and examples
// hold data, which must not be touched.
func isSchemaKeyword(kw string) bool {
	switch kw {
	case "additionalProperties", "additionalItems", "unevaluatedProperties",
		"unevaluatedItems", "contains", "propertyNames", "not",
		"if", "then", "else", "contentSchema", "items":
		return true
	}
	return false
}

func isSchemaMapKeyword(kw string) bool {
	switch kw {
	case "properties", "patternProperties", "$defs", "definitions",
		"dependentSchemas", "dependencies":
		return true
	}
	return false
}

func isSchemaListKeyword(kw string) bool {
	switch kw {
	case "allOf", "anyOf", "oneOf", "prefixItems", "items":
		return true
	}
	return false
}

// walk goes through the subschemas of a schema document before the library
// sees it: it counts them, and removes each "pattern" that Go's regexp
// cannot compile (ECMA 262 lookaround, backreferences…), noting it in
// warnings, so the rest of the schema still validates.
type walk struct {
	count    int      // subschemas seen
	changed  bool     // whether a pattern was removed
	warnings []string // one per pattern removed
}

func (w *walk) inspect(doc any, ptr string) {
	m, ok := doc.(map[string]any)
	if !ok || w.count > maxSubschemas {
		return
	}
	w.count++
	if p, ok := m["pattern"].(string); ok {
		if _, err := regexp.Compile(p); err != nil {
			delete(m, "pattern")
			w.changed = true
			w.warnings = append(w.warnings, fmt.Sprintf(
				"%s/pattern: %s is not a regular expression Go can run (%s); it is not checked",
				ptr, quote(p), regexpReason(err)))
		}
	}
	for kw, v := range m {
		at := ptr + "/" + escapePointer(kw)
		if isSchemaKeyword(kw) {
			w.inspect(v, at)
		}
		if isSchemaMapKeyword(kw) {
			if sub, ok := v.(map[string]any); ok {
				for name, s := range sub {
					w.inspect(s, at+"/"+escapePointer(name))
				}
			}
		}
		if isSchemaListKeyword(kw) {
			if list, ok := v.([]any); ok {
				for i, s := range list {
					w.inspect(s, fmt.Sprintf("%s/%d", at, i))
				}
			}
		}
	}
}

// regexpReason is the part of a regexp error that says what is wrong.
func regexpReason(err error) string {
	var se *syntax.Error
	if errors.As(err, &se) {
		return string(se.Code)
	}
	return err.Error()
}

// escapePointer escapes a JSON pointer token (RFC 6901).
func escapePointer(token string) string {
	return strings.ReplaceAll(strings.ReplaceAll(token, "~", "~0"), "/", "~1")
}

// unescapePointer undoes escapePointer.
func unescapePointer(token string) string {
	return strings.ReplaceAll(strings.ReplaceAll(token, "~1", "/"), "~0", "~")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
