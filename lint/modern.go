package lint

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/mcpctl/mcpctl/schema"
)

// metaServerInfo is the _meta key of the server's identity on a modern
// result (2026-07-28 ResultMetaObject).
const metaServerInfo = "io.modelcontextprotocol/serverInfo"

// discover checks the server/discover result that opened a modern session:
// its shape by the official DiscoverResult, then what the schema cannot
// say.
func (c *checker) discover(raw json.RawMessage) {
	const subject = "server/discover"
	m := c.shape(raw, "DiscoverResult", subject, "")
	c.resultType(raw, "server/discover", subject)
	if m == nil {
		return
	}
	if schema.RawKind(m["supportedVersions"]) == "array" {
		var listed []json.RawMessage
		_ = json.Unmarshal(m["supportedVersions"], &listed) // an array always decodes
		var versions []string
		for _, v := range listed {
			var s string
			if json.Unmarshal(v, &s) == nil { // message-schema reports the others
				versions = append(versions, s)
			}
		}
		switch {
		case len(listed) == 0:
			c.report(DiscoverVersionsInvalid, subject, "supportedVersions is empty: the server names no protocol version a client could choose")
		case !slices.Contains(versions, c.version):
			c.report(DiscoverVersionsInvalid, subject, "supportedVersions [%s] does not list %s, the version the server answered this request in",
				strings.Join(versions, ", "), c.version)
		}
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(m["_meta"], &meta) != nil || meta == nil {
		meta = map[string]json.RawMessage{} // not an object: message-schema reports it
	}
	if _, ok := meta[metaServerInfo]; !ok {
		c.report(ServerInfoMissing, subject, "_meta has no %q: a client cannot show which server (name and version) it talks to", metaServerInfo)
	}
}

// mayRequireInput reports whether a method's result may be an
// InputRequiredResult (2026-07-28 basic/patterns/mrtr.mdx "Supported
// Requests"); "Servers MUST NOT send InputRequiredResult responses on any
// other client requests".
func mayRequireInput(method string) bool {
	switch method {
	case "tools/call", "prompts/get", "resources/read":
		return true
	}
	return false
}

// resultType checks the resultType of a modern result of method: every
// one must carry it, and a list or server/discover can only be complete.
func (c *checker) resultType(raw json.RawMessage, method, subject string) {
	var m map[string]json.RawMessage
	if schema.RawKind(raw) != "object" || json.Unmarshal(raw, &m) != nil {
		return // message-schema reports a result that is not an object
	}
	rt, ok := m["resultType"]
	if !ok {
		c.report(ResultTypeMissing, subject, `the result has no resultType; a server of protocol %s must send "complete" here (a client takes a result without one for a legacy server's)`, c.version)
		return
	}
	if schema.RawKind(rt) != "string" {
		c.report(ResultTypeInvalid, subject, "resultType is %s, not a string", truncateAt(string(rt), 60))
		return
	}
	switch v := stringField(m, "resultType"); v {
	case "complete":
	case "input_required":
		if !mayRequireInput(method) {
			c.report(ResultTypeInvalid, subject, `resultType is "input_required", which %s must not answer (only tools/call, prompts/get and resources/read may ask for input)`, method)
		}
	default:
		c.report(ResultTypeInvalid, subject, `resultType %q is not one protocol %s defines ("complete", "input_required"); clients must treat the result as invalid`, v, c.version)
	}
}
