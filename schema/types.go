package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// shape is what the text of an input schema says about its properties,
// read without interpreting any subschema: their names in the order the
// text lists them (which a decoded map loses) and the required names.
type shape struct {
	names    []string
	props    map[string]json.RawMessage
	required []string
}

// parseShape reads an input schema's properties and required names. An
// empty or null schema has no properties.
func parseShape(raw json.RawMessage) (*shape, error) {
	s := &shape{}
	trimmed := bytes.TrimSpace(raw)
	if isNull(trimmed) {
		return s, nil
	}
	if err := json.Unmarshal(trimmed, new(json.RawMessage)); err != nil {
		return nil, fmt.Errorf("input schema: invalid JSON: %w", err)
	}
	var root map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &root); err != nil {
		return nil, fmt.Errorf("input schema: want a JSON object, got %s", RawKind(trimmed))
	}
	if p, ok := root["properties"]; ok && !isNull(p) {
		names, props, err := orderedObject(p)
		if err != nil {
			return nil, fmt.Errorf(`input schema: "properties": %w`, err)
		}
		s.names, s.props = names, props
	}
	if r, ok := root["required"]; ok && !isNull(r) {
		if err := json.Unmarshal(r, &s.required); err != nil {
			return nil, errors.New(`input schema: "required" is not an array of strings`)
		}
	}
	return s, nil
}

// orderedObject decodes a JSON object keeping its keys in the order of the
// text, which map decoding would lose. A repeated key keeps its first position
// and its last value, as encoding/json does.
func orderedObject(raw json.RawMessage) ([]string, map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, fmt.Errorf("want a JSON object, got %s", RawKind(raw))
	}
	var keys []string
	vals := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, nil, fmt.Errorf("unexpected %v in object", tok)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		if _, dup := vals[key]; !dup {
			keys = append(keys, key)
		}
		vals[key] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, err
	}
	return keys, vals, nil
}

// argView is the one reading of a schema that typing key=value arguments
// and listing properties need: each property's compiled schema, whose
// references the library has already resolved. A Schema builds it once.
type argView struct {
	props map[string]*jsonschema.Schema // nil for a schema that did not compile
	root  *jsonschema.Schema
	// shapes holds the objectShape of each subschema a key was resolved
	// or checked in (*jsonschema.Schema → *objectShape).
	shapes sync.Map
}

// view returns the schema's argView, building it on first use.
func (s *Schema) view() *argView {
	s.viewOnce.Do(func() {
		s.args = &argView{props: s.compiled.Properties, root: s.compiled}
	})
	return s.args
}

// propertyType is the type of the named property; unconstrained when the
// schema does not declare it (or did not compile).
func (v *argView) propertyType(name string) valueType {
	if v == nil {
		return valueType{}
	}
	return typeOf(v.props[name], 0)
}

// description is the property's description, or that of the schema its
// $ref points to.
func (v *argView) description(name string) string {
	if v == nil {
		return ""
	}
	for s, depth := v.props[name], 0; s != nil && depth <= maxRefDepth; s, depth = s.Ref, depth+1 {
		if s.Description != "" {
			return s.Description
		}
	}
	return ""
}

// maxRefDepth bounds how many $refs typing follows in a row; the library
// has resolved them, but a chain may loop back on itself.
const maxRefDepth = 16

// valueType is what typing a key=value argument needs from a property's
// schema. With neither types nor enum the property is unconstrained.
type valueType struct {
	types []string // the "type" keyword (or a union's), in declared order, without repeats
	enum  []any    // enum or const members, when there is no type
}

// isSimpleType reports whether n is a JSON Schema type name; others are
// ignored for typing. This and the other keyword sets of the package are
// switches, not maps, so that start-up builds nothing for them.
func isSimpleType(n string) bool {
	switch n {
	case "string", "integer", "number", "boolean", "null", "array", "object":
		return true
	}
	return false
}

// typeOf reads the type a compiled schema allows: its "type", else what its
// $ref, anyOf/oneOf, a lone allOf, enum or const allow.
func typeOf(s *jsonschema.Schema, depth int) valueType {
	if s == nil || s.Always != nil || depth > maxRefDepth {
		return valueType{} // true, false, or a loop: nothing to type by
	}
	if len(s.Types) > 0 {
		return valueType{types: appendNew(nil, s.Types...)}
	}
	if s.Ref != nil {
		return typeOf(s.Ref, depth+1)
	}
	for _, branches := range [][]*jsonschema.Schema{s.AnyOf, s.OneOf} {
		if len(branches) > 0 {
			return union(branches, depth)
		}
	}
	if len(s.AllOf) == 1 {
		return typeOf(s.AllOf[0], depth+1)
	}
	if len(s.Enum) > 0 {
		return valueType{enum: s.Enum}
	}
	if len(s.Constant) > 0 {
		return valueType{enum: s.Constant[:1]}
	}
	return valueType{}
}

// union combines the branches of anyOf or oneOf. One unconstrained branch
// makes the whole union unconstrained; an enum branch contributes the types
// of its members.
func union(branches []*jsonschema.Schema, depth int) valueType {
	var types []string
	for _, b := range branches {
		bt := typeOf(b, depth+1)
		if bt.unconstrained() {
			return valueType{}
		}
		types = appendNew(types, bt.names()...)
	}
	return valueType{types: types}
}

func (t valueType) unconstrained() bool { return len(t.types) == 0 && len(t.enum) == 0 }

// names are the type names of t: the declared ones, or those of the enum
// members.
func (t valueType) names() []string {
	if len(t.types) > 0 {
		return t.types
	}
	var names []string
	for _, m := range t.enum {
		names = appendNew(names, kindOf(m))
	}
	return names
}

