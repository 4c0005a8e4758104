package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/transport"
)

// connect serves srv (a new demo server if nil) on an in-memory pipe and
// returns the official Go SDK's client session connected to it: every test
// of this file is also a check of the demo's protocol against the SDK. The
// client speaks 2025-11-25, the version mcpctl asks for first; TestServe
// covers the SDK's newer default.
func connect(t *testing.T, srv *Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	if srv == nil {
		srv = NewServer()
	}
	ctx := t.Context()
	serverEnd, clientEnd := transport.NewPipe()
	served := make(chan error, 1)
	// Not t.Context(): it ends before the clean-up that checks how Serve ended.
	go func() { served <- srv.Serve(context.Background(), serverEnd) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "demo-test", Version: "0"}, opts).Connect(ctx, &sdkTransport{conn: clientEnd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() {
		cs.Close()
		if err := <-served; err != nil {
			t.Errorf("Serve returned %v after the client closed, want nil", err)
		}
	})
	return cs
}

func TestServerIdentity(t *testing.T) {
	cs := connect(t, nil, nil)
	init := cs.InitializeResult()
	if diff := cmp.Diff(&mcp.Implementation{Name: Name, Title: Title, Version: Version}, init.ServerInfo); diff != "" {
		t.Errorf("serverInfo (-want +got):\n%s", diff)
	}
	if !strings.Contains(init.Instructions, "demo server") {
		t.Errorf("instructions = %q, want a description of the demo server", init.Instructions)
	}
	c := init.Capabilities
	if c.Tools == nil || c.Resources == nil || c.Prompts == nil || c.Completions == nil {
		t.Errorf("capabilities = %+v, want tools, resources, prompts and completions", c)
	}
}

func TestToolsComeInTwoPages(t *testing.T) {
	cs := connect(t, nil, nil)
	ctx := t.Context()

	first, err := cs.ListTools(ctx, &mcp.ListToolsParams{})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Tools) != PageSize || first.NextCursor == "" {
		t.Fatalf("first page: %d tools, nextCursor %q; want %d tools and a cursor", len(first.Tools), first.NextCursor, PageSize)
	}
	second, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: first.NextCursor})
	if err != nil {
		t.Fatal(err)
	}
	if len(second.Tools) == 0 || len(second.Tools) > PageSize || second.NextCursor != "" {
		t.Fatalf("second page: %d tools, nextCursor %q; want 1..%d tools and no cursor", len(second.Tools), second.NextCursor, PageSize)
	}

	validName := regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)
	for _, tool := range slices.Concat(first.Tools, second.Tools) {
		if !validName.MatchString(tool.Name) {
			t.Errorf("tool name %q is not valid", tool.Name)
		}
		if tool.Title == "" || tool.Description == "" || tool.Annotations == nil {
			t.Errorf("tool %q: want a title, a description and annotations", tool.Name)
		}
		schema, _ := tool.InputSchema.(map[string]any)
		if schema["type"] != "object" {
			t.Errorf("tool %q: inputSchema type = %v, want object", tool.Name, schema["type"])
		}
	}
}

// textOf returns the text of a result that must hold exactly one text block.
func textOf(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("content has %d blocks, want 1", len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content[0] is %T, want text", res.Content[0])
	}
	return tc.Text
}

