package cmd

import (
	"encoding/json"
	"testing"

	"github.com/mcpctl/mcpctl/client"
)

// TestNotificationPrinter checks the text printed for typed notifications,
// which scripts match.
func TestNotificationPrinter(t *testing.T) {
	total := 4.0
	tests := []struct {
		name string
		tty  bool
		n    client.Notification
		want string
	}{
		{"log string", false, client.Notification{Method: "notifications/message", Log: &client.LoggingMessage{Level: "info", Logger: "db", Data: json.RawMessage(`"hello"`)}}, "server log [info] db: hello\n"},
		{"log object", false, client.Notification{Method: "notifications/message", Log: &client.LoggingMessage{Level: "error", Data: json.RawMessage(`{"a":1}`)}}, "server log [error]: {\"a\":1}\n"},
		{"progress piped", false, client.Notification{Method: "notifications/progress", Progress: &client.Progress{Progress: 1}}, ""},
		{"progress on a terminal", true, client.Notification{Method: "notifications/progress", Progress: &client.Progress{Progress: 1, Total: &total, Message: "working"}}, "\rprogress: 1/4 working\x1b[K"},
		{"undecodable log", false, client.Notification{Method: "notifications/message"}, ""},
		{"list changed", false, client.Notification{Method: "notifications/tools/list_changed", ListChanged: "tools"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, errOut := Test()
			ios.SetStderrTTY(tt.tty)
			f := &Factory{IOStreams: ios}
			f.notificationPrinter()(tt.n)
			if got := errOut.String(); got != tt.want {
				t.Errorf("printed %q, want %q", got, tt.want)
			}
		})
	}
}

func TestEventPrinter(t *testing.T) {
	ios, _, _, errOut := Test()
	f := &Factory{IOStreams: ios}
	if f.eventPrinter(false) != nil {
		t.Errorf("eventPrinter without -v is not nil")
	}
	f.eventPrinter(true)(client.EventSessionReinitialized, "protocol 2025-06-18")
	if got, want := errOut.String(), "mcpctl: session re-initialized: protocol 2025-06-18\n"; got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
}
