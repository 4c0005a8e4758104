package proxy

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/transport"
)

func TestLogRecordsFramesAsATrace(t *testing.T) {
	var buf bytes.Buffer
	p, err := ParseRedactPath("$.params.arguments.password")
	if err != nil {
		t.Fatal(err)
	}
	l := NewLog(&buf, transport.NewRedactor("s3cret-token"), []RedactPath{p})
	l.Event(Event{Name: "start", Detail: map[string]any{"pid": 1}})
	l.Frame(Frame{Dir: HostToServer, Data: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"login","arguments":{"user":"ann","password":"hunter2"}}}`), Size: 113})
	l.Frame(Frame{Dir: ServerToHost, Data: []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"token s3cret-token"}]}}`), Size: 89})
	l.Frame(Frame{Dir: ServerToHost, Data: []byte("not json"), Size: 8})
	l.Frame(Frame{Dir: ServerToHost, Data: []byte(`{"a":`), Size: 1 << 30})
	if buf.Len() != 0 {
		t.Errorf("the log wrote %d bytes before Flush: it should buffer them", buf.Len())
	}
	l.Flush()

	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d log lines, want 5:\n%s", len(lines), buf.String())
	}
	var entries []transport.TraceEntry
	for _, l := range lines {
		var e transport.TraceEntry
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("log line is not a trace entry: %v\n%s", err, l)
		}
		entries = append(entries, e)
	}
	if entries[0].Event != "start" || entries[1].Direction != transport.DirectionSend || entries[2].Direction != transport.DirectionRecv {
		t.Errorf("directions and events: %+v", entries)
	}
	if strings.Contains(buf.String(), "hunter2") || strings.Contains(buf.String(), "s3cret-token") {
		t.Errorf("a secret reached the log:\n%s", buf.String())
	}
	if !strings.Contains(lines[1], `"password":"`+transport.Redacted+`"`) || !strings.Contains(lines[1], `"user":"ann"`) {
		t.Errorf("the redacted path is not hidden, or more was: %s", lines[1])
	}
	if entries[3].Message == nil || string(entries[3].Message) != `"not json"` {
		t.Errorf("a frame that is not JSON is recorded as %s, want a JSON string", entries[3].Message)
	}
	if entries[4].Event != "frame-too-large" {
		t.Errorf("a truncated frame is recorded as %+v", entries[4])
	}
}

func TestParseRedactPath(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		bad      bool
	}{
		{in: "$.params.arguments.password", want: "$.params.arguments.password"},
		{in: "$.result.content[*].text", want: "$.result.content.*.text"},
		{in: "$.result.content[0]", want: "$.result.content.0"},
		{in: "$['params']['a.b']", want: "$.params.a.b"},
		{in: "params.x", bad: true},
		{in: "$", bad: true},
		{in: "$.a[", bad: true},
		{in: "$..a", bad: true},
		{in: "$.a[x]", bad: true},
	} {
		p, err := ParseRedactPath(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("ParseRedactPath(%q) = %v, want an error", tc.in, p)
			}
			continue
		}
		if err != nil || p.String() != tc.want {
			t.Errorf("ParseRedactPath(%q) = %v, %v; want %s", tc.in, p, err, tc.want)
		}
	}
}

// TestLogWritesWhatTheTraceWrites holds the log's own encoding of frames
// to the trace's, byte for byte, whichever way each frame is written.
func TestLogWritesWhatTheTraceWrites(t *testing.T) {
	at := time.Date(2026, 11, 28, 1, 2, 3, 450000000, time.FixedZone("x", 3600))
	now := func() time.Time { return at }
	red := transport.NewRedactor("s3cret-token")
	frames := []struct{ session, data string }{
		{"", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi <&>"}}}`},
		{"", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"token s3cret-token"}]}}`},
		{"", "{\"jsonrpc\":\"2.0\",\n \"id\":2,\"result\":{}}"},
		{"", "not json"},
		{"", ""},
		{"", `{"a":"\u00e9 é \"q\""}`},
		{"a1b2-C3", `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{"odd \"session\"\n", `{"jsonrpc":"2.0","method":"x"}`},
		{"", `{"a":1} {"b":2}`},
	}
	var got, want bytes.Buffer
	l := NewLog(&got, red, nil)
	l.now = now
	tr := &transport.Trace{W: &want, Redactor: red, Now: now}
	for i, fr := range frames {
		dir, tdir := HostToServer, transport.DirectionSend
		if i%2 == 1 {
			dir, tdir = ServerToHost, transport.DirectionRecv
		}
		l.Frame(Frame{Dir: dir, Session: fr.session, Data: []byte(fr.data), Size: int64(len(fr.data))})
		tr.SessionMessage(tdir, fr.session, []byte(fr.data))
	}
	l.Flush()
	if got.String() != want.String() {
		t.Errorf("the log wrote\n%s\nthe trace writes\n%s", got.String(), want.String())
	}
}

// TestRedactPathsHidesEveryReading holds --redact-path to every way a
// server could read the value at the path: in a batch, after leading
// space, in the first of a member given twice, in a member name in
// another case (encoding/json reads it as the member), and in a line the
// log cannot read as JSON (a lenient parser may).
func TestRedactPathsHidesEveryReading(t *testing.T) {
	p, err := ParseRedactPath("$.params.arguments.password")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, msg string }{
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"login","arguments":{"password":"hunter2"}}}]`},
		{"leading space", ` {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"login","arguments":{"password":"hunter2"}}}`},
		{"params twice", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"login","arguments":{"password":"hunter2"}},"params":{"name":"login"}}`},
		{"member twice", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"login","arguments":{"password":"hunter2","password":"x"}}}`},
		{"other case", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"login","arguments":{"Password":"hunter2"}}}`},
		{"NaN", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"login","arguments":{"password":"hunter2","n":NaN}}}`},
		{"two values", `{"jsonrpc":"2.0","id":1,"method":"ping"} {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"arguments":{"password":"hunter2"}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Redact([]byte(tc.msg), nil, []RedactPath{p})
			if bytes.Contains(got, []byte("hunter2")) {
				t.Errorf("the value at the path was kept:\n%s", got)
			}
			if !json.Valid(got) {
				t.Errorf("the redacted message is not JSON:\n%s", got)
			}
		})
	}
	plain := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"login","arguments":{"user":"ann"}}}`
	if got := Redact([]byte(plain), nil, []RedactPath{p}); string(got) != plain {
		t.Errorf("a message without the path was changed: %s", got)
	}
}
