package schema

import "encoding/json"

// Property describes one argument of a tool's input schema, as [Properties]
// lists it.
type Property struct {
	// Name is the property's key.
	Name string `json:"name"`
	// Type is the JSON Schema type, unions joined with "|" ("integer",
	// "string|null"), read through $ref, anyOf/oneOf and enum. It is empty
	// when the schema does not constrain the type, or does not compile.
	Type string `json:"type,omitempty"`
	// Required reports whether the schema's "required" lists the property.
	Required bool `json:"required"`
	// Description is the property's description, or that of its $ref target.
	Description string `json:"description,omitempty"`
}

// Properties lists the properties of an input schema for display: the
// required ones first, then the others, each group in the order the schema
// text lists them. A name in "required" that has no property schema is listed
// too, without a type. An empty or null schema has no properties; a schema
// that is not a JSON object, or whose "properties" or "required" is
// malformed, is an error. Types and descriptions come from the compiled
// schema (see [Compile]), as arguments are typed: a schema that does not
// compile lists its properties without types.
//
// When every property states its "type" outright (the common case), the
// list is read from the schema's text and nothing is compiled: `mcpctl list`
// shows many tools and calls none.
func Properties(inputSchema json.RawMessage) ([]Property, error) {
	sh, err := parseShape(inputSchema)
	if err != nil {
		return nil, err
	}
	if props, ok := plainProperties(sh); ok {
		return props, nil
	}
	var v *argView
	if len(sh.props) > 0 {
		if s, err := Compile(inputSchema); err == nil {
			v = s.view()
		}
	}
	props, _ := listProperties(sh, func(name string) (string, string, bool) {
		if v == nil {
			// Uncompiled, the property's own description is all there is.
			var d struct{ Description string }
			_ = json.Unmarshal(sh.props[name], &d) // not an object: no description
			return "", d.Description, true
		}
		return v.propertyType(name).String(), v.description(name), true
	})
	return props, nil
}

// listProperties orders the properties of sh as [Properties] lists them,
// each typed and described by describe; it stops when describe cannot.
func listProperties(sh *shape, describe func(name string) (typ, desc string, ok bool)) ([]Property, bool) {
	required := make(map[string]bool, len(sh.required))
	for _, name := range sh.required {
		required[name] = true
	}
	var req, opt []Property
	for _, name := range sh.names {
		typ, desc, ok := describe(name)
		if !ok {
			return nil, false
		}
		p := Property{Name: name, Type: typ, Required: required[name], Description: desc}
		if p.Required {
			req = append(req, p)
		} else {
			opt = append(opt, p)
		}
	}
	for _, name := range sh.required {
		if _, ok := sh.props[name]; !ok && required[name] {
			req = append(req, Property{Name: name, Required: true})
			required[name] = false // listed once even if repeated
		}
	}
	return append(req, opt...), true
}

// plainProperties lists the properties of sh without compiling it, when
// that gives what the compiled view would: every property has a "type" of
// simple type names (which typing reads first, whatever else the property
// says) and its own description, or no $ref to take one from.
func plainProperties(sh *shape) ([]Property, bool) {
	return listProperties(sh, func(name string) (string, string, bool) {
		var p struct {
			Type        json.RawMessage `json:"type"`
			Description string          `json:"description"`
			Ref         *string         `json:"$ref"`
		}
		if err := json.Unmarshal(sh.props[name], &p); err != nil || len(p.Type) == 0 {
			return "", "", false
		}
		if p.Description == "" && p.Ref != nil {
			return "", "", false
		}
		var names []string
		var one string
		if json.Unmarshal(p.Type, &one) == nil {
			names = []string{one}
		} else if json.Unmarshal(p.Type, &names) != nil || len(names) == 0 {
			return "", "", false
		}
		for _, n := range names {
			if !isSimpleType(n) {
				return "", "", false
			}
		}
		return valueType{types: appendNew(nil, names...)}.String(), p.Description, true
	})
}
