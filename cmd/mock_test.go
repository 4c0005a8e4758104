package cmd

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/transport"
)

// TestRecordThenMock records a call to the demo server with --record and
// answers the same call from the recording, and another one with the
// error that says it was not recorded.
func TestRecordThenMock(t *testing.T) {
	file := filepath.Join(t.TempDir(), "rec.ndjson")
	ios, _, out, errOut := Test()
	if code := run(context.Background(), ios, []string{"call", "--demo", "echo", "message=recorded", "--record", file}); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.TrimSpace(out.String()) != "recorded" {
		t.Fatalf("output %q", out)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := transport.ReadRecording(f, "rec.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	m := transport.NewMock(rec)
	answer := m.Handle(json.RawMessage(`{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"echo","arguments":{"message":"recorded"}}}`))
	if len(answer) == 0 || !strings.Contains(string(answer[len(answer)-1]), `"id":99`) || !strings.Contains(string(answer[len(answer)-1]), `recorded`) {
		t.Errorf("replayed answer %s", answer)
	}
	answer = m.Handle(json.RawMessage(`{"jsonrpc":"2.0","id":100,"method":"tools/call","params":{"name":"echo","arguments":{"message":"other"}}}`))
	if len(answer) != 1 || !strings.Contains(string(answer[0]), "not in the recording rec.ndjson: tools/call") {
		t.Errorf("unrecorded answer %s", answer)
	}
}

func TestMockUsage(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"mock", filepath.Join(dir, "missing.ndjson")}, "opening the recording"},
		{[]string{"mock", filepath.Join(dir, "x"), "--url-file", "u"}, "--url-file needs --http"},
		{[]string{"mock"}, "accepts 1 arg"},
	}
	for _, tt := range tests {
		ios, _, _, errOut := Test()
		if code := run(context.Background(), ios, tt.args); code != ExitUsage || !strings.Contains(errOut.String(), tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, code, errOut, tt.want)
		}
	}
}
