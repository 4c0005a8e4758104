package schema

import (
	"bytes"
	"encoding/json"
)

// plainToolResult reports whether result is a CallToolResult of the
// commonest shape, one that is valid against the official definition of
// version without running the validator: text content only, each block
// exactly {"type": "text", "text": …}, with at most isError,
// structuredContent (an object), _meta (an object; from 2026-07-28 on, one
// whose serverInfo, if any, is just a name and a version) and resultType (a string;
// required from 2026-07-28 on) beside it. Anything else, valid or not,
// gets false and goes through the validator, so the answer never
// differs from it (TestPlainToolResultAgrees checks that). Batches of
// thousands of calls spend most of their checking on these.
func plainToolResult(version string, result []byte) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(result, &top) != nil || top == nil {
		return false
	}
	modern := version >= "2026-07-28"
	content, ok := top["content"]
	if !ok {
		return false
	}
	for k, v := range top {
		switch k {
		case "content":
		case "isError":
			if s := string(v); s != "true" && s != "false" {
				return false
			}
		case "structuredContent":
			if !isObject(v) {
				return false
			}
		case "_meta":
			if !isObject(v) || modern && !plainResultMeta(v) {
				return false
			}
		case "resultType":
			if !isString(v) {
				return false
			}
		default:
			return false
		}
	}
	if _, ok := top["resultType"]; modern && !ok {
		return false
	}
	var blocks []map[string]json.RawMessage
	if json.Unmarshal(content, &blocks) != nil || (blocks == nil && !bytes.Equal(bytes.TrimSpace(content), []byte("[]"))) {
		return false
	}
	for _, b := range blocks {
		if len(b) != 2 || string(b["type"]) != `"text"` {
			return false
		}
		if raw, ok := b["text"]; !ok || !isString(raw) {
			return false
		}
	}
	return true
}

// plainResultMeta reports whether a 2026-07-28 result's _meta (an object)
// is valid as a ResultMetaObject for certain: its serverInfo, the one key
// the definition constrains, absent or exactly {"name": …, "version": …}.
func plainResultMeta(raw json.RawMessage) bool {
	var meta map[string]json.RawMessage
	if json.Unmarshal(raw, &meta) != nil {
		return false
	}
	info, ok := meta["io.modelcontextprotocol/serverInfo"]
	if !ok {
		return true
	}
	var impl map[string]json.RawMessage
	if json.Unmarshal(info, &impl) != nil || len(impl) != 2 {
		return false
	}
	return isString(impl["name"]) && isString(impl["version"])
}

// isString reports whether raw is a JSON string (raw is valid JSON; null
// is not a string, though it decodes into one).
func isString(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '"'
}

// isObject reports whether raw is a JSON object (raw is valid JSON).
func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}
