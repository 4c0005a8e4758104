package schema

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// objectShape is what an object schema declares about its keys, read
// through $ref and the subschemas that apply to the same object (allOf,
// anyOf, oneOf, if/then/else, dependentSchemas), so that a key any of
// them declares counts as declared.
type objectShape struct {
	props    map[string]*jsonschema.Schema
	names    []string // the keys of props in sorted order, for suggestions
	patterns map[*regexp.Regexp]*jsonschema.Schema
	// open: additionalProperties or unevaluatedProperties is true or a
	// schema somewhere, so undeclared keys are explicitly allowed.
	open bool
	// closed: additionalProperties or unevaluatedProperties is false
	// somewhere; the validator itself reports undeclared keys.
	closed bool
	// object: "type" allows an object.
	object bool
}

// shape returns the objectShape of s, built once per subschema.
func (v *argView) shape(s *jsonschema.Schema) *objectShape {
	if got, ok := v.shapes.Load(s); ok {
		return got.(*objectShape)
	}
	sh := &objectShape{props: map[string]*jsonschema.Schema{}, patterns: map[*regexp.Regexp]*jsonschema.Schema{}}
	sh.collect(s, 0)
	for name := range sh.props {
		sh.names = append(sh.names, name)
	}
	slices.Sort(sh.names)
	got, _ := v.shapes.LoadOrStore(s, sh)
	return got.(*objectShape)
}

func (sh *objectShape) collect(s *jsonschema.Schema, depth int) {
	if s == nil || depth > maxRefDepth {
		return
	}
	for name, p := range s.Properties {
		if _, ok := sh.props[name]; !ok {
			sh.props[name] = p
		}
	}
	for re, p := range s.PatternProperties {
		sh.patterns[re] = p
	}
	switch ap := s.AdditionalProperties.(type) {
	case bool:
		sh.open = sh.open || ap
		sh.closed = sh.closed || !ap
	case *jsonschema.Schema:
		sh.mark(ap)
	}
	if s.UnevaluatedProperties != nil {
		sh.mark(s.UnevaluatedProperties)
	}
	sh.object = sh.object || slices.Contains(s.Types, "object")
	for _, sub := range []*jsonschema.Schema{s.Ref, s.RecursiveRef, s.DynamicRef, s.If, s.Then, s.Else} {
		sh.collect(sub, depth+1)
	}
	for _, branches := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf} {
		for _, b := range branches {
			sh.collect(b, depth+1)
		}
	}
	for _, d := range s.DependentSchemas {
		sh.collect(d, depth+1)
	}
	for _, d := range s.Dependencies {
		if ds, ok := d.(*jsonschema.Schema); ok {
			sh.collect(ds, depth+1)
		}
	}
}

// mark records an additionalProperties or unevaluatedProperties schema:
// false closes the object, anything else opens it.
func (sh *objectShape) mark(s *jsonschema.Schema) {
	if s.Always != nil && !*s.Always {
		sh.closed = true
		return
	}
	sh.open = true
}

// pattern is the schema of the first patternProperties entry key matches,
// or nil.
func (sh *objectShape) pattern(key string) *jsonschema.Schema {
	for re, p := range sh.patterns {
		if re.MatchString(key) {
			return p
		}
	}
	return nil
}

// declares reports whether key is a property of the object, by name or by
// pattern, and returns its schema.
func (sh *objectShape) declares(key string) (*jsonschema.Schema, bool) {
	if p, ok := sh.props[key]; ok {
		return p, true
	}
	p := sh.pattern(key)
	return p, p != nil
}

// objectLike reports whether s describes an object: it declares
// properties, or its type allows an object.
func (v *argView) objectLike(s *jsonschema.Schema) bool {
	sh := v.shape(s)
	return sh.object || len(sh.props) > 0 || len(sh.patterns) > 0
}

// resolve splits an argument's key into the path of properties it sets,
// and returns the schema of the last one (nil when the schema does not
// declare it). A key the schema declares is itself, dots and all; else a
// dot nests, but only into a declared property that describes an object:
// the longest such prefix is taken, and the rest is resolved inside it by
// the same rule. Any other key is itself.
func (v *argView) resolve(key string) ([]string, *jsonschema.Schema) {
	if v == nil || v.root == nil {
		return []string{key}, nil
	}
	return v.resolveIn(v.root, key, 0)
}

func (v *argView) resolveIn(s *jsonschema.Schema, key string, depth int) ([]string, *jsonschema.Schema) {
	sh := v.shape(s)
	if p, ok := sh.props[key]; ok {
		return []string{key}, p
	}
	if depth < maxRefDepth {
		for i := strings.LastIndexByte(key, '.'); i > 0; i = strings.LastIndexByte(key[:i], '.') {
			p, ok := sh.props[key[:i]]
			if !ok || i == len(key)-1 || !v.objectLike(p) {
				continue
			}
			rest, leaf := v.resolveIn(p, key[i+1:], depth+1)
			return append([]string{key[:i]}, rest...), leaf
		}
	}
	return []string{key}, sh.pattern(key)
}

