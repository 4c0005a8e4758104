package client

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// discoverWith answers server/discover declaring caps.
func discoverWith(caps string) handler {
	return func(s *fakeServer, m message) {
		s.reply(m, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":`+caps+`,"ttlMs":0,"cacheScope":"private"}`)
	}
}

// initializeWith answers initialize (2025-11-25) declaring caps.
func initializeWith(caps string) handler {
	return func(s *fakeServer, m message) {
		s.reply(m, `{"protocolVersion":"2025-11-25","capabilities":`+caps+`,"serverInfo":{"name":"fake","version":"0.1"}}`)
	}
}

// connectFake connects a client to a fake server, in the modern era when
// modern is set.
func connectFake(t *testing.T, modern bool, handlers map[string]handler, opts Options) (*fakeServer, *Client) {
	t.Helper()
	s, conn := startFake(t, handlers)
	opts.Timeout = max(opts.Timeout, 10*time.Second)
	if modern {
		opts.ProtocolVersion = ModernProtocolVersion
	}
	c, err := Connect(context.Background(), fixed(conn), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return s, c
}

func TestSetLogLevelLegacy(t *testing.T) {
	tests := []struct {
		name, caps, level string
		wantErr           string // "" for none
		wantSent          bool
	}{
		{"sent", `{"logging":{}}`, "debug", "", true},
		{"unknown level", `{"logging":{}}`, "verbose", `unknown log level "verbose": want one of debug, info, notice, warning, error, critical, alert, emergency`, false},
		{"no capability", `{"tools":{}}`, "info", "the server does not declare the logging capability, so it offers no log messages", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, c := connectFake(t, false, map[string]handler{
				"initialize":       initializeWith(tt.caps),
				"logging/setLevel": func(s *fakeServer, m message) { s.reply(m, `{}`) },
				"ping":             func(s *fakeServer, m message) { s.reply(m, `{}`) },
			}, Options{})
			err := c.SetLogLevel(context.Background(), tt.level)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr) {
				t.Fatalf("SetLogLevel: %v, want %q", err, tt.wantErr)
			}
			// A ping marks the end of what SetLogLevel sent.
			if err := c.Ping(context.Background()); err != nil {
				t.Fatal(err)
			}
			var sent *message
			for _, m := range s.drain() {
				if m.Method == "logging/setLevel" {
					sent = &m
				}
			}
			if (sent != nil) != tt.wantSent {
				t.Fatalf("logging/setLevel sent: %v, want %v", sent != nil, tt.wantSent)
			}
			if sent != nil && compact(t, sent.Params) != `{"level":"debug"}` {
				t.Errorf("params %s", sent.Params)
			}
			want := ""
			if tt.wantErr == "" {
				want = tt.level
			}
			if got := c.LogLevel(); got != want {
				t.Errorf("LogLevel() = %q, want %q", got, want)
			}
		})
	}
	var ce *CapabilityError
	if !errors.As(error(&CapabilityError{Capability: "logging"}), &ce) {
		t.Error("CapabilityError does not match errors.As")
	}
}

// TestSetLogLevelModern: no request of its own; every later request
// carries the level in _meta.
func TestSetLogLevelModern(t *testing.T) {
	s, c := connectFake(t, true, map[string]handler{
		"server/discover": discoverWith(`{"logging":{},"tools":{}}`),
		"tools/list":      listOneTool,
	}, Options{})
	if err := c.SetLogLevel(context.Background(), "warning"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListTools(context.Background()); err != nil {
		t.Fatal(err)
	}
	sent := s.drain()
	if got := strings.Join(methods(sent), " "); got != "server/discover tools/list" {
		t.Fatalf("sent %s, want server/discover then tools/list only", got)
	}
	m := sent[1]
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil {
		t.Fatal(err)
	}
	if got := string(p.Meta[metaLogLevel]); got != `"warning"` {
		t.Errorf("_meta %s = %s, want \"warning\"", metaLogLevel, got)
	}
	if _, ok := p.Meta[metaProtocolVersion]; !ok {
		t.Errorf("_meta lost the protocol version: %s", m.Params)
	}
}

func TestWithMetaLogLevel(t *testing.T) {
	c := &Client{wire: ModernProtocolVersion, opts: Options{ProtocolVersion: ModernProtocolVersion, ClientInfo: Implementation{Name: "mcpctl", Version: "1"}}}
	c.watch.logLevel = "info"
	got, err := c.withMeta(json.RawMessage(`{"_meta":{"progressToken":1},"name":"t"}`))
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcpctl","version":"1"},"io.modelcontextprotocol/logLevel":"info","io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":1},"name":"t"}`
	if string(got) != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}
