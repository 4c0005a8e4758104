package surface

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Class is how a change affects the server's clients.
type Class string

// The classes of change, in report order.
const (
	// Breaking: a client that worked with the old surface may fail with
	// the new one (an item or argument removed, a new required argument,
	// a type narrowed, an enum value removed, an output field removed or
	// newly optional).
	Breaking Class = "breaking"
	// Compatible: a client of the old surface keeps working (a new item,
	// a new optional argument, a type widened, an enum value added).
	Compatible Class = "compatible"
	// Description: a description, title, annotation or the server's
	// instructions changed. Clients keep working, but the model reads
	// these words: a description changed after it was reviewed is how a
	// tool-poisoning "rug pull" happens, so each one deserves a look.
	Description Class = "description"
	// Other: anything else that changed (server version, revision, era,
	// capabilities, a schema keyword the rules do not judge, a $ref).
	Other Class = "other"
)

// Classes returns the classes in report order.
func Classes() []Class { return []Class{Breaking, Compatible, Description, Other} }

// Change is one classified difference between two snapshots.
type Change struct {
	Class Class `json:"class"`
	// Kind is tool, resource, template, prompt or server.
	Kind string `json:"kind"`
	// Item is the item's key (empty for the server).
	Item string `json:"item,omitempty"`
	// Path names the place inside the item: inputSchema.filters.tags[],
	// outputSchema.sum, arguments.code, annotations.readOnlyHint.
	Path string `json:"path,omitempty"`
	// What says what changed, in words.
	What string `json:"what"`
	// Old and New are the values before and after, when they are short
	// words (descriptions, titles, versions).
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"`
	// Note explains a limit of the classification ($ref not followed).
	Note string `json:"note,omitempty"`
}

// Diff classifies every change from old to new, in report order: by class,
// then kind, item and path.
func Diff(old, new *Snapshot) []Change {
	d := &differ{}
	d.server(old, new)
	for _, k := range Kinds() {
		d.kind(k, *old.items(k), *new.items(k))
	}
	order := map[Class]int{}
	for i, c := range Classes() {
		order[c] = i
	}
	kinds := map[string]int{"server": 0, "tool": 1, "resource": 2, "template": 3, "prompt": 4}
	slices.SortStableFunc(d.changes, func(a, b Change) int {
		if c := order[a.Class] - order[b.Class]; c != 0 {
			return c
		}
		if c := kinds[a.Kind] - kinds[b.Kind]; c != 0 {
			return c
		}
		if c := strings.Compare(a.Item, b.Item); c != 0 {
			return c
		}
		return strings.Compare(a.Path, b.Path)
	})
	return d.changes
}

// Count returns the number of changes of each class.
func Count(changes []Change) map[Class]int {
	n := map[Class]int{}
	for _, c := range changes {
		n[c.Class]++
	}
	return n
}

type differ struct {
	changes []Change
	// kindName and item name the item being compared.
	kindName, item string
}

func (d *differ) add(class Class, path, what string) *Change {
	d.changes = append(d.changes, Change{Class: class, Kind: d.kindName, Item: d.item, Path: path, What: what})
	return &d.changes[len(d.changes)-1]
}

func (d *differ) words(class Class, path, what, old, new string) {
	c := d.add(class, path, what)
	c.Old, c.New = old, new
}

func (d *differ) server(old, new *Snapshot) {
	d.kindName, d.item = "server", ""
	for _, f := range []struct{ name, old, new string }{
		{"name", old.Server.Name, new.Server.Name},
		{"version", old.Server.Version, new.Server.Version},
		{"protocolVersion", old.ProtocolVersion, new.ProtocolVersion},
		{"era", old.Era, new.Era},
	} {
		if f.old != f.new {
			d.words(Other, f.name, f.name+" changed", f.old, f.new)
		}
	}
	if old.Server.Title != new.Server.Title {
		d.words(Description, "title", "title changed", old.Server.Title, new.Server.Title)
	}
	if old.Server.Description != new.Server.Description {
		d.words(Description, "description", "description changed", old.Server.Description, new.Server.Description)
	}
	if old.Server.Instructions != new.Server.Instructions {
		d.words(Description, "instructions", "instructions changed (the model reads them: review the new text)", old.Server.Instructions, new.Server.Instructions)
	}
	oc, nc := decodeObject(old.Capabilities), decodeObject(new.Capabilities)
	for _, name := range unionKeys(oc, nc) {
		ov, inOld := oc[name]
		nv, inNew := nc[name]
		switch {
		case !inNew:
			d.add(Other, "capabilities."+name, "capability "+name+" no longer declared")
		case !inOld:
			d.add(Other, "capabilities."+name, "capability "+name+" newly declared")
		case canon(ov) != canon(nv):
			d.words(Other, "capabilities."+name, "capability "+name+" changed", canon(ov), canon(nv))
		}
	}
}

