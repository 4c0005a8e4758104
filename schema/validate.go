package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Violation is one way a value fails a schema.
type Violation struct {
	// Path is the JSON pointer (RFC 6901) of the offending value within the
	// validated one: "" for the value itself, "/items/2/name" for a field of
	// the third element of "items". For a missing required property it is
	// where the property should be ("/city"); for a property that must not
	// be there, the object that holds it.
	Path string `json:"path"`
	// Keyword is the schema keyword that failed: "type", "required",
	// "enum", "additionalProperties", "anyOf", "format", …; "false" for a
	// schema that allows nothing.
	Keyword string `json:"keyword"`
	// Msg says what the schema expects and what was found:
	// `must be >= 1, got 0`. Values in it are shortened to about 60
	// characters.
	Msg string `json:"message"`
	// Definition is the official MCP schema definition whose subschema
	// failed, the innermost one ("ImageContent" inside a "CallToolResult"),
	// for violations found by a [Checker]; "" otherwise.
	Definition string `json:"definition,omitempty"`
}

// String shows the path, "/" for the value itself, then the message:
// `/days: must be >= 1, got 0`, `/: additional property "colour" is not
// allowed; did you mean "color"?`.
func (v Violation) String() string {
	p := v.Path
	if p == "" {
		p = "/"
	}
	return p + ": " + v.Msg
}

// Validate checks a value against the schema and returns every violation,
// sorted by path, or nil when the value is valid.
//
// v is what [ParseArgs] returns or any decoded JSON value: maps, slices,
// strings, booleans, nil, and numbers as json.Number, int64, float64 or any
// other Go integer or float. Other Go values are validated as their JSON
// encoding. A number that JSON cannot hold (NaN, ±Inf, a malformed
// json.Number) is itself a violation.
func (s *Schema) Validate(v any) []Violation {
	inst, _, bad := normalize(v, "")
	if len(bad) > 0 {
		return finish(bad)
	}
	return s.validate(inst)
}

// ValidateJSON is [Schema.Validate] for a JSON text, such as a tool
// result's structuredContent. The error reports text that is not JSON.
func (s *Schema) ValidateJSON(raw json.RawMessage) ([]Violation, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, errors.New("no JSON value to validate")
	}
	inst, err := decodeJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	return s.validate(inst), nil
}

func (s *Schema) validate(inst any) (out []Violation) {
	defer func() {
		if r := recover(); r != nil {
			out = []Violation{{Keyword: "false", Msg: fmt.Sprintf("the validator failed on this schema: %v", r)}}
		}
	}()
	err := s.compiled.Validate(inst)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		f := &formatter{index: s.index, instance: inst, official: s.official}
		return f.violations(ve)
	}
	var loop jsonschema.InfiniteLoopError
	if errors.As(err, &loop) {
		return []Violation{{Keyword: "$ref", Msg: "the schema's references loop without reaching a schema: " + displayLocation(string(loop))}}
	}
	return []Violation{{Msg: strings.TrimPrefix(err.Error(), "jsonschema: ")}}
}