// maxValueDepth bounds how deep UnknownArgs looks into the arguments.
const maxValueDepth = 64

// UnknownArgs lists the keys of a tool's arguments that its input schema
// does not declare, at the top and in every nested object the schema
// describes, whether they came from key=value, a dotted key, key:=json or
// --args. It is mcpctl's rule, stricter than JSON Schema's default: a key
// is refused unless the object's schema declares it (in "properties" or
// "patternProperties", its own or those of the subschemas that apply to
// the same object) or explicitly allows others (additionalProperties or
// unevaluatedProperties true or a schema). Where the schema says false,
// [Schema.Validate] reports the key itself, so it is not listed twice. A
// nested object whose schema declares no properties at all is free-form
// and not looked into; the top level always is: a tool that declares no
// arguments takes none.
//
// Each violation has keyword "additionalProperties", the path of the key
// (as for an unknown prompt argument), and a message with the closest
// declared name, named as a dotted key writes it and `describe` shows
// nested fields (metadata.location, tags[].name):
// `/cuont: unknown argument; did you mean "count"?`.
func (s *Schema) UnknownArgs(args map[string]any) []Violation {
	var out []Violation
	v := s.view()
	v.unknownKeys(v.root, args, "", "", true, 0, &out)
	return finish(out)
}

// ValidateArgs checks a tool's arguments: [Schema.Validate], plus
// [Schema.UnknownArgs] unless allowUnknown. unknown counts the violations
// the latter found, so a caller can say how to send them anyway.
func (s *Schema) ValidateArgs(args map[string]any, allowUnknown bool) (violations []Violation, unknown int) {
	violations = s.Validate(args)
	if allowUnknown {
		return violations, 0
	}
	extra := s.UnknownArgs(args)
	if len(extra) == 0 {
		return violations, 0
	}
	return finish(append(violations, extra...)), len(extra)
}

func (v *argView) unknownKeys(s *jsonschema.Schema, obj map[string]any, ptr, name string, top bool, depth int, out *[]Violation) {
	if s == nil || depth > maxValueDepth {
		return
	}
	sh := v.shape(s)
	checking := !sh.open && !sh.closed && (top || len(sh.props) > 0 || len(sh.patterns) > 0)
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		sub, ok := sh.declares(k)
		if !ok {
			if checking {
				*out = append(*out, Violation{Path: ptr + "/" + escapePointer(k), Keyword: "additionalProperties", Msg: unknownArgMsg(name, k, sh, obj)})
			}
			continue
		}
		v.unknownIn(sub, obj[k], ptr+"/"+escapePointer(k), joinName(name, k), depth+1, out)
	}
}

// unknownIn looks for unknown keys inside a value whose schema is s.
func (v *argView) unknownIn(s *jsonschema.Schema, value any, ptr, name string, depth int, out *[]Violation) {
	switch value := value.(type) {
	case map[string]any:
		v.unknownKeys(s, value, ptr, name, false, depth, out)
	case []any:
		items := itemsOf(s)
		if items == nil {
			return
		}
		for i, e := range value {
			v.unknownIn(items, e, fmt.Sprintf("%s/%d", ptr, i), name+"[]", depth+1, out)
		}
	}
}

// itemsOf is the schema every item of an array described by s must match,
// read through $ref; nil when there is none.
func itemsOf(s *jsonschema.Schema) *jsonschema.Schema {
	for depth := 0; s != nil && depth <= maxRefDepth; s, depth = s.Ref, depth+1 {
		if s.Items2020 != nil {
			return s.Items2020
		}
		if items, ok := s.Items.(*jsonschema.Schema); ok {
			return items
		}
	}
	return nil
}

// joinName names a nested field as describe does: parent.key.
func joinName(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

// unknownArgMsg says a key is unknown, with the declared name it most
// likely misspells (among those not given), else the declared names; the
// names as a dotted key writes them.
func unknownArgMsg(parent, key string, sh *objectShape, given map[string]any) string {
	msg := "unknown argument"
	var candidates []string
	for _, n := range sh.names {
		if _, ok := given[n]; !ok {
			candidates = append(candidates, n)
		}
	}
	if close := Suggest(key, candidates); close != "" {
		return msg + fmt.Sprintf("; did you mean %s?", quote(joinName(parent, close)))
	}
	switch {
	case len(sh.names) == 0 && len(sh.patterns) == 0:
		return msg + " (the schema declares none)"
	case len(sh.names) > 0 && len(sh.names) <= 20:
		shown := make([]string, len(sh.names))
		for i, n := range sh.names {
			shown[i] = joinName(parent, n)
		}
		return msg + " (declared: " + strings.Join(shown, ", ") + ")"
	}
	return msg
}