// structured returns a result's structured content decoded into a generic
// JSON value, as a client would see it.
func structured(t *testing.T, res *mcp.CallToolResult) any {
	t.Helper()
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestCallTool(t *testing.T) {
	tests := []struct {
		name  string
		tool  string
		args  map[string]any
		check func(t *testing.T, res *mcp.CallToolResult)
	}{
		{"echo", "echo", map[string]any{"message": "hello"}, wantText("hello")},
		{"echo without message", "echo", nil, wantToolError("message")},
		{"add integers", "add", map[string]any{"a": 2, "b": 3}, func(t *testing.T, res *mcp.CallToolResult) {
			wantText("5")(t, res)
			if diff := cmp.Diff(map[string]any{"sum": 5.0}, structured(t, res)); diff != "" {
				t.Errorf("structuredContent (-want +got):\n%s", diff)
			}
		}},
		{"add fractions", "add", map[string]any{"a": 1.5, "b": -0.25}, wantText("1.25")},
		{"add overflow", "add", map[string]any{"a": 1e308, "b": 1e308}, wantToolError("too large")},
		{"weather", "weather", map[string]any{"city": "Berlin", "days": 3}, func(t *testing.T, res *mcp.CallToolResult) {
			if !strings.HasPrefix(textOf(t, res), "Weather for Berlin, 3 day(s):\nDay 1: ") {
				t.Errorf("text = %q", textOf(t, res))
			}
			var report weatherReport
			data, _ := json.Marshal(res.StructuredContent)
			if err := json.Unmarshal(data, &report); err != nil {
				t.Fatal(err)
			}
			if report.City != "Berlin" || report.Days != 3 || len(report.Forecast) != 3 {
				t.Fatalf("report = %+v", report)
			}
			for i, f := range report.Forecast {
				if f.Day != i+1 || f.Low >= f.High || f.Conditions == "" {
					t.Errorf("forecast[%d] = %+v", i, f)
				}
			}
		}},
		{"weather default days", "weather", map[string]any{"city": "Paris"}, func(t *testing.T, res *mcp.CallToolResult) {
			if got := structured(t, res).(map[string]any)["days"]; got != 1.0 {
				t.Errorf("days = %v, want the default 1", got)
			}
		}},
		{"weather too many days", "weather", map[string]any{"city": "Paris", "days": 8}, wantToolError("days")},
		{"fail", "fail", map[string]any{"reason": "disk on fire"}, wantToolError("disk on fire")},
		{"fail default reason", "fail", nil, wantToolError("the demo tool failed on purpose")},
		{"image", "image", nil, func(t *testing.T, res *mcp.CallToolResult) {
			img, ok := res.Content[0].(*mcp.ImageContent)
			if len(res.Content) != 1 || !ok || img.MIMEType != "image/png" {
				t.Fatalf("content = %#v, want one image/png block", res.Content)
			}
			decoded, err := png.Decode(bytes.NewReader(img.Data))
			if err != nil {
				t.Fatal(err)
			}
			if b := decoded.Bounds(); b.Dx() != 16 || b.Dy() != 16 {
				t.Errorf("image is %v, want 16x16", b)
			}
		}},
		{"audio", "audio", nil, func(t *testing.T, res *mcp.CallToolResult) {
			a, ok := res.Content[0].(*mcp.AudioContent)
			if len(res.Content) != 1 || !ok || a.MIMEType != "audio/wav" {
				t.Fatalf("content = %#v, want one audio/wav block", res.Content)
			}
			if len(a.Data) != 44+4000 || string(a.Data[:4]) != "RIFF" || string(a.Data[8:16]) != "WAVEfmt " {
				t.Errorf("audio is %d bytes starting %q, want a 4044-byte WAV file", len(a.Data), a.Data[:16])
			}
		}},
		{"resource_link", "resource_link", nil, func(t *testing.T, res *mcp.CallToolResult) {
			l, ok := res.Content[0].(*mcp.ResourceLink)
			if len(res.Content) != 1 || !ok || l.URI != "demo://readme" || l.MIMEType != "text/markdown" || l.Name == "" {
				t.Errorf("content = %#v, want one resource link to demo://readme", res.Content)
			}
		}},
		{"embedded", "embedded", nil, func(t *testing.T, res *mcp.CallToolResult) {
			e, ok := res.Content[0].(*mcp.EmbeddedResource)
			if len(res.Content) != 1 || !ok || e.Resource.URI != "demo://readme" || e.Resource.Text != readme {
				t.Errorf("content = %#v, want the readme embedded", res.Content)
			}
		}},
		{"sleep", "sleep", map[string]any{"ms": 1}, wantText("slept 1 ms")},
		{"upper", "upper", map[string]any{"text": "Hello, wörld"}, wantText("HELLO, WÖRLD")},
		{"count_words", "count_words", map[string]any{"text": "hello  wide\nwörld\n"}, func(t *testing.T, res *mcp.CallToolResult) {
			wantText("3 words, 2 lines, 18 characters")(t, res)
			want := map[string]any{"words": 3.0, "lines": 2.0, "characters": 18.0}
			if diff := cmp.Diff(want, structured(t, res)); diff != "" {
				t.Errorf("structuredContent (-want +got):\n%s", diff)
			}
		}},
		{"count_words empty", "count_words", map[string]any{"text": ""}, wantText("0 words, 0 lines, 0 characters")},
		{"random_number", "random_number", map[string]any{"min": 5, "max": 5}, wantText("5")},
		{"random_number bad range", "random_number", map[string]any{"min": 5, "max": 4}, wantToolError("min (5) is greater than max (4)")},
	}

	cs := connect(t, nil, nil)
	tested := map[string]bool{}
	for _, tt := range tests {
		tested[tt.tool] = true
		t.Run(tt.name, func(t *testing.T) {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, res)
		})
	}
	for tool, err := range cs.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if !tested[tool.Name] {
			t.Errorf("tool %q has no test case", tool.Name)
		}
	}
}

