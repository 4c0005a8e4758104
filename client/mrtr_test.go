package client

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// listOneTool answers a modern tools/list with the tool "t".
func listOneTool(s *fakeServer, m message) {
	s.reply(m, `{"resultType":"complete","tools":[{"name":"t","inputSchema":{"type":"object"}}],"ttlMs":0,"cacheScope":"private"}`)
}

// TestInputRounds drives a modern tools/call through two rounds of
// input_required: each round's requests go to the handlers, the retry has
// a new id, the answers by key and the server's requestState unchanged;
// the third answer is the result.
func TestInputRounds(t *testing.T) {
	round := 0
	s, conn := startFake(t, map[string]handler{
		"server/discover": func(s *fakeServer, m message) {
			s.reply(m, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"private"}`)
		},
		"tools/list": listOneTool,
		"tools/call": func(s *fakeServer, m message) {
			round++
			switch round {
			case 1:
				s.reply(m, `{"resultType":"input_required","inputRequests":{"confirm":{"method":"elicitation/create","params":{"message":"ok?","requestedSchema":{"type":"object"}}}},"requestState":"s<1>&"}`)
			case 2:
				s.reply(m, `{"resultType":"input_required","inputRequests":{"again":{"method":"elicitation/create","params":{"message":"sure?"}}}}`)
			default:
				s.reply(m, `{"resultType":"complete","content":[{"type":"text","text":"done"}]}`)
			}
		},
	})
	var asked []string
	c, err := Connect(context.Background(), fixed(conn), Options{Timeout: 10 * time.Second, ProtocolVersion: ModernProtocolVersion, Handlers: map[string]RequestHandler{
		"elicitation/create": func(_ context.Context, params json.RawMessage) (any, error) {
			var p struct{ Message string }
			_ = json.Unmarshal(params, &p)
			asked = append(asked, p.Message)
			return map[string]any{"action": "accept", "content": map[string]any{}}, nil
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallToolWith(context.Background(), "t", json.RawMessage(`{"x":1}`), CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 || res.Content[0].Text != "done" {
		t.Errorf("result %+v", res)
	}
	if strings.Join(asked, "|") != "ok?|sure?" {
		t.Errorf("handlers asked %q", asked)
	}
	var calls []message
	for _, m := range s.drain() {
		if m.Method == "tools/call" {
			calls = append(calls, m)
		}
	}
	if len(calls) != 3 {
		t.Fatalf("%d tools/call sent, want 3", len(calls))
	}
	ids := map[string]bool{}
	for _, m := range calls {
		ids[string(m.ID)] = true
	}
	if len(ids) != 3 {
		t.Errorf("ids %v: each round needs a new one", ids)
	}
	var p2, p3 struct {
		Arguments      json.RawMessage            `json:"arguments"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
		RequestState   *string                    `json:"requestState"`
	}
	_ = json.Unmarshal(calls[1].Params, &p2)
	_ = json.Unmarshal(calls[2].Params, &p3)
	if p2.RequestState == nil || *p2.RequestState != "s<1>&" {
		t.Errorf("round 2 requestState %v, want the server's exactly", p2.RequestState)
	}
	if string(p2.Arguments) != `{"x":1}` || p2.InputResponses["confirm"] == nil {
		t.Errorf("round 2 params %s", calls[1].Params)
	}
	if p3.RequestState != nil {
		t.Errorf("round 3 carries requestState %q, but the server sent none", *p3.RequestState)
	}
	if p3.InputResponses["again"] == nil || p3.InputResponses["confirm"] != nil {
		t.Errorf("round 3 inputResponses %v: only this round's answers", p3.InputResponses)
	}
}

// TestInputRoundsWithoutHandler fails a request whose server asks for
// input no handler answers, naming it.
func TestInputRoundsWithoutHandler(t *testing.T) {
	_, conn := startFake(t, map[string]handler{
		"server/discover": func(s *fakeServer, m message) {
			s.reply(m, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"ttlMs":0,"cacheScope":"private"}`)
		},
		"tools/list": listOneTool,
		"tools/call": func(s *fakeServer, m message) {
			s.reply(m, `{"resultType":"input_required","inputRequests":{"pick":{"method":"sampling/createMessage","params":{}}}}`)
		},
	})
	c, err := Connect(context.Background(), fixed(conn), Options{Timeout: 10 * time.Second, ProtocolVersion: ModernProtocolVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.CallToolWith(context.Background(), "t", nil, CallOptions{})
	if err == nil || !strings.Contains(err.Error(), `sampling/createMessage ("pick"), which this command does not answer`) {
		t.Errorf("error %v", err)
	}
}

// TestInputRoundsBounded gives up on a server that never stops asking.
func TestInputRoundsBounded(t *testing.T) {
	n := 0
	_, conn := startFake(t, map[string]handler{
		"server/discover": func(s *fakeServer, m message) {
			s.reply(m, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"ttlMs":0,"cacheScope":"private"}`)
		},
		"tools/list": listOneTool,
		"tools/call": func(s *fakeServer, m message) {
			n++
			s.reply(m, `{"resultType":"input_required","requestState":"again"}`)
		},
	})
	c, err := Connect(context.Background(), fixed(conn), Options{Timeout: 10 * time.Second, ProtocolVersion: ModernProtocolVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.CallToolWith(context.Background(), "t", nil, CallOptions{})
	if err == nil || !strings.Contains(err.Error(), "after 8 rounds") {
		t.Errorf("error %v", err)
	}
	if n != MaxInputRounds+1 {
		t.Errorf("%d calls, want %d", n, MaxInputRounds+1)
	}
}

// TestTimeoutErrorWaiting names what the request waited for instead of
// blaming the server.
func TestTimeoutErrorWaiting(t *testing.T) {
	e := &TimeoutError{Method: "initialize", After: 2 * time.Second, Waiting: "waiting for the browser sign-in"}
	if got, want := e.Error(), "initialize timed out after 2s waiting for the browser sign-in"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// TestTimeoutErrorProgress does not say "no answer" of a server that sent
// progress.
func TestTimeoutErrorProgress(t *testing.T) {
	tests := []struct {
		progress int
		want     string
	}{
		{0, "tools/call timed out after 2s with no answer from the server (sent notifications/cancelled; raise --timeout if the server is just slow)"},
		{1, "tools/call timed out after 2s without a result; the server was still working (it sent 1 progress notification) (sent notifications/cancelled; raise --timeout to give it longer)"},
		{3, "tools/call timed out after 2s without a result; the server was still working (it sent 3 progress notifications) (sent notifications/cancelled; raise --timeout to give it longer)"},
	}
	for _, tt := range tests {
		e := &TimeoutError{Method: "tools/call", After: 2 * time.Second, Cancelled: true, Progress: tt.progress}
		if got := e.Error(); got != tt.want {
			t.Errorf("Progress %d: %q, want %q", tt.progress, got, tt.want)
		}
	}
}

// TestRPCErrorCodeOnce shows the code of a JSON-RPC error once.
func TestRPCErrorCodeOnce(t *testing.T) {
	tests := []struct {
		msg  string
		want string
	}{
		{`unknown prompt "x"`, `server error -32602: unknown prompt "x"`},
		{"MCP error -32602: Invalid arguments for tool add", "server error -32602: Invalid arguments for tool add"},
		{"bad params (code -32602)", "server error: bad params (code -32602)"},
	}
	for _, tt := range tests {
		if got := (&RPCError{Code: -32602, Message: tt.msg}).Error(); got != tt.want {
			t.Errorf("%q: %q, want %q", tt.msg, got, tt.want)
		}
	}
}
