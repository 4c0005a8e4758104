package proxy

import (
	"errors"
	"strings"
	"testing"
)

// countFrames counts what ReadLog hands on.
type countFrames struct{ frames, events int }

func (c *countFrames) Frame(Frame) { c.frames++ }
func (c *countFrames) Event(Event) { c.events++ }

func TestReadLogBadInput(t *testing.T) {
	const entry = `{"time":"2026-01-02T03:04:05Z","direction":"send","message":{"jsonrpc":"2.0","id":1,"method":"ping"}}`
	tests := []struct {
		name    string
		log     string
		frames  int
		cut     bool   // a *CutOffError
		wantErr string // an *EntryError with this text
	}{
		{name: "whole", log: entry + "\n" + entry + "\n", frames: 2},
		{name: "last line cut off", log: entry + "\n" + entry[:40], frames: 1, cut: true},
		{name: "only line cut off", log: entry[:40], wantErr: "line 1: not JSON"},
		{name: "cut line followed by a newline", log: entry + "\n" + entry[:40] + "\n", frames: 1, wantErr: "line 2: not JSON"},
		{name: "text", log: "hello world\n", wantErr: "line 1: not JSON at byte 1"},
		{name: "no direction", log: `{"a":1}` + "\n", wantErr: `line 1: not a log entry: it has no "direction"`},
		{name: "unknown direction", log: `{"direction":"up"}` + "\n", wantErr: `unknown direction "up": want send, recv or event`},
		{name: "array", log: "[1]\n", wantErr: "line 1: not a log entry: a session log"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c countFrames
			_, err := ReadLog(strings.NewReader(tt.log), "x.ndjson", &c)
			var cut *CutOffError
			var bad *EntryError
			switch {
			case tt.cut && !errors.As(err, &cut):
				t.Errorf("err = %v, want a *CutOffError", err)
			case tt.wantErr != "" && (!errors.As(err, &bad) || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("err = %v, want an *EntryError with %q", err, tt.wantErr)
			case !tt.cut && tt.wantErr == "" && err != nil:
				t.Errorf("err = %v", err)
			}
			if strings.Contains(err2s(err), "Go value") {
				t.Errorf("err names a Go type: %v", err)
			}
			if c.frames != tt.frames {
				t.Errorf("frames = %d, want %d", c.frames, tt.frames)
			}
		})
	}
}

func err2s(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
