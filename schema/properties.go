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
func Properties(inputSchema json.RawMessage) ([]Property, error) {
	sh, err := parseShape(inputSchema)
	if err != nil {
		return nil, err
	}
	var v *argView
	if len(sh.props) > 0 {
		if s, err := Compile(inputSchema); err == nil {
			v = s.view()
		}
	}
	required := make(map[string]bool, len(sh.required))
	for _, name := range sh.required {
		required[name] = true
	}
	var req, opt []Property
	for _, name := range sh.names {
		p := Property{
			Name:        name,
			Type:        v.propertyType(name).String(),
			Required:    required[name],
			Description: v.description(name),
		}
		if v == nil {
			// Uncompiled, the property's own description is all there is.
			var d struct{ Description string }
			_ = json.Unmarshal(sh.props[name], &d) // not an object: no description
			p.Description = d.Description
		}
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
	return append(req, opt...), nil
}