func (d *differ) kind(k Kind, old, new []Item) {
	byKey := func(items []Item) map[string]Item {
		m := make(map[string]Item, len(items))
		for _, it := range items {
			if _, dup := m[it.Key]; !dup {
				m[it.Key] = it
			}
		}
		return m
	}
	om, nm := byKey(old), byKey(new)
	for _, key := range unionKeys(om, nm) {
		d.kindName, d.item = k.Name, key
		o, inOld := om[key]
		n, inNew := nm[key]
		switch {
		case !inNew:
			d.add(Breaking, "", k.Name+" removed")
		case !inOld:
			d.add(Compatible, "", "new "+k.Name)
		case o.SHA256 != n.SHA256:
			before := len(d.changes)
			d.item2(k, decodeObject(o.Definition), decodeObject(n.Definition))
			if len(d.changes) == before {
				// The rules found nothing, yet the bytes differ: say so
				// rather than hide it.
				d.words(Other, "", "definition changed", o.SHA256, n.SHA256)
			}
		}
	}
}

// item2 compares the definitions of one item of kind k.
func (d *differ) item2(k Kind, o, n map[string]any) {
	for _, f := range []string{"title", "description", "name"} {
		if f == "name" && k.KeyField == "name" {
			continue
		}
		os, ns := str(o[f]), str(n[f])
		if os == ns {
			continue
		}
		what := f + " changed"
		if f == "description" && k.Name == "tool" {
			what = "description changed (the model reads it: review the new text, a changed description is how tool poisoning slips in)"
		}
		d.words(Description, f, what, os, ns)
	}
	d.annotations(asObject(o["annotations"]), asObject(n["annotations"]))
	switch k.Name {
	case "tool":
		d.schema("inputSchema", asObject(o["inputSchema"]), asObject(n["inputSchema"]), input)
		os, ns := asObject(o["outputSchema"]), asObject(n["outputSchema"])
		switch {
		case os != nil && ns == nil:
			d.add(Breaking, "outputSchema", "outputSchema removed: structuredContent is no longer promised")
		case os == nil && ns != nil:
			d.add(Compatible, "outputSchema", "outputSchema added")
		case os != nil:
			d.schema("outputSchema", os, ns, output)
		}
		if canon(o["execution"]) != canon(n["execution"]) {
			d.words(Other, "execution", "execution changed", canon(o["execution"]), canon(n["execution"]))
		}
	case "prompt":
		d.promptArgs(o["arguments"], n["arguments"])
	default:
		for _, f := range []string{"mimeType", "size"} {
			if canon(o[f]) != canon(n[f]) {
				d.words(Other, f, f+" changed", canon(o[f]), canon(n[f]))
			}
		}
	}
}

func (d *differ) annotations(o, n map[string]any) {
	for _, name := range unionKeys(o, n) {
		ov, nv := canon(o[name]), canon(n[name])
		if ov != nv {
			d.words(Description, "annotations."+name, "annotation "+name+" changed", unset(ov), unset(nv))
		}
	}
}

func unset(s string) string {
	if s == "null" {
		return "unset"
	}
	return s
}

type promptArg struct {
	required bool
	def      map[string]any
}

func (d *differ) promptArgs(o, n any) {
	args := func(v any) map[string]promptArg {
		m := map[string]promptArg{}
		list, _ := v.([]any)
		for _, a := range list {
			obj := asObject(a)
			name := str(obj["name"])
			if _, dup := m[name]; !dup {
				req, _ := obj["required"].(bool)
				m[name] = promptArg{required: req, def: obj}
			}
		}
		return m
	}
	om, nm := args(o), args(n)
	for _, name := range unionKeys(om, nm) {
		path := "arguments." + name
		oa, inOld := om[name]
		na, inNew := nm[name]
		switch {
		case !inNew:
			d.add(Breaking, path, fmt.Sprintf("argument %q removed", name))
		case !inOld && na.required:
			d.add(Breaking, path, fmt.Sprintf("new required argument %q", name))
		case !inOld:
			d.add(Compatible, path, fmt.Sprintf("new optional argument %q", name))
		default:
			if !oa.required && na.required {
				d.add(Breaking, path, fmt.Sprintf("argument %q is now required", name))
			} else if oa.required && !na.required {
				d.add(Compatible, path, fmt.Sprintf("argument %q is now optional", name))
			}
			for _, f := range []string{"title", "description"} {
				if os, ns := str(oa.def[f]), str(na.def[f]); os != ns {
					d.words(Description, path, fmt.Sprintf("%s of argument %q changed", f, name), os, ns)
				}
			}
		}
	}
}

func decodeObject(raw json.RawMessage) map[string]any {
	var v map[string]any
	_ = json.Unmarshal(raw, &v)
	return v
}

func asObject(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// canon is the canonical JSON of a decoded value, "null" for nil.
func canon(v any) string {
	if v == nil {
		return "null"
	}
	if raw, ok := v.(json.RawMessage); ok {
		b, err := Canonical(raw)
		if err != nil {
			return string(raw)
		}
		return string(b)
	}
	b, err := marshal(v, "")
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// unionKeys returns the keys of a and b, sorted.
func unionKeys[V any](a, b map[string]V) []string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}