// normalize turns v into values the library validates: integers become
// int64 or uint64, anything unusual goes through its JSON encoding. changed
// reports whether the result differs from v, so that containers are copied
// only when something in them changed.
func normalize(v any, path string) (out any, changed bool, bad []Violation) {
	notJSON := func(what string) (any, bool, []Violation) {
		return v, false, []Violation{{Path: path, Keyword: "type", Msg: "must be a JSON value, got " + what}}
	}
	switch x := v.(type) {
	case nil, bool, string, int64, uint64:
		return v, false, nil
	case json.Number:
		if !isJSONNumber(string(x)) {
			return notJSON("the malformed number " + quote(string(x)))
		}
		return v, false, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return notJSON(strconv.FormatFloat(x, 'g', -1, 64))
		}
		return v, false, nil
	case float32:
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return notJSON(strconv.FormatFloat(float64(x), 'g', -1, 32))
		}
		return v, false, nil
	case int:
		return int64(x), true, nil
	case int8:
		return int64(x), true, nil
	case int16:
		return int64(x), true, nil
	case int32:
		return int64(x), true, nil
	case uint:
		return uint64(x), true, nil
	case uint8:
		return uint64(x), true, nil
	case uint16:
		return uint64(x), true, nil
	case uint32:
		return uint64(x), true, nil
	case map[string]any:
		var copied map[string]any
		for k, e := range x {
			n, ch, b := normalize(e, path+"/"+escapePointer(k))
			bad = append(bad, b...)
			if ch && copied == nil {
				copied = make(map[string]any, len(x))
				for k2, e2 := range x {
					copied[k2] = e2
				}
			}
			if copied != nil {
				copied[k] = n
			}
		}
		if copied != nil {
			return copied, true, bad
		}
		return v, false, bad
	case []any:
		var copied []any
		for i, e := range x {
			n, ch, b := normalize(e, path+"/"+strconv.Itoa(i))
			bad = append(bad, b...)
			if ch && copied == nil {
				copied = slices.Clone(x)
			}
			if copied != nil {
				copied[i] = n
			}
		}
		if copied != nil {
			return copied, true, bad
		}
		return v, false, bad
	}
	data, err := json.Marshal(v)
	if err != nil {
		return notJSON(fmt.Sprintf("%T (%v)", v, err))
	}
	d, err := decodeJSON(data)
	if err != nil {
		return notJSON(fmt.Sprintf("%T (%v)", v, err))
	}
	return d, true, nil
}

// problem is a violation while it is being built. For type, enum and const
// failures, expected and found keep the parts of the message, so that the
// failures of a union's alternatives merge into one message.
type problem struct {
	Violation
	expected []string // the alternatives: "an integer", `one of "a", "b"`
	found    string
}

func mismatch(path, keyword string, expected []string, found string) problem {
	return problem{
		Violation: Violation{Path: path, Keyword: keyword, Msg: "must be " + orJoin(expected) + ", got " + found},
		expected:  expected,
		found:     found,
	}
}

// msgRequired is the message of a missing required property.
const msgRequired = "required property is missing"

// formatter rewrites the library's error tree as violations.
type formatter struct {
	index    map[string]*jsonschema.Schema // where the errors' schemas are found
	instance any                           // the validated value, for the values messages show
	official bool                          // name the official definition of each violation
}

// violations are the leaves of the error tree, with unions summarised,
// sorted and without repeats.
func (f *formatter) violations(ve *jsonschema.ValidationError) []Violation {
	ps := f.collect(ve)
	vs := make([]Violation, len(ps))
	for i, p := range ps {
		vs[i] = p.Violation
	}
	return finish(vs)
}

func (f *formatter) collect(ve *jsonschema.ValidationError) []problem {
	if len(ve.Causes) == 0 {
		return f.leaf(ve)
	}
	if ve.Message != "" { // "" marks a node that only groups its causes
		switch st := lastStep(ve.KeywordLocation); st.keyword {
		case "anyOf", "oneOf":
			return f.union(ve, st.keyword)
		case "minContains":
			return f.leaf(ve) // its causes are the items that did not match
		}
	}
	var out []problem
	for _, c := range ve.Causes {
		out = append(out, f.collect(c)...)
	}
	return out
}

