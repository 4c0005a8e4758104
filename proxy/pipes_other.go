//go:build !linux

package proxy

import (
	"os"

	"github.com/mcpctl/mcpctl/internal/pipeio"
)

// hostPipe returns nil: raw pipe I/O is Linux's, and elsewhere the shim
// relays the host's ends through their own os.File.
func hostPipe(_, _ *os.File) (*pipeio.File, func()) { return nil, nil }
