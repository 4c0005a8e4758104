package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// SchemaField is one row of [SchemaFields]: a property of a JSON Schema
// described for a person.
type SchemaField struct {
	// Name is the property's path from the top: "city", "location.lat",
	// "tags[].name" (a property of the array's items), "labels.*" (the
	// values of an object used as a map).
	Name string
	// Depth is how deeply the property is nested, 0 at the top.
	Depth int
	// Type is the type with its constraints: "string (date-time)",
	// "integer (1..7)", "array of string (at most 5 items)",
	// "string | integer", "object".
	Type string
	// Required says the property is listed in its parent's "required".
	Required bool
	// Default is the default value: a string as is, anything else as JSON.
	Default string
	// Values are the allowed values of an enum, or "= x" for a const.
	Values string
	// Description is the property's description, or its title.
	Description string
}

// Bounds on what a schema costs to describe, whatever the server sends.
const (
	maxSchemaDepth  = 8    // nesting levels expanded into rows
	maxSchemaFields = 1000 // rows in all
	maxTypeDepth    = 4    // nesting spelt out inside one type ("array of array of …")
	maxAlternatives = 16   // anyOf/oneOf alternatives named in a type
	maxRefHops      = 32   // $ref to $ref chains
)

// SchemaFields lists the properties of an object schema, such as a tool's
// inputSchema, in the order the schema text gives them, each followed by
// its nested properties (those of an object property, of an array's
// object items, of a map's object values). Local references ("$ref":
// "#/$defs/X") are followed, a recursive one only once; allOf parts are
// merged; an anyOf/oneOf of one schema and null is that schema, nullable.
// Network references are never fetched. A schema that is not an object
// schema with properties has no fields: describe it with [SchemaType].
// Depth and size are bounded, so any schema a server sends is cheap to
// describe.
func SchemaFields(schema json.RawMessage) []SchemaField {
	w := &schemaWalker{root: schema}
	n := w.resolve(w.parse(schema), nil)
	w.fields(n, "", 0, n.via)
	return w.out
}

// SchemaType describes a whole schema as [SchemaField.Type] does a
// property's: "object", "array of string", "string | null"; "" for an
// empty schema.
func SchemaType(schema json.RawMessage) string {
	if len(bytes.TrimSpace(schema)) == 0 {
		return ""
	}
	w := &schemaWalker{root: schema}
	return w.typeOf(w.parse(schema), 0, nil)
}

// schemaNode is the part of a JSON Schema that describing it needs.
// Numbers stay raw so they print as the server wrote them.
type schemaNode struct {
	Type                 json.RawMessage   `json:"type"`
	Ref                  string            `json:"$ref"`
	Title                string            `json:"title"`
	Description          string            `json:"description"`
	Format               string            `json:"format"`
	Pattern              string            `json:"pattern"`
	Minimum              json.RawMessage   `json:"minimum"`
	Maximum              json.RawMessage   `json:"maximum"`
	ExclusiveMinimum     json.RawMessage   `json:"exclusiveMinimum"`
	ExclusiveMaximum     json.RawMessage   `json:"exclusiveMaximum"`
	MultipleOf           json.RawMessage   `json:"multipleOf"`
	MinLength            json.RawMessage   `json:"minLength"`
	MaxLength            json.RawMessage   `json:"maxLength"`
	MinItems             json.RawMessage   `json:"minItems"`
	MaxItems             json.RawMessage   `json:"maxItems"`
	UniqueItems          bool              `json:"uniqueItems"`
	Items                json.RawMessage   `json:"items"`
	PrefixItems          []json.RawMessage `json:"prefixItems"`
	Properties           json.RawMessage   `json:"properties"`
	AdditionalProperties json.RawMessage   `json:"additionalProperties"`
	Required             []string          `json:"required"`
	Enum                 []json.RawMessage `json:"enum"`
	Const                json.RawMessage   `json:"const"`
	Default              json.RawMessage   `json:"default"`
	OneOf                []json.RawMessage `json:"oneOf"`
	AnyOf                []json.RawMessage `json:"anyOf"`
	AllOf                []json.RawMessage `json:"allOf"`
	Deprecated           bool              `json:"deprecated"`
	ReadOnly             bool              `json:"readOnly"`
	WriteOnly            bool              `json:"writeOnly"`
	ContentMediaType     string            `json:"contentMediaType"`

	// boolean is "true" or "false" for the boolean schemas; "" otherwise.
	boolean string
	// invalid is set when the schema is neither an object nor a boolean.
	invalid bool
	// refName names the definition a $ref led to ("Address").
	refName string
	// recursive is set when following the $ref would loop.
	recursive bool
	// nullable is set when an anyOf/oneOf allowed null besides this schema.
	nullable bool
	// via lists the $refs followed to reach this schema.
	via []string
	// names and props are Properties in the schema text's order.
	names []string
	props map[string]json.RawMessage
}

