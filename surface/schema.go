package surface

import (
	"fmt"
	"slices"
	"strings"
)

// direction says who writes the values a schema describes, which decides
// whether a change narrows what a client may do or widens what it must
// handle.
type direction int

const (
	// input: the client writes (a tool's arguments). Narrowing what the
	// server accepts breaks clients; widening does not.
	input direction = iota
	// output: the server writes (structuredContent). Widening what the
	// server may send breaks clients that read it; narrowing does not.
	output
)

// handledKeywords are the schema keywords the rules judge; a change to
// any other is reported as [Other].
var handledKeywords = []string{"type", "enum", "properties", "required", "items", "description", "title"}

// schema compares two JSON Schemas at path (inputSchema, outputSchema,
// inputSchema.filters.tags[]), walking properties and items. A $ref is
// compared as a string, not followed.
func (d *differ) schema(path string, o, n map[string]any, dir direction) {
	if o == nil && n == nil {
		return
	}
	d.types(path, o, n, dir)
	d.enum(path, o, n, dir)
	d.properties(path, o, n, dir)
	if oi, ni := asObject(o["items"]), asObject(n["items"]); oi != nil || ni != nil {
		d.schema(path+"[]", oi, ni, dir)
	}
	if path != "inputSchema" && path != "outputSchema" {
		for _, f := range []string{"title", "description"} {
			if os, ns := str(o[f]), str(n[f]); os != ns {
				d.words(Description, path, f+" changed", os, ns)
			}
		}
	}
	_, oTypes := typeBranches(o)
	_, nTypes := typeBranches(n)
	for _, kw := range unionKeys(o, n) {
		if slices.Contains(handledKeywords, kw) {
			continue
		}
		if (kw == "anyOf" || kw == "oneOf") && oTypes && nTypes {
			continue // judged as a union of types
		}
		ov, nv := canon(o[kw]), canon(n[kw])
		if ov == nv {
			continue
		}
		c := d.add(Other, path, fmt.Sprintf("keyword %s changed", kw))
		c.Old, c.New = unset(ov), unset(nv)
		if kw == "$ref" || kw == "$defs" || kw == "definitions" {
			c.Note = "$ref is not followed: compare the definitions it names by hand"
		}
	}
}

// typeBranches returns the types an anyOf or oneOf of plain {"type": …}
// branches allows, and whether s has such a union (or none at all).
func typeBranches(s map[string]any) ([]string, bool) {
	var types []string
	for _, kw := range []string{"anyOf", "oneOf"} {
		branches, ok := s[kw].([]any)
		if !ok {
			if s[kw] != nil {
				return nil, false
			}
			continue
		}
		for _, b := range branches {
			obj := asObject(b)
			t, isType := typeList(obj["type"])
			if !isType {
				return nil, false
			}
			for k := range obj {
				if k != "type" && k != "description" && k != "title" {
					return nil, false
				}
			}
			types = append(types, t...)
		}
	}
	return types, true
}

