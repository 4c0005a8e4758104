package faultserver

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
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
		{"deep-nesting", 0, strings.Repeat("[", 100000), 2},
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
