package audit

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkAppend appends a record like the ones a governed tools/call
// through the proxy leaves, to an anchored trail (a regular file with its
// head beside it), hash-chained and HMAC-chained.
func BenchmarkAppend(b *testing.B) {
	for _, bc := range []struct {
		name string
		key  []byte
	}{
		{"hash", nil},
		{"hmac", []byte("an audit key of a realistic length")},
	} {
		b.Run(bc.name, func(b *testing.B) {
			w, err := Open(filepath.Join(b.TempDir(), "audit.jsonl"), bc.key)
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			e := benchEntry()
			b.ReportAllocs()
			for b.Loop() {
				if err := w.Append(&e); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func benchEntry() Entry {
	return Entry{
		Time:       time.Date(2026, 11, 28, 9, 30, 0, 123456789, time.UTC),
		Server:     "http://127.0.0.1:3001/mcp",
		Method:     "tools/call",
		Name:       "search_issues",
		Args:       json.RawMessage(`{"query":"is:open label:bug","repo":"mcpctl/mcpctl","token":"****","limit":20}`),
		Decision:   Decision{Allowed: true, By: "policy", Rule: "search_*", Sensitivity: "low"},
		Host:       "claude-code 2.1.0",
		Subject:    "alice@example.com",
		Sent:       true,
		Result:     Digest([]byte(`{"content":[{"type":"text","text":"3 issues"}]}`)),
		DurationMS: 12.345,
	}
}
