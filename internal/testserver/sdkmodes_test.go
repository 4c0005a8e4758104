package testserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// harness runs a mode in-process, on pipes, with an SDK client connected.
type harness struct {
	cs     *mcp.ClientSession
	stdin  *watchWriter // what the client sends the server
	stderr *syncBuffer
	exit   chan int // run's exit status
}

// start runs the server with args and connects a client speaking
// 2025-11-25, the version mcpctl asks for first.
func start(t *testing.T, args ...string) *harness {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h := &harness{stdin: &watchWriter{w: inW}, stderr: &syncBuffer{}, exit: make(chan int, 1)}
	go func() {
		code := run(context.Background(), args, inR, outW, h.stderr)
		outW.Close()
		h.exit <- code
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "testserver-test", Version: "0"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.IOTransport{Reader: outR, Writer: h.stdin},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connecting: %v (stderr: %s)", err, h.stderr)
	}
	h.cs = cs
	t.Cleanup(func() { cs.Close() })
	return h
}

// stop closes the server's stdin, as mcpctl does, and returns the server's
// exit status. The client keeps reading until the server is done.
func (h *harness) stop() int {
	h.stdin.Close()
	code := <-h.exit
	h.cs.Close()
	return code
}

// watchWriter passes writes through and reports when one contains a string.
// The pipe under it returns from Write only once the server has read the
// bytes.
type watchWriter struct {
	w       io.WriteCloser
	mu      sync.Mutex
	watches map[string]chan struct{}
}

// watch returns a channel closed once a write containing s has completed.
func (w *watchWriter) watch(s string) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.watches == nil {
		w.watches = map[string]chan struct{}{}
	}
	ch := make(chan struct{})
	w.watches[s] = ch
	return ch
}

func (w *watchWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	w.mu.Lock()
	defer w.mu.Unlock()
	for s, ch := range w.watches {
		if bytes.Contains(p[:n], []byte(s)) {
			close(ch)
			delete(w.watches, s)
		}
	}
	return n, err
}

func (w *watchWriter) Close() error { return w.w.Close() }

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestBasicServesTheDemo(t *testing.T) {
	h := start(t, "basic")
	if got := h.cs.InitializeResult().ServerInfo.Name; got != "mcpctl-demo" {
		t.Errorf("server name = %q, want mcpctl-demo", got)
	}
	res, err := h.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "add", Arguments: map[string]int{"a": 2, "b": 3}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "5" {
		t.Errorf("add 2 3 = %q, want 5", got)
	}
	if code := h.stop(); code != 0 {
		t.Errorf("exit status %d, want 0", code)
	}
	if got, want := h.stderr.String(), "testserver: started basic\n"; got != want {
		t.Errorf("stderr = %q, want %q", got, want)
	}
}

func TestPages(t *testing.T) {
	h := start(t, "pages")
	ctx := t.Context()
	// Each list function returns the names on one page and the next cursor.
	lists := map[string]func(cursor string) ([]string, string, error){
		"tools": func(cursor string) (names []string, next string, err error) {
			res, err := h.cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			for _, x := range res.Tools {
				names = append(names, x.Name)
			}
			return names, res.NextCursor, nil
		},
		"resources": func(cursor string) (names []string, next string, err error) {
			res, err := h.cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			for _, x := range res.Resources {
				names = append(names, x.Name)
			}
			return names, res.NextCursor, nil
		},
		"templates": func(cursor string) (names []string, next string, err error) {
			res, err := h.cs.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			for _, x := range res.ResourceTemplates {
				names = append(names, x.Name)
			}
			return names, res.NextCursor, nil
		},
		"prompts": func(cursor string) (names []string, next string, err error) {
			res, err := h.cs.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			for _, x := range res.Prompts {
				names = append(names, x.Name)
			}
			return names, res.NextCursor, nil
		},
	}
	prefixes := map[string]string{"tools": "tool", "resources": "resource", "templates": "template", "prompts": "prompt"}
	for kind, list := range lists {
		var pages [][]string
		cursor := ""
		for {
			names, next, err := list(cursor)
			if err != nil {
				t.Fatalf("%s: %v", kind, err)
			}
			pages = append(pages, names)
			if next == "" || len(pages) > pagesCount {
				break
			}
			cursor = next
		}
		p := prefixes[kind]
		want := [][]string{
			{p + "01", p + "02", p + "03"},
			{p + "04", p + "05", p + "06"},
			{p + "07", p + "08", p + "09"},
		}
		if diff := cmp.Diff(want, pages); diff != "" {
			t.Errorf("%s pages (-want +got):\n%s", kind, diff)
		}
	}

	res, err := h.cs.CallTool(ctx, &mcp.CallToolParams{Name: "tool07"})
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "tool07" {
		t.Errorf("calling tool07: %v, %+v", err, res)
	}
	read, err := h.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://template/02/abc"})
	if err != nil || read.Contents[0].Text != "test://template/02/abc" {
		t.Errorf("reading a template resource: %v, %+v", err, read)
	}
}

func TestErrors(t *testing.T) {
	h := start(t, "errors")
	_, err := h.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "rpc_error"})
	var wireErr *jsonrpc.Error
	if !errors.As(err, &wireErr) || wireErr.Code != -32001 || wireErr.Message != "backend unavailable" {
		t.Errorf("rpc_error: error %v, want JSON-RPC error -32001 backend unavailable", err)
	}
	res, err := h.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "tool_error"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || res.Content[0].(*mcp.TextContent).Text != toolErrorText {
		t.Errorf("tool_error: %+v, want isError with %q", res, toolErrorText)
	}
}

