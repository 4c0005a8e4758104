package client

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// discoverAnswer answers server/discover as a modern server listing
// versions does.
func discoverAnswer(versions string) handler {
	return func(s *fakeServer, m message) {
		s.reply(m, `{"supportedVersions":`+versions+`,"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"modern","version":"2"}},"resultType":"complete"}`)
	}
}

func discoverError(errObj string) handler {
	return func(s *fakeServer, m message) { s.replyError(m, errObj) }
}

// TestEraDetection drives the probe against each kind of answer the
// backward-compatibility sections of 2026-07-28 name, and checks the era,
// the messages sent in order and what is worth remembering.
func TestEraDetection(t *testing.T) {
	t.Parallel()
	refuseInit := discoverError(`{"code":-32022,"message":"modern only","data":{"supported":["2026-07-28"]}}`)
	tests := []struct {
		name     string
		handlers map[string]handler
		opts     Options
		era      string
		source   string
		remember string
		methods  []string // the client's requests and notifications, in order
		how      string   // a substring of Detection.How
	}{
		{name: "modern server answers the probe",
			handlers: map[string]handler{"server/discover": discoverAnswer(`["2026-07-28"]`), "initialize": refuseInit},
			era:      EraModern, source: SourceProbe, remember: EraModern,
			methods: []string{"server/discover"}, how: "server/discover answered (2026-07-28)"},
		{name: "legacy server: method not found",
			handlers: map[string]handler{"server/discover": discoverError(`{"code":-32601,"message":"method not found"}`)},
			era:      EraLegacy, source: SourceProbe, remember: EraLegacy,
			methods: []string{"server/discover", "initialize", "notifications/initialized"}, how: "error -32601"},
		{name: "legacy server: another code is no less legacy",
			handlers: map[string]handler{"server/discover": discoverError(`{"code":-32602,"message":"not initialized"}`)},
			era:      EraLegacy, source: SourceProbe, remember: EraLegacy,
			methods: []string{"server/discover", "initialize", "notifications/initialized"}, how: "error -32602"},
		{name: "dual-era server listing only legacy versions here",
			handlers: map[string]handler{"server/discover": discoverAnswer(`["2025-11-25","2025-06-18"]`)},
			era:      EraLegacy, source: SourceProbe, remember: EraLegacy,
			methods: []string{"server/discover", "initialize", "notifications/initialized"}, how: "only legacy revisions"},
		{name: "an empty result is not a DiscoverResult",
			handlers: map[string]handler{"server/discover": func(s *fakeServer, m message) { s.reply(m, `{}`) }},
			era:      EraLegacy, source: SourceProbe, remember: EraLegacy,
			methods: []string{"server/discover", "initialize", "notifications/initialized"}, how: "not a DiscoverResult"},
		{name: "cached modern: no request at all",
			handlers: map[string]handler{"server/discover": discoverAnswer(`["2026-07-28"]`)},
			opts:     Options{KnownEra: EraModern},
			era:      EraModern, source: SourceCache, methods: nil},
		{name: "cached legacy: initialize only",
			opts: Options{KnownEra: EraLegacy},
			era:  EraLegacy, source: SourceCache, methods: []string{"initialize", "notifications/initialized"}},
		{name: "cached legacy, now modern only: probed again",
			handlers: map[string]handler{"server/discover": discoverAnswer(`["2026-07-28"]`), "initialize": refuseInit},
			opts:     Options{KnownEra: EraLegacy},
			era:      EraModern, source: SourceProbe, remember: EraModern,
			methods: []string{"initialize", "server/discover"}},
		{name: "pinned legacy sends no probe",
			opts: Options{Era: EraLegacy},
			era:  EraLegacy, source: SourcePinned, methods: []string{"initialize", "notifications/initialized"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, conn := startFake(t, tt.handlers)
			opts := tt.opts
			if opts.Era == "" {
				opts.Era = EraAuto
			}
			opts.Timeout = failAfter
			c, err := Connect(context.Background(), fixed(conn), opts)
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			d := c.Detection()
			c.Close()
			if d.Era != tt.era || c.Era() != tt.era || d.Source != tt.source || d.Remember != tt.remember {
				t.Errorf("detection %+v (Era() %s), want era %s, source %s, remember %q", d, c.Era(), tt.era, tt.source, tt.remember)
			}
			if !strings.Contains(d.How, tt.how) {
				t.Errorf("How = %q, want it to contain %q", d.How, tt.how)
			}
			if got := methods(srv.received(t)); !slices.Equal(got, tt.methods) {
				t.Errorf("the client sent %q, want %q", got, tt.methods)
			}
		})
	}
}

// TestEraProbeSilence is a stdio server that ignores server/discover: past
// the probe bound, initialize goes out and settles the era as legacy, and
// legacy is remembered because the probe never got an answer.
func TestEraProbeSilence(t *testing.T) {
	t.Parallel()
	srv, conn := startFake(t, map[string]handler{"server/discover": func(*fakeServer, message) {}})
	c, err := Connect(context.Background(), fixed(conn), Options{Era: EraAuto, ProbeTimeout: 50 * time.Millisecond, Timeout: failAfter})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	d := c.Detection()
	c.Close()
	if d.Era != EraLegacy || d.Remember != EraLegacy || !strings.Contains(d.How, "unanswered") {
		t.Errorf("detection %+v, want legacy remembered after silence", d)
	}
	if got := methods(srv.received(t)); !slices.Equal(got, []string{"server/discover", "initialize", "notifications/initialized"}) {
		t.Errorf("the client sent %q", got)
	}
}

