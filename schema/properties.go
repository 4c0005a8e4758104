package schema

import "encoding/json"

// Property describes one argument of a tool's input schema, as [Properties]
// lists it.
type Property struct {
	// Name is the property's key.
	Name string `json:"name"`
	// Type is the JSON Schema type, unions joined with "|" ("integer",
	// "string|null"), read through one local $ref, anyOf/oneOf and enum. It is
	// empty when the schema does not constrain the type.
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
// malformed, is an error.
func Properties(inputSchema json.RawMessage) ([]Property, error) {
	s, err := parseObjectSchema(inputSchema)
	if err != nil {
		return nil, err
	}
	required := make(map[string]bool, len(s.required))
	for _, name := range s.required {
		required[name] = true
	}
	var req, opt []Property
	for _, name := range s.names {
		raw := s.props[name]
		p := Property{
			Name:        name,
			Type:        s.typeOf(raw, true).String(),
			Required:    required[name],
			Description: s.description(raw),
		}
		if p.Required {
			req = append(req, p)
		} else {
			opt = append(opt, p)
		}
	}
	for _, name := range s.required {
		if _, ok := s.props[name]; !ok && required[name] {
			req = append(req, Property{Name: name, Required: true})
			required[name] = false // listed once even if repeated
		}
	}
	return append(req, opt...), nil
}
