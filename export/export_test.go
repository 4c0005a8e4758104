package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sessionLog is a session log: an initialize, a tools/call joining a W3C
// trace, a call answered with a JSON-RPC error, one with isError, and one
// never answered; a result carries "</script>" and a URL.
const sessionLog = `{"time":"2025-06-01T10:00:00.000000000Z","direction":"event","event":"start","detail":{"command":["testserver","basic"]}}
{"time":"2025-06-01T10:00:00.001000000Z","direction":"send","message":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"host","version":"1.0"}}}}
{"time":"2025-06-01T10:00:00.003000000Z","direction":"recv","message":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"srv","version":"2.0"}}}}
{"time":"2025-06-01T10:00:00.004000000Z","direction":"send","message":{"jsonrpc":"2.0","method":"notifications/initialized"}}
{"time":"2025-06-01T10:00:00.010000000Z","direction":"send","message":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"},"_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}}}
{"time":"2025-06-01T10:00:00.025000000Z","direction":"recv","message":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"</script><script>alert(1)</script> see https://example.com/x"}]}}}
{"time":"2025-06-01T10:00:00.030000000Z","direction":"send","message":{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"nosuch","arguments":{}}}}
{"time":"2025-06-01T10:00:00.031000000Z","direction":"recv","message":{"jsonrpc":"2.0","id":"b","error":{"code":-32602,"message":"unknown tool nosuch"}}}
{"time":"2025-06-01T10:00:00.040000000Z","direction":"send","message":{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fail","arguments":{}}}}
{"time":"2025-06-01T10:00:00.042000000Z","direction":"recv","message":{"jsonrpc":"2.0","id":3,"result":{"content":[],"isError":true}}}
{"time":"2025-06-01T10:00:00.050000000Z","direction":"send","message":{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"slow","arguments":{}}}}
{"time":"2025-06-01T10:00:00.060000000Z","direction":"event","event":"server-exit","detail":{"code":0}}
`

var info = Info{Name: "mcpctl", Version: "test"}

func readSession(t *testing.T) *Session {
	t.Helper()
	s, err := Read(strings.NewReader(sessionLog), "fixture", false)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestReadCorrelates(t *testing.T) {
	s := readSession(t)
	type row struct {
		ID, Method, Tool string
		Latency          string
		Pending          bool
		Err              string
		Req, Resp        bool
	}
	var got []row
	for _, c := range s.Calls {
		got = append(got, row{c.ID, c.Method, c.Tool, c.Latency.String(), c.Pending, c.Error, c.Request != nil, c.Response != nil})
	}
	want := []row{
		{"0", "initialize", "", "2ms", false, "", true, true},
		{"1", "tools/call", "echo", "15ms", false, "", true, true},
		{`"b"`, "tools/call", "nosuch", "1ms", false, "unknown tool nosuch", true, true},
		{"3", "tools/call", "fail", "2ms", false, "", true, true},
		{"4", "tools/call", "slow", "0s", true, "", true, false},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("calls (-want +got):\n%s", d)
	}
	if s.Version != "2025-06-18" {
		t.Errorf("version %q", s.Version)
	}
	var kinds []string
	for _, c := range s.Calls {
		for _, f := range c.Flags {
			kinds = append(kinds, c.ID+":"+f.Kind)
		}
	}
	if d := cmp.Diff([]string{`"b":error`, "4:pending"}, kinds); d != "" {
		t.Errorf("flags per call (-want +got):\n%s", d)
	}
}

func TestJSONExport(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, "json", readSession(t), info); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Calls []struct {
			Method   string          `json:"method"`
			Request  json.RawMessage `json:"request"`
			Response json.RawMessage `json:"response"`
		} `json:"calls"`
		Flags []struct{ Kind string } `json:"flags"`
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, buf.String())
	}
	if len(got.Calls) != 5 || len(got.Flags) != 2 {
		t.Fatalf("%d calls, %d flags; want 5 and 2", len(got.Calls), len(got.Flags))
	}
	var req struct {
		Params struct{ Name string }
	}
	json.Unmarshal(got.Calls[1].Request, &req)
	if req.Params.Name != "echo" || !bytes.Contains(got.Calls[1].Response, []byte("example.com")) {
		t.Errorf("call 1: request %s response %s", got.Calls[1].Request, got.Calls[1].Response)
	}
}

