package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// recordingText is a recording: a legacy handshake, a tool call with
// progress and a log after its response, the same call answered twice
// differently, and a server request that is not replayed.
const recordingText = `{"time":"2026-11-23T09:00:00Z","direction":"event","event":"connect","detail":"server"}
{"time":"2026-11-23T09:00:00Z","direction":"send","message":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcpctl","version":"1"}}}}
{"time":"2026-11-23T09:00:00Z","direction":"recv","message":{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"rec","version":"1"}}}}
{"time":"2026-11-23T09:00:00Z","direction":"send","message":{"jsonrpc":"2.0","method":"notifications/initialized"}}
{"time":"2026-11-23T09:00:01Z","direction":"send","message":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"},"_meta":{"progressToken":7}}}}
{"time":"2026-11-23T09:00:01Z","direction":"recv","message":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}}}
{"time":"2026-11-23T09:00:01Z","direction":"recv","message":{"jsonrpc":"2.0","id":"s1","method":"roots/list"}}
{"time":"2026-11-23T09:00:01Z","direction":"recv","message":{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi"}]}}}
{"time":"2026-11-23T09:00:01Z","direction":"recv","message":{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"done"}}}
{"time":"2026-11-23T09:00:02Z","direction":"send","message":{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"arguments":{"n":1},"name":"count"}}}
{"time":"2026-11-23T09:00:02Z","direction":"recv","message":{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"1"}]}}}
{"time":"2026-11-23T09:00:03Z","direction":"send","message":{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"count","arguments":{"n":1}}}}
{"time":"2026-11-23T09:00:03Z","direction":"recv","message":{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"2"}]}}}
{"time":"2026-11-23T09:00:04Z","direction":"send","message":{"jsonrpc":"2.0","id":5,"method":"tools/list"}}
{"time":"2026-11-23T09:00:04Z","direction":"event","event":"close"}
`