type schemaWalker struct {
	root json.RawMessage
	out  []SchemaField
}

func (w *schemaWalker) parse(raw json.RawMessage) *schemaNode {
	n := &schemaNode{}
	switch t := string(bytes.TrimSpace(raw)); t {
	case "true", "false":
		n.boolean = t
		return n
	}
	if err := json.Unmarshal(raw, n); err != nil {
		return &schemaNode{invalid: true}
	}
	n.names, n.props = orderedObject(n.Properties)
	return n
}

// orderedObject decodes a JSON object, keeping its keys' order; nil for
// anything else.
func orderedObject(raw json.RawMessage) ([]string, map[string]json.RawMessage) {
	if len(raw) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil
	}
	var names []string
	props := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil
		}
		if _, dup := props[key]; !dup {
			names = append(names, key)
		}
		props[key] = v
	}
	return names, props
}

// resolve follows n's local $ref (keeping n's own description, title and
// default, which 2020-12 allows beside $ref), merges its allOf, and
// unwraps an anyOf/oneOf of one schema and null. stack holds the $refs
// being expanded, to stop at recursion; the result's via lists the $refs
// it followed.
func (w *schemaWalker) resolve(n *schemaNode, stack []string) *schemaNode {
	var via []string
	for hops := 0; n.Ref != "" && hops < maxRefHops; hops++ {
		ref := n.Ref
		if containsString(stack, ref) || containsString(via, ref) {
			return &schemaNode{Ref: ref, refName: refName(ref), recursive: true, Description: n.Description, Title: n.Title}
		}
		target, ok := w.lookup(ref)
		if !ok {
			break
		}
		via = append(via, ref)
		t := w.parse(target)
		t.refName = refName(ref)
		if n.Description != "" {
			t.Description = n.Description
		}
		if n.Title != "" {
			t.Title = n.Title
		}
		if len(n.Default) > 0 {
			t.Default = n.Default
		}
		n = t
	}
	inner := append(append([]string{}, stack...), via...)
	if len(n.AllOf) > 0 {
		merged := *n
		merged.AllOf = nil
		for i, part := range n.AllOf {
			if i >= maxAlternatives {
				break
			}
			pn := w.resolve(w.parse(part), inner)
			via = append(via, pn.via...)
			merge(&merged, pn)
		}
		n = &merged
	}
	alts := n.AnyOf
	if len(alts) == 0 {
		alts = n.OneOf
	}
	if len(alts) == 2 {
		a, b := w.parse(alts[0]), w.parse(alts[1])
		if isNull(a) {
			a, b = b, a
		}
		if isNull(b) && !isNull(a) {
			merged := *n
			merged.AnyOf, merged.OneOf = nil, nil
			an := w.resolve(a, inner)
			via = append(via, an.via...)
			merge(&merged, an)
			merged.recursive = an.recursive
			merged.nullable = true
			n = &merged
		}
	}
	if len(via) > 0 {
		c := *n
		c.via = append(append([]string{}, n.via...), via...)
		n = &c
	}
	return n
}

