package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// agreeHTTPCalls is the number of calls each side makes per round in
// TestBenchAgreesOverHTTP.
const agreeHTTPCalls = 100

// TestBenchAgreesOverHTTP checks the latency `mcpctl bench --url` reports
// against an independent measurement: the test's own Streamable HTTP client
// (net/http, nothing of mcpctl's) making the same initialize and the same
// sequential tools/call POSTs with the session id, timing each call from
// sending the POST to reading its answer. The quantity compared is the
// median per-call latency at concurrency 1 (one session): on a loaded
// machine a few calls wait for a core, which moves a mean by more than a
// tenth and a median hardly. Two servers: the
// official Go SDK's (testserver load-fuzz's echo, waiting agreeDelay) and
// server-everything in streamableHttp mode (its long-running operation in
// one step of the same length, as its echo answers too fast for either
// client's own costs to be a small share). Each round runs the two
// clients at once, each in a session of its own, so that the machine's
// load in those seconds is the same for both (run in turn on a CI machine
// with its cores taken, a round's two runs differed by up to 29%); the
// median over rounds of the ratio of mcpctl's p50 to the test's must be
// within 10%.
func TestBenchAgreesOverHTTP(t *testing.T) {
	// A measurement, run with the end-to-end tier beside
	// TestBenchAgreesOverStdio, and for the same reasons.
	measurementTier(t)
	mcpctl, err := exec.LookPath("mcpctl") // put on PATH by testscript.Main
	if err != nil {
		t.Fatal(err)
	}
	env := ownHome(t)
	delayMS, err := time.ParseDuration(agreeDelay)
	if err != nil {
		t.Fatal(err)
	}
	// The subtests run one after the other: side by side they would load
	// each other's measurement.
	t.Run("go-sdk", func(t *testing.T) {
		url := startTestserverHTTP(t, "-delay", agreeDelay, "load-fuzz")
		compareBenchHTTP(t, mcpctl, env, url, "echo", []string{"message=hello"}, map[string]any{"message": "hello"})
	})
	t.Run("everything", func(t *testing.T) {
		url := startEverythingHTTP(t)
		secs := strconv.FormatFloat(delayMS.Seconds(), 'f', -1, 64)
		compareBenchHTTP(t, mcpctl, env, url, "trigger-long-running-operation",
			[]string{"duration=" + secs, "steps=1"}, map[string]any{"duration": delayMS.Seconds(), "steps": 1})
	})
}

// compareBenchHTTP runs the rounds of TestBenchAgreesOverHTTP against the
// server at url: mcpctl bench calling tool with words, the test's client
// calling it with args.
func compareBenchHTTP(t *testing.T, mcpctl string, env []string, url, tool string, words []string, args map[string]any) {
	benchP50 := func() (float64, error) {
		cmdArgs := append([]string{"bench", tool}, words...)
		cmdArgs = append(cmdArgs, "--url", url, "-n", strconv.Itoa(agreeHTTPCalls), "-c", "1", "-o", "json")
		c := exec.Command(mcpctl, cmdArgs...)
		c.Env = env
		var stderr bytes.Buffer
		c.Stderr = &stderr
		out, err := c.Output()
		if err != nil {
			return 0, fmt.Errorf("mcpctl bench: %w\n%s%s", err, out, stderr.Bytes())
		}
		var rep struct {
			Requests  int `json:"requests"`
			Errors    int `json:"errors"`
			LatencyMS struct {
				P50 float64 `json:"p50"`
			} `json:"latencyMs"`
		}
		if err := json.Unmarshal(out, &rep); err != nil {
			return 0, fmt.Errorf("mcpctl bench -o json: %w\n%s", err, out)
		}
		if rep.Requests != agreeHTTPCalls || rep.Errors != 0 {
			return 0, fmt.Errorf("mcpctl bench made %d requests with %d errors, want %d without\n%s", rep.Requests, rep.Errors, agreeHTTPCalls, out)
		}
		return rep.LatencyMS.P50, nil
	}
	ownP50 := func() float64 {
		c := &mcpHTTPClient{t: t, url: url, http: &http.Client{Timeout: time.Minute}}
		defer c.close()
		c.initialize()
		times := make([]time.Duration, agreeHTTPCalls)
		for i := range times {
			times[i] = c.callTool(tool, args)
		}
		slices.Sort(times)
		return float64(times[len(times)/2]) / float64(time.Millisecond)
	}
	agreePaired(t, "mcpctl bench's median latency", "the test's own client's", benchP50, infallible(ownP50))
}

// mcpHTTPClient is the test's own Streamable HTTP client: initialize, the
// initialized notification, then requests carrying the session id and the
// negotiated version, the answer read from a JSON body or an SSE stream.
type mcpHTTPClient struct {
	t         *testing.T
	url       string
	http      *http.Client
	sessionID string
	version   string
	nextID    int
}

func (c *mcpHTTPClient) initialize() {
	res, _ := c.request("initialize", map[string]any{
		"protocolVersion": "2025-11-25",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "bench-agree-test", "version": "0"},
	})
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(res, &init); err != nil || init.ProtocolVersion == "" {
		c.t.Fatalf("initialize answered %s", res)
	}
	c.version = init.ProtocolVersion
	c.post(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}, 0)
}