func TestHARExport(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, "har", readSession(t), info); err != nil {
		t.Fatal(err)
	}
	// Parsed back as generic JSON, checking the fields HAR 1.2 requires.
	var har map[string]any
	if err := json.Unmarshal(buf.Bytes(), &har); err != nil {
		t.Fatal(err)
	}
	log := har["log"].(map[string]any)
	if log["version"] != "1.2" {
		t.Errorf("version %v", log["version"])
	}
	creator := log["creator"].(map[string]any)
	for _, k := range []string{"name", "version"} {
		if _, ok := creator[k].(string); !ok {
			t.Errorf("creator.%s missing", k)
		}
	}
	entries := log["entries"].([]any)
	if len(entries) != 5 {
		t.Fatalf("%d entries, want 5", len(entries))
	}
	require := func(where string, m map[string]any, keys ...string) {
		for _, k := range keys {
			if _, ok := m[k]; !ok {
				t.Errorf("%s: %s missing", where, k)
			}
		}
	}
	for i, e := range entries {
		e := e.(map[string]any)
		where := "entry " + string(rune('0'+i))
		require(where, e, "startedDateTime", "time", "request", "response", "cache", "timings")
		req := e["request"].(map[string]any)
		require(where+" request", req, "method", "url", "httpVersion", "cookies", "headers", "queryString", "headersSize", "bodySize")
		resp := e["response"].(map[string]any)
		require(where+" response", resp, "status", "statusText", "httpVersion", "cookies", "headers", "content", "redirectURL", "headersSize", "bodySize")
		require(where+" content", resp["content"].(map[string]any), "size", "mimeType")
		timings := e["timings"].(map[string]any)
		require(where+" timings", timings, "send", "wait", "receive")
		for _, k := range []string{"send", "wait", "receive"} {
			if timings[k].(float64) < 0 {
				t.Errorf("%s: timings.%s negative", where, k)
			}
		}
		if req["method"] != "POST" {
			t.Errorf("%s: method %v", where, req["method"])
		}
		var body map[string]any
		if err := json.Unmarshal([]byte(req["postData"].(map[string]any)["text"].(string)), &body); err != nil || body["jsonrpc"] != "2.0" {
			t.Errorf("%s: postData.text is not the JSON-RPC request: %v", where, err)
		}
	}
	second := entries[1].(map[string]any)
	if second["time"].(float64) != 15 || second["startedDateTime"] != "2025-06-01T10:00:00.01Z" {
		t.Errorf("entry 1: time %v started %v", second["time"], second["startedDateTime"])
	}
	if st := entries[4].(map[string]any)["response"].(map[string]any)["status"].(float64); st != 0 {
		t.Errorf("a pending call's status is %v, want 0", st)
	}
}

