package authserver

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// waitFor waits, with a generous bound for a busy machine, until path
// exists: the server writes it when it is ready.
func waitFor(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear within 30s", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRunServesLogsAndExpires(t *testing.T) {
	dir := t.TempDir()
	urlFile, logFile, expire, pidFile := filepath.Join(dir, "url"), filepath.Join(dir, "log"), filepath.Join(dir, "expire"), filepath.Join(dir, "pid")
	ctx, cancel := context.WithCancel(context.Background())
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"-url", urlFile, "-log", logFile, "-expire-file", expire, "-pidfile", pidFile,
			"-client", "c:s3cret", "-lifetime", "1h"}, &stderr)
	}()
	waitFor(t, urlFile)
	raw, err := os.ReadFile(urlFile)
	if err != nil {
		t.Fatal(err)
	}
	mcpURL := strings.TrimSpace(string(raw))
	if !strings.HasPrefix(mcpURL, "http://127.0.0.1:") || !strings.HasSuffix(mcpURL, "/mcp") {
		t.Fatalf("URL file holds %q", mcpURL)
	}
	base := strings.TrimSuffix(mcpURL, "/mcp")

	status, tok := postForm(t, base+"/token", map[string][]string{"grant_type": {"client_credentials"}, "resource": {mcpURL}}, "c", "s3cret")
	if status != http.StatusOK {
		t.Fatalf("token: %d %v", status, tok)
	}
	initMsg := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	post := func() int {
		req, _ := http.NewRequest(http.MethodPost, mcpURL, strings.NewReader(initMsg))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+tok["access_token"].(string))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := post(); got != http.StatusOK {
		t.Fatalf("initialize with the token: %d, want 200 from the demo server", got)
	}
	if err := os.WriteFile(expire, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := post(); got != http.StatusUnauthorized {
		t.Errorf("after the expire file: %d, want 401", got)
	}
	if _, err := os.Stat(expire); !os.IsNotExist(err) {
		t.Errorf("the expire file is still there: %v", err)
	}

	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("run returned %d; stderr: %s", code, stderr.String())
	}
	log, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"POST /token 200 grant_type=client_credentials client_id=c client_auth=client_secret_basic", "POST /mcp 200 rpc=initialize bearer", "POST /mcp 401 rpc=initialize bearer"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(string(log), AccessTokenPrefix) || strings.Contains(string(log), "s3cret") {
		t.Errorf("the log holds a secret:\n%s", log)
	}
	if _, err := os.Stat(pidFile); err != nil {
		t.Errorf("no pid file: %v", err)
	}
}

func TestRunUsage(t *testing.T) {
	for _, args := range [][]string{{}, {"-url", "x", "extra"}, {"-client", ":nope", "-url", "x"}, {"-bogus"}} {
		var stderr bytes.Buffer
		if code := run(context.Background(), args, &stderr); code != 2 {
			t.Errorf("run(%q) = %d, want 2", args, code)
		}
	}
}
