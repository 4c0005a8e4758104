package faultserver

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// session runs a stdio mode in process, sends the lines and returns what
// the server wrote, line by line, and its exit status.
func session(t *testing.T, args []string, lines ...string) ([]string, int) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	status := make(chan int, 1)
	go func() {
		status <- run(context.Background(), args, inR, outW, io.Discard)
		outW.Close()
	}()
	go func() {
		for _, l := range lines {
			io.WriteString(inW, l+"\n")
		}
		inW.Close()
	}()
	var got []string
	sc := bufio.NewScanner(outR)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		got = append(got, sc.Text())
	}
	return got, <-status
}

const (
	initReq = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}`
	callReq = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fault"}}`
)

func TestStdioModes(t *testing.T) {
	tests := []struct {
		mode       string
		wantStatus int
		wantLast   string // substring of the last line written
		wantLines  int
	}{
		{"ok", 0, `"id":3,"result":{"content":[{"text":"ok"`, 2},
		{"crash-before-init", exitCrash, "", 0},
		{"crash-after-init", exitCrash, `"protocolVersion":"2025-03-26"`, 1},
		{"never-answers", 0, "", 0},
		{"unknown-id", 0, `"id":999999,`, 2},
		{"string-id", 0, `"id":"3",`, 2},
		{"batch-answer", 0, `[{"jsonrpc":"2.0","id":3,`, 2},
		{"invalid-utf8", 0, "valid then \xff\xfe invalid", 2},
		{"non-json-lines", 0, `"id":3,`, 4},
		{"noisy-calls", 0, `"id":3,`, 3},
		{"deep-nesting", 0, strings.Repeat("[", 100000), 2},
		{"image-no-mimetype", 0, `"content":[{"data":"` + ImageData + `","type":"image"}]`, 2},
	}
	for _, tc := range tests {
		t.Run(tc.mode, func(t *testing.T) {
			got, status := session(t, []string{tc.mode}, initReq, callReq)
			if status != tc.wantStatus {
				t.Errorf("exit status %d, want %d", status, tc.wantStatus)
			}
			if len(got) != tc.wantLines {
				t.Fatalf("%d lines written, want %d: %q", len(got), tc.wantLines, got)
			}
			if tc.wantLast != "" && !strings.Contains(got[len(got)-1], tc.wantLast) {
				t.Errorf("last line %.200q does not contain %.200q", got[len(got)-1], tc.wantLast)
			}
		})
	}
}

func TestPrompts(t *testing.T) {
	const (
		listReq = `{"jsonrpc":"2.0","id":2,"method":"prompts/list"}`
		getReq  = `{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"greeting"}}`
	)
	tests := []struct {
		mode     string
		wantInit string // substring of the initialize answer
		wantList string
		wantGet  string
	}{
		{"prompt-system-role", `"prompts":{}`, `"name":"greeting"`, `"role":"system"`},
		{"ok", `"capabilities":{"logging":{},"tools":{}}`, `"code":-32601`, `"code":-32601`},
	}
	for _, tc := range tests {
		t.Run(tc.mode, func(t *testing.T) {
			got, status := session(t, []string{tc.mode}, initReq, listReq, getReq)
			if status != 0 || len(got) != 3 {
				t.Fatalf("exit status %d, %d lines, want 0 and 3: %q", status, len(got), got)
			}
			for i, want := range []string{tc.wantInit, tc.wantList, tc.wantGet} {
				if !strings.Contains(got[i], want) {
					t.Errorf("line %d %q does not contain %q", i+1, got[i], want)
				}
			}
		})
	}
}

