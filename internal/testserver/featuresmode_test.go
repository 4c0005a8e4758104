package testserver

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestFeaturesMode drives the features mode with an SDK client that
// answers roots, sampling and elicitation: the tools finish with the
// answers, whichever way the protocol version makes the server ask.
func TestFeaturesMode(t *testing.T) {
	for _, tt := range []struct{ era, version string }{
		{eraLegacy, "2025-11-25"},
		{eraDual, "2026-07-28"},
	} {
		t.Run(tt.version, func(t *testing.T) {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			exit := make(chan int, 1)
			stderr := &syncBuffer{}
			go func() {
				code := run(context.Background(), []string{"-era", tt.era, "features"}, inR, outW, stderr)
				outW.Close()
				exit <- code
			}()
			c := mcp.NewClient(&mcp.Implementation{Name: "features-test", Version: "0"}, &mcp.ClientOptions{
				CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
					return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "canned"}}, nil
				},
				ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					if r.Params.Mode == "url" {
						return &mcp.ElicitResult{Action: "decline"}, nil
					}
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
				},
				Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}},
			})
			c.AddRoots(&mcp.Root{URI: "file:///tmp/p", Name: "p"})
			cs, err := c.Connect(t.Context(), &mcp.IOTransport{Reader: outR, Writer: inW}, &mcp.ClientSessionOptions{ProtocolVersion: tt.version})
			if err != nil {
				t.Fatalf("connecting: %v (stderr: %s)", err, stderr)
			}
			for _, call := range []struct {
				tool string
				args map[string]any
				want string
			}{
				{"roots", nil, "roots: file:///tmp/p (p)"},
				{"sample", map[string]any{"prompt": "hi"}, "sampled: canned (model m)"},
				{"form", nil, `form: accept {"age":30,"color":"red","name":"Ada"}`}, // the SDK client fills in defaults
				{"link", map[string]any{"url": "https://example.com/"}, "link: decline"},
			} {
				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: call.tool, Arguments: call.args})
				if err != nil {
					t.Errorf("%s: %v", call.tool, err)
					continue
				}
				var got []string
				for _, c := range res.Content {
					if tc, ok := c.(*mcp.TextContent); ok {
						got = append(got, tc.Text)
					}
				}
				if s := strings.Join(got, "\n"); s != call.want {
					t.Errorf("%s = %q, want %q", call.tool, s, call.want)
				}
			}
			cs.Close()
			inW.Close()
			if code := <-exit; code != exitOK {
				t.Errorf("exit %d (stderr: %s)", code, stderr)
			}
		})
	}
}
