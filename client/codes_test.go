package client

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpctl/mcpctl/transport"
)

// Every error code an official schema fixes (a "code" with a "const") is
// in the table of client/errors.go.
func TestErrorCodesCoverTheSchemas(t *testing.T) {
	t.Parallel()
	known := []int{CodeParseError, CodeInvalidRequest, CodeMethodNotFound, CodeInvalidParams, CodeInternalError,
		CodeNotFound, CodeURLElicitationRequired, CodeHeaderMismatch, CodeMissingClientCapability, CodeUnsupportedProtocolVersion, CodeBusy}
	found := 0
	for _, version := range KnownProtocolVersions() {
		data, err := os.ReadFile("../schema/mcp/" + version + "/schema.json")
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		for _, code := range schemaCodes(doc) {
			found++
			if !slices.Contains(known, code) {
				t.Errorf("the %s schema fixes error code %d, which client/errors.go lacks", version, code)
			}
		}
	}
	if found == 0 {
		t.Error("no schema fixes an error code: the walk of the schemas is broken")
	}
}

// schemaCodes returns the consts of every "code" property in a schema.
func schemaCodes(v any) []int {
	var codes []int
	switch v := v.(type) {
	case map[string]any:
		for k, sub := range v {
			if m, ok := sub.(map[string]any); ok && k == "code" {
				if c, ok := m["const"].(float64); ok {
					codes = append(codes, int(c))
				}
			}
			codes = append(codes, schemaCodes(sub)...)
		}
	case []any:
		for _, sub := range v {
			codes = append(codes, schemaCodes(sub)...)
		}
	}
	return codes
}

// The mock server (transport, which may not import client) answers with
// the codes of client/errors.go: a line that is not JSON, a method the
// recording never saw, a recorded method with other params.
func TestMockErrorCodes(t *testing.T) {
	t.Parallel()
	var trace bytes.Buffer
	enc := json.NewEncoder(&trace)
	for _, e := range []transport.TraceEntry{
		{Direction: transport.DirectionSend, Message: json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}`)},
		{Direction: transport.DirectionRecv, Message: json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)},
	} {
		if err := enc.Encode(e); err != nil {
			t.Fatal(err)
		}
	}
	rec, err := transport.ReadRecording(&trace, "codes")
	if err != nil {
		t.Fatal(err)
	}
	in := strings.Join([]string{
		`not json`,
		`{"jsonrpc":"2.0","id":2,"method":"nope"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"b"}}`,
	}, "\n") + "\n"
	var out bytes.Buffer
	if err := transport.NewMock(rec).ServeStdio(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var resp struct {
			Error RPCError `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &resp); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		got = append(got, resp.Error.Code)
	}
	if diff := cmp.Diff([]int{CodeParseError, CodeMethodNotFound, CodeInternalError}, got); diff != "" {
		t.Errorf("mock error codes (-want +got):\n%s", diff)
	}
}