// TestSessionEnds posts a sequence of messages to session-ends with -n 1
// and checks each status and session id.
func TestSessionEnds(t *testing.T) {
	h, err := Handler(context.Background(), Config{Mode: "session-ends"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	steps := []struct {
		session, body string
		wantStatus    int
		wantSession   string // the Mcp-Session-Id answered
		wantBody      string
	}{
		{"", initReq, http.StatusOK, "s1", `"protocolVersion":"2025-06-18"`},
		{"s1", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, http.StatusAccepted, "", ""},
		{"s1", callReq, http.StatusOK, "", `"text":"ok"`},
		{"s1", callReq, http.StatusNotFound, "", "session s1 expired"},
		{"", initReq, http.StatusOK, "s2", `"version":"1.0.0-s2"`},
		{"s2", `{"jsonrpc":"2.0","id":4,"method":"prompts/list"}`, http.StatusOK, "", `"name":"greeting"`},
		{"s2", callReq, http.StatusNotFound, "", "session s2 expired"},
	}
	for i, st := range steps {
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(st.body))
		if err != nil {
			t.Fatal(err)
		}
		if st.session != "" {
			req.Header.Set("Mcp-Session-Id", st.session)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != st.wantStatus || resp.Header.Get("Mcp-Session-Id") != st.wantSession || !strings.Contains(string(body), st.wantBody) {
			t.Errorf("step %d: status %d, session %q, body %q; want %d, %q, containing %q",
				i+1, resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), body, st.wantStatus, st.wantSession, st.wantBody)
		}
	}
}

func TestHandler(t *testing.T) {
	tests := []struct {
		mode       string
		wantStatus int
		wantType   string
	}{
		{"ok", http.StatusOK, "application/json"},
		{"http-401", http.StatusUnauthorized, "text/plain; charset=utf-8"},
		{"html-500", http.StatusInternalServerError, "text/html; charset=utf-8"},
		{"html-200", http.StatusOK, "text/html; charset=utf-8"},
		{"redirect-same-origin", http.StatusTemporaryRedirect, ""},
	}
	for _, tc := range tests {
		t.Run(tc.mode, func(t *testing.T) {
			h, err := Handler(context.Background(), Config{Mode: tc.mode})
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(h)
			defer srv.Close()
			c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			resp, err := c.Post(srv.URL+"/mcp", "application/json", strings.NewReader(initReq))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.wantStatus {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.wantStatus)
			}
			if got := resp.Header.Get("Content-Type"); tc.wantType != "" && got != tc.wantType {
				t.Errorf("Content-Type %q, want %q", got, tc.wantType)
			}
		})
	}
	if _, err := Handler(context.Background(), Config{Mode: "redirect-other-origin"}); err == nil {
		t.Error("Handler accepted redirect-other-origin, which needs a second listener")
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"17": 17, "1KiB": 1024, "2MiB": 2 << 20, "1GB": 1e9, "3 MB": 3e6} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	if _, err := parseSize("lots"); err == nil {
		t.Error(`parseSize("lots") succeeded`)
	}
}

// TestSSEAnswers checks -sse: a POST's single answer comes as one
// text/event-stream event rather than an application/json body.
func TestSSEAnswers(t *testing.T) {
	tests := []struct {
		name     string
		cfg      Config
		body     string
		wantType string
		wantBody string
	}{
		{"json by default", Config{Mode: "ok"}, initReq, "application/json", `{"jsonrpc":"2.0","id":1,`},
		{"initialize", Config{Mode: "ok", SSE: true}, initReq, "text/event-stream", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,"},
		{"huge result", Config{Mode: "huge-result", Size: 1 << 20, SSE: true}, callReq,
			"text/event-stream", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, err := Handler(context.Background(), tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(h)
			defer srv.Close()
			resp, err := srv.Client().Post(srv.URL+"/mcp", "application/json", strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if got := resp.Header.Get("Content-Type"); got != tc.wantType {
				t.Errorf("Content-Type %q, want %q", got, tc.wantType)
			}
			if !strings.HasPrefix(string(body), tc.wantBody) {
				t.Errorf("body starts %.100q, want %q", body, tc.wantBody)
			}
			if tc.cfg.SSE {
				if n := strings.Count(string(body), "\n"); n != 3 || !strings.HasSuffix(string(body), "\n\n") {
					t.Errorf("body has %d line ends, want one event of one data line: %.100q…", n, body)
				}
			}
			if tc.cfg.Mode == "huge-result" && !strings.Contains(string(body), `END","type":"text"}]`) {
				t.Errorf("the huge text did not arrive whole (%d bytes)", len(body))
			}
		})
	}
}

func TestFloodNotReading(t *testing.T) {
	got, status := session(t, []string{"-n", "3", "-delay", "1ms", "flood-not-reading"}, initReq, callReq)
	if status != 0 {
		t.Errorf("exit status %d, want 0", status)
	}
	if len(got) != 5 {
		t.Fatalf("%d lines written, want 5 (initialize, 3 requests, the answer): %q", len(got), got)
	}
	for i, line := range got[1:4] {
		if want := `"id":"flood-` + strconv.Itoa(i+1) + `","jsonrpc":"2.0","method":"roots/list"`; !strings.Contains(line, want) {
			t.Errorf("line %d = %s, want a request containing %s", i+2, line, want)
		}
	}
	if !strings.Contains(got[4], `"id":3,"result":{"content":[{"text":"ok"`) {
		t.Errorf("last line = %s, want the answer to tools/call", got[4])
	}
}
