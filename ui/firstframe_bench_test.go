package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/session"
	"github.com/mcpctl/mcpctl/transport"
)

// BenchmarkFirstFrame is the time from a ready session (initialize
// answered) to the first complete frame of the Tools pane: the model's
// start, the tools/list, resources/list, resources/templates/list and
// prompts/list it sends, the message that fills its lists, and View. The
// session is opened before the clock starts, each time anew. "demo" is the
// in-process demo server; "everything" the npm reference server over
// stdio, when scripts/install-tools.sh has installed it. Issue 35 asks for
// under 50 ms; docs/performance.md records the figures
// (go test ./ui -bench FirstFrame -run '^$').
func BenchmarkFirstFrame(b *testing.B) {
	b.Run("demo", func(b *testing.B) {
		benchFirstFrame(b, demoConnect(nil), "add")
	})
	b.Run("everything", func(b *testing.B) {
		p, err := filepath.Abs(filepath.Join("..", ".tools", "node_modules", ".bin", "mcp-server-everything"))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := os.Stat(p); err != nil {
			b.Skip("the npm reference server is not installed (bash scripts/install-tools.sh installs it)")
		}
		benchFirstFrame(b, func(ctx context.Context) (*session.Session, error) {
			return session.Connect(ctx, session.Config{Name: "server-everything",
				Transport: &transport.Command{Path: p, Args: []string{"stdio"}},
				Client:    client.Options{ClientInfo: client.Implementation{Name: "mcpctl", Version: "test"}}})
		}, "echo")
	})
}

// benchFirstFrame times the first frame after connect's session is ready;
// the frame must list want.
func benchFirstFrame(b *testing.B, connect func(context.Context) (*session.Session, error), want string) {
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s, err := connect(ctx)
		if err != nil {
			b.Fatal(err)
		}
		m := New(ctx, Options{Name: "bench", Connect: func(context.Context) (*session.Session, error) { return s, nil }})
		m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
		b.StartTimer()
		msg := m.connect()()
		m.Update(msg)
		frame := m.View()
		b.StopTimer()
		if m.connErr != nil || !strings.Contains(frame, want) {
			b.Fatalf("the first frame does not list %s (%v):\n%s", want, m.connErr, frame)
		}
		m.closeSession()
	}
}
