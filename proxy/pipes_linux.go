package proxy

import (
	"os"

	"github.com/mcpctl/mcpctl/internal/pipeio"
)

// hostPipe returns a [pipeio.File] for an end the proxy inherited when it
// is a pipe, and the function that gives it back; nil for anything else.
//
// An inherited end is usually in blocking mode, which keeps it out of the
// runtime's poller, and raw calls are only safe on an end the poller
// manages. So the pipe is opened anew, non-blocking ([pipeio.Reopen]):
// the host's own open file description, which a server writing its stderr
// to the same pipe may share, keeps its mode. release closes the new end,
// which also ends a read still waiting on it.
func hostPipe(f *os.File) (p *pipeio.File, release func()) {
	nf := pipeio.Reopen(f)
	if nf == nil {
		return nil, nil
	}
	if p = pipeio.New(nf); p == nil {
		nf.Close()
		return nil, nil
	}
	return p, func() { nf.Close() }
}
