package ui

import (
	"context"
	"fmt"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/mcpctl/mcpctl/client"
)

// BenchmarkView is the time to draw one frame at 200×60 of a server with
// 10,000 tools, the list filtered and scrolled: the figure
// docs/performance.md records (go test ./ui -bench View -run '^$').
func BenchmarkView(b *testing.B) {
	m := New(context.Background(), Options{Name: "bench"})
	tools := make([]client.Tool, 10000)
	for i := range tools {
		tools[i] = client.Tool{Name: fmt.Sprintf("tool_%05d", i), Description: fmt.Sprintf("Does thing number %d to the input it is given.", i),
			InputSchema: []byte(`{"type":"object","properties":{"a":{"type":"number","description":"First"},"b":{"type":"string","enum":["x","y"]}},"required":["a"]}`)}
	}
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	m.connected(connectedMsg{tools: tools})
	b.Run("scroll", func(b *testing.B) {
		for b.Loop() {
			m.Update(tea.KeyMsg{Type: tea.KeyDown})
			_ = m.View()
		}
	})
	b.Run("filter", func(b *testing.B) {
		keys := []rune("tool_9")
		i := 0
		for b.Loop() {
			m.lists[paneTools].setFilter(string(keys[:1+i%len(keys)]))
			_ = m.View()
			i++
		}
	})
}
