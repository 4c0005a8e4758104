package schema

import (
	"fmt"
	"testing"
)

// TestPlainToolResultAgrees checks the fast path against the validator:
// whenever plainToolResult says a result is valid, the official definition
// of that revision must find no violation. Results it declines are not
// compared (the validator decides them), but the test counts that the
// common shapes do take the fast path.
func TestPlainToolResultAgrees(t *testing.T) {
	t.Parallel()
	parts := map[string][]string{
		"content": {`[]`, `[{"type":"text","text":"a"}]`, `[{"type":"text","text":"a"},{"type":"text","text":""}]`,
			`[{"type":"text","text":1}]`, `[{"type":"text"}]`, `[{"type":"image","data":"x","mimeType":"image/png"}]`,
			`[{"type":"text","text":"a","annotations":{"priority":2}}]`, `[null]`, `null`, `{}`, `"x"`,
			`[{"type":"text","text":"a","_meta":{}}]`, `[{"type":"Text","text":"a"}]`},
		"isError":           {``, `true`, `false`, `"true"`, `null`, `1`},
		"structuredContent": {``, `{}`, `{"sum":3}`, `[]`, `null`, `"s"`, `3`},
		"_meta": {``, `{}`, `{"io.modelcontextprotocol/serverInfo":{"name":"n","version":"1"}}`, `[]`, `null`,
			`{"io.modelcontextprotocol/serverInfo":{"name":"n"}}`, `{"io.modelcontextprotocol/serverInfo":{"name":"n","version":1}}`,
			`{"io.modelcontextprotocol/serverInfo":{"name":"n","version":"1","title":2}}`, `{"io.modelcontextprotocol/serverInfo":null}`, `{"other":5}`},
		"resultType": {``, `"complete"`, `"input_required"`, `3`, `null`},
		"extra":      {``, `1`},
	}
	var c Checker
	fast := 0
	for _, version := range officialVersions {
		for _, content := range parts["content"] {
			for _, isErr := range parts["isError"] {
				for _, sc := range parts["structuredContent"] {
					for _, meta := range parts["_meta"] {
						for _, rt := range parts["resultType"] {
							for _, extra := range parts["extra"] {
								doc := `{"content":` + content
								for k, v := range map[string]string{"isError": isErr, "structuredContent": sc, "_meta": meta, "resultType": rt, "extra": extra} {
									if v != "" {
										doc += fmt.Sprintf(`,%q:%s`, k, v)
									}
								}
								doc += "}"
								if !plainToolResult(version, []byte(doc)) {
									continue
								}
								fast++
								vs, err := c.check(version, "CallToolResult", []byte(doc), true)
								if err != nil || len(vs) > 0 {
									t.Errorf("%s: fast path says valid, the validator says %v %v: %s", version, vs, err, doc)
								}
							}
						}
					}
				}
			}
		}
	}
	if fast < 100 {
		t.Errorf("only %d results took the fast path; the common shapes should", fast)
	}
	for _, doc := range []string{`{"content":[{"type":"text","text":"hello"}]}`, `{"content":[{"type":"text","text":"5"}],"structuredContent":{"sum":5}}`} {
		if !plainToolResult("2025-11-25", []byte(doc)) {
			t.Errorf("%s does not take the fast path", doc)
		}
	}
	modern := `{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"echo","version":"1.0.0"}},"content":[{"type":"text","text":"hi"}],"resultType":"complete"}`
	if !plainToolResult("2026-07-28", []byte(modern)) {
		t.Errorf("%s does not take the fast path", modern)
	}
	// Names given twice, written with escapes or in another case, white
	// space and broken text: the fast path may decline any of them, but
	// never call valid what the validator does not.
	for _, doc := range []string{
		`{"content":[{"type":"text","text":"a"}],"content":5}`,
		`{"content":5,"content":[{"type":"text","text":"a"}]}`,
		`{"content":[{"type":"text","type":"image","text":"a"}]}`,
		`{"content":[{"text":"a","text":1}]}`,
		`{"\u0063ontent":[{"type":"text","text":"a"}]}`,
		`{"Content":[{"type":"text","text":"a"}]}`,
		`{"content":[{"type":"\u0074ext","text":"a"}]}`,
		` { "content" : [ { "type" : "text" , "text" : "a" } ] } `,
		`{"content":[{"type":"text","text":"a"}],"isError":true,"isError":"yes"}`,
		`{"content":[{"type":"text","text":"a"}]`,
		`{"content":[{"type":"text","text":"a"}]} {}`,
		`{"content":[{"type":"text","text":"a"},]}`,
	} {
		for _, version := range officialVersions {
			if !plainToolResult(version, []byte(doc)) {
				continue
			}
			vs, err := c.check(version, "CallToolResult", []byte(doc), true)
			if err != nil || len(vs) > 0 {
				t.Errorf("%s: fast path says valid, the validator says %v %v: %s", version, vs, err, doc)
			}
		}
	}
}