// union reports an anyOf or oneOf that no alternative matched. When each
// alternative failed only on the kind of the value ("must be a string",
// "must be one of …"), their expectations merge into one message. Else, when
// one alternative fits the value better than every other (the others
// rejected its kind, or the value of a discriminating property), its
// problems are the ones reported. Otherwise one violation lists the first
// problem of each alternative.
func (f *formatter) union(ve *jsonschema.ValidationError, kw string) []problem {
	path := pointer(ve.InstanceLocation)
	branches := make([][]problem, len(ve.Causes))
	fit := make([]int, len(ve.Causes))
	best, bestCount := -1, 0
	for i, c := range ve.Causes {
		branches[i] = dedupe(f.collect(c))
		fit[i] = fitness(branches[i], path)
		switch {
		case fit[i] > best:
			best, bestCount = fit[i], 1
		case fit[i] == best:
			bestCount++
		}
	}
	if best == fitKind {
		var expected []string
		found := ""
		for _, b := range branches {
			expected = appendNew(expected, b[0].expected...)
			if found == "" || b[0].Keyword == "type" {
				found = b[0].found
			}
		}
		return f.named(ve, []problem{mismatch(path, kw, expected, found)})
	}
	if best == fitDiscriminator && bestCount == len(branches) {
		if p, ok := sameDiscriminator(branches); ok {
			return f.named(ve, []problem{p})
		}
	}
	if bestCount == 1 {
		for i, b := range branches {
			if fit[i] == best {
				return b
			}
		}
	}
	const shown = 4 // alternatives listed; a long union would drown the message
	var parts []string
	for i, b := range branches {
		if i == shown {
			parts = append(parts, fmt.Sprintf("and %d more alternatives", len(branches)-shown))
			break
		}
		if len(b) == 0 {
			continue
		}
		part := fmt.Sprintf("%s/%d: %s", kw, i, b[0].Violation)
		if len(b) > 1 {
			part += fmt.Sprintf(" (and %d more)", len(b)-1)
		}
		parts = append(parts, part)
	}
	what := "matches none of the " + kw + " alternatives"
	return f.named(ve, []problem{{Violation: Violation{Path: path, Keyword: kw, Msg: what + ": " + strings.Join(parts, "; ")}}})
}

// sameDiscriminator merges the failures of a union whose alternatives all
// want a different constant in the same property (the "type" of a content
// block: "text", "image"…) into one: `/content/0/type: must be one of
// "text", "image", got "video"`.
func sameDiscriminator(branches [][]problem) (problem, bool) {
	var (
		at       string
		expected []string
		found    string
	)
	for i, b := range branches {
		j := slices.IndexFunc(b, func(p problem) bool {
			return (p.Keyword == "const" || p.Keyword == "enum") && len(p.expected) > 0
		})
		if j < 0 || (i > 0 && b[j].Path != at) {
			return problem{}, false
		}
		at, found = b[j].Path, b[j].found
		expected = appendNew(expected, b[j].expected...)
	}
	if len(expected) > 1 {
		expected = []string{"one of " + strings.Join(expected, ", ")}
	}
	return mismatch(at, "const", expected, found), true
}

// How well a union's alternative fits the value, from its problems.
const (
	fitKind          = iota // the value is not of a kind the alternative allows
	fitDiscriminator        // a property's value is not the constant the alternative wants
	fitClose                // the value is of the right kind; something inside it is wrong
)

func fitness(ps []problem, path string) int {
	if len(ps) == 0 {
		return fitClose
	}
	if len(ps) == 1 && ps[0].Path == path && len(ps[0].expected) > 0 {
		return fitKind
	}
	for _, p := range ps {
		if (p.Keyword == "const" || p.Keyword == "enum") && p.Path != path {
			return fitDiscriminator
		}
	}
	return fitClose
}

// leaf turns an error without causes into problems.
func (f *formatter) leaf(ve *jsonschema.ValidationError) []problem {
	return f.named(ve, f.leafProblems(ve))
}

// named sets the definition of problems found at ve, for official schemas.
func (f *formatter) named(ve *jsonschema.ValidationError, ps []problem) []problem {
	if f.official {
		def := definitionOf(ve.AbsoluteKeywordLocation)
		for i := range ps {
			ps[i].Definition = def
		}
	}
	return ps
}

func (f *formatter) leafProblems(ve *jsonschema.ValidationError) []problem {
	path := pointer(ve.InstanceLocation)
	value, _ := f.lookup(ve.InstanceLocation)
	if s := f.index[ve.AbsoluteKeywordLocation]; s != nil && s.Always != nil && !*s.Always {
		return []problem{falseSchema(ve, path)}
	}
	if base, kw, ok := dependency(ve.AbsoluteKeywordLocation); ok {
		if name, dep, found := f.dependency(base, kw, ve.AbsoluteKeywordLocation); found {
			return []problem{{Violation: Violation{
				Path:    path + "/" + escapePointer(name),
				Keyword: kw,
				Msg:     fmt.Sprintf("required property is missing (required when %s is present)", quote(dep)),
			}}}
		}
	}
	base, kw := cutLastToken(ve.AbsoluteKeywordLocation)
	s := f.index[base]
	if s == nil {
		return []problem{{Violation: Violation{Path: path, Keyword: kw, Msg: ve.Message}}}
	}

	// propertyNames validates a name as if it were the value at parent/name.
	if underPropertyNames(ve.KeywordLocation) {
		parent, name := cutLastToken(ve.InstanceLocation)
		ps := f.leafMessage(ve, s, kw, pointer(parent), unescapePointer(pathUnescape(name)))
		for i := range ps {
			ps[i].Msg = "property name " + ps[i].Msg
			ps[i].expected = nil // a name's kind never merges with a value's
		}
		return ps
	}
	return f.leafMessage(ve, s, kw, path, value)
}

