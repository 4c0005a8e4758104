package schema

import (
	"encoding/json"

	"github.com/mcpctl/mcpctl/internal/jsonscan"
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
	if !json.Valid(result) {
		return false
	}
	modern := version >= "2026-07-28"
	const (
		hasContent = 1 << iota
		hasIsError
		hasStructured
		hasMeta
		hasResultType
	)
	var content []byte
	seen := 0
	ok := true
	err := jsonscan.Members(result, func(m jsonscan.Member) bool {
		var bit int
		switch {
		case m.Is("content"):
			bit, content = hasContent, m.Value
		case m.Is("isError"):
			bit = hasIsError
			ok = string(m.Value) == "true" || string(m.Value) == "false"
		case m.Is("structuredContent"):
			bit, ok = hasStructured, jsonscan.IsObject(m.Value)
		case m.Is("_meta"):
			bit, ok = hasMeta, jsonscan.IsObject(m.Value) && (!modern || plainResultMeta(m.Value))
		case m.Is("resultType"):
			bit, ok = hasResultType, jsonscan.IsString(m.Value)
		default:
			ok = false
		}
		// A name given twice is left to the validator, which reads the
		// last.
		ok = ok && seen&bit == 0
		seen |= bit
		return ok
	})
	if err != nil || !ok || seen&hasContent == 0 || modern && seen&hasResultType == 0 {
		return false
	}
	err = jsonscan.Elements(content, func(block []byte) bool {
		n, text, typ := 0, false, false
		jsonscan.Members(block, func(m jsonscan.Member) bool {
			n++
			switch {
			case m.Is("type"):
				typ = string(m.Value) == `"text"`
			case m.Is("text"):
				text = jsonscan.IsString(m.Value)
			}
			return true
		})
		ok = n == 2 && typ && text
		return ok
	})
	return err == nil && ok
}

// plainResultMeta reports whether a 2026-07-28 result's _meta (an object)
// is valid as a ResultMetaObject for certain: its serverInfo, the one key
// the definition constrains, absent or exactly {"name": …, "version": …}.
func plainResultMeta(meta []byte) bool {
	var info []byte
	count := 0
	jsonscan.Members(meta, func(m jsonscan.Member) bool {
		if m.Is("io.modelcontextprotocol/serverInfo") {
			info = m.Value
			count++
		}
		return true
	})
	switch {
	case count == 0:
		return true
	case count > 1:
		return false
	}
	n, name, ver := 0, false, false
	err := jsonscan.Members(info, func(m jsonscan.Member) bool {
		n++
		switch {
		case m.Is("name"):
			name = jsonscan.IsString(m.Value)
		case m.Is("version"):
			ver = jsonscan.IsString(m.Value)
		}
		return true
	})
	return err == nil && n == 2 && name && ver
}