// String is how a type is shown: "integer", "string|null", "" when
// unconstrained.
func (t valueType) String() string { return strings.Join(t.names(), "|") }

// textOnly reports whether every value of t is kept as the given text, so a
// file's contents need no trimming.
func (t valueType) textOnly() bool {
	for _, n := range t.names() {
		if n != "string" && isSimpleType(n) {
			return false
		}
	}
	return true
}

func appendNew(list []string, names ...string) []string {
	for _, n := range names {
		found := false
		for _, have := range list {
			found = found || have == n
		}
		if !found {
			list = append(list, n)
		}
	}
	return list
}

// coerceOrder is the order in which a union's types are tried; string, the
// fallback, comes last.
var coerceOrder = []string{"integer", "number", "boolean", "null", "array", "object"}

// coerce types the text of a key=value argument. asText reports that the
// result is the text itself, not a value parsed from it or an enum member.
func coerce(text string, t valueType) (v any, asText bool, err error) {
	if len(t.types) == 0 {
		if len(t.enum) > 0 {
			return coerceEnum(text, t.enum)
		}
		return text, true, nil
	}
	allowed := map[string]bool{}
	for _, n := range t.types {
		allowed[n] = isSimpleType(n)
	}
	var tried []string
	var firstErr error
	for _, n := range coerceOrder {
		if !allowed[n] {
			continue
		}
		v, err := parseAs(n, text)
		if err == nil {
			return v, false, nil
		}
		tried = append(tried, n)
		if firstErr == nil {
			firstErr = err
		}
	}
	switch {
	case allowed["string"] || len(tried) == 0:
		return text, true, nil
	case len(tried) == 1:
		return nil, false, firstErr
	}
	return nil, false, fmt.Errorf("%s is not %s", quote(text), orList(tried))
}

// parseAs parses text as a value of the simple type name.
func parseAs(name, text string) (any, error) {
	switch name {
	case "integer":
		if !isJSONNumber(text) || strings.ContainsAny(text, ".eE") {
			return nil, fmt.Errorf("%s is not an integer", quote(text))
		}
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s is out of range for a 64-bit integer", quote(text))
		}
		return n, nil
	case "number":
		if !isJSONNumber(text) {
			return nil, fmt.Errorf("%s is not a number", quote(text))
		}
		return json.Number(text), nil
	case "boolean":
		switch {
		case strings.EqualFold(text, "true"), text == "1":
			return true, nil
		case strings.EqualFold(text, "false"), text == "0":
			return false, nil
		}
		return nil, fmt.Errorf("%s is not a boolean (use true, false, 1 or 0)", quote(text))
	case "null":
		if text == "null" {
			return nil, nil
		}
		return nil, fmt.Errorf("%s is not null", quote(text))
	case "array", "object":
		v, err := decodeJSON([]byte(text))
		if err != nil {
			return nil, fmt.Errorf("%s is not %s: %w", quote(text), article(name), err)
		}
		if k := kindOf(v); k != name {
			return nil, fmt.Errorf("%s is not %s (got %s)", quote(text), article(name), article(k))
		}
		return v, nil
	}
	return nil, fmt.Errorf("unknown type %q", name)
}

// coerceEnum matches text against the members of an enum (or a const). An
// enum of strings keeps the text, leaving membership to validation; any other
// enum needs a match, tried first as JSON, then as a string.
func coerceEnum(text string, members []any) (any, bool, error) {
	allStrings := true
	for _, m := range members {
		_, ok := m.(string)
		allStrings = allStrings && ok
	}
	if allStrings {
		return text, true, nil
	}
	if v, err := decodeJSON([]byte(text)); err == nil {
		for _, m := range members {
			if sameJSON(v, m) {
				return m, false, nil
			}
		}
	}
	for _, m := range members {
		if m == text {
			return m, false, nil
		}
	}
	shown := make([]string, len(members))
	for i, m := range members {
		b, _ := json.Marshal(m)
		shown[i] = string(b)
	}
	return nil, false, fmt.Errorf("%s is not one of %s", quote(text), strings.Join(shown, ", "))
}

// article names a type in a sentence.
func article(n string) string {
	switch n {
	case "string":
		return "a string"
	case "integer":
		return "an integer"
	case "number":
		return "a number"
	case "boolean":
		return "a boolean"
	case "null":
		return "null"
	case "array":
		return "a JSON array"
	case "object":
		return "a JSON object"
	}
	return ""
}

// orList joins type names as "an integer, a number or null".
func orList(names []string) string {
	words := make([]string, len(names))
	for i, n := range names {
		words[i] = article(n)
	}
	if len(words) == 1 {
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// decodeJSON decodes exactly one JSON value, numbers as json.Number so that
// they go back on the wire as written.
func decodeJSON(data []byte) (any, error) {
	// Unmarshal checks the whole input, trailing data included, with
	// encoding/json's usual messages; the decoder then keeps numbers exact.
	if err := json.Unmarshal(data, new(json.RawMessage)); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// kindOf is the JSON Schema type name of a decoded value; a number whose
// value is whole is an integer, as JSON Schema defines it.
func kindOf(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if r, ok := new(big.Rat).SetString(string(v)); ok && r.IsInt() {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// RawKind is the JSON type of a JSON text by its first byte after white
// space ("number" for any number), "nothing" for an empty text.
func RawKind(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

func isNull(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// isJSONNumber reports whether s is a number as JSON writes it: no "+", no
// leading zeros, digits on both sides of a ".".
func isJSONNumber(s string) bool {
	i := 0
	digits := func() int {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - start
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}