// leafMessage words the failure of keyword kw of schema s on value.
func (f *formatter) leafMessage(ve *jsonschema.ValidationError, s *jsonschema.Schema, kw, path string, value any) []problem {
	one := func(msg string) []problem {
		return []problem{{Violation: Violation{Path: path, Keyword: kw, Msg: msg}}}
	}
	switch kw {
	case "type":
		names := make([]string, len(s.Types))
		for i, t := range s.Types {
			names[i] = typePhrase(t)
		}
		return []problem{mismatch(path, kw, names, describe(value))}
	case "enum":
		return []problem{mismatch(path, kw, []string{enumPhrase(s.Enum)}, show(value))}
	case "const":
		if len(s.Constant) > 0 {
			return []problem{mismatch(path, kw, []string{show(s.Constant[0])}, show(value))}
		}
	case "required":
		obj, _ := value.(map[string]any)
		var out []problem
		for _, name := range s.Required {
			if _, ok := obj[name]; !ok {
				out = append(out, problem{Violation: Violation{
					Path: path + "/" + escapePointer(name), Keyword: kw, Msg: msgRequired,
				}})
			}
		}
		if len(out) > 0 {
			return out
		}
	case "additionalProperties":
		if obj, ok := value.(map[string]any); ok {
			if out := additional(path, s, obj); len(out) > 0 {
				return out
			}
		}
	case "format":
		return one(fmt.Sprintf("must be %s, got %s", formatPhrase(s.Format), show(value)))
	case "minimum":
		return one(fmt.Sprintf("must be >= %s, got %s", ratString(s.Minimum), show(value)))
	case "exclusiveMinimum":
		return one(fmt.Sprintf("must be > %s, got %s", ratString(s.ExclusiveMinimum), show(value)))
	case "maximum":
		return one(fmt.Sprintf("must be <= %s, got %s", ratString(s.Maximum), show(value)))
	case "exclusiveMaximum":
		return one(fmt.Sprintf("must be < %s, got %s", ratString(s.ExclusiveMaximum), show(value)))
	case "multipleOf":
		return one(fmt.Sprintf("must be a multiple of %s, got %s", ratString(s.MultipleOf), show(value)))
	case "minLength", "maxLength":
		str, _ := value.(string)
		n := utf8.RuneCountInString(str)
		bound, least := s.MinLength, "least"
		if kw == "maxLength" {
			bound, least = s.MaxLength, "most"
		}
		return one(fmt.Sprintf("must be at %s %d %s long, got %s (%d)", least, bound, plural(bound, "character", "characters"), show(value), n))
	case "pattern":
		if s.Pattern != nil {
			return one(fmt.Sprintf("must match the pattern %s, got %s", quote(s.Pattern.String()), show(value)))
		}
	case "minItems", "maxItems", "minProperties", "maxProperties":
		n := 0
		switch x := value.(type) {
		case []any:
			n = len(x)
		case map[string]any:
			n = len(x)
		}
		bound := map[string]int{"minItems": s.MinItems, "maxItems": s.MaxItems, "minProperties": s.MinProperties, "maxProperties": s.MaxProperties}[kw]
		least, unit, units := "least", "item", "items"
		if strings.HasPrefix(kw, "max") {
			least = "most"
		}
		if strings.HasSuffix(kw, "Properties") {
			unit, units = "property", "properties"
		}
		return one(fmt.Sprintf("must have at %s %d %s, got %d", least, bound, plural(bound, unit, units), n))
	case "uniqueItems":
		if i, j, ok := equalItems(value); ok {
			return one(fmt.Sprintf("items must be unique, but items %d and %d are equal", i, j))
		}
	case "additionalItems":
		if items, ok := s.Items.([]*jsonschema.Schema); ok {
			arr, _ := value.([]any)
			return one(fmt.Sprintf("must have at most %d %s, got %d", len(items), plural(len(items), "item", "items"), len(arr)))
		}
	case "minContains", "maxContains":
		matched := 0
		if arr, ok := value.([]any); ok && s.Contains != nil {
			for _, item := range arr {
				if s.Contains.Validate(item) == nil {
					matched++
				}
			}
		}
		bound, least := s.MinContains, "least"
		if kw == "maxContains" {
			bound, least = s.MaxContains, "most"
		}
		return one(fmt.Sprintf("must contain at %s %d %s matching \"contains\", got %d", least, bound, plural(bound, "item", "items"), matched))
	case "not":
		return one(fmt.Sprintf("must not match the \"not\" schema, got %s", show(value)))
	case "oneOf":
		var matched []int
		for i, alt := range s.OneOf {
			if alt.Validate(value) == nil {
				matched = append(matched, i)
			}
		}
		if len(matched) >= 2 {
			return one(fmt.Sprintf("must match exactly one oneOf alternative, but matches oneOf/%d and oneOf/%d", matched[0], matched[1]))
		}
	}
	return one(ve.Message)
}

