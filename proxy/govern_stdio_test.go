//go:build unix

package proxy

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStdioGoverned drives the shim with governance on: a scripted host
// writes three requests to a server that logs what it gets and answers
// every request; the denied call is answered by the proxy and never
// reaches the server, the others are answered by it, and the tap sees
// what the host got.
func TestStdioGoverned(t *testing.T) {
	dir := t.TempDir()
	logFile := filepath.Join(dir, "server.log")
	server := `tee "$1" | sed -u 's/.*"id":\([0-9]*\).*/{"jsonrpc":"2.0","id":\1,"result":{"content":[]}}/'`
	g, _ := governor(t, `"*": {sensitivity: low}`, ToolFilter{Deny: []string{"drop"}}, nil)
	rec := &recorder{}
	tap := NewTap(rec, 0, 0)
	g.Tap = tap
	hostR, hostW := io.Pipe()
	outR, outW := io.Pipe()
	s := &Stdio{Args: []string{"sh", "-c", server, "sh", logFile}, In: hostR, Out: outW, Stderr: io.Discard, Tap: tap, Govern: g}
	done := make(chan error, 1)
	go func() {
		_, err := s.Run()
		outW.Close()
		done <- err
	}()
	go func() {
		io.WriteString(hostW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"h"}}}`+"\n")
		io.WriteString(hostW, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"drop"}}`+"\n")
		io.WriteString(hostW, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"keep"}}`+"\n")
	}()
	br := bufio.NewReader(outR)
	got := map[string]string{}
	for len(got) < 3 {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the host's side: %v (so far %q)", err, got)
		}
		var m struct{ ID json.RawMessage }
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("the host got a line that is not JSON: %q", line)
		}
		got[string(m.ID)] = line
	}
	hostW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	tap.Close()
	if !strings.Contains(got["2"], "refused by policy: drop") || !strings.Contains(got["3"], `"result"`) || strings.Contains(got["3"], "isError") {
		t.Errorf("the host got %q", got)
	}
	data, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), `"drop"`) || !strings.Contains(string(data), `"keep"`) {
		t.Errorf("the server got:\n%s", data)
	}
	refusalTapped := false
	for _, f := range rec.frames {
		refusalTapped = refusalTapped || (f.Dir == ServerToHost && strings.Contains(string(f.Data), "refused by policy"))
	}
	if !refusalTapped || rec.event("govern") == nil {
		t.Errorf("the tap did not see the refusal and its decision")
	}
}