func wantText(want string) func(*testing.T, *mcp.CallToolResult) {
	return func(t *testing.T, res *mcp.CallToolResult) {
		t.Helper()
		if res.IsError {
			t.Fatalf("isError: %s", textOf(t, res))
		}
		if got := textOf(t, res); got != want {
			t.Errorf("text = %q, want %q", got, want)
		}
	}
}

func wantToolError(substr string) func(*testing.T, *mcp.CallToolResult) {
	return func(t *testing.T, res *mcp.CallToolResult) {
		t.Helper()
		if got := textOf(t, res); !res.IsError || !strings.Contains(got, substr) {
			t.Errorf("isError = %v, text = %q; want a tool error mentioning %q", res.IsError, got, substr)
		}
	}
}

func TestToolsAreDeterministic(t *testing.T) {
	cs := connect(t, nil, nil)
	for _, call := range []mcp.CallToolParams{
		{Name: "weather", Arguments: map[string]any{"city": "Oslo", "days": 7}},
		{Name: "random_number", Arguments: map[string]any{"seed": 7}},
	} {
		first, err := cs.CallTool(t.Context(), &call)
		if err != nil {
			t.Fatal(err)
		}
		second := NewServer() // a fresh server must agree too
		again, err := connect(t, second, nil).CallTool(t.Context(), &call)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := textOf(t, first), textOf(t, again); a != b {
			t.Errorf("%s: %q then %q", call.Name, a, b)
		}
	}
}

func TestSleepReportsProgress(t *testing.T) {
	progress := make(chan *mcp.ProgressNotificationParams, sleepSteps)
	cs := connect(t, nil, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			progress <- req.Params
		},
	})
	params := &mcp.CallToolParams{Name: "sleep", Arguments: map[string]any{"ms": 20}}
	params.SetProgressToken("tok")
	res, err := cs.CallTool(t.Context(), params)
	if err != nil {
		t.Fatal(err)
	}
	wantText("slept 20 ms")(t, res)
	for i := 1; i <= sleepSteps; i++ {
		p := <-progress // notifications may be handled after the result arrives
		if p.ProgressToken != "tok" || p.Progress != float64(2*i) || p.Total != 20 {
			t.Errorf("progress %d = %+v", i, p)
		}
	}
}

func TestSleepStopsWhenCancelled(t *testing.T) {
	srv := NewServer()
	finished := make(chan struct{})
	srv.requestDone = func(method string) {
		if method == "tools/call" {
			close(finished)
		}
	}
	started := make(chan struct{})
	srv.requestStarted = func(method string) {
		if method == "tools/call" {
			close(started)
		}
	}
	cs := connect(t, srv, nil)

	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-started
		cancel()
	}()
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sleep", Arguments: map[string]any{"ms": 600000}})
	if err == nil {
		t.Fatal("CallTool succeeded, want a cancellation error")
	}
	select {
	case <-finished:
	case <-time.After(10 * time.Second):
		t.Fatal("sleep still running 10s after notifications/cancelled")
	}
}

func TestResources(t *testing.T) {
	cs := connect(t, nil, nil)
	ctx := t.Context()

	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, r.URI+" "+r.MIMEType)
	}
	if diff := cmp.Diff([]string{"demo://logo.png image/png", "demo://readme text/markdown"}, uris); diff != "" {
		t.Errorf("resources (-want +got):\n%s", diff)
	}

	templates, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(templates.ResourceTemplates) != 1 || templates.ResourceTemplates[0].URITemplate != "demo://greeting/{name}" {
		t.Errorf("templates = %+v", templates.ResourceTemplates)
	}

	tests := []struct {
		uri   string
		check func(t *testing.T, c *mcp.ResourceContents)
	}{
		{"demo://readme", func(t *testing.T, c *mcp.ResourceContents) {
			if c.MIMEType != "text/markdown" || !strings.HasPrefix(c.Text, "# mcpctl demo server") {
				t.Errorf("contents = %+v", c)
			}
		}},
		{"demo://logo.png", func(t *testing.T, c *mcp.ResourceContents) {
			img, err := png.Decode(bytes.NewReader(c.Blob))
			if err != nil || c.MIMEType != "image/png" {
				t.Fatalf("mimeType %q, decoding: %v", c.MIMEType, err)
			}
			if b := img.Bounds(); b.Dx() != 32 || b.Dy() != 32 {
				t.Errorf("logo is %v, want 32x32", b)
			}
		}},
		{"demo://greeting/Ada%20Lovelace", func(t *testing.T, c *mcp.ResourceContents) {
			if c.Text != "Hello, Ada Lovelace! Welcome to the mcpctl demo server.\n" || c.MIMEType != "text/plain" {
				t.Errorf("contents = %+v", c)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.uri, func(t *testing.T) {
			res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: tt.uri})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Contents) != 1 || res.Contents[0].URI != tt.uri {
				t.Fatalf("contents = %+v, want one item for %s", res.Contents, tt.uri)
			}
			tt.check(t, res.Contents[0])
		})
	}

	for _, uri := range []string{"demo://nothing", "demo://greeting/", "demo://greeting/a/b"} {
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("reading %s succeeded, want an error", uri)
		}
	}
}

