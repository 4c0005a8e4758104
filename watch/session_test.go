package watch

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/proxy"
	"github.com/mcpctl/mcpctl/render"
)

// lines hands each write to a channel, so the test waits for output
// rather than for time.
type lines chan string

func (l lines) Write(p []byte) (int, error) {
	for _, s := range strings.SplitAfter(string(p), "\n") {
		if s != "" {
			l <- s
		}
	}
	return len(p), nil
}

func next(t *testing.T, ch lines) string {
	t.Helper()
	select {
	case s := <-ch:
		return s
	case <-time.After(10 * time.Second):
		t.Fatal("no output")
		return ""
	}
}

// TestProxySessionFollows starts the watcher before any session, then a
// session whose frames it must print while the session runs, and ends
// once the session's lock is released.
func TestProxySessionFollows(t *testing.T) {
	store := proxy.Store{Dir: t.TempDir()}
	out, errOut := make(lines, 64), make(lines, 64)
	done := make(chan error, 1)
	go func() {
		done <- ProxySession(context.Background(), ProxySessionOptions{
			Store: store, Ref: "latest", JSON: true, Interval: time.Millisecond,
			Printer: &render.Printer{Out: out, ErrOut: errOut},
		})
	}()
	if s := next(t, errOut); !strings.Contains(s, "waiting for a proxy session to start") {
		t.Fatalf("stderr %q", s)
	}
	sf, err := store.Create(time.Now(), 1)
	if err != nil {
		t.Fatal(err)
	}
	log := proxy.NewLog(sf, nil, nil)
	t0 := time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)
	log.Frame(proxy.Frame{Time: t0, Dir: proxy.HostToServer, Data: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`), Size: 70})
	log.Flush()
	if s := next(t, errOut); !strings.Contains(s, "watching proxy session "+sf.ID+" (running)") {
		t.Fatalf("stderr %q", s)
	}
	resp := `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`
	log.Frame(proxy.Frame{Time: t0.Add(5 * time.Millisecond), Dir: proxy.ServerToHost, Data: []byte(resp), Size: int64(len(resp))})
	log.Flush()
	log.Flush()
	var call struct {
		Event, Method, Tool string
		Latency             int64 `json:"latency_ns"`
	}
	if err := json.Unmarshal([]byte(next(t, out)), &call); err != nil {
		t.Fatal(err)
	}
	if call.Event != "call" || call.Method != "tools/call" || call.Tool != "echo" || call.Latency < 0 {
		t.Errorf("call line %+v", call)
	}
	// A request left pending is flagged once the session ends.
	log.Frame(proxy.Frame{Time: t0.Add(time.Second), Dir: proxy.HostToServer, Data: []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`), Size: 38})
	log.Flush()
	log.Flush()
	select {
	case err := <-done:
		t.Fatalf("the watch ended while the session ran: %v", err)
	default:
	}
	sf.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var flag struct{ Event, Kind, ID string }
	if err := json.Unmarshal([]byte(next(t, out)), &flag); err != nil {
		t.Fatal(err)
	}
	if flag.Event != "flag" || flag.Kind != proxy.FlagPending || flag.ID != "2" {
		t.Errorf("flag line %+v", flag)
	}
}

// TestProxySessionEnded prints an ended session and returns.
func TestProxySessionEnded(t *testing.T) {
	store := proxy.Store{Dir: t.TempDir()}
	sf, err := store.Create(time.Now(), 1)
	if err != nil {
		t.Fatal(err)
	}
	log := proxy.NewLog(sf, nil, nil)
	t0 := time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)
	log.Frame(proxy.Frame{Time: t0, Dir: proxy.HostToServer, Data: []byte(`{"jsonrpc":"2.0","id":"a","method":"tools/list"}`), Size: 48})
	log.Flush()
	log.Frame(proxy.Frame{Time: t0.Add(time.Millisecond), Dir: proxy.ServerToHost, Data: []byte(`{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"nope"}}`), Size: 66})
	log.Flush()
	sf.Close()
	var out, errOut strings.Builder
	err = ProxySession(context.Background(), ProxySessionOptions{Store: store, Ref: sf.ID[:10], Printer: &render.Printer{Out: &out, ErrOut: &errOut}})
	if err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if !regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d\.\d{3}  tools/list  \S+  error -32601: nope$`).MatchString(got) || !strings.Contains(got, "  flag error  tools/list answered with error -32601: nope\n") {
		t.Errorf("stdout:\n%s", got)
	}
	if !strings.Contains(errOut.String(), "(ended)") {
		t.Errorf("stderr:\n%s", errOut.String())
	}
}