func TestOTLPExport(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, "otlp", readSession(t), info); err != nil {
		t.Fatal(err)
	}
	var got OTLPTraces
	dec := json.NewDecoder(&buf)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatal(err)
	}
	spans := got.ResourceSpans[0].ScopeSpans[0].Spans
	if len(spans) != 5 {
		t.Fatalf("%d spans, want 5", len(spans))
	}
	hexID := regexp.MustCompile(`^[0-9a-f]+$`)
	attrs := func(sp OTLPSpan) map[string]string {
		m := map[string]string{}
		for _, a := range sp.Attributes {
			switch {
			case a.Value.StringValue != nil:
				m[a.Key] = *a.Value.StringValue
			case a.Value.IntValue != nil:
				m[a.Key] = *a.Value.IntValue
			}
		}
		return m
	}
	for i, sp := range spans {
		if len(sp.TraceID) != 32 || len(sp.SpanID) != 16 || !hexID.MatchString(sp.TraceID+sp.SpanID) {
			t.Errorf("span %d: ids %q %q", i, sp.TraceID, sp.SpanID)
		}
		if a := attrs(sp); a["mcp.method.name"] == "" || a["rpc.jsonrpc.request_id"] == "" {
			t.Errorf("span %d: attributes %v", i, a)
		}
	}
	echo := spans[1]
	if echo.TraceID != "4bf92f3577b34da6a3ce929d0e0e4736" || echo.ParentSpanID != "00f067aa0ba902b7" {
		t.Errorf("traceparent not joined: trace %s parent %s", echo.TraceID, echo.ParentSpanID)
	}
	if echo.Name != "tools/call echo" || attrs(echo)["gen_ai.tool.name"] != "echo" || echo.Status.Code != 0 {
		t.Errorf("echo span: %+v", echo)
	}
	if echo.StartTimeUnixNano != "1748772000010000000" || echo.EndTimeUnixNano != "1748772000025000000" {
		t.Errorf("echo span times %s %s", echo.StartTimeUnixNano, echo.EndTimeUnixNano)
	}
	if spans[0].TraceID == echo.TraceID || spans[0].ParentSpanID != "" {
		t.Errorf("a call without traceparent joined a trace: %+v", spans[0])
	}
	if bad := spans[2]; bad.Status.Code != otlpStatusError || attrs(bad)["rpc.jsonrpc.error_code"] != "-32602" {
		t.Errorf("error span: %+v", bad)
	}
	if spans[3].Status.Code != otlpStatusError || spans[4].Status.Code != otlpStatusError {
		t.Errorf("isError and pending spans are not errors: %+v %+v", spans[3].Status, spans[4].Status)
	}
}

func TestHTMLExport(t *testing.T) {
	s := readSession(t)
	var buf bytes.Buffer
	if err := Write(&buf, "html", s, info); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	open := `<script type="application/json" id="session-data">`
	start := strings.Index(page, open)
	if start < 0 {
		t.Fatalf("no embedded data:\n%s", page)
	}
	rest := page[start+len(open):]
	end := strings.Index(rest, "</script>")
	embedded := rest[:end]

	// The data round-trips, with the result's "</script>" intact.
	var back Session
	if err := json.Unmarshal([]byte(embedded), &back); err != nil {
		t.Fatalf("embedded data is not JSON: %v", err)
	}
	want, _ := json.Marshal(s)
	got, _ := json.Marshal(&back)
	if !bytes.Equal(want, got) {
		t.Errorf("embedded data does not round-trip:\nwant %s\ngot  %s", want, got)
	}
	if strings.Contains(strings.ToLower(embedded), "</script") || strings.Contains(embedded, "<!--") {
		t.Errorf("embedded data can end its script element")
	}

	// Outside the data, nothing refers to the network.
	outside := page[:start] + page[start+len(open)+end:]
	for _, ref := range []string{"http://", "https://", "//fonts", "@import", "src=", "href="} {
		if strings.Contains(outside, ref) {
			t.Errorf("the page refers to %q outside its data", ref)
		}
	}
	for _, want := range []string{`id="search"`, "<details>", "<summary>", "MCP session fixture", "<style>"} {
		if !strings.Contains(page, want) && !strings.Contains(page, strings.Trim(want, "<>")) {
			t.Errorf("the page has no %s", want)
		}
	}
	if err := wellFormed(page); err != nil {
		t.Errorf("the page is not well formed: %v", err)
	}
}