// callTool calls tool and returns how long the answer took.
func (c *mcpHTTPClient) callTool(tool string, args map[string]any) time.Duration {
	res, d := c.request("tools/call", map[string]any{"name": tool, "arguments": args})
	var r struct {
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(res, &r); err != nil || r.IsError {
		c.t.Fatalf("tools/call %s answered %s", tool, res)
	}
	return d
}

// request sends a request and returns its result and the time from
// sending to the answer.
func (c *mcpHTTPClient) request(method string, params any) (json.RawMessage, time.Duration) {
	c.nextID++
	msg := map[string]any{"jsonrpc": "2.0", "id": c.nextID, "method": method, "params": params}
	return c.post(msg, c.nextID)
}

// post sends msg; for a request (id > 0) it reads the answer with that id
// and returns its result, timed until the answer is read. The rest of the
// body is read after the clock stops, so that the connection is reused.
func (c *mcpHTTPClient) post(msg any, id int) (json.RawMessage, time.Duration) {
	body, err := json.Marshal(msg)
	if err != nil {
		c.t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.sessionID != "" {
		req.Header.Set("Mcp-Session-Id", c.sessionID)
	}
	if c.version != "" {
		req.Header.Set("Mcp-Protocol-Version", c.version)
	}
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("POST %s: %v", c.url, err)
	}
	defer resp.Body.Close()
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		c.sessionID = sid
	}
	if id == 0 {
		if resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusOK {
			c.t.Fatalf("POST of a notification: %s", resp.Status)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil, time.Since(start)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		c.t.Fatalf("POST %s: %s\n%s", msg, resp.Status, b)
	}
	var answer struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		found := false
		sc := bufio.NewScanner(resp.Body)
		var data strings.Builder
		for !found && sc.Scan() {
			line := sc.Text()
			if rest, ok := strings.CutPrefix(line, "data:"); ok {
				data.WriteString(strings.TrimPrefix(rest, " "))
				continue
			}
			if line != "" || data.Len() == 0 {
				continue
			}
			// The end of an event: the answer, or a message to skip.
			answer.ID, answer.Result, answer.Error = 0, nil, nil
			if json.Unmarshal([]byte(data.String()), &answer) == nil && answer.ID == id && (answer.Result != nil || answer.Error != nil) {
				found = true
			}
			data.Reset()
		}
		if !found {
			c.t.Fatalf("the event stream of %s ended without its answer: %v", msg, sc.Err())
		}
	} else if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		c.t.Fatalf("answer to %s: %v", msg, err)
	}
	d := time.Since(start)
	_, _ = io.Copy(io.Discard, resp.Body)
	if answer.Error != nil || answer.Result == nil {
		c.t.Fatalf("%s answered the error %s", msg, answer.Error)
	}
	return answer.Result, d
}

// close ends the session as a client should, with a DELETE.
func (c *mcpHTTPClient) close() {
	if c.sessionID == "" {
		return
	}
	req, err := http.NewRequest(http.MethodDelete, c.url, nil)
	if err != nil {
		return
	}
	req.Header.Set("Mcp-Session-Id", c.sessionID)
	if resp, err := c.http.Do(req); err == nil {
		resp.Body.Close()
	}
	c.http.CloseIdleConnections()
}

// startTestserverHTTP starts testserver over HTTP with args and returns
// its endpoint URL; the server is killed when the test ends.
func startTestserverHTTP(t *testing.T, args ...string) string {
	server, err := exec.LookPath("testserver") // put on PATH by testscript.Main
	if err != nil {
		t.Fatal(err)
	}
	urlFile := filepath.Join(t.TempDir(), "url")
	c := exec.Command(server, append([]string{"-http", urlFile}, args...)...)
	exited := startKilledAtCleanup(t, c)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if b, err := os.ReadFile(urlFile); err == nil {
			return strings.TrimSpace(string(b))
		}
		if gone, err := exited(); gone {
			t.Fatalf("testserver exited before serving: %v", err)
		}
		if time.Now().After(deadline) {
			t.Fatal("testserver wrote no URL within 30s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// startEverythingHTTP starts server-everything in streamableHttp mode on a
// free port and returns its endpoint URL; it skips when the server is not
// installed, and fails then where interop is required.
func startEverythingHTTP(t *testing.T) string {
	path := everythingPath(t)
	if path == "" {
		if interopRequired() {
			t.Fatal("server-everything is not installed: run bash scripts/install-tools.sh (CI requires the interop tests)")
		}
		t.Skip("server-everything is not installed (bash scripts/install-tools.sh)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	c := exec.Command(path, "streamableHttp")
	c.Env = append(os.Environ(), "PORT="+port)
	exited := startKilledAtCleanup(t, c)
	// Node takes a while to start on a busy machine.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		conn, err := net.DialTimeout("tcp", "127.0.0.1:"+port, time.Second)
		if err == nil {
			conn.Close()
			return "http://127.0.0.1:" + port + "/mcp"
		}
		if gone, err := exited(); gone {
			t.Fatalf("server-everything exited before listening: %v", err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("server-everything did not listen on %s within 2m: %v", port, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startKilledAtCleanup starts c, its output discarded, and kills and reaps
// it when the test ends. exited reports, without waiting, whether it has
// exited and with what.
func startKilledAtCleanup(t *testing.T, c *exec.Cmd) (exited func() (bool, error)) {
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = c.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		_ = c.Process.Kill()
		<-done
	})
	return func() (bool, error) {
		select {
		case <-done:
			return true, waitErr
		default:
			return false, nil
		}
	}
}

// infallible adapts a measurement that fails the test itself to
// agreePaired, as own: agreePaired runs own on the test's goroutine.
func infallible(f func() float64) func() (float64, error) {
	return func() (float64, error) { return f(), nil }
}
