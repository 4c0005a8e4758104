package proxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestHTTPSessionsCorrelatedApart checks that hosts sharing one proxy, each
// in its own HTTP session and each numbering its ids from 0, have their
// calls correlated within their session: a late answer on the first
// session and a server request on its GET stream after the second began
// are neither duplicate nor unknown ids, live and replayed from the log.
func TestHTTPSessionsCorrelatedApart(t *testing.T) {
	var sessions atomic.Int32
	received, release := make(chan struct{}, 1), make(chan struct{})
	roots := map[string]chan struct{}{"s1": make(chan struct{}), "s2": make(chan struct{})}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sid := r.Header.Get("Mcp-Session-Id")
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			select {
			case <-roots[sid]:
			case <-r.Context().Done():
				return
			}
			io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"roots/list\"}\n\n")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		body, _ := io.ReadAll(r.Body)
		var m envelope
		json.Unmarshal(body, &m)
		if m.Method == "" {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		if m.Method == "initialize" {
			w.Header().Set("Mcp-Session-Id", fmt.Sprintf("s%d", sessions.Add(1)))
		}
		if m.Method == "tools/call" && sid == "s1" {
			received <- struct{}{}
			<-release
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL + "/mcp")
	var logBuf bytes.Buffer
	checks := &Checks{KeepCalls: true}
	tap := NewTap(Observers{NewLog(&logBuf, nil, nil), checks}, 0, 0)
	srv := httptest.NewServer(&HTTP{Upstream: u, Tap: tap})
	defer srv.Close()

	post := func(sid, body string) string {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return ""
		}
		io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.Header.Get("Mcp-Session-Id")
	}
	get := func(sid string) (*bufio.Reader, io.Closer) {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/mcp", nil)
		req.Header.Set("Mcp-Session-Id", sid)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return bufio.NewReader(resp.Body), resp.Body
	}
	// awaitRequest reads a GET stream up to its server request: the tap
	// has it then.
	awaitRequest := func(r *bufio.Reader) {
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("the GET stream ended before its request: %v", err)
			}
			if strings.HasPrefix(line, "data:") {
				return
			}
		}
	}
	const initialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`
	const call = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow"}}`
	const rootsAnswer = `{"jsonrpc":"2.0","id":0,"result":{"roots":[]}}`

	s1 := post("", initialize)
	g1, c1 := get(s1)
	defer c1.Close()
	done := make(chan struct{})
	go func() { post(s1, call); close(done) }()
	<-received
	s2 := post("", initialize)
	if s1 != "s1" || s2 != "s2" {
		t.Fatalf("sessions %q and %q", s1, s2)
	}
	post(s2, call)
	g2, c2 := get(s2)
	defer c2.Close()
	close(roots["s2"])
	awaitRequest(g2)
	close(roots["s1"])
	awaitRequest(g1)
	post(s1, rootsAnswer)
	post(s2, rootsAnswer)
	close(release)
	<-done
	c1.Close()
	c2.Close()
	srv.Close()
	tap.Close()

	checks.End(time.Now())
	live := checks.Summary()
	if len(live.Flags) > 0 || len(live.Calls) != 6 {
		t.Errorf("live checks: %d calls, flags %+v", len(live.Calls), live.Flags)
	}
	for _, c := range live.Calls {
		if c.Pending || (c.Method != "initialize" && c.Session == "") {
			t.Errorf("call %+v: pending, or in no session", c)
		}
	}
	if !strings.Contains(logBuf.String(), `"session":"s1","message":{"jsonrpc":"2.0","id":0,"method":"roots/list"}`) {
		t.Errorf("the log does not file the server request under its session:\n%s", logBuf.String())
	}
	replayed := &Checks{KeepCalls: true}
	last, err := ReadLog(&logBuf, "log", replayed)
	if err != nil {
		t.Fatal(err)
	}
	replayed.End(last)
	if s := replayed.Summary(); len(s.Flags) > 0 || len(s.Calls) != 6 {
		t.Errorf("replayed checks: %d calls, flags %+v", len(s.Calls), s.Flags)
	}
}