// TestEraHandshakeSharesTheTimeout is a stdio server that answers
// nothing: the probe's wait and initialize's share the request timeout,
// and the timeout error says so, naming the whole timeout.
func TestEraHandshakeSharesTheTimeout(t *testing.T) {
	t.Parallel()
	silent := func(*fakeServer, message) {}
	_, conn := startFake(t, map[string]handler{"server/discover": silent, "initialize": silent})
	const timeout = 300 * time.Millisecond
	_, err := Connect(context.Background(), fixed(conn), Options{Era: EraAuto, ProbeTimeout: 100 * time.Millisecond, Timeout: timeout})
	var te *TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("Connect error %v (%T), want a *TimeoutError", err, err)
	}
	if te.Method != "initialize" || te.After != timeout || !strings.Contains(te.Detail, "share the timeout") {
		t.Errorf("timeout error %+v: want initialize, after the whole %v, sharing it with the probe", te, timeout)
	}
}

// TestEraProbeSlowModern is a modern server slower to start than the probe
// bound: initialize goes out too and is refused, and the probe's late
// DiscoverResult settles the era as modern.
func TestEraProbeSlowModern(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var held []message
	release := make(chan struct{})
	srv, conn := startFake(t, map[string]handler{
		"server/discover": func(s *fakeServer, m message) {
			mu.Lock()
			held = append(held, m)
			mu.Unlock()
		},
		"initialize": func(s *fakeServer, m message) {
			// The server "starts" now: it answers what it read, in order.
			mu.Lock()
			for _, h := range held {
				discoverAnswer(`["2026-07-28"]`)(s, h)
			}
			mu.Unlock()
			s.replyError(m, `{"code":-32601,"message":"no initialize here"}`)
			close(release)
		},
	})
	c, err := Connect(context.Background(), fixed(conn), Options{Era: EraAuto, ProbeTimeout: 50 * time.Millisecond, Timeout: failAfter})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	<-release
	d := c.Detection()
	info := c.InitializeResult().ServerInfo
	c.Close()
	if d.Era != EraModern || d.Remember != EraModern || info.Name != "modern" {
		t.Errorf("detection %+v, server %q: want modern from the late probe answer", d, info.Name)
	}
	if got := methods(srv.received(t)); !slices.Equal(got, []string{"server/discover", "initialize"}) {
		t.Errorf("the client sent %q", got)
	}
}

// TestEraCachedModernStale is a server cached as modern that has become
// legacy: the first request fails, the client probes, initializes and
// sends the request again.
func TestEraCachedModernStale(t *testing.T) {
	t.Parallel()
	srv, conn := startFake(t, map[string]handler{
		"server/discover": discoverError(`{"code":-32601,"message":"method not found"}`),
		"tools/list": func(s *fakeServer, m message) {
			if strings.Contains(string(m.Params), "io.modelcontextprotocol/protocolVersion") {
				s.replyError(m, `{"code":-32600,"message":"not initialized"}`)
				return
			}
			s.reply(m, `{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}`)
		},
	})
	c, err := Connect(context.Background(), fixed(conn), Options{Era: EraAuto, KnownEra: EraModern, Timeout: failAfter})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	tools, err := c.ListTools(context.Background())
	d := c.Detection()
	c.Close()
	if err != nil || len(tools) != 1 {
		t.Fatalf("ListTools = %v, %v; want the tool after the era was probed again", tools, err)
	}
	if d.Era != EraLegacy || d.Remember != EraLegacy {
		t.Errorf("detection %+v, want legacy from a new probe", d)
	}
	want := []string{"tools/list", "server/discover", "initialize", "notifications/initialized", "tools/list"}
	if got := methods(srv.received(t)); !slices.Equal(got, want) {
		t.Errorf("the client sent %q, want %q", got, want)
	}
}

// TestEraModernErrorNoFallback is a modern server that speaks only a later
// revision: its -32022 marks it modern, so the client does not fall back to
// initialize, and says which revisions it would need.
func TestEraModernErrorNoFallback(t *testing.T) {
	t.Parallel()
	srv, conn := startFake(t, map[string]handler{
		"server/discover": discoverError(`{"code":-32022,"message":"unsupported","data":{"supported":["2027-03-01"]}}`),
	})
	_, err := Connect(context.Background(), fixed(conn), Options{Era: EraAuto, Timeout: failAfter})
	if err == nil || !strings.Contains(err.Error(), "2027-03-01") {
		t.Fatalf("Connect error = %v, want one naming the revision the server speaks", err)
	}
	if got := methods(srv.received(t)); !slices.Equal(got, []string{"server/discover"}) {
		t.Errorf("the client sent %q, want the probe only", got)
	}
}