// merge adds what src says and dst does not to dst: properties (appended
// in order), required names, and the first type and constraints seen.
func merge(dst, src *schemaNode) {
	if len(dst.Type) == 0 {
		dst.Type = src.Type
	}
	if dst.refName == "" {
		dst.refName = src.refName
	}
	for _, name := range src.names {
		if dst.props == nil {
			dst.props = map[string]json.RawMessage{}
		}
		if _, ok := dst.props[name]; !ok {
			dst.names = append(dst.names, name)
		}
		dst.props[name] = src.props[name]
	}
	dst.Required = append(dst.Required, src.Required...)
	setRaw := func(d *json.RawMessage, s json.RawMessage) {
		if len(*d) == 0 {
			*d = s
		}
	}
	setStr := func(d *string, s string) {
		if *d == "" {
			*d = s
		}
	}
	setStr(&dst.Description, src.Description)
	setStr(&dst.Title, src.Title)
	setStr(&dst.Format, src.Format)
	setStr(&dst.Pattern, src.Pattern)
	setStr(&dst.ContentMediaType, src.ContentMediaType)
	for _, p := range [][2]*json.RawMessage{
		{&dst.Minimum, &src.Minimum}, {&dst.Maximum, &src.Maximum},
		{&dst.ExclusiveMinimum, &src.ExclusiveMinimum}, {&dst.ExclusiveMaximum, &src.ExclusiveMaximum},
		{&dst.MultipleOf, &src.MultipleOf}, {&dst.MinLength, &src.MinLength}, {&dst.MaxLength, &src.MaxLength},
		{&dst.MinItems, &src.MinItems}, {&dst.MaxItems, &src.MaxItems}, {&dst.Items, &src.Items},
		{&dst.AdditionalProperties, &src.AdditionalProperties}, {&dst.Const, &src.Const}, {&dst.Default, &src.Default},
	} {
		setRaw(p[0], *p[1])
	}
	if len(dst.Enum) == 0 {
		dst.Enum = src.Enum
	}
	if len(dst.PrefixItems) == 0 {
		dst.PrefixItems = src.PrefixItems
	}
	if len(dst.AnyOf) == 0 && len(dst.OneOf) == 0 {
		dst.AnyOf, dst.OneOf = src.AnyOf, src.OneOf
	}
	dst.UniqueItems = dst.UniqueItems || src.UniqueItems
	dst.Deprecated = dst.Deprecated || src.Deprecated
	dst.ReadOnly = dst.ReadOnly || src.ReadOnly
	dst.WriteOnly = dst.WriteOnly || src.WriteOnly
	dst.nullable = dst.nullable || src.nullable
}

func isNull(n *schemaNode) bool {
	return len(n.names) == 0 && n.Ref == "" && strings.TrimSpace(string(n.Type)) == `"null"`
}

// lookup finds a local reference ("#", "#/$defs/X", "#/definitions/X",
// any JSON pointer into the root). Anything else is not followed.
func (w *schemaWalker) lookup(ref string) (json.RawMessage, bool) {
	ptr, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, false
	}
	cur := w.root
	if ptr == "" {
		return cur, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false // an anchor: not followed
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(cur, &obj); err == nil {
			if cur, ok = obj[tok]; !ok {
				return nil, false
			}
			continue
		}
		var arr []json.RawMessage
		i, err := strconv.Atoi(tok)
		if json.Unmarshal(cur, &arr) != nil || err != nil || i < 0 || i >= len(arr) {
			return nil, false
		}
		cur = arr[i]
	}
	return cur, true
}

