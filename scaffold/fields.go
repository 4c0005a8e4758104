package scaffold

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Field is one property of a tool's input or output object.
type Field struct {
	// Name is the JSON property name.
	Name string `json:"name"`
	// Type is string, integer, number or boolean, or one of them followed
	// by "[]" for an array.
	Type string `json:"type"`
	// Required marks an input property the caller must send. Output
	// properties are always present.
	Required bool `json:"required,omitempty"`
	// Description becomes the property's description in the schema.
	Description string `json:"description,omitempty"`
}

// scalarTypes are the JSON Schema types a field may have, alone or as the
// items of an array.
var scalarTypes = []string{"string", "integer", "number", "boolean"}

// fieldNameRE (compiled on first use, to keep start-up free of it) is what a property name may look like: it becomes a Go field
// name and a TypeScript object key, so it starts with a letter or "_".
var fieldNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]{0,63}$`) })

// jsonschemaTagRE matches descriptions jsonschema-go refuses in a struct
// tag ("WORD=..." is reserved for future options).
var jsonschemaTagRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^[^ \t\n]*=") })

// ParseField parses a --arg or --output value:
// name:type[:required][:description], where type is string, integer,
// number or boolean, optionally followed by [] for an array
// ("tags:string[]:required:Labels to add"). "optional" may stand where
// "required" does.
func ParseField(spec string) (Field, error) {
	parts := strings.SplitN(spec, ":", 3)
	if len(parts) < 2 {
		return Field{}, fmt.Errorf("%q is not name:type[:required][:description] (e.g. city:string:required:The city)", spec)
	}
	f := Field{Name: parts[0], Type: parts[1]}
	if len(parts) == 3 {
		rest := parts[2]
		flag, desc, _ := strings.Cut(rest, ":")
		switch flag {
		case "required":
			f.Required, f.Description = true, desc
		case "optional":
			f.Description = desc
		default:
			f.Description = rest
		}
	}
	if err := f.check(); err != nil {
		return Field{}, fmt.Errorf("%q: %w", spec, err)
	}
	return f, nil
}

func (f Field) check() error {
	if !fieldNameRE().MatchString(f.Name) {
		return fmt.Errorf("property name %q must start with a letter or \"_\" and use only A-Z, a-z, 0-9, \"_\", \"-\" and \".\" (at most 64 characters)", f.Name)
	}
	if len(words(f.Name)) == 0 {
		return fmt.Errorf("property name %q has no letter or digit to make a field name from", f.Name)
	}
	if f.Name == "__proto__" {
		// A JavaScript object literal would set its prototype instead.
		return fmt.Errorf("property name %q cannot be a key of a TypeScript object literal", f.Name)
	}
	if !slices.Contains(scalarTypes, strings.TrimSuffix(f.Type, "[]")) {
		return fmt.Errorf("property %q has type %q; use string, integer, number or boolean, or an array of one of them such as string[]", f.Name, f.Type)
	}
	if jsonschemaTagRE().MatchString(f.Description) {
		return fmt.Errorf("the description of property %q must not start with WORD= (the Go SDK's jsonschema tags reserve that form)", f.Name)
	}
	return nil
}

// array reports whether the field is an array, and the type of its items.
func (f Field) array() (bool, string) {
	item, ok := strings.CutSuffix(f.Type, "[]")
	return ok, item
}

// checkFields checks a whole object's fields: each valid, no name twice, and
// no two names that would make the same Go field name.
func checkFields(kind string, fields []Field) error {
	seen := map[string]string{}
	for _, f := range fields {
		if err := f.check(); err != nil {
			return err
		}
		id := pascal(f.Name, "F")
		if other, ok := seen[id]; ok {
			if other == f.Name {
				return fmt.Errorf("%s property %q is given twice", kind, f.Name)
			}
			return fmt.Errorf("%s properties %q and %q would both be the Go field %s; rename one", kind, other, f.Name, id)
		}
		seen[id] = f.Name
	}
	return nil
}

// FieldsFromSchema reads the input fields of a tool from a JSON Schema: an
// object with properties, each of type string, integer, number or boolean,
// or an array of those (items.type); "required" and "description" are
// honoured. Keywords the generated code cannot express (enum, minimum,
// format, default, …) are listed in the returned warnings.
func FieldsFromSchema(data []byte) ([]Field, []string, error) {
	var root struct {
		Type       any             `json:"type"`
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(data, &root); err != nil {
		return nil, nil, fmt.Errorf("not a JSON Schema object: %w", err)
	}
	if root.Type != nil && root.Type != "object" {
		return nil, nil, fmt.Errorf(`the schema has type %v; a tool's input schema has type "object"`, root.Type)
	}
	names, props, err := orderedObject(root.Properties)
	if err != nil {
		return nil, nil, fmt.Errorf("reading properties: %w", err)
	}
	if len(names) == 0 {
		return nil, nil, fmt.Errorf(`the schema has no "properties"; give an object schema such as {"type":"object","properties":{"city":{"type":"string"}}}`)
	}
	for _, r := range root.Required {
		if !slices.Contains(names, r) {
			return nil, nil, fmt.Errorf("%q is required but is not among the properties", r)
		}
	}
	var (
		fields   []Field
		warnings []string
	)
	for _, name := range names {
		var p map[string]any
		if err := json.Unmarshal(props[name], &p); err != nil {
			return nil, nil, fmt.Errorf("property %q is not a schema object: %w", name, err)
		}
		typ, err := schemaType(name, p)
		if err != nil {
			return nil, nil, err
		}
		f := Field{Name: name, Type: typ, Required: slices.Contains(root.Required, name)}
		if d, ok := p["description"].(string); ok {
			f.Description = d
		}
		if err := f.check(); err != nil {
			return nil, nil, err
		}
		var ignored []string
		for k := range p {
			switch k {
			case "type", "description", "items", "title", "$comment":
			default:
				ignored = append(ignored, k)
			}
		}
		if items, ok := p["items"].(map[string]any); ok {
			for k := range items {
				if k != "type" && k != "description" {
					ignored = append(ignored, "items."+k)
				}
			}
		}
		if len(ignored) > 0 {
			slices.Sort(ignored)
			warnings = append(warnings, fmt.Sprintf("property %q: ignoring %s (the generated types carry only type, description and required; add such checks in the handler)", name, strings.Join(ignored, ", ")))
		}
		fields = append(fields, f)
	}
	return fields, warnings, nil
}

// schemaType maps a property schema to a field type.
func schemaType(name string, p map[string]any) (string, error) {
	t, _ := p["type"].(string)
	if t == "array" {
		items, _ := p["items"].(map[string]any)
		it, _ := items["type"].(string)
		if !slices.Contains(scalarTypes, it) {
			return "", fmt.Errorf("property %q is an array whose items have type %v; supported items are string, integer, number and boolean", name, items["type"])
		}
		return it + "[]", nil
	}
	if !slices.Contains(scalarTypes, t) {
		return "", fmt.Errorf("property %q has type %v; supported types are string, integer, number, boolean and arrays of them", name, p["type"])
	}
	return t, nil
}

// orderedObject decodes a JSON object keeping the order of its keys, so
// the generated fields follow the schema file.
func orderedObject(data json.RawMessage) ([]string, map[string]json.RawMessage, error) {
	if len(data) == 0 {
		return nil, nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, fmt.Errorf("properties is not an object")
	}
	var names []string
	values := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		key := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		if _, dup := values[key]; !dup {
			names = append(names, key)
		}
		values[key] = v
	}
	return names, values, nil
}
