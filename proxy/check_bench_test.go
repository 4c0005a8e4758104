package proxy

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkChecksEchoCall is the checks' work for one echo call and its
// answer, the unit of the proxy benchmark (scripts/bench-proxy.sh).
func BenchmarkChecksEchoCall(b *testing.B) {
	var c Checks
	init := []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`)
	c.Frame(Frame{Dir: HostToServer, Data: init, Size: int64(len(init))})
	res := []byte(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`)
	c.Frame(Frame{Dir: ServerToHost, Data: res, Size: int64(len(res))})
	now := time.Now()
	i := 0
	for b.Loop() {
		i++
		req := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello %d"}}}`, i, i)
		resp := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"hello %d"}]}}`, i, i)
		c.Frame(Frame{Time: now, Dir: HostToServer, Data: req, Size: int64(len(req))})
		c.Frame(Frame{Time: now, Dir: ServerToHost, Data: resp, Size: int64(len(resp))})
	}
}
