package client

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestSampleResults(t *testing.T) {
	ctx := context.Background()
	answer, err := SampleResults("canned.ndjson", []byte(`{"model":"a"}`+"\n"+`{"model":"b"}`+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`{"model":"a"}`, `{"model":"b"}`} {
		got, err := answer(ctx, nil)
		if err != nil || string(got) != want {
			t.Fatalf("answer = %s, %v; want %s", got, err, want)
		}
	}
	if _, err := answer(ctx, nil); err == nil || !strings.Contains(err.Error(), "canned.ndjson: all 2 canned results were used") {
		t.Errorf("after the last result: %v", err)
	}

	for _, tt := range []struct{ data, want string }{
		{"{\n  \"model\": \"pretty\"\n}\n", ""},
		{"", "holds no result"},
		{"[1]", "result 1 is not a JSON object"},
		{`{"model":"a"}` + "\n{oops", "result 2 is not JSON"},
	} {
		_, err := SampleResults("f.json", []byte(tt.data))
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("SampleResults(%q) error = %v, want %q", tt.data, err, tt.want)
		}
	}
}

func TestSampleCommand(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		argv    []string
		timeout time.Duration
		want    string // the result, or a part of the error
		fails   bool
	}{
		{"echoes stdin", []string{"sh", "-c", "cat"}, time.Minute, `{"messages":[]}`, false},
		{"exit status", []string{"sh", "-c", "echo first >&2; echo last >&2; exit 3"}, time.Minute, "exit status 3 (stderr: last)", true},
		{"not JSON", []string{"sh", "-c", "echo hello"}, time.Minute, "did not print a JSON object", true},
		{"timeout", []string{"sh", "-c", "exec sleep 60"}, 50 * time.Millisecond, "ran longer than 50ms", true},
		{"missing", []string{"/nonexistent/answer"}, time.Minute, "/nonexistent/answer", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SampleCommand(tt.argv, nil, tt.timeout)(ctx, json.RawMessage(`{"messages":[]}`))
			if tt.fails {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("error = %v, want %q", err, tt.want)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Errorf("= %s, %v; want %s", got, err, tt.want)
			}
		})
	}
}

func TestSamplingHandler(t *testing.T) {
	ctx := context.Background()
	ok := json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}`)
	tests := []struct {
		name     string
		answer   SampleFunc
		check    func(json.RawMessage) error
		code     int // 0: a result
		warnings int
	}{
		{"result", func(context.Context, json.RawMessage) (json.RawMessage, error) { return ok, nil }, nil, 0, 0},
		{"decline", SampleDecline(), nil, CodeUserRejected, 0},
		{"failure", func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return nil, errors.New("boom\nsecond line")
		}, nil, CodeInternalError, 1},
		{"invalid", func(context.Context, json.RawMessage) (json.RawMessage, error) { return ok, nil },
			func(json.RawMessage) error { return errors.New("/model: missing") }, CodeInternalError, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var warned []string
			s := &Sampling{Answer: tt.answer, Check: tt.check, Warn: func(m string) { warned = append(warned, m) }}
			res, err := s.Handler()(ctx, json.RawMessage(`{}`))
			if len(warned) != tt.warnings {
				t.Errorf("warnings = %q, want %d", warned, tt.warnings)
			}
			if tt.code == 0 {
				if err != nil || res == nil {
					t.Fatalf("= %v, %v", res, err)
				}
				return
			}
			var rpc *RPCError
			if !errors.As(err, &rpc) || rpc.Code != tt.code {
				t.Fatalf("error = %v, want code %d", err, tt.code)
			}
			if strings.Contains(rpc.Message, "\n") {
				t.Errorf("message %q has more than one line", rpc.Message)
			}
		})
	}
}