// wellFormed checks that every element of an HTML page is closed in order
// (void elements need no end tag, and script and style hold raw text up to
// their end tag): golang.org/x/net/html is not a dependency of mcpctl.
func wellFormed(page string) error {
	void := map[string]bool{"meta": true, "input": true, "br": true, "img": true, "link": true, "hr": true}
	tag := regexp.MustCompile(`^<(/?)([a-zA-Z][a-zA-Z0-9]*)\b[^<>]*?(/?)>`)
	var stack []string
	for i := 0; i < len(page); {
		j := strings.IndexByte(page[i:], '<')
		if j < 0 {
			break
		}
		i += j
		if strings.HasPrefix(page[i:], "<!DOCTYPE") || strings.HasPrefix(page[i:], "<!--") {
			k := strings.IndexByte(page[i:], '>')
			if k < 0 {
				return fmt.Errorf("unterminated declaration")
			}
			i += k + 1
			continue
		}
		m := tag.FindStringSubmatch(page[i:])
		if m == nil {
			return fmt.Errorf("stray < at offset %d", i)
		}
		name := strings.ToLower(m[2])
		i += len(m[0])
		switch {
		case m[1] == "/":
			if len(stack) == 0 || stack[len(stack)-1] != name {
				return fmt.Errorf("</%s> closes %s", name, strings.Join(stack, ">"))
			}
			stack = stack[:len(stack)-1]
		case void[name] || m[3] == "/":
		case name == "script" || name == "style":
			k := strings.Index(strings.ToLower(page[i:]), "</"+name+">")
			if k < 0 {
				return fmt.Errorf("unterminated %s", name)
			}
			i += k + len("</"+name+">")
		default:
			stack = append(stack, name)
		}
	}
	if len(stack) > 0 {
		return fmt.Errorf("unclosed %s", strings.Join(stack, ">"))
	}
	return nil
}

func TestWellFormed(t *testing.T) {
	for page, ok := range map[string]bool{
		"<p><b>x</b></p>":                     true,
		"<p><b>x</p></b>":                     false,
		"<div><input x=1></div>":              true,
		"<script>if (a<b) {}</script><p>":     false,
		"<script>if (a<b) {}</script><p></p>": true,
	} {
		if err := wellFormed(page); (err == nil) != ok {
			t.Errorf("wellFormed(%q) = %v", page, err)
		}
	}
}

// TestReadCorrelatesPerSession reads a log of two hosts sharing a proxy,
// each in its HTTP session and numbering its ids from 0, the first
// session's call answered after the second began: each call gets its own
// messages, and nothing is flagged.
func TestReadCorrelatesPerSession(t *testing.T) {
	const log = `{"time":"2025-06-01T10:00:00.001Z","direction":"send","message":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}}
{"time":"2025-06-01T10:00:00.002Z","direction":"recv","session":"s1","message":{"jsonrpc":"2.0","id":0,"result":{}}}
{"time":"2025-06-01T10:00:00.003Z","direction":"send","session":"s1","message":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}}
{"time":"2025-06-01T10:00:00.004Z","direction":"send","message":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}}
{"time":"2025-06-01T10:00:00.005Z","direction":"recv","session":"s2","message":{"jsonrpc":"2.0","id":0,"result":{}}}
{"time":"2025-06-01T10:00:00.006Z","direction":"send","session":"s2","message":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fast"}}}
{"time":"2025-06-01T10:00:00.007Z","direction":"recv","session":"s2","message":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"fast"}]}}}
{"time":"2025-06-01T10:00:00.009Z","direction":"recv","session":"s1","message":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"slow"}]}}}
`
	s, err := Read(strings.NewReader(log), "two-hosts", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Flags) > 0 {
		t.Errorf("flags: %+v", s.Flags)
	}
	var got []string
	for _, c := range s.Calls {
		got = append(got, fmt.Sprintf("%s %s %s %s: %s → %s", c.Session, c.ID, c.Method, c.Latency, c.Request, c.Response))
	}
	want := []string{
		` 0 initialize 1ms: {"jsonrpc":"2.0","id":0,"method":"initialize","params":{}} → {"jsonrpc":"2.0","id":0,"result":{}}`,
		`s1 1 tools/call 6ms: {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}} → {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"slow"}]}}`,
		` 0 initialize 1ms: {"jsonrpc":"2.0","id":0,"method":"initialize","params":{}} → {"jsonrpc":"2.0","id":0,"result":{}}`,
		`s2 1 tools/call 1ms: {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fast"}} → {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"fast"}]}}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}
