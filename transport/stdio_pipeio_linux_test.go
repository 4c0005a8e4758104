package transport

import (
	"testing"

	"github.com/mcpctl/mcpctl/internal/pipeio"
)

// The stdio transport talks to its server through pipeio on Linux.
func TestCommandUsesPipeIO(t *testing.T) {
	conn := connect(t, helper(t, "echo")).(*stdioConn)
	if _, ok := conn.in.(*pipeio.File); !ok {
		t.Errorf("stdin is written through %T, want *pipeio.File", conn.in)
	}
	if _, ok := conn.out.(*pipeio.File); !ok {
		t.Errorf("stdout is read through %T, want *pipeio.File", conn.out)
	}
}
