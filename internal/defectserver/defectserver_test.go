package defectserver

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestServe(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}}`,
		`{"jsonrpc": "2.0", "method": "notifications/initialized"}`,
		`{"jsonrpc": "2.0", "id": 7, "result": {}}`,
		``,
		`not json`,
		`{"jsonrpc": "2.0", "id": "a", "method": "tools/list", "params": {"cursor": "tools-2"}}`,
		`{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "echo"}}`,
		`{"jsonrpc": "2.0", "id": 4, "method": "prompts/list", "params": {"cursor": "again"}}`,
	}, "\n") // no newline after the last message: EOF ends it
	var out bytes.Buffer
	var received []string
	if err := (Server{}).Serve(context.Background(), strings.NewReader(in), &out, func(m string) { received = append(received, m) }); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"initialize", "notifications/initialized", "tools/list", "tools/call", "prompts/list"}, received); diff != "" {
		t.Errorf("received (-want +got):\n%s", diff)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		var resp struct {
			ID     json.RawMessage `json:"id"`
			Result map[string]json.RawMessage
			Error  *RPCError
		}
		if err := json.Unmarshal([]byte(line), &resp); err != nil {
			t.Fatalf("response %q: %v", line, err)
		}
		switch {
		case resp.Error != nil:
			got = append(got, string(resp.ID)+" error "+resp.Error.Message[:min(len(resp.Error.Message), 16)])
		default:
			var keys []string
			for k := range resp.Result {
				keys = append(keys, k)
			}
			got = append(got, string(resp.ID)+" result "+strings.Join(slices.Sorted(slices.Values(keys)), ","))
		}
	}
	want := []string{
		"1 result capabilities,protocolVersion,serverInfo",
		"null error parse error: inv",
		`"a" result tools`,
		"3 error method not found",
		"4 result nextCursor,prompts",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("responses (-want +got):\n%s", diff)
	}
}

func TestInitializeVersion(t *testing.T) {
	for offered, want := range map[string]string{"2024-11-05": "2024-11-05", "2025-11-25": "2025-11-25", "1999-01-01": "2025-11-25", "": "2025-11-25"} {
		res, rpcErr := Server{}.Handle("initialize", json.RawMessage(`{"protocolVersion": "`+offered+`"}`))
		if rpcErr != nil {
			t.Fatal(rpcErr)
		}
		var r struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if err := json.Unmarshal(res, &r); err != nil || r.ProtocolVersion != want {
			t.Errorf("offered %q: answered %q (%v), want %q", offered, r.ProtocolVersion, err, want)
		}
	}
}

func TestCursors(t *testing.T) {
	for _, tt := range []struct {
		method, cursor string
		wantErr        bool
	}{
		{"tools/list", "", false},
		{"tools/list", toolsPage2, false},
		{"tools/list", "nope", true},
		{"resources/templates/list", "", false},
		{"resources/templates/list", templatesPage2, true}, // seeded: rejects its own cursor
		{"prompts/list", promptsAgain, false},
	} {
		params, _ := json.Marshal(map[string]string{"cursor": tt.cursor})
		if _, rpcErr := (Server{}).Handle(tt.method, params); (rpcErr != nil) != tt.wantErr {
			t.Errorf("%s cursor %q: error %v, want error: %v", tt.method, tt.cursor, rpcErr, tt.wantErr)
		}
	}
}
