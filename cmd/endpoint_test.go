package cmd

import (
	"errors"
	"testing"

	"github.com/mcpctl/mcpctl/transport"
)

func TestEndpointErrorMessage(t *testing.T) {
	cause := &transport.HTTPError{Status: 404, Method: "POST", URL: "http://127.0.0.1:3101/"}
	tests := []struct {
		answering []string
		want      string
	}{
		{nil, "no MCP endpoint at http://127.0.0.1:3101/ (404); neither http://127.0.0.1:3101/mcp nor http://127.0.0.1:3101/sse answers: give --url the path of the server's MCP endpoint"},
		{[]string{"http://127.0.0.1:3101/mcp"}, "no MCP endpoint at http://127.0.0.1:3101/ (404); http://127.0.0.1:3101/mcp answers: try --url http://127.0.0.1:3101/mcp"},
		{[]string{"http://127.0.0.1:3101/mcp", "http://127.0.0.1:3101/sse"}, "no MCP endpoint at http://127.0.0.1:3101/ (404); http://127.0.0.1:3101/mcp answers (and http://127.0.0.1:3101/sse, the legacy HTTP+SSE endpoint): try --url http://127.0.0.1:3101/mcp"},
	}
	for _, tt := range tests {
		e := &endpointError{URL: "http://127.0.0.1:3101/", Status: 404, Answering: tt.answering, Err: cause}
		if got := e.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
		var he *transport.HTTPError
		if !errors.As(e, &he) || exitCode(e, false) != ExitError {
			t.Errorf("the HTTP error is not kept: exit %d", exitCode(e, false))
		}
	}
}