// equalItems finds the first two equal items of an array, by JSON value
// (1 and 1.0 are equal), as uniqueItems compares them.
func equalItems(v any) (i, j int, ok bool) {
	arr, _ := v.([]any)
	for j := range arr {
		for i := range j {
			if sameJSON(arr[i], arr[j]) {
				return i, j, true
			}
		}
	}
	return 0, 0, false
}

// sameJSON compares normalised JSON values; numbers compare by value
// whatever their Go type.
func sameJSON(a, b any) bool {
	if ra, ok := ratOf(a); ok {
		rb, ok := ratOf(b)
		return ok && ra.Cmp(rb) == 0
	}
	switch a := a.(type) {
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !sameJSON(a[i], b[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, av := range a {
			bv, ok := b[k]
			if !ok || !sameJSON(av, bv) {
				return false
			}
		}
		return true
	}
	return a == b // nil, bool, string: comparable
}

// ratOf is the exact value of a number as normalize leaves it.
func ratOf(v any) (*big.Rat, bool) {
	switch x := v.(type) {
	case json.Number:
		return new(big.Rat).SetString(string(x))
	case int64:
		return new(big.Rat).SetInt64(x), true
	case uint64:
		return new(big.Rat).SetUint64(x), true
	case float64:
		return new(big.Rat).SetFloat64(x), !math.IsNaN(x) && !math.IsInf(x, 0)
	case float32:
		return new(big.Rat).SetFloat64(float64(x)), !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0)
	}
	return nil, false
}

// additional reports each property of obj that schema s has no place for,
// suggesting a declared property the name is close to.
func additional(path string, s *jsonschema.Schema, obj map[string]any) []problem {
	declared := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		if _, given := obj[name]; !given {
			declared = append(declared, name)
		}
	}
	slices.Sort(declared)
	var out []problem
	for name := range obj {
		if _, ok := s.Properties[name]; ok || matchesAny(s.PatternProperties, name) {
			continue
		}
		out = append(out, problem{Violation: Violation{
			Path: path, Keyword: "additionalProperties", Msg: unknownPropertyMsg(name, declared),
		}})
	}
	return out
}

func matchesAny(patterns map[*regexp.Regexp]*jsonschema.Schema, name string) bool {
	for re := range patterns {
		if re.MatchString(name) {
			return true
		}
	}
	return false
}

// unknownPropertyMsg is the message for a property the schema does not
// allow, with a suggestion from the declared ones.
func unknownPropertyMsg(name string, declared []string) string {
	msg := fmt.Sprintf("additional property %s is not allowed", quote(name))
	if s := Suggest(name, declared); s != "" {
		msg += fmt.Sprintf("; did you mean %s?", quote(s))
	}
	return msg
}

