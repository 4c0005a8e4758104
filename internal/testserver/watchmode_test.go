package testserver

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestWatchModePoke drives the watch mode with an SDK client in the legacy
// era: after logging/setLevel and resources/subscribe, poke sends its logs
// at and above the level, the resource update and the tool list change,
// all before its answer; the tool list then has extra1.
func TestWatchModePoke(t *testing.T) {
	events := make(chan string, 64)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	exit := make(chan int, 1)
	stderr := &syncBuffer{}
	go func() {
		code := run(context.Background(), []string{"watch"}, inR, outW, stderr)
		outW.Close()
		exit <- code
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "watch-test", Version: "0"}, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			events <- fmt.Sprintf("log %s %s %v", r.Params.Level, r.Params.Logger, r.Params.Data)
		},
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			events <- "updated " + r.Params.URI
		},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { events <- "tools changed" },
	})
	cs, err := client.Connect(t.Context(), &mcp.IOTransport{Reader: outR, Writer: inW}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connecting: %v (stderr: %s)", err, stderr)
	}
	ctx := t.Context()
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: watchResource}); err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "poke"})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "poke 1" {
		t.Errorf("poke answered %q", got)
	}
	want := []string{"log info watch poke 1: info", "log warning watch poke 1: warning", "log error watch poke 1: error", "updated watch://counter", "tools changed"}
	var got []string
	for range want {
		select {
		case e := <-events:
			got = append(got, e)
		case <-time.After(10 * time.Second):
			t.Fatalf("got %q, then nothing within 10s", got)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if diff := cmp.Diff([]string{"end", "extra1", "poke"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	inW.Close()
	if code := <-exit; code != exitOK {
		t.Errorf("exit %d", code)
	}
	cs.Close()
}