func readTestRecording(t *testing.T) *Recording {
	t.Helper()
	rec, err := ReadRecording(strings.NewReader(recordingText), "rec.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func TestMockMatching(t *testing.T) {
	m := NewMock(readTestRecording(t))
	tests := []struct {
		name string
		req  string
		want []string // answers, in order
	}{
		{
			name: "initialize with other client details",
			req:  `{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"other"}}}`,
			want: []string{`{"id":"a","jsonrpc":"2.0","result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"rec","version":"1"}}}`},
		},
		{
			name: "notification: no answer",
			req:  `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		},
		{
			name: "keys in another order, _meta ignored, progress token replaced",
			req:  `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"_meta":{"progressToken":"p"},"arguments":{"message":"hi"},"name":"echo"}}`,
			want: []string{
				`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1,"progressToken":"p"}}`,
				`{"id":10,"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"hi"}]}}`,
				`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"done"}}`,
			},
		},
		{
			name: "repeated: first recorded answer",
			req:  `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"count","arguments":{"n":1}}}`,
			want: []string{`{"id":11,"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"1"}]}}`},
		},
		{
			name: "repeated: second recorded answer",
			req:  `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"count","arguments":{"n":1}}}`,
			want: []string{`{"id":12,"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"2"}]}}`},
		},
		{
			name: "repeated: the last answer again",
			req:  `{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"count","arguments":{"n":1}}}`,
			want: []string{`{"id":13,"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"2"}]}}`},
		},
		{
			name: "recorded method, other params",
			req:  `{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"count","arguments":{"n":2}}}`,
			want: []string{`{"error":{"code":-32603,"message":"not in the recording rec.ndjson: tools/call {\"arguments\":{\"n\":2},\"name\":\"count\"}"},"id":14,"jsonrpc":"2.0"}`},
		},
		{
			name: "unanswered in the recording",
			req:  `{"jsonrpc":"2.0","id":15,"method":"tools/list"}`,
			want: []string{`{"error":{"code":-32601,"message":"not in the recording rec.ndjson: tools/list {}"},"id":15,"jsonrpc":"2.0"}`},
		},
		{
			name: "ping",
			req:  `{"jsonrpc":"2.0","id":16,"method":"ping"}`,
			want: []string{`{"jsonrpc":"2.0","id":16,"result":{}}`},
		},
		{
			name: "a response from the client: no answer",
			req:  `{"jsonrpc":"2.0","id":"s1","result":{"roots":[]}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := m.Handle(json.RawMessage(tt.req))
			if len(got) != len(tt.want) {
				t.Fatalf("got %d answers %s, want %d", len(got), got, len(tt.want))
			}
			for i := range got {
				if !jsonEqual(t, got[i], tt.want[i]) {
					t.Errorf("answer %d:\n got %s\nwant %s", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func jsonEqual(t *testing.T, a json.RawMessage, b string) bool {
	t.Helper()
	return bytes.Equal(canonicalJSON(a), canonicalJSON(json.RawMessage(b)))
}

func TestCanonicalParamsRecord(t *testing.T) {
	tests := []struct{ in, want string }{
		{``, `{}`},
		{`null`, `{}`},
		{`{}`, `{}`},
		{`{"_meta":{"x":1}}`, `{}`},
		{`{"b":1,"a":{"d":[1,2],"c":"<&>"}}`, `{"a":{"c":"<&>","d":[1,2]},"b":1}`},
		{`{"a":{"_meta":1}}`, `{"a":{"_meta":1}}`}, // only the top level's _meta
		{`{"n":12345678901234567890}`, `{"n":12345678901234567890}`},
	}
	for _, tt := range tests {
		got, err := CanonicalParams(json.RawMessage(tt.in))
		if err != nil || got != tt.want {
			t.Errorf("CanonicalParams(%s) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
}

func TestReadRecordingErrors(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"", "no answered request"},
		{"not json\n", "line 1 is not a trace entry"},
	} {
		_, err := ReadRecording(strings.NewReader(tt.text), "r.ndjson")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want %q", tt.text, err, tt.want)
		}
	}
}

// TestRecordRedacts records a session whose messages carry a bearer token
// and an -e value: neither appears in the recording, and what is left
// still replays.
func TestRecordRedacts(t *testing.T) {
	const token, envValue = "s3cret-bearer-token", "env-secret-value"
	client, server := NewPipe()
	var buf bytes.Buffer
	rec := NewRecorder(transportOf(client), &buf, NewRedactor("Bearer "+token, token, envValue))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := rec.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		msg, err := server.Read(ctx)
		if err != nil {
			return
		}
		_ = msg
		server.Write(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"token `+token+` env `+envValue+`"}]}}`), WriteOptions{})
	}()
	if err := conn.Write(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"show","arguments":{"auth":"Bearer `+token+`","v":"`+envValue+`"}}}`), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Read(ctx); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	out := buf.String()
	if strings.Contains(out, token) || strings.Contains(out, envValue) || strings.Contains(out, "s3cret") {
		t.Fatalf("the recording holds a secret:\n%s", out)
	}
	if !strings.Contains(out, Redacted) {
		t.Fatalf("nothing redacted:\n%s", out)
	}
	r, err := ReadRecording(strings.NewReader(out), "rec")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Exchanges) != 1 || r.Exchanges[0].Method != "tools/call" {
		t.Fatalf("exchanges %+v", r.Exchanges)
	}
}

// transportOf returns a Transport whose Connect returns conn.
type connTransport struct{ conn Connection }

func (c connTransport) Connect(context.Context) (Connection, error) { return c.conn, nil }

func transportOf(conn Connection) Transport { return connTransport{conn} }

func TestMockStdio(t *testing.T) {
	m := NewMock(readTestRecording(t))
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}` + "\n\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"nosuch"}]` + "\n" +
		"garbage\n")
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := m.ServeStdio(ctx, in, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], `"serverInfo"`) || !strings.Contains(lines[1], `"id":2`) ||
		!strings.Contains(lines[2], `-32601`) || !strings.Contains(lines[3], `-32700`) {
		t.Fatalf("answers:\n%s", out.String())
	}
}

func TestMockHTTP(t *testing.T) {
	srv := httptest.NewServer(NewMock(readTestRecording(t)))
	defer srv.Close()
	post := func(body string) (*http.Response, string) {
		t.Helper()
		resp, err := http.Post(srv.URL, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	resp, body := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	if resp.Header.Get("Content-Type") != "application/json" || !strings.Contains(body, `"serverInfo"`) {
		t.Errorf("initialize: %s %q", resp.Header.Get("Content-Type"), body)
	}
	resp, _ = post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if resp.StatusCode != http.StatusAccepted {
		t.Errorf("notification: status %d", resp.StatusCode)
	}
	resp, body = post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`)
	if resp.Header.Get("Content-Type") != "text/event-stream" || strings.Count(body, "event: message\ndata: ") != 3 ||
		strings.Index(body, "notifications/progress") > strings.Index(body, `"result"`) {
		t.Errorf("call with notifications: %s %q", resp.Header.Get("Content-Type"), body)
	}
	get, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	get.Body.Close()
	if get.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: status %d", get.StatusCode)
	}
}

// TestReadRecordingReconnect: a second connection numbers its requests
// afresh; an unanswered request of the first is not paired with the
// second's response.
func TestReadRecordingReconnect(t *testing.T) {
	text := `{"time":"t","direction":"event","event":"connect"}
{"time":"t","direction":"send","message":{"jsonrpc":"2.0","id":1,"method":"server/discover"}}
{"time":"t","direction":"event","event":"connect"}
{"time":"t","direction":"send","message":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}}
{"time":"t","direction":"recv","message":{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}}
`
	rec, err := ReadRecording(strings.NewReader(text), "r")
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Exchanges) != 1 || rec.Exchanges[0].Method != "initialize" {
		t.Fatalf("exchanges: %+v", rec.Exchanges)
	}
}