// dependency splits the location of a dependencies or dependentRequired
// failure ("…#/dependentRequired/a/0").
func dependency(loc string) (base, kw string, ok bool) {
	rest, idx := cutLastToken(loc)
	rest, _ = cutLastToken(rest)
	base, kw = cutLastToken(rest)
	if _, err := strconv.Atoi(idx); err != nil || (kw != "dependencies" && kw != "dependentRequired") {
		return "", "", false
	}
	return base, kw, true
}

// dependency names the missing property of a dependency failure, and the
// property that requires it.
func (f *formatter) dependency(base, kw, loc string) (name, dep string, ok bool) {
	s := f.index[base]
	rest, idx := cutLastToken(loc)
	_, depTok := cutLastToken(rest)
	dep = unescapePointer(pathUnescape(depTok))
	i, _ := strconv.Atoi(idx)
	var names []string
	if s != nil {
		if kw == "dependencies" {
			names, _ = s.Dependencies[dep].([]string)
		} else {
			names = s.DependentRequired[dep]
		}
	}
	if i < 0 || i >= len(names) {
		return "", "", false
	}
	return names[i], dep, true
}

// falseSchema words the failure of a schema that allows nothing, by where
// it sits.
func falseSchema(ve *jsonschema.ValidationError, path string) problem {
	parent, name := cutLastToken(path)
	name = unescapePointer(name)
	switch kw := lastStep(ve.KeywordLocation).keyword; kw {
	case "properties", "patternProperties", "additionalProperties", "unevaluatedProperties":
		return problem{Violation: Violation{Path: parent, Keyword: kw, Msg: fmt.Sprintf("property %s is not allowed", quote(name))}}
	case "items", "prefixItems", "additionalItems", "unevaluatedItems":
		return problem{Violation: Violation{Path: path, Keyword: kw, Msg: "no item is allowed at this position"}}
	}
	return problem{Violation: Violation{Path: path, Keyword: "false", Msg: "no value is allowed here"}}
}

// step is one keyword of a keyword location, with the property name or
// index that follows keywords such as properties and anyOf.
type step struct{ keyword, arg string }

// steps parses a keyword location ("/properties/a/anyOf/1/type") into
// keywords, so that a property named like a keyword is not taken for one.
func steps(kwLoc string) []step {
	if kwLoc == "" {
		return nil
	}
	toks := strings.Split(strings.TrimPrefix(kwLoc, "/"), "/")
	var out []step
	for i := 0; i < len(toks); i++ {
		st := step{keyword: toks[i]}
		next := i+1 < len(toks)
		switch {
		case isSchemaMapKeyword(st.keyword) && next:
			i++
			st.arg = toks[i]
		case isSchemaListKeyword(st.keyword) && next && isIndex(toks[i+1]):
			i++
			st.arg = toks[i]
		}
		out = append(out, st)
	}
	return out
}

func isIndex(tok string) bool {
	_, err := strconv.Atoi(tok)
	return err == nil
}

// lastStep is the last keyword of a keyword location.
func lastStep(kwLoc string) step {
	st := steps(kwLoc)
	if len(st) == 0 {
		return step{}
	}
	return st[len(st)-1]
}

// underPropertyNames reports whether a keyword location goes through
// propertyNames, so the failing value is a property's name.
func underPropertyNames(kwLoc string) bool {
	return slices.ContainsFunc(steps(kwLoc), func(s step) bool { return s.keyword == "propertyNames" })
}

