package proxy

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/schema"
)

func TestChecksFlagWhatIsWrong(t *testing.T) {
	c := Checks{KeepCalls: true}
	at := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	step := 0
	send := func(dir Direction, s string) {
		step++
		c.Frame(Frame{Time: at.Add(time.Duration(step) * time.Millisecond), Dir: dir, Data: []byte(s), Size: int64(len(s))})
	}
	host := func(s string) { send(HostToServer, s) }
	server := func(s string) { send(ServerToHost, s) }

	host(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"claude-ai","version":"0.1"}}}`)
	server(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`)
	host(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	host(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	server(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}},{"name":"add","inputSchema":{"type":"object"}}]}}`)
	server(`Debugger attached.`)
	host(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	host(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	server(`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"bad arguments"}}`)
	server(`{"jsonrpc":"2.0","id":77,"result":{}}`)
	host(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	server(`{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object","required":["x"]}},{"name":"sub"}]}}`)
	host(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"add","arguments":{}}}`)
	c.End(at.Add(time.Second))

	s := c.Summary()
	if s.Version != "2025-06-18" || !strings.Contains(string(s.ClientInfo), "claude-ai") || !strings.Contains(string(s.ServerInfo), `"s"`) {
		t.Errorf("summary: version %q client %s server %s", s.Version, s.ClientInfo, s.ServerInfo)
	}
	kinds := map[string][]string{}
	for _, f := range s.Flags {
		kinds[f.Kind] = append(kinds[f.Kind], f.Msg)
	}
	for kind, want := range map[string]string{
		FlagPollution: "Debugger attached.",
		FlagDuplicate: "id 2 is already in use",
		FlagError:     "error -32602: bad arguments",
		FlagUnknownID: "id 77",
		FlagTools:     "added sub; removed add; changed echo",
		FlagPending:   "tools/call (id 4) was never answered",
		FlagSchema:    "inputSchema",
	} {
		found := false
		for _, msg := range kinds[kind] {
			found = found || strings.Contains(msg, want)
		}
		if !found {
			t.Errorf("no %s flag saying %q; flags: %v", kind, want, kinds[kind])
		}
	}
	var answered int
	for _, call := range s.Calls {
		if !call.Pending {
			answered++
			if call.Latency <= 0 {
				t.Errorf("call %s %s has latency %v", call.ID, call.Method, call.Latency)
			}
		}
	}
	if answered != 4 || len(s.Calls) != 6 {
		t.Errorf("%d calls, %d answered; want 6 and 4: %+v", len(s.Calls), answered, s.Calls)
	}
}

// TestChecksModernEra: the 2026-07-28 era names the revision in each
// request's _meta; results are checked against that revision's schema.
func TestChecksModernEra(t *testing.T) {
	var c Checks
	c.Frame(Frame{Dir: HostToServer, Data: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)})
	c.Frame(Frame{Dir: ServerToHost, Data: []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":3}]}}`)})
	s := c.Summary()
	if s.Version != "2026-07-28" {
		t.Fatalf("version %q, want 2026-07-28", s.Version)
	}
	if len(s.Flags) == 0 || s.Flags[0].Kind != FlagSchema {
		t.Errorf("flags %v, want a schema violation", s.Flags)
	}
}

func TestChecksReadALargeResultWithoutCheckingIt(t *testing.T) {
	c := Checks{KeepCalls: true}
	frame := func(dir Direction, s string) {
		c.Frame(Frame{Time: time.Now(), Dir: dir, Data: []byte(s), Size: int64(len(s))})
	}
	frame(HostToServer, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"h","version":"1"}}}`)
	frame(ServerToHost, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`)
	frame(HostToServer, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"dump","arguments":{}}}`)
	// Larger than the schema checks take: its isError is still read, and
	// it is not flagged for what was left unchecked.
	big := strings.Repeat("x", schema.MaxCheckSize)
	frame(ServerToHost, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`+big+`"}],"isError":true}}`)
	s := c.Summary()
	if len(s.Flags) != 0 {
		t.Errorf("flags: %v", s.Flags)
	}
	if len(s.Calls) != 2 || s.Calls[1].Tool != "dump" || !s.Calls[1].IsError || s.Calls[1].Pending {
		t.Errorf("calls: %+v", s.Calls)
	}
}

func TestChecksReadNamesExactly(t *testing.T) {
	c := Checks{KeepCalls: true}
	frame := func(dir Direction, s string) {
		c.Frame(Frame{Time: time.Now(), Dir: dir, Data: []byte(s), Size: int64(len(s))})
	}
	// JSON-RPC members are named exactly; an escape spells the same name.
	frame(HostToServer, `{"jsonrpc":"2.0","ID":1,"Method":"tools/call"}`)
	frame(HostToServer, `{"jsonrpc":"2.0","id":2,"\u006dethod":"tools/call","params":{"name":"echo"}}`)
	frame(HostToServer, `{"jsonrpc":"2.0","id":3,"method":7}`)
	s := c.Summary()
	if len(s.Calls) != 1 || s.Calls[0].ID != "2" || s.Calls[0].Tool != "echo" {
		t.Errorf("calls: %+v", s.Calls)
	}
	if len(s.Flags) != 2 || s.Flags[0].Kind != FlagMalformed || s.Flags[1].Kind != FlagMalformed {
		t.Errorf("flags: %+v", s.Flags)
	}
}
