package audit

import (
	"encoding/json"
	"slices"
	"strings"
)

// MaskArgs returns args (a JSON object) with the values of the arguments
// the trail must not keep replaced by [Masked]: those named in names, and
// those schema (a tool's inputSchema) marks writeOnly, at any depth of
// nested objects. Arguments that are not an object are returned as they
// are; a schema that is not JSON masks nothing of its own.
func MaskArgs(args, schema json.RawMessage, names []string) json.RawMessage {
	if len(args) == 0 {
		return args
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(args, &obj); err != nil || obj == nil {
		return args
	}
	var s schemaNode
	_ = json.Unmarshal(schema, &s)
	changed := maskObject(obj, &s, names)
	if !changed {
		return args
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return args
	}
	return out
}

// schemaNode is the part of a JSON Schema masking reads.
type schemaNode struct {
	WriteOnly  bool                   `json:"writeOnly"`
	Properties map[string]*schemaNode `json:"properties"`
}

func maskObject(obj map[string]json.RawMessage, s *schemaNode, names []string) bool {
	masked, _ := json.Marshal(Masked)
	changed := false
	for k, v := range obj {
		// Names match in any case: encoding/json, and so a Go server,
		// reads "Password" as the property password.
		var p *schemaNode
		if s != nil {
			p = s.Properties[k]
			for name, prop := range s.Properties {
				if p == nil && strings.EqualFold(name, k) {
					p = prop
				}
			}
		}
		named := slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, k) })
		if named || (p != nil && p.WriteOnly) {
			obj[k] = masked
			changed = true
			continue
		}
		if p == nil || len(p.Properties) == 0 {
			continue
		}
		var inner map[string]json.RawMessage
		if json.Unmarshal(v, &inner) != nil || inner == nil {
			continue
		}
		if maskObject(inner, p, nil) {
			if b, err := json.Marshal(inner); err == nil {
				obj[k] = b
				changed = true
			}
		}
	}
	return changed
}