// lookup finds the value at a library instance location: a JSON pointer
// whose tokens are also percent-encoded.
func (f *formatter) lookup(loc string) (any, bool) {
	cur := f.instance
	if loc == "" {
		return cur, true
	}
	for _, tok := range strings.Split(loc[1:], "/") {
		tok = unescapePointer(pathUnescape(tok))
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// pointer turns a library instance location into a plain JSON pointer.
func pointer(loc string) string { return pathUnescape(loc) }

func pathUnescape(s string) string {
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}

// cutLastToken splits a pointer or location at its last "/".
func cutLastToken(loc string) (rest, last string) {
	i := strings.LastIndexByte(loc, '/')
	if i < 0 {
		return "", loc
	}
	return loc[:i], loc[i+1:]
}

// finish sorts violations by path, then keyword and message, and drops
// repeats.
// MergeViolations combines the violations [ArgOptions.Mismatches] collected
// with those validation found in the same arguments, in path order. A
// mismatch replaces what validation says at its path: the kept text fails
// the type there, which the mismatch says better ("x" is not a number).
func MergeViolations(mismatches, found []Violation) []Violation {
	if len(mismatches) == 0 {
		return found
	}
	out := slices.Clone(mismatches)
	for _, v := range found {
		covered := false
		for _, m := range mismatches {
			covered = covered || v.Path == m.Path
		}
		if !covered {
			out = append(out, v)
		}
	}
	return finish(out)
}

// SplitFormat separates the violations of the "format" keyword, which JSON
// Schema 2020-12 makes an annotation (a caller warns of them, and fails
// only when asked to be strict), from the others.
func SplitFormat(vs []Violation) (others, format []Violation) {
	for _, v := range vs {
		if v.Keyword == "format" {
			format = append(format, v)
		} else {
			others = append(others, v)
		}
	}
	return others, format
}

func finish(vs []Violation) []Violation {
	slices.SortFunc(vs, func(a, b Violation) int {
		if c := comparePointers(a.Path, b.Path); c != 0 {
			return c
		}
		if c := strings.Compare(a.Keyword, b.Keyword); c != 0 {
			return c
		}
		return strings.Compare(a.Msg, b.Msg)
	})
	return slices.Compact(vs)
}

func dedupe(ps []problem) []problem {
	var out []problem
	seen := map[Violation]bool{}
	for _, p := range ps {
		if !seen[p.Violation] {
			seen[p.Violation] = true
			out = append(out, p)
		}
	}
	return out
}

// comparePointers orders JSON pointers token by token, array indexes by
// number, so /items/2 comes before /items/10.
func comparePointers(a, b string) int {
	if a == b {
		return 0
	}
	at, bt := strings.Split(a, "/"), strings.Split(b, "/")
	for i := 0; i < len(at) && i < len(bt); i++ {
		if at[i] == bt[i] {
			continue
		}
		ai, aerr := strconv.Atoi(at[i])
		bi, berr := strconv.Atoi(bt[i])
		if aerr == nil && berr == nil && ai != bi {
			return ai - bi
		}
		return strings.Compare(at[i], bt[i])
	}
	return len(at) - len(bt)
}

// typePhrase names a JSON Schema type in a sentence.
func typePhrase(t string) string {
	switch t {
	case "integer", "object", "array":
		return "an " + t
	case "null":
		return "null"
	}
	return "a " + t
}

// enumPhrase is what an enum allows, every member shown: a user choosing a
// value needs them all, and no "…" hides the one they meant.
func enumPhrase(members []any) string {
	if len(members) == 1 {
		return show(members[0])
	}
	shown := make([]string, len(members))
	for i, m := range members {
		shown[i] = show(m)
	}
	return "one of " + strings.Join(shown, ", ")
}

// formatPhrase is what a string of a format must be.
func formatPhrase(format string) string {
	switch format {
	case "email":
		return "an email address"
	case "uri":
		return "an absolute URI"
	case "date":
		return "a date (YYYY-MM-DD)"
	case "date-time":
		return "an RFC 3339 date-time (2006-01-02T15:04:05Z)"
	case "regex":
		return "a regular expression Go can run (RE2 syntax)"
	}
	return "a valid " + quote(format)
}

// orJoin joins phrases as "a, b or c".
func orJoin(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// ratString shows a number from the schema as its author likely wrote it.
func ratString(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// describe shows a value with its JSON type: `string "abc"`, `number 2.5`,
// `null`.
func describe(v any) string {
	if v == nil {
		return "null"
	}
	return jsonKind(v) + " " + show(v)
}

// jsonKind is the JSON type of a normalised value; every number is a
// "number".
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "number"
}

// show renders a value for a message as compact JSON, shortened to about 60
// characters.
func show(v any) string {
	if s, ok := v.(string); ok {
		return quote(s)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return truncate(strings.TrimSuffix(buf.String(), "\n"))
}

func truncate(s string) string {
	const limit = 60
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
