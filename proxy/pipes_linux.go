package proxy

import (
	"os"
	"time"

	"github.com/mcpctl/mcpctl/internal/pipeio"
)

// hostPipe returns a [pipeio.File] for an end the proxy inherited when it
// is a pipe or a socket (what hosts written on Node hand their servers),
// and the function that gives it back; nil for anything else.
//
// An inherited end is usually in blocking mode, which keeps it out of the
// runtime's poller, and raw calls are only safe on an end the poller
// manages. So the end is taken into the poller ([pipeio.Poll]): a pipe
// opened anew, the host's own open file description left as it was; a
// socket duplicated and switched to non-blocking until release, unless it
// is also the proxy's stderr, where the server writes its own stderr and
// would meet a non-blocking socket. release closes the new end, which
// also ends a read still waiting on it.
//
// An end already in the poller (the stdin mcpctl's streams opened anew) is
// used as it is; it is not the proxy's to close, so release ends a read or
// write still waiting on it with a deadline in the past.
func hostPipe(f, stderr *os.File) (p *pipeio.File, release func()) {
	if p := pipeio.New(f); p != nil {
		return p, func() { f.SetDeadline(time.Unix(1, 0)) }
	}
	nf, release := pipeio.Poll(f, stderr)
	if nf == nil {
		return nil, nil
	}
	if p = pipeio.New(nf); p == nil {
		release()
		return nil, nil
	}
	return p, release
}
