package batch

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestOutcomeLine(t *testing.T) {
	redact := func(s string) string { return strings.ReplaceAll(s, "s3cret", "[redacted]") }
	tests := []struct {
		name string
		tool string
		out  outcome
		want string
	}{
		{"result", "echo", outcome{result: json.RawMessage(`{"content":[]}`)}, `{"line":7,"tool":"echo","result":{"content":[]}}`},
		{"result over lines is compacted", "echo", outcome{result: json.RawMessage("{\n  \"content\": [\r\n]\n}")}, `{"line":7,"tool":"echo","result":{"content":[]}}`},
		{"isError", "t", outcome{result: json.RawMessage(`{"isError":true}`), code: 4}, `{"line":7,"tool":"t","result":{"isError":true},"exit":4}`},
		{"error on one line", "t", outcome{err: errors.New("headline:\n  /a: bad\n  /b: worse"), code: 5}, `{"line":7,"tool":"t","error":"headline: /a: bad; /b: worse","exit":5}`},
		{"no tool", "", outcome{err: errors.New(`not "json" <x> & é` + "\x01\xff"), code: 2}, `{"line":7,"error":"not \"json\" <x> & é\u0001\ufffd","exit":2}`},
		{"error redacted", "t", outcome{err: errors.New("token s3cret refused"), code: 8}, `{"line":7,"tool":"t","error":"token [redacted] refused","exit":8}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(appendOutcome(nil, 7, tt.tool, &tt.out, redact))
			if got != tt.want+"\n" {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if !json.Valid([]byte(got)) {
				t.Errorf("not JSON: %s", got)
			}
		})
	}
}
