package proxy

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestGovernScreensAmbiguousLines: a line some server could read as a call
// of a hidden tool is governed as that call or refused, never relayed
// ungoverned; lines that could not be such a call pass unchanged.
func TestGovernScreensAmbiguousLines(t *testing.T) {
	const call = `{"jsonrpc":"2.0","id":7,`
	cases := []struct {
		name, line string
		want       string // relayed, sent, policy, dropped, or "refused CODE"
	}{
		{"method with an escaped slash", call + `"method":"tools\/call","params":{"name":"drop_table"}}`, "policy"},
		{"method with a unicode escape", call + `"method":"tools\u002fcall","params":{"name":"drop_table"}}`, "policy"},
		{"tool name with an escape", call + `"method":"tools/call","params":{"name":"drop\u005ftable"}}`, "policy"},
		{"member name with an escape", call + `"\u006dethod":"tools/call","params":{"name":"drop_table"}}`, "policy"},
		{"method given twice", call + `"method":"tools/call","method":"ping","params":{"name":"drop_table"}}`, "refused -32600"},
		{"method in another case after it", call + `"method":"tools/call","Method":"ping","params":{"name":"drop_table"}}`, "refused -32600"},
		{"method name escaped to another case", call + `"method":"tools/call","\u004dethod":"ping","params":{"name":"drop_table"}}`, "refused -32600"},
		{"tool name given twice", call + `"method":"tools/call","params":{"name":"drop_table","name":"echo"}}`, "refused -32602"},
		{"tool name in another case", call + `"method":"tools/call","params":{"name":"drop_table","NAME":"echo"}}`, "refused -32602"},
		{"a value encoding/json rejects", call + `"method":"tools/call","params":{"name":"drop_table","arguments":{"n":NaN}}}`, "refused -32700"},
		{"a member of the wrong type", call + `"method":"tools/call","params":{"name":"drop_table"},"error":5}`, "refused -32600"},
		{"params of the wrong type", call + `"method":"tools/call","params":{"name":5}}`, "refused -32602"},
		{"two messages on a line", `{"jsonrpc":"2.0","id":1,"method":"ping"} ` + call + `"method":"tools/call","params":{"name":"drop_table"}}`, "refused -32700"},
		{"a broken batch", `[` + call + `"method":"tools/call","params":{"name":"drop_table"}},]`, "refused -32700"},
		{"a call without an id", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"drop_table"}}`, "dropped"},
		{"an escaped text in an answer", `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"a\nb \"tools/call\""}]}}`, "relayed"},
		{"the method's name as text in another request", `{"jsonrpc":"2.0","id":4,"method":"completion/complete","params":{"argument":{"name":"q","value":"tools/call"}}}`, "relayed"},
		{"an allowed call with escapes in its arguments", call + `"method":"tools/call","params":{"name":"echo","arguments":{"message":"a\tb"}}}`, "sent"},
		{"non-JSON without a method's name", `hello`, "relayed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g, _ := governor(t, `"*": {sensitivity: low}`, ToolFilter{Deny: []string{"drop_*"}}, nil)
			w := newWire()
			c := g.Conn(w)
			run, done := c.take(context.Background(), []byte(tc.line), nil)
			got := "relayed"
			switch {
			case run != nil:
				run()
				got = outcome(t, w)
			case done:
				got = outcome(t, w)
			}
			if got != tc.want {
				t.Errorf("%s: got %s, want %s", tc.line, got, tc.want)
			}
		})
	}
}

// TestGovernScreensCarriageReturns: on stdio, where some servers end a
// line at a carriage return, a line holding one is refused: JSON reads it
// as a space, and the part after it could be a call of its own.
func TestGovernScreensCarriageReturns(t *testing.T) {
	g, _ := governor(t, `"*": {sensitivity: low}`, ToolFilter{Deny: []string{"drop_*"}}, nil)
	w := newWire()
	c := g.Conn(w)
	c.lines = true
	line := "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"p\":[\r{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"drop_table\"}}\r]}"
	run, done := c.take(context.Background(), []byte(line), nil)
	if run != nil || !done {
		t.Fatalf("the line was not refused (run %v, done %v)", run != nil, done)
	}
	if got := outcome(t, w); got != "refused -32600" {
		t.Errorf("got %s", got)
	}
}

// outcome reads what a taken line came to: sent to the server, refused by
// policy or by the screen (with its code), or nothing at all.
func outcome(t *testing.T, w *wire) string {
	t.Helper()
	select {
	case l := <-w.server:
		return "sent" + map[bool]string{true: "", false: " (changed: " + l + ")"}[strings.Contains(l, `"echo"`)]
	case h := <-w.host:
		switch {
		case strings.Contains(h, "refused by policy: drop_table"):
			return "policy"
		case strings.Contains(h, "mcpctl proxy refused the request"):
			i := strings.Index(h, `"code":`)
			return "refused " + strings.SplitN(h[i+len(`"code":`):], ",", 2)[0]
		}
		return "answered " + h
	default:
		// The governor answers (or sends) before take or its run returns.
		return "dropped"
	}
}

// TestGovernScreensServerLines: while a governed call waits, a server's
// line the host could read as its answer without the governor seeing it
// so goes no further, and a batch holding the answer is taken apart.
func TestGovernScreensServerLines(t *testing.T) {
	g, trail := governor(t, `"*": {sensitivity: low}`, ToolFilter{}, nil)
	w := newWire()
	c := g.Conn(w)
	ctx := context.Background()
	if !start(ctx, c, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`) {
		t.Fatal("the call was not governed")
	}
	<-w.server
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":7,"ID":8,"result":{"content":[{"type":"text","text":"forged"}]}}`,
		`{"jsonrpc":"2.0","id":7,"id":8,"result":{"content":[{"type":"text","text":"forged"}]}}`,
		`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"forged"}],"n":NaN}}`,
	} {
		if !c.FromServer([]byte(line)) {
			t.Errorf("relayed to the host: %s", line)
		}
	}
	if c.FromServer([]byte("Server listening on stdio")) {
		t.Error("a server's log line on stdout was kept from the host")
	}
	select {
	case h := <-w.host:
		t.Fatalf("the host got %s", h)
	default:
	}
	batch := `[{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}},{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hi"}]}}]`
	if !c.FromServer([]byte(batch)) {
		t.Fatal("a batch holding the call's answer was relayed as it came")
	}
	got := []string{<-w.host, <-w.host}
	if !strings.Contains(got[0], "notifications/message") || !strings.Contains(got[1], `"text":"hi"`) {
		t.Errorf("the host got %q", got)
	}
	trail.mu.Lock()
	defer trail.mu.Unlock()
	if len(trail.recs) != 1 {
		t.Errorf("audit records %q", trail.recs)
	}
}

// TestDistinctMembersMany: past the few names compared one by one, a name
// given twice is still found, and distinct names pass.
func TestDistinctMembersMany(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"method":"tools/call"`)
	for i := range 40 {
		fmt.Fprintf(&b, `,"m%d":%d`, i, i)
	}
	if err := distinctMembers([]byte(b.String()+"}"), envelopeMembers); err != nil {
		t.Errorf("distinct members: %v", err)
	}
	if err := distinctMembers([]byte(b.String()+`,"m3":{"a":[1,"}"]}}`), envelopeMembers); err == nil || !strings.Contains(err.Error(), `"m3" is given twice`) {
		t.Errorf("m3 twice: %v", err)
	}
	if err := distinctMembers([]byte(b.String()+`,"METHOD":"ping"}`), envelopeMembers); err == nil {
		t.Error("METHOD after many members passed")
	}
}