// refName is the last segment of a reference: "Address" for
// "#/$defs/Address".
func refName(ref string) string {
	if i := strings.LastIndexAny(ref, "/#"); i >= 0 && i < len(ref)-1 {
		return ref[i+1:]
	}
	return ref
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// fields appends the rows of n's properties, and of theirs, under prefix.
// n is resolved; stack holds the $refs followed to reach it.
func (w *schemaWalker) fields(n *schemaNode, prefix string, depth int, stack []string) {
	if depth >= maxSchemaDepth || n.recursive {
		return
	}
	required := map[string]bool{}
	for _, r := range n.Required {
		required[r] = true
	}
	for _, name := range n.names {
		if len(w.out) >= maxSchemaFields {
			return
		}
		p := w.resolve(w.parse(n.props[name]), stack)
		path := prefix + name
		w.out = append(w.out, SchemaField{
			Name:        path,
			Depth:       depth,
			Type:        w.typeOf(p, 0, stack),
			Required:    required[name],
			Default:     showValue(p.Default),
			Values:      values(p),
			Description: describe(p),
		})
		w.children(p, path, depth+1, withRefs(stack, p.via))
	}
}

// withRefs is stack followed by via, in a new slice.
func withRefs(stack, via []string) []string {
	if len(via) == 0 {
		return stack
	}
	return append(append(make([]string, 0, len(stack)+len(via)), stack...), via...)
}

// children appends the rows nested in a resolved property: an object's
// properties, an array's items' properties, a map's values' properties.
func (w *schemaWalker) children(p *schemaNode, path string, depth int, stack []string) {
	if p.recursive {
		return
	}
	if len(p.names) > 0 {
		w.fields(p, path+".", depth, stack)
		return
	}
	if item := singleSchema(p.Items); item != nil {
		it := w.resolve(w.parse(item), stack)
		w.children(it, path+"[]", depth, withRefs(stack, it.via))
		return
	}
	if ap := singleSchema(p.AdditionalProperties); ap != nil {
		v := w.resolve(w.parse(ap), stack)
		if len(v.names) > 0 {
			w.fields(v, path+".*.", depth, withRefs(stack, v.via))
		}
	}
}

// singleSchema is raw if it is one object schema (not a boolean, not a
// draft-4 tuple array).
func singleSchema(raw json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '{' {
		return nil
	}
	return t
}

// typeOf describes n as a type with its constraints.
func (w *schemaWalker) typeOf(n *schemaNode, depth int, stack []string) string {
	if depth > maxTypeDepth {
		return "…"
	}
	n = w.resolve(n, stack)
	stack = withRefs(stack, n.via)
	switch {
	case n.invalid:
		return "invalid schema"
	case n.boolean == "true":
		return "any"
	case n.boolean == "false":
		return "nothing (false schema)"
	case n.recursive:
		return n.refName + " (recursive)"
	case n.Ref != "":
		return "$ref " + n.Ref
	}
	var alts []string
	if choices := append(append([]json.RawMessage{}, n.AnyOf...), n.OneOf...); len(choices) > 0 {
		seen := map[string]bool{}
		for i, c := range choices {
			if i >= maxAlternatives {
				alts = append(alts, "…")
				break
			}
			t := w.typeOf(w.parse(c), depth+1, stack)
			if !seen[t] {
				seen[t] = true
				alts = append(alts, t)
			}
		}
		if len(n.Type) == 0 {
			return withNull(strings.Join(alts, " | "), n.nullable)
		}
	}
	types := typeNames(n)
	for i, t := range types {
		switch t {
		case "array":
			types[i] = w.arrayType(n, depth, stack)
		case "object":
			types[i] = w.objectType(n, depth, stack)
		}
	}
	base := strings.Join(types, " | ")
	if details := constraints(n); len(details) > 0 {
		base += " (" + strings.Join(details, ", ") + ")"
	}
	return withNull(base, n.nullable)
}

func withNull(t string, nullable bool) string {
	if nullable && !strings.HasSuffix(t, "| null") {
		return t + " | null"
	}
	return t
}

// typeNames are n's declared types, or the type its other keywords imply.
func typeNames(n *schemaNode) []string {
	var one string
	if json.Unmarshal(n.Type, &one) == nil && one != "" {
		return []string{one}
	}
	var many []string
	if json.Unmarshal(n.Type, &many) == nil && len(many) > 0 {
		return many
	}
	switch {
	case len(n.names) > 0 || len(n.AdditionalProperties) > 0:
		return []string{"object"}
	case len(n.Items) > 0 || len(n.PrefixItems) > 0:
		return []string{"array"}
	case len(n.Const) > 0:
		return []string{jsonKind(n.Const)}
	case len(n.Enum) > 0:
		kinds := []string{}
		for _, e := range n.Enum {
			if k := jsonKind(e); !containsString(kinds, k) {
				kinds = append(kinds, k)
			}
		}
		return kinds
	}
	return []string{"any"}
}

// jsonKind is the JSON Schema type of a JSON value.
func jsonKind(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "any"
	}
	switch t[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	if bytes.ContainsAny(t, ".eE") {
		return "number"
	}
	return "integer"
}

func (w *schemaWalker) arrayType(n *schemaNode, depth int, stack []string) string {
	if len(n.PrefixItems) > 0 {
		var parts []string
		for i, it := range n.PrefixItems {
			if i >= maxAlternatives {
				parts = append(parts, "…")
				break
			}
			parts = append(parts, w.typeOf(w.parse(it), depth+1, stack))
		}
		return "array [" + strings.Join(parts, ", ") + "]"
	}
	t := bytes.TrimSpace(n.Items)
	switch {
	case len(t) == 0 || string(t) == "true" || string(t) == "{}":
		return "array"
	case t[0] == '[': // draft-4 tuple
		var items []json.RawMessage
		_ = json.Unmarshal(t, &items)
		var parts []string
		for i, it := range items {
			if i >= maxAlternatives {
				parts = append(parts, "…")
				break
			}
			parts = append(parts, w.typeOf(w.parse(it), depth+1, stack))
		}
		return "array [" + strings.Join(parts, ", ") + "]"
	}
	it := w.typeOf(w.parse(t), depth+1, stack)
	if strings.Contains(it, " ") {
		it = "(" + it + ")"
	}
	return "array of " + it
}

func (w *schemaWalker) objectType(n *schemaNode, depth int, stack []string) string {
	ap := singleSchema(n.AdditionalProperties)
	if len(n.names) == 0 && ap != nil && string(ap) != "{}" {
		v := w.typeOf(w.parse(ap), depth+1, stack)
		if strings.Contains(v, " ") {
			v = "(" + v + ")"
		}
		return "object of " + v
	}
	if n.refName != "" && n.refName != "#" {
		return "object " + n.refName
	}
	return "object"
}

// constraints lists n's format, ranges, lengths and pattern in words.
func constraints(n *schemaNode) []string {
	var out []string
	if n.Format != "" {
		out = append(out, n.Format)
	}
	if n.ContentMediaType != "" {
		out = append(out, n.ContentMediaType)
	}
	if r := numberRange(n); r != "" {
		out = append(out, r)
	}
	if len(n.MultipleOf) > 0 {
		out = append(out, "multiple of "+raw(n.MultipleOf))
	}
	if r := countRange(n.MinLength, n.MaxLength, "char"); r != "" {
		out = append(out, r)
	}
	if r := countRange(n.MinItems, n.MaxItems, "item"); r != "" {
		out = append(out, r)
	}
	if n.UniqueItems {
		out = append(out, "unique")
	}
	if n.Pattern != "" {
		out = append(out, "pattern "+n.Pattern)
	}
	if n.Deprecated {
		out = append(out, "deprecated")
	}
	if n.ReadOnly {
		out = append(out, "read-only")
	}
	if n.WriteOnly {
		out = append(out, "write-only")
	}
	return out
}

// numberRange is "1..7", ">= 0", "> 0, < 1" and the like. Draft-4's
// boolean exclusiveMinimum/Maximum make minimum/maximum exclusive.
func numberRange(n *schemaNode) string {
	lo, hi := raw(n.Minimum), raw(n.Maximum)
	loOp, hiOp := ">=", "<="
	switch x := raw(n.ExclusiveMinimum); x {
	case "", "false":
	case "true":
		loOp = ">"
	default:
		lo, loOp = x, ">"
	}
	switch x := raw(n.ExclusiveMaximum); x {
	case "", "false":
	case "true":
		hiOp = "<"
	default:
		hi, hiOp = x, "<"
	}
	switch {
	case lo != "" && hi != "" && loOp == ">=" && hiOp == "<=":
		return lo + ".." + hi
	case lo != "" && hi != "":
		return loOp + " " + lo + ", " + hiOp + " " + hi
	case lo != "":
		return loOp + " " + lo
	case hi != "":
		return hiOp + " " + hi
	}
	return ""
}

// countRange is "1..100 chars", "at least 1 item", "at most 5 items".
func countRange(minRaw, maxRaw json.RawMessage, unit string) string {
	lo, hi := raw(minRaw), raw(maxRaw)
	plural := func(v string) string {
		if v == "1" {
			return v + " " + unit
		}
		return v + " " + unit + "s"
	}
	switch {
	case lo != "" && hi != "" && lo == hi:
		return "exactly " + plural(hi)
	case lo != "" && hi != "":
		return lo + ".." + plural(hi)
	case lo != "" && lo != "0":
		return "at least " + plural(lo)
	case hi != "":
		return "at most " + plural(hi)
	}
	return ""
}

// raw is a scalar's JSON text, "" when absent or null.
func raw(v json.RawMessage) string {
	s := string(bytes.TrimSpace(v))
	if s == "null" {
		return ""
	}
	return s
}

// showValue prints a JSON value for a table cell: a plain string as is
// (quoted when empty or padded, so it can be seen), anything else as
// compact JSON.
func showValue(v json.RawMessage) string {
	switch t := string(bytes.TrimSpace(v)); t {
	case "":
		return ""
	case "null":
		return t
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		if s == "" || strings.TrimSpace(s) != s {
			return strconv.Quote(s)
		}
		return s
	}
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return string(v)
	}
	return b.String()
}

// values lists an enum's values, or a const as "= value".
func values(n *schemaNode) string {
	if len(n.Const) > 0 {
		return "= " + showValue(n.Const)
	}
	if len(n.Enum) == 0 {
		return ""
	}
	parts := make([]string, 0, len(n.Enum))
	for _, e := range n.Enum {
		v := showValue(e)
		if strings.Contains(v, ", ") {
			v = strconv.Quote(v)
		}
		parts = append(parts, v)
	}
	return strings.Join(parts, ", ")
}

// describe is n's description, else its title.
func describe(n *schemaNode) string {
	if n.Description != "" {
		return n.Description
	}
	return n.Title
}

// String is the field as "name type [required]", for tests and logs.
func (f SchemaField) String() string {
	s := fmt.Sprintf("%s %s", f.Name, f.Type)
	if f.Required {
		s += " required"
	}
	return s
}
