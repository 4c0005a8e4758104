package testserver

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestTasksMode drives the tasks mode in each era: a task created, polled
// to its end and its result fetched the era's way; the calls each era
// refuses.
func TestTasksMode(t *testing.T) {
	const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	tests := []struct {
		name  string
		era   string
		input []string
		want  []string // a substring of each answer, in order
	}{
		{"legacy", "legacy", []string{
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{"polls":2,"message":"m"}}}`,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow","arguments":{"polls":2,"message":"m"},"task":{"ttl":5000}}}`,
			`{"jsonrpc":"2.0","id":4,"method":"tasks/get","params":{"taskId":"task-1"}}`,
			`{"jsonrpc":"2.0","id":5,"method":"tasks/result","params":{"taskId":"task-1"}}`,
			`{"jsonrpc":"2.0","id":6,"method":"tasks/get","params":{"taskId":"task-1"}}`,
			`{"jsonrpc":"2.0","id":7,"method":"tasks/result","params":{"taskId":"task-1"}}`,
			`{"jsonrpc":"2.0","id":8,"method":"tasks/cancel","params":{"taskId":"task-1"}}`,
			`{"jsonrpc":"2.0","id":9,"method":"tasks/list","params":{}}`,
			`{"jsonrpc":"2.0","id":10,"method":"server/discover","params":{}}`,
		}, []string{
			`"tasks":{"cancel":{},"list":{},"requests":{"tools":{"call":{}}}}`,
			`"code":-32601`,
			`"result":{"task":{"createdAt"`,
			`"status":"working","statusMessage":"step 1 of 2"`,
			`"code":-32603`,
			`"status":"completed"`,
			`"io.modelcontextprotocol/related-task":{"taskId":"task-1"}`,
			`Cannot cancel task: already in terminal status 'completed'`,
			`"tasks":[{`,
			`"code":-32601`,
		}},
		{"modern", "modern", []string{
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
			`{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{` + modernMeta + `}}`,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow","arguments":{"polls":1}}}`,
			`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"forever","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
			`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"fails","arguments":{},` + modernMeta + `}}`,
			`{"jsonrpc":"2.0","id":6,"method":"tasks/get","params":{"taskId":"task-1",` + modernMeta + `}}`,
			`{"jsonrpc":"2.0","id":7,"method":"tasks/result","params":{"taskId":"task-1",` + modernMeta + `}}`,
		}, []string{
			`"code":-32022`,
			`"extensions":{"io.modelcontextprotocol/tasks":{}}`,
			`"code":-32022`,
			`"code":-32021`,
			`"resultType":"task","status":"working"`,
			`"error":{"code":-32001,"message":"backend unavailable"}`,
			`"code":-32601`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			in := strings.NewReader(strings.Join(tt.input, "\n") + "\n")
			if code := run(context.Background(), []string{"-era", tt.era, "tasks"}, in, &out, &errOut); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			if len(lines) != len(tt.want) {
				t.Fatalf("%d answers, want %d:\n%s", len(lines), len(tt.want), out.String())
			}
			for i, w := range tt.want {
				if !json.Valid([]byte(lines[i])) || !strings.Contains(lines[i], w) {
					t.Errorf("answer %d = %s\nwant it to contain %s", i+1, lines[i], w)
				}
			}
		})
	}
}