func TestBig(t *testing.T) {
	h := start(t, "big")
	for _, n := range []int{3, 4, 100_000} {
		res, err := h.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "big", Arguments: map[string]int{"bytes": n}})
		if err != nil {
			t.Fatal(err)
		}
		got := res.Content[0].(*mcp.TextContent).Text
		if want := strings.Repeat("x", n-3) + "END"; got != want {
			t.Errorf("big %d: got %d bytes ending %q", n, len(got), got[max(0, len(got)-5):])
		}
	}
	_, err := h.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "big", Arguments: map[string]int{"bytes": 2}})
	if err == nil {
		t.Error("big 2 succeeded, want an invalid-params error")
	}

	// The default size, without the round trip.
	res, err := big(t.Context(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; len(got) != 50<<20 || !strings.HasSuffix(got, "xEND") {
		t.Errorf("default: %d bytes, want %d ending xEND", len(got), 50<<20)
	}
}

func TestHangLogsCancellation(t *testing.T) {
	dir := t.TempDir()
	logPath, readyPath := filepath.Join(dir, "log"), filepath.Join(dir, "ready")
	h := start(t, "-log", logPath, "-ready", readyPath, "hang")

	called := h.stdin.watch(`"tools/call"`)
	cancelled := h.stdin.watch(`"notifications/cancelled"`)
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-called
		cancel()
	}()
	if _, err := h.cs.CallTool(ctx, &mcp.CallToolParams{Name: "hang"}); !errors.Is(err, context.Canceled) {
		t.Errorf("CallTool: %v, want context.Canceled", err)
	}
	<-cancelled // the server has read it, so it is logged before EOF
	if code := h.stop(); code != 0 {
		t.Errorf("exit status %d, want 0 (stderr: %s)", code, h.stderr)
	}

	want := []string{"initialize", "notifications/initialized", "tools/call", "notifications/cancelled"}
	// The handler's own "hang: cancelled" line may come before or after
	// the notification's, or (the server stopping first) not at all.
	got := slices.DeleteFunc(readLines(t, logPath), func(l string) bool { return l == "hang: cancelled" })
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(readyPath); err != nil {
		t.Errorf("ready file: %v", err)
	}
}

func TestCrashInProcess(t *testing.T) {
	h := start(t, "crash")
	errc := make(chan error, 1)
	go func() {
		_, err := h.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "anything"})
		errc <- err
	}()
	if code := <-h.exit; code != 3 {
		t.Errorf("exit status %d, want 3", code)
	}
	if err := <-errc; err == nil {
		t.Error("CallTool succeeded, want an error: the server crashed")
	}
	if got, want := h.stderr.String(), "testserver: started crash\n"+crashMessage+"\n"; got != want {
		t.Errorf("stderr = %q, want %q", got, want)
	}
}

func TestUsage(t *testing.T) {
	tests := []struct {
		args     []string
		wantCode int
		wantErr  string
	}{
		{nil, 2, "want exactly one MODE"},
		{[]string{"nope"}, 2, `unknown mode "nope"`},
		{[]string{"basic", "pages"}, 2, "want exactly one MODE"},
		{[]string{"-bogus", "basic"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"-h"}, 0, "usage: testserver [-log FILE] [-pidfile FILE] [-ready FILE] [-answer-version V] [-era E] [-sign-key-env NAME] [-sign-mode M] [-canonical F] [-kid K] [-http FILE [-http-mode M] [-headers-log FILE]] [-delay D] {basic|pages|crash|hang|nonjson|big|stubborn|repeat-cursor|version|errors|sign|defects|headers|tasks|watch|features|long-names|surface-v1|surface-v2|surface-v3|secrets|args|scan-a|scan-b|load-fuzz|rugpull}"},
		{[]string{"-log", filepath.Join(t.TempDir(), "no", "such", "dir"), "basic"}, 1, "opening log"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), tt.args, strings.NewReader(""), &stdout, &stderr)
		if code != tt.wantCode || !strings.Contains(stderr.String(), tt.wantErr) {
			t.Errorf("run %q = %d, stderr:\n%s\nwant %d and %q", tt.args, code, &stderr, tt.wantCode, tt.wantErr)
		}
		if code == 2 && !strings.Contains(stderr.String(), "usage: testserver") {
			t.Errorf("run %q: no usage on stderr:\n%s", tt.args, &stderr)
		}
		if stdout.Len() > 0 {
			t.Errorf("run %q wrote to stdout: %q", tt.args, &stdout)
		}
	}
	for _, mode := range modeNames() {
		if _, ok := lookupMode(mode); !ok {
			t.Errorf("mode %q is in the usage but has no implementation", mode)
		}
	}
}

func TestEveryModeStartsAndStopsOnEOF(t *testing.T) {
	for _, mode := range modeNames() {
		if mode == "stubborn" { // keeps running: see TestStubborn
			continue
		}
		var stdout, stderr bytes.Buffer
		if code := run(t.Context(), []string{mode}, strings.NewReader(""), &stdout, &stderr); code != 0 {
			t.Errorf("%s: exit status %d, stderr:\n%s", mode, code, &stderr)
		}
		if got, want := stderr.String(), fmt.Sprintf("testserver: started %s\n", mode); got != want {
			t.Errorf("%s: stderr = %q, want %q", mode, got, want)
		}
	}
}
