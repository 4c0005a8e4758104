package testserver

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	initialize  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	toolsList   = `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`
	callEchoHi  = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`
)

// Answers shared by the raw modes.
const (
	initResult = `{"id":1,"jsonrpc":"2.0","result":{"capabilities":{"tools":{}},"protocolVersion":"2025-06-18","serverInfo":{"name":"testserver-%s","version":"1.0.0"}}}`
	echoTools  = `{"id":2,"jsonrpc":"2.0","result":{"tools":[{"description":"Returns the message unchanged.","inputSchema":{"properties":{"message":{"type":"string"}},"required":["message"],"type":"object"},"name":"echo"}]}}`
	echoHi     = `{"id":3,"jsonrpc":"2.0","result":{"content":[{"text":"hi","type":"text"}]}}`
)

func TestRawModes(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		input   []string
		want    []string
		wantLog []string
	}{
		{
			name:    "repeat-cursor handshake and call",
			args:    []string{"repeat-cursor"},
			input:   []string{initialize, initialized, callEchoHi},
			want:    []string{strings.Replace(initResult, "%s", "repeat-cursor", 1), echoHi},
			wantLog: []string{"initialize", "notifications/initialized", "tools/call"},
		},
		{
			name:  "repeat-cursor",
			args:  []string{"repeat-cursor"},
			input: []string{toolsList, toolsList},
			want: []string{
				`{"id":2,"jsonrpc":"2.0","result":{"nextCursor":"same","tools":[{"description":"Returns the message unchanged.","inputSchema":{"properties":{"message":{"type":"string"}},"required":["message"],"type":"object"},"name":"echo"}]}}`,
				`{"id":2,"jsonrpc":"2.0","result":{"nextCursor":"same","tools":[{"description":"Returns the message unchanged.","inputSchema":{"properties":{"message":{"type":"string"}},"required":["message"],"type":"object"},"name":"echo"}]}}`,
			},
			wantLog: []string{"tools/list", "tools/list"},
		},
		{
			name:    "version default",
			args:    []string{"version"},
			input:   []string{initialize},
			want:    []string{`{"id":1,"jsonrpc":"2.0","result":{"capabilities":{"tools":{}},"protocolVersion":"1999-01-01","serverInfo":{"name":"testserver-version","version":"1.0.0"}}}`},
			wantLog: []string{"initialize"},
		},
		{
			name:  "version from flag",
			args:  []string{"-answer-version", "2024-11-05", "version"},
			input: []string{initialize, toolsList},
			want: []string{
				`{"id":1,"jsonrpc":"2.0","result":{"capabilities":{"tools":{}},"protocolVersion":"2024-11-05","serverInfo":{"name":"testserver-version","version":"1.0.0"}}}`,
				echoTools,
			},
			wantLog: []string{"initialize", "tools/list"},
		},
		{
			name:  "version without one from the client",
			args:  []string{"nonjson"},
			input: []string{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`},
			want: []string{
				nonJSONNoise,
				`{"id":1,"jsonrpc":"2.0","result":{"capabilities":{"tools":{}},"protocolVersion":"2025-11-25","serverInfo":{"name":"testserver-nonjson","version":"1.0.0"}}}`,
			},
			wantLog: []string{"initialize"},
		},
		{
			name:    "nonjson",
			args:    []string{"nonjson"},
			input:   []string{initialize, initialized, callEchoHi},
			want:    []string{nonJSONNoise, strings.Replace(initResult, "%s", "nonjson", 1), nonJSONNoise, echoHi},
			wantLog: []string{"initialize", "notifications/initialized", "tools/call"},
		},
		{
			name: "errors",
			args: []string{"version"},
			input: []string{
				`not json`,
				`{"jsonrpc":"2.0","id":"a","method":"resources/list"}`,
				`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope"}}`,
				`{"jsonrpc":"2.0","id":5,"result":{}}`, // a response: ignored
				``,
				`{"jsonrpc":"2.0","id":6,"method":"ping"}`,
			},
			want: []string{
				`{"error":{"code":-32700,"message":"parse error: invalid character 'o' in literal null (expecting 'u')"},"id":null,"jsonrpc":"2.0"}`,
				`{"error":{"code":-32601,"message":"method not found: resources/list"},"id":"a","jsonrpc":"2.0"}`,
				`{"error":{"code":-32602,"message":"unknown tool \"nope\""},"id":4,"jsonrpc":"2.0"}`,
				`{"id":6,"jsonrpc":"2.0","result":{}}`,
			},
			wantLog: []string{"resources/list", "tools/call", "ping"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			logPath := filepath.Join(dir, "log")
			args := append([]string{"-log", logPath}, tt.args...)
			var stdout, stderr bytes.Buffer
			input := strings.NewReader(strings.Join(tt.input, "\n") + "\n")
			if code := run(t.Context(), args, input, &stdout, &stderr); code != 0 {
				t.Fatalf("exit status %d, stderr:\n%s", code, &stderr)
			}
			if diff := cmp.Diff(tt.want, lines(stdout.String())); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantLog, readLines(t, logPath)); diff != "" {
				t.Errorf("log (-want +got):\n%s", diff)
			}
			mode := tt.args[len(tt.args)-1]
			if got, want := stderr.String(), "testserver: started "+mode+"\n"; got != want {
				t.Errorf("stderr = %q, want %q", got, want)
			}
		})
	}
}

func TestRawServeLongLine(t *testing.T) {
	long := strings.Repeat("y", 1<<20)
	input := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"` + long + `"}}}`
	var out bytes.Buffer
	s := &rawServer{methods: rawMethods("t", ""), obs: &observer{}}
	if err := s.serve(t.Context(), strings.NewReader(input), &out); err != nil { // no final newline either
		t.Fatal(err)
	}
	if want := `{"id":1,"jsonrpc":"2.0","result":{"content":[{"text":"` + long + `","type":"text"}]}}` + "\n"; out.String() != want {
		t.Errorf("got %d bytes, want %d", out.Len(), len(want))
	}
}

// lines splits s into lines, without the final newline.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return lines(string(data))
}

func TestObserver(t *testing.T) {
	dir := t.TempDir()
	logPath, readyPath := filepath.Join(dir, "log"), filepath.Join(dir, "ready")
	if err := os.WriteFile(logPath, []byte("earlier\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	o, err := newObserver(logPath, readyPath, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	defer o.close()

	o.received("initialize")
	if _, err := os.Stat(readyPath); !os.IsNotExist(err) {
		t.Errorf("ready file exists before any tools/call (stat: %v)", err)
	}
	o.received("tools/call")
	if _, err := os.Stat(readyPath); err != nil {
		t.Errorf("no ready file after tools/call: %v", err)
	}
	o.received("notifications/cancelled")
	if diff := cmp.Diff([]string{"earlier", "initialize", "tools/call", "notifications/cancelled"}, readLines(t, logPath)); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
	if stderr.Len() > 0 {
		t.Errorf("stderr: %s", &stderr)
	}

	if _, err := newObserver(filepath.Join(dir, "missing", "log"), "", &stderr); err == nil {
		t.Error("newObserver with a log in a missing directory succeeded")
	}
}
