package lint

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/schema"
)

// The message-schema rule checks each message against the official schema
// of the negotiated protocol version (schema/<version>/schema.json in the
// specification's repository, embedded in mcpctl: see
// [schema.OfficialSchema]), with [schema.Checker]. A few violations are
// left to rules that say more about them: the "type" at the root of
// inputSchema and outputSchema, the format of a resource's URI and of a
// template's uriTemplate (which the check does not assert).

// covered lists, per definition, the JSON pointers under which another rule
// reports violations: input-schema-* and output-schema-* check the schemas
// of a tool (their root "type", and whether they compile), and
// resource-uri-invalid the URI of a resource. A violation at the pointer
// itself ("/inputSchema" missing, or not an object) stays message-schema.
// A switch, like listResultDef: start-up builds no table for lint.
func covered(def string) []string {
	switch def {
	case "Tool":
		return []string{"/inputSchema/", "/outputSchema/"}
	case "Resource":
		return []string{"/uri/"}
	}
	return nil
}

// listResultDef names the official definition of each list's result.
func listResultDef(key string) string {
	switch key {
	case "tools":
		return "ListToolsResult"
	case "resources":
		return "ListResourcesResult"
	case "resourceTemplates":
		return "ListResourceTemplatesResult"
	case "prompts":
		return "ListPromptsResult"
	}
	return ""
}

// schemaRef is the path of an official schema definition for version.
func schemaRef(version, def string) string {
	defs := "definitions"
	if version >= "2025-11-25" {
		defs = "$defs"
	}
	return fmt.Sprintf("schema/%s/schema.json#/%s/%s", version, defs, def)
}

// sessionVersion is the protocol version whose schema the messages of s
// are checked against: the one its options name when mcpctl has its
// schema; else, in the modern era, the newest modern revision mcpctl has
// a schema for, and in the legacy era the one the initialize result names
// (or the newest legacy revision, when that is not one mcpctl knows).
func sessionVersion(s *Server) string {
	versions := schema.OfficialVersions()
	o := s.Options
	modern := o.modern()
	if slices.Contains(versions, o.ProtocolVersion) && client.IsModern(o.ProtocolVersion) == modern {
		return o.ProtocolVersion
	}
	if !modern {
		return negotiated(s.Initialize)
	}
	return newest(versions, true)
}

// negotiated is the protocol version an initialize result names, or the
// newest legacy one mcpctl has a schema for when that is not one it knows.
func negotiated(initialize json.RawMessage) string {
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(initialize, &r) // the message-schema rule reports a bad result
	versions := schema.OfficialVersions()
	if slices.Contains(versions, r.ProtocolVersion) && !client.IsModern(r.ProtocolVersion) {
		return r.ProtocolVersion
	}
	return newest(versions, false)
}

// newest is the newest of versions (oldest first) of the given era.
func newest(versions []string, modern bool) string {
	for i := len(versions) - 1; i >= 0; i-- {
		if client.IsModern(versions[i]) == modern {
			return versions[i]
		}
	}
	return versions[len(versions)-1]
}

// shape checks a message against the official definition def and reports
// each violation as a message-schema finding about subject, except those
// under skip (a JSON pointer prefix such as "/tools/", for items checked on
// their own). It returns the message's fields, or nil when it is not an
// object.
func (c *checker) shape(raw json.RawMessage, def, subject, skip string) map[string]json.RawMessage {
	vs, err := c.official.CheckDefinition(c.version, def, raw)
	if err != nil {
		// The definitions exist in every embedded revision, and raw came
		// from a decoded JSON-RPC message: this is a bug, shown as a finding.
		c.add(Finding{RuleID: MessageSchema, Severity: SeverityError, Subject: subject,
			Message: fmt.Sprintf("cannot check against %s: %v", def, err), SpecRef: schemaRef(c.version, def)})
	}
	for _, v := range vs {
		if skip != "" && strings.HasPrefix(v.Path+"/", skip) && v.Path+"/" != skip {
			continue
		}
		if c.modern && v.Path == "/resultType" && strings.HasSuffix(def, "Result") {
			continue // result-type-missing and result-type-invalid say more
		}
		if slices.ContainsFunc(covered(def), func(prefix string) bool {
			return strings.HasPrefix(v.Path+"/", prefix) && (v.Path+"/" != prefix || v.Keyword == "format")
		}) {
			continue
		}
		c.add(Finding{
			RuleID:   MessageSchema,
			Severity: SeverityError,
			Subject:  subject,
			Message:  v.String() + " (protocol " + c.version + ")",
			SpecRef:  schemaRef(c.version, def),
		})
	}
	var m map[string]json.RawMessage
	if schema.RawKind(raw) != "object" || json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

func isNull(v json.RawMessage) bool { return schema.RawKind(v) == "null" }
