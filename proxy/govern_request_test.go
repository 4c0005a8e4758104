package proxy

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// TestCallParamsRead checks that the params of a request read by hand
// are what encoding/json makes of them, for the plain params hosts send
// and for those the hand reading leaves to encoding/json.
func TestCallParamsRead(t *testing.T) {
	tests := []struct {
		name, params string
		byHand       bool // read without falling back to encoding/json
	}{
		{"call", `{"name":"echo","arguments":{"message":"hello 1"}}`, true},
		{"spaced", " {\n \"name\" : \"echo\" ,\t\"arguments\" : [1, {\"a\":\"}\"}] } ", true},
		{"empty", `{}`, true},
		{"read", `{"uri":"file:///a%20b"}`, true},
		{"meta", `{"name":"echo","_meta":{"progressToken":7,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}`, true},
		{"null meta", `{"name":"echo","_meta":null}`, true},
		{"null name", `{"name":null,"arguments":null}`, true},
		{"scalar arguments", `{"arguments":12.5e3,"name":"x"}`, true},
		{"other members", `{"task":{"ttl":1},"x":[{"name":"no"}],"name":"echo","y":true,"z":-1}`, true},
		{"escaped name", `{"name":"ec\"ho\u00e9"}`, true},
		{"raw unicode name", `{"name":"héllo"}`, true},
		{"escaped member", `{"na\u006de":"echo"}`, false},
		{"other case", `{"Name":"echo","ARGUMENTS":{}}`, false},
		{"folded non-ASCII", `{"argumentſ":{"a":1}}`, false},
		{"twice", `{"name":"a","name":"b"}`, false},
		{"number name", `{"name":5,"arguments":{}}`, false},
		{"string meta", `{"name":"echo","_meta":"x"}`, false},
		{"array", `[1,2]`, false},
		{"null", `null`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want callParams
			wantErr := json.Unmarshal([]byte(tt.params), &want)
			var got callParams
			err := got.read([]byte(tt.params))
			if (err != nil) != (wantErr != nil) {
				t.Fatalf("error %v, encoding/json's %v", err, wantErr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("read gives\n%+v\nwhere encoding/json gives\n%+v", got, want)
			}
			var plain callParams
			if byHand := plain.readPlain([]byte(tt.params)); byHand != tt.byHand {
				t.Errorf("read by hand: %v, want %v", byHand, tt.byHand)
			}
		})
	}
}

// TestGovernNoteJSON checks that the "govern" note of a call is written
// as the map it replaced was: the same members, in the same order.
func TestGovernNoteJSON(t *testing.T) {
	tests := []struct {
		note governNote
		was  map[string]any
	}{
		{governNote{Method: "tools/call", Name: "echo", Sent: true}, map[string]any{"method": "tools/call", "name": "echo", "sent": true}},
		{governNote{Method: "tools/call", Name: "rm", Refused: "refused by policy: rm: no", Rule: "deny"},
			map[string]any{"method": "tools/call", "name": "rm", "sent": false, "refused": "refused by policy: rm: no", "rule": "deny"}},
		{governNote{Method: "tools/call", Name: "rm", InputRequired: true}, map[string]any{"method": "tools/call", "name": "rm", "sent": false, "input_required": true}},
		{governNote{Method: "tools/call", Name: "echo", Sent: true, Signature: "signature check failed: <x>"},
			map[string]any{"method": "tools/call", "name": "echo", "sent": true, "signature": "signature check failed: <x>"}},
		{governNote{Method: "prompts/get", Name: "p", Sent: true, Error: "bad & worse"}, map[string]any{"method": "prompts/get", "name": "p", "sent": true, "error": "bad & worse"}},
	}
	for _, tt := range tests {
		got, want := logNote(t, tt.note), logNote(t, tt.was)
		if got != want {
			t.Errorf("the note is written\n%s\nwhere the map was written\n%s", got, want)
		}
	}
}

// logNote is the detail of a "govern" event as a session log writes it.
func logNote(t *testing.T, detail any) string {
	t.Helper()
	var b bytes.Buffer
	l := NewLog(&b, nil, nil)
	l.Event(Event{Name: "govern", Detail: detail})
	l.Flush()
	var e struct {
		Detail json.RawMessage `json:"detail"`
	}
	if err := json.Unmarshal(b.Bytes(), &e); err != nil {
		t.Fatalf("%v: %s", err, b.Bytes())
	}
	return string(e.Detail)
}
