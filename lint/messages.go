package lint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpctl/mcpctl/client"
)

// The message-schema rule checks each message against a hand-written
// subset of the official schema of the negotiated protocol version
// (schema/<version>/schema.json in the specification's repository):
// required fields present, and every
// field the version defines of the right JSON type, enum or range. Fields a
// version does not define are not checked, as the official schemas allow
// unknown fields. The inputSchema and outputSchema "type" and the resource
// URI format are left to their own rules, which say more.

// kind is a JSON type as the official schemas name them.
type kind string

const (
	kString  kind = "string"
	kBool    kind = "boolean"
	kInteger kind = "integer"
	kNumber  kind = "number"
	kObject  kind = "object"
	kArray   kind = "array"
)

// field is one property of a message type.
type field struct {
	name     string
	kind     kind
	required bool
	// since is the first protocol version that defines the field; "" for
	// all of them.
	since string
	// enum lists the values a string may take.
	enum []string
	// fields are the properties of an object, or of each object in an array.
	fields []field
	// items is the kind of an array's items, when not objects with fields.
	items kind
	// unit bounds a number to [0, 1].
	unit bool
}

// Message types, as subsets of the official schema definitions.
var (
	iconFields = []field{
		{name: "src", kind: kString, required: true},
		{name: "mimeType", kind: kString},
		{name: "sizes", kind: kArray, items: kString},
		{name: "theme", kind: kString, enum: []string{"dark", "light"}},
	}
	iconsField       = field{name: "icons", kind: kArray, since: "2025-11-25", fields: iconFields}
	metaField        = field{name: "_meta", kind: kObject, since: "2025-06-18"}
	annotationsField = field{name: "annotations", kind: kObject, fields: []field{
		{name: "audience", kind: kArray, items: kString, enum: []string{"user", "assistant"}},
		{name: "priority", kind: kNumber, unit: true},
		{name: "lastModified", kind: kString, since: "2025-06-18"},
	}}
	listChanged      = field{name: "listChanged", kind: kBool}
	initializeFields = []field{
		{name: "protocolVersion", kind: kString, required: true},
		{name: "capabilities", kind: kObject, required: true, fields: []field{
			{name: "experimental", kind: kObject},
			{name: "logging", kind: kObject},
			{name: "completions", kind: kObject, since: "2025-03-26"},
			{name: "prompts", kind: kObject, fields: []field{listChanged}},
			{name: "resources", kind: kObject, fields: []field{{name: "subscribe", kind: kBool}, listChanged}},
			{name: "tools", kind: kObject, fields: []field{listChanged}},
			{name: "tasks", kind: kObject, since: "2025-11-25"},
		}},
		{name: "serverInfo", kind: kObject, required: true, fields: []field{
			{name: "name", kind: kString, required: true},
			{name: "version", kind: kString, required: true},
			{name: "title", kind: kString, since: "2025-06-18"},
			{name: "description", kind: kString, since: "2025-11-25"},
			{name: "websiteUrl", kind: kString, since: "2025-11-25"},
			iconsField,
		}},
		{name: "instructions", kind: kString},
		{name: "_meta", kind: kObject},
	}
	toolFields = []field{
		{name: "name", kind: kString, required: true},
		{name: "title", kind: kString, since: "2025-06-18"},
		{name: "description", kind: kString},
		{name: "inputSchema", kind: kObject, required: true},
		{name: "outputSchema", kind: kObject, since: "2025-06-18"},
		{name: "annotations", kind: kObject, since: "2025-03-26", fields: []field{
			{name: "title", kind: kString},
			{name: "readOnlyHint", kind: kBool},
			{name: "destructiveHint", kind: kBool},
			{name: "idempotentHint", kind: kBool},
			{name: "openWorldHint", kind: kBool},
		}},
		{name: "execution", kind: kObject, since: "2025-11-25", fields: []field{
			{name: "taskSupport", kind: kString, enum: []string{"forbidden", "optional", "required"}},
		}},
		iconsField,
		metaField,
	}
	resourceFields = []field{
		{name: "uri", kind: kString, required: true},
		{name: "name", kind: kString, required: true},
		{name: "title", kind: kString, since: "2025-06-18"},
		{name: "description", kind: kString},
		{name: "mimeType", kind: kString},
		{name: "size", kind: kInteger},
		annotationsField,
		iconsField,
		metaField,
	}
	templateFields = []field{
		{name: "uriTemplate", kind: kString, required: true},
		{name: "name", kind: kString, required: true},
		{name: "title", kind: kString, since: "2025-06-18"},
		{name: "description", kind: kString},
		{name: "mimeType", kind: kString},
		annotationsField,
		iconsField,
		metaField,
	}
	promptFields = []field{
		{name: "name", kind: kString, required: true},
		{name: "title", kind: kString, since: "2025-06-18"},
		{name: "description", kind: kString},
		{name: "arguments", kind: kArray, fields: []field{
			{name: "name", kind: kString, required: true},
			{name: "title", kind: kString, since: "2025-06-18"},
			{name: "description", kind: kString},
			{name: "required", kind: kBool},
		}},
		iconsField,
		metaField,
	}
)

// listResultDefs names the official definition of each list's result.
var listResultDefs = map[string]string{
	"tools":             "ListToolsResult",
	"resources":         "ListResourcesResult",
	"resourceTemplates": "ListResourceTemplatesResult",
	"prompts":           "ListPromptsResult",
}

