package client

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestAssembleParts checks that a message assembled in parts is, joined,
// the message assemble writes, and that large params are referred to, not
// copied.
func TestAssembleParts(t *testing.T) {
	big := json.RawMessage(`"` + strings.Repeat("x", joinBelow) + `"`)
	params, err := callToolParams("t", json.RawMessage(`{"text":`+string(big)+`}`), CallOptions{ProgressToken: "p"})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []wireParams{nil, oneParams(json.RawMessage(`{"a":1}`)), params} {
		parts := assembleParts(json.RawMessage("3"), "tools/call", p)
		if got, want := bytes.Join(parts, nil), assemble(json.RawMessage("3"), "tools/call", p.joined()); !bytes.Equal(got, want) {
			t.Errorf("assembleParts joined = %.80s…, want %.80s…", got, want)
		}
	}
	parts := assembleParts(json.RawMessage("3"), "tools/call", params)
	if len(parts) != len(params)+2 || &parts[2][0] != &params[1][0] {
		t.Errorf("the arguments of a large call were copied into the message")
	}
}
