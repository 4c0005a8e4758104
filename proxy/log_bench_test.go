package proxy

import (
	"io"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/transport"
)

// BenchmarkLogFrame is the session log's work for one small frame, the
// size of a tools/call and its answer, as the tap's goroutine does it.
func BenchmarkLogFrame(b *testing.B) {
	req := Frame{Time: time.Now(), Dir: HostToServer, Data: []byte(`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello 12"}}}`)}
	req.Size = int64(len(req.Data))
	l := NewLog(io.Discard, transport.NewRedactor(), nil)
	b.ReportAllocs()
	for b.Loop() {
		l.Frame(req)
	}
	l.Flush()
}