// typeList reads a "type" keyword: a string or an array of strings.
func typeList(v any) ([]string, bool) {
	switch v := v.(type) {
	case string:
		return []string{v}, true
	case []any:
		var out []string
		for _, t := range v {
			s, ok := t.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}

// typeSet is the set of JSON types a schema allows, nil for any: its
// "type", else the union of its anyOf/oneOf branches' types.
func typeSet(s map[string]any) []string {
	t, ok := typeList(s["type"])
	if !ok {
		if branches, plain := typeBranches(s); plain && len(branches) > 0 {
			t = branches
		}
	}
	if len(t) == 0 {
		return nil
	}
	slices.Sort(t)
	return slices.Compact(t)
}

// covers reports whether every value of type t is one of types: an
// integer is a number.
func covers(types []string, t string) bool {
	if types == nil {
		return true
	}
	return slices.Contains(types, t) || (t == "integer" && slices.Contains(types, "number"))
}

// subset reports whether every value a allows b allows too.
func subset(a, b []string) bool {
	if b == nil {
		return true
	}
	if a == nil {
		return false
	}
	for _, t := range a {
		if !covers(b, t) {
			return false
		}
	}
	return true
}

func typeName(types []string) string {
	if types == nil {
		return "any"
	}
	return strings.Join(types, "|")
}

func (d *differ) types(path string, o, n map[string]any, dir direction) {
	ot, nt := typeSet(o), typeSet(n)
	oInN, nInO := subset(ot, nt), subset(nt, ot)
	if oInN && nInO {
		return
	}
	var what string
	var class Class
	switch {
	case nInO: // new ⊂ old
		what = "type narrowed"
		class = map[direction]Class{input: Breaking, output: Compatible}[dir]
	case oInN: // old ⊂ new
		what = "type widened"
		class = map[direction]Class{input: Compatible, output: Breaking}[dir]
	default:
		what, class = "type changed", Breaking
	}
	d.words(class, path, what, typeName(ot), typeName(nt))
}

func (d *differ) enum(path string, o, n map[string]any, dir direction) {
	oe, oHas := o["enum"].([]any)
	ne, nHas := n["enum"].([]any)
	switch {
	case !oHas && !nHas:
		return
	case !oHas:
		class := map[direction]Class{input: Breaking, output: Compatible}[dir]
		d.words(class, path, "now restricted to an enum", "any", enumWords(ne))
		return
	case !nHas:
		class := map[direction]Class{input: Compatible, output: Breaking}[dir]
		d.words(class, path, "no longer restricted to an enum", enumWords(oe), "any")
		return
	}
	os, ns := enumSet(oe), enumSet(ne)
	var removed, added []string
	for _, v := range os {
		if !slices.Contains(ns, v) {
			removed = append(removed, v)
		}
	}
	for _, v := range ns {
		if !slices.Contains(os, v) {
			added = append(added, v)
		}
	}
	if len(removed) > 0 {
		class := map[direction]Class{input: Breaking, output: Compatible}[dir]
		d.add(class, path, "enum value removed: "+strings.Join(removed, ", "))
	}
	if len(added) > 0 {
		class := map[direction]Class{input: Compatible, output: Breaking}[dir]
		d.add(class, path, "enum value added: "+strings.Join(added, ", "))
	}
}

func enumSet(values []any) []string {
	out := make([]string, 0, len(values))
	for _, v := range values {
		out = append(out, canon(v))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func enumWords(values []any) string { return strings.Join(enumSet(values), ", ") }

func required(s map[string]any) []string {
	list, _ := s["required"].([]any)
	var out []string
	for _, r := range list {
		if name, ok := r.(string); ok {
			out = append(out, name)
		}
	}
	return out
}

func (d *differ) properties(path string, o, n map[string]any, dir direction) {
	op, np := asObject(o["properties"]), asObject(n["properties"])
	oreq, nreq := required(o), required(n)
	noun := map[direction]string{input: "argument", output: "output field"}[dir]
	for _, name := range unionKeys(op, np) {
		p := path + "." + name
		_, inOld := op[name]
		_, inNew := np[name]
		wasReq, isReq := slices.Contains(oreq, name), slices.Contains(nreq, name)
		switch {
		case !inNew:
			d.add(Breaking, p, fmt.Sprintf("%s %q removed", noun, name))
			continue
		case !inOld && dir == input && isReq:
			d.add(Breaking, p, fmt.Sprintf("new required %s %q", noun, name))
			continue
		case !inOld && dir == input:
			d.add(Compatible, p, fmt.Sprintf("new optional %s %q", noun, name))
			continue
		case !inOld:
			d.add(Compatible, p, fmt.Sprintf("new %s %q", noun, name))
			continue
		}
		switch {
		case !wasReq && isReq:
			class := map[direction]Class{input: Breaking, output: Compatible}[dir]
			d.add(class, p, fmt.Sprintf("%s %q is now required", noun, name))
		case wasReq && !isReq:
			class := map[direction]Class{input: Compatible, output: Breaking}[dir]
			d.add(class, p, fmt.Sprintf("%s %q is now optional", noun, name))
		}
		d.schema(p, asObject(op[name]), asObject(np[name]), dir)
	}
}
