package surface

import (
	"bytes"
	"testing"
)

// TestClientCapabilitiesRecorded checks that a snapshot records the client
// capabilities it was taken with, canonical, and that a snapshot written
// before they were recorded still loads, without them.
func TestClientCapabilitiesRecorded(t *testing.T) {
	s, err := Take(Source{Server: Server{Name: "s", Version: "1"}, ProtocolVersion: "2025-11-25",
		ClientCapabilities: map[string]any{"sampling": map[string]any{}, "elicitation": map[string]any{"form": map[string]any{}}}})
	if err != nil {
		t.Fatal(err)
	}
	data, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(`"clientCapabilities": {`+"\n"+`    "elicitation": {`)) {
		t.Errorf("the document does not record the client capabilities in order:\n%s", data)
	}
	back, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(back.ClientCapabilities), `{"elicitation":{"form":{}},"sampling":{}}`; got != want {
		t.Errorf("parsed clientCapabilities = %s, want %s", got, want)
	}

	old := []byte(`{"mcpctlSurface": 1, "server": {"name": "s", "version": "1"}, "protocolVersion": "2025-11-25",
		"capabilities": {"tools": {}}, "tools": [], "resources": [], "resourceTemplates": [], "prompts": []}`)
	o, err := Parse(old)
	if err != nil {
		t.Fatalf("an old snapshot does not load: %v", err)
	}
	if o.ClientCapabilities != nil {
		t.Errorf("an old snapshot has clientCapabilities %s", o.ClientCapabilities)
	}
	if d := Diff(o, o); len(d) != 0 {
		t.Errorf("an old snapshot differs from itself: %v", d)
	}
}