func TestPrompts(t *testing.T) {
	cs := connect(t, nil, nil)
	ctx := t.Context()

	list, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range list.Prompts {
		names = append(names, p.Name)
	}
	if diff := cmp.Diff([]string{"review_code", "summarize"}, names); diff != "" {
		t.Errorf("prompts (-want +got):\n%s", diff)
	}

	type message struct{ Role, Text string }
	tests := []struct {
		name    string
		args    map[string]string
		want    []message
		wantErr string
	}{
		{"review_code", map[string]string{"code": "x := 1", "language": "Go"}, []message{
			{"user", "Please review the following Go code. Point out bugs, unclear names and missing error handling, most important first.\n\n```go\nx := 1\n```"},
			{"assistant", "I'll review the Go code, starting with anything that is incorrect."},
		}, ""},
		{"review_code", map[string]string{"language": "Go"}, nil, `missing required argument "code"`},
		{"summarize", map[string]string{"text": "Long text."}, []message{
			{"user", "Summarize the following text in one or two sentences.\n\nLong text."},
			{"assistant", "Here is the summary:"},
		}, ""},
		{"summarize", map[string]string{"text": "Long text.", "style": "bullets"}, []message{
			{"user", "Summarize the following text as a short bulleted list.\n\nLong text."},
			{"assistant", "Here is the summary:"},
		}, ""},
		{"summarize", map[string]string{"text": "Long text.", "style": "haiku"}, nil, `unknown style "haiku"`},
	}
	for _, tt := range tests {
		res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: tt.name, Arguments: tt.args})
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s %v: error %v, want one mentioning %s", tt.name, tt.args, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %v: %v", tt.name, tt.args, err)
			continue
		}
		var got []message
		for _, m := range res.Messages {
			tc, _ := m.Content.(*mcp.TextContent)
			got = append(got, message{string(m.Role), tc.Text})
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s %v: messages (-want +got):\n%s", tt.name, tt.args, diff)
		}
	}
}

func TestComplete(t *testing.T) {
	cs := connect(t, nil, nil)
	tests := []struct {
		ref        mcp.CompleteReference
		arg, value string
		want       []string
	}{
		{mcp.CompleteReference{Type: "ref/prompt", Name: "review_code"}, "language", "t", []string{"TypeScript"}},
		{mcp.CompleteReference{Type: "ref/prompt", Name: "summarize"}, "style", "", []string{"brief", "detailed", "bullets"}},
		{mcp.CompleteReference{Type: "ref/resource", URI: "demo://greeting/{name}"}, "name", "a", []string{"Ada", "Alan"}},
		{mcp.CompleteReference{Type: "ref/prompt", Name: "summarize"}, "text", "", []string{}},
	}
	for _, tt := range tests {
		res, err := cs.Complete(t.Context(), &mcp.CompleteParams{
			Ref:      &tt.ref,
			Argument: mcp.CompleteParamsArgument{Name: tt.arg, Value: tt.value},
		})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, res.Completion.Values); diff != "" {
			t.Errorf("%+v %s=%q (-want +got):\n%s", tt.ref, tt.arg, tt.value, diff)
		}
	}
}

func TestFormatNumber(t *testing.T) {
	tests := map[float64]string{
		5:       "5",
		-2:      "-2",
		2.5:     "2.5",
		0.1:     "0.1",
		1e20:    "100000000000000000000",
		1e21:    "1e+21",
		1.5e-7:  "1.5e-07",
		0:       "0",
		1234.75: "1234.75",
	}
	for v, want := range tests {
		if got := formatNumber(v); got != want {
			t.Errorf("formatNumber(%v) = %q, want %q", v, got, want)
		}
	}
}

// BenchmarkNewServer measures what --demo costs before the first request.
func BenchmarkNewServer(b *testing.B) {
	for b.Loop() {
		NewServer()
	}
}