// schemaRef is the path of an official schema definition for version.
func schemaRef(version, def string) string {
	defs := "definitions"
	if version >= "2025-11-25" {
		defs = "$defs"
	}
	return fmt.Sprintf("schema/%s/schema.json#/%s/%s", version, defs, def)
}

// negotiated is the protocol version whose schema messages are checked
// against: the initialize result's, or the latest one mcpctl knows when
// that is not one it knows.
func negotiated(initialize json.RawMessage) string {
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(initialize, &r) // the message-schema rule reports a bad result
	if slices.Contains(client.SupportedProtocolVersions(), r.ProtocolVersion) {
		return r.ProtocolVersion
	}
	return client.LatestProtocolVersion
}

// shape checks a value against fields and reports each problem as a
// message-schema finding about subject. It returns the value's fields, or
// nil when it is not an object.
func (c *checker) shape(raw json.RawMessage, fields []field, subject, def string) map[string]json.RawMessage {
	var problems []string
	m := c.shapeObject(raw, fields, "", &problems)
	for _, p := range problems {
		c.add(Finding{
			RuleID:   MessageSchema,
			Severity: SeverityError,
			Subject:  subject,
			Message:  p + " (" + def + ", protocol " + c.version + ")",
			SpecRef:  schemaRef(c.version, def),
		})
	}
	return m
}

func (c *checker) shapeObject(raw json.RawMessage, fields []field, path string, problems *[]string) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if jsonKind(raw) != kObject || json.Unmarshal(raw, &m) != nil {
		what := "the message"
		if path != "" {
			what = quoteField(path)
		}
		*problems = append(*problems, fmt.Sprintf("%s must be an object, got %s", what, describeJSON(raw)))
		return nil
	}
	for _, f := range fields {
		if f.since != "" && c.version < f.since {
			continue
		}
		at := f.name
		if path != "" {
			at = path + "." + f.name
		}
		v, ok := m[f.name]
		if !ok {
			if f.required {
				*problems = append(*problems, fmt.Sprintf("required field %s is missing", quoteField(at)))
			}
			continue
		}
		c.shapeValue(v, f, at, problems)
	}
	return m
}

func (c *checker) shapeValue(v json.RawMessage, f field, at string, problems *[]string) {
	got := jsonKind(v)
	if !kindMatches(got, f.kind, v) {
		*problems = append(*problems, fmt.Sprintf("field %s must be %s, got %s", quoteField(at), article(f.kind), describeJSON(v)))
		return
	}
	switch f.kind {
	case kString:
		if len(f.enum) > 0 {
			var s string
			_ = json.Unmarshal(v, &s) // kindMatches checked it is a string
			if !slices.Contains(f.enum, s) {
				*problems = append(*problems, fmt.Sprintf("field %s must be one of %s, got %s", quoteField(at), quoteList(f.enum), describeJSON(v)))
			}
		}
	case kNumber:
		if f.unit {
			n, _ := strconv.ParseFloat(string(bytes.TrimSpace(v)), 64)
			if n < 0 || n > 1 {
				*problems = append(*problems, fmt.Sprintf("field %s must be between 0 and 1, got %s", quoteField(at), describeJSON(v)))
			}
		}
	case kObject:
		if len(f.fields) > 0 {
			c.shapeObject(v, f.fields, at, problems)
		}
	case kArray:
		var items []json.RawMessage
		_ = json.Unmarshal(v, &items) // kindMatches checked it is an array
		for i, item := range items {
			itemAt := fmt.Sprintf("%s[%d]", at, i)
			switch {
			case len(f.fields) > 0:
				c.shapeObject(item, f.fields, itemAt, problems)
			case f.items != "":
				c.shapeValue(item, field{kind: f.items, enum: f.enum}, itemAt, problems)
			}
		}
	}
}

// jsonKind is the JSON type of a value; "null" for null, "" for invalid.
func jsonKind(v json.RawMessage) kind {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return ""
	}
	switch v[0] {
	case '{':
		return kObject
	case '[':
		return kArray
	case '"':
		return kString
	case 't', 'f':
		return kBool
	case 'n':
		return "null"
	}
	return kNumber
}

func kindMatches(got, want kind, v json.RawMessage) bool {
	switch {
	case got == want:
		return true
	case want == kInteger && got == kNumber:
		n, err := strconv.ParseFloat(string(bytes.TrimSpace(v)), 64)
		return err == nil && n == math.Trunc(n)
	}
	return false
}

func isNull(v json.RawMessage) bool { return jsonKind(v) == "null" }

func article(k kind) string {
	switch k {
	case kObject, kArray, kInteger:
		return "an " + string(k)
	}
	return "a " + string(k)
}

// describeJSON shows a value's type and, for short scalars, the value.
func describeJSON(v json.RawMessage) string {
	k := jsonKind(v)
	switch k {
	case "null":
		return "null"
	case kObject, kArray, "":
		if k == "" {
			return "nothing"
		}
		return string(k)
	}
	text := string(bytes.TrimSpace(v))
	if len(text) > 40 {
		text = text[:37] + "…"
	}
	return string(k) + " " + text
}

func quoteField(path string) string { return `"` + path + `"` }

func quoteList(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, ", ")
}
