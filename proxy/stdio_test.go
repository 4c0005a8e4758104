//go:build unix

package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStdioRelaysBytesExactly runs cat as the server: whatever the host
// writes must come back byte for byte, and each line be seen once in each
// direction, without its line ending.
func TestStdioRelaysBytesExactly(t *testing.T) {
	big := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"text":"` + strings.Repeat("x", 300<<10) + `"}}`
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}` + "\n",
		`{ "jsonrpc" : "2.0", "id" : "a\u00e9", "method":"ping" }` + "\r\n",
		`[{"jsonrpc":"2.0","method":"notifications/initialized"}]` + "\n",
		"not json at all \x00\xff\n",
		big + "\n",
		`{"jsonrpc":"2.0","id":10,"method":"ping"}`, // no newline: the last frame
	}
	input := strings.Join(lines, "")
	var out bytes.Buffer
	rec := &recorder{}
	tap := NewTap(rec, 0, 0)
	s := &Stdio{Args: []string{"cat"}, In: strings.NewReader(input), Out: &out, Stderr: io.Discard, Tap: tap}
	code, err := s.Run()
	tap.Close()
	if err != nil || code != 0 {
		t.Fatalf("Run = %d, %v; want 0, nil", code, err)
	}
	if out.String() != input {
		t.Fatalf("the host read %d bytes, not the %d it wrote, or not the same ones", out.Len(), len(input))
	}
	var up, down []string
	for _, f := range rec.frames {
		if f.Truncated() {
			t.Errorf("frame of %d bytes truncated to %d", f.Size, len(f.Data))
		}
		switch f.Dir {
		case HostToServer:
			up = append(up, string(f.Data))
		case ServerToHost:
			down = append(down, string(f.Data))
		}
	}
	want := []string{}
	for _, l := range lines {
		want = append(want, strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r"))
	}
	for name, got := range map[string][]string{"host→server": up, "server→host": down} {
		if len(got) != len(want) {
			t.Fatalf("%s: %d frames seen, want %d", name, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s frame %d = %.60q, want %.60q", name, i, got[i], want[i])
			}
		}
	}
	for _, ev := range []string{"start", "host-closed", "server-exit"} {
		if rec.event(ev) == nil {
			t.Errorf("no %q event; events: %v", ev, rec.events)
		}
	}
}

func TestStdioExitStatus(t *testing.T) {
	for _, tc := range []struct {
		script string
		want   int
	}{
		{"exit 0", 0},
		{"exit 3", 3},
		{"kill -TERM $$", 128 + int(syscall.SIGTERM)},
	} {
		tap := NewTap(&recorder{}, 0, 0)
		s := &Stdio{Args: []string{"sh", "-c", tc.script}, In: strings.NewReader(""), Out: io.Discard, Stderr: io.Discard, Tap: tap}
		code, err := s.Run()
		tap.Close()
		if err != nil || code != tc.want {
			t.Errorf("%s: Run = %d, %v; want %d", tc.script, code, err, tc.want)
		}
	}
}

func TestStdioStartError(t *testing.T) {
	tap := NewTap(&recorder{}, 0, 0)
	defer tap.Close()
	s := &Stdio{Args: []string{"/nonexistent/mcp-server"}, In: strings.NewReader(""), Out: io.Discard, Tap: tap}
	_, err := s.Run()
	var se *StartError
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/mcp-server") {
		t.Fatalf("Run error = %v, want one naming the command", err)
	}
	if !errors.As(err, &se) {
		t.Fatalf("Run error %T is not a *StartError", err)
	}
}

// TestStdioPassesSignals: a signal the proxy gets reaches the server,
// which exits of it; the proxy reports the server's status.
func TestStdioPassesSignals(t *testing.T) {
	hostR, hostW := io.Pipe()
	defer hostW.Close()
	outR, outW := io.Pipe()
	rec := &recorder{}
	tap := NewTap(rec, 0, 0)
	sigs := make(chan os.Signal, 1)
	// The server announces itself, then waits for input that never comes.
	s := &Stdio{Args: []string{"sh", "-c", `echo '{"ready":true}'; exec cat`}, In: hostR, Out: outW, Stderr: io.Discard, Tap: tap, Signals: sigs}
	done := make(chan int, 1)
	go func() {
		code, _ := s.Run()
		done <- code
	}()
	line := make([]byte, 64)
	if _, err := outR.Read(line); err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, outR)
	sigs <- syscall.SIGTERM
	code := <-done
	tap.Close()
	if code != 128+int(syscall.SIGTERM) {
		t.Fatalf("exit code %d, want %d", code, 128+int(syscall.SIGTERM))
	}
	if e := rec.event("signal"); e == nil {
		t.Error("the signal was not recorded")
	}
}

// TestStdioHostGone: when the host stops reading, the server loses its
// stdin and the proxy ends with it.
func TestStdioHostGone(t *testing.T) {
	hostR, hostW := io.Pipe()
	outR, outW := io.Pipe()
	outR.Close() // the host reads nothing
	rec := &recorder{}
	tap := NewTap(rec, 0, 0)
	s := &Stdio{Args: []string{"cat"}, In: hostR, Out: outW, Stderr: io.Discard, Tap: tap, Grace: 5 * time.Second}
	done := make(chan int, 1)
	go func() {
		code, _ := s.Run()
		done <- code
	}()
	hostW.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"))
	code := <-done
	hostW.Close()
	tap.Close()
	if code != 0 {
		t.Errorf("cat exited %d after its stdin closed, want 0", code)
	}
	if rec.event("host-gone") == nil {
		t.Errorf("no host-gone event; events: %v", rec.events)
	}
}

// TestTapNeverBlocks: an observer that does not keep up loses frames, and
// is told how many, but the relay is never held up by it.
func TestTapNeverBlocks(t *testing.T) {
	rec := &recorder{block: make(chan struct{})}
	tap := NewTap(rec, 0, 1<<10)
	var in strings.Builder
	const n = 5000
	for i := range n {
		in.WriteString(`{"jsonrpc":"2.0","method":"notifications/message","params":{"i":` + itoa(i) + "}}\n")
	}
	var out bytes.Buffer
	if err := relay(&out, strings.NewReader(in.String()), ServerToHost, tap); err != nil {
		t.Fatal(err)
	}
	if out.String() != in.String() {
		t.Fatal("the relay changed the bytes")
	}
	close(rec.block)
	tap.Close()
	lost := dropped(rec.events)
	if lost == 0 {
		t.Fatal("no dropped event although the observer was blocked")
	}
	if int(lost)+len(rec.frames) != n {
		t.Errorf("%d frames seen + %d dropped != %d relayed", len(rec.frames), lost, n)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestStdioNotificationBurst: a server that sends 10,000 notifications as
// fast as it can write them; every one reaches the host byte for byte, and
// every one reaches the session log and the checks (none dropped).
func TestStdioNotificationBurst(t *testing.T) {
	const n = 10000
	var want strings.Builder
	for i := range n {
		fmt.Fprintf(&want, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"event %d"}}`+"\n", i)
	}
	file := filepath.Join(t.TempDir(), "burst.ndjson")
	if err := os.WriteFile(file, []byte(want.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, log bytes.Buffer
	checks := &Checks{}
	rec := &recorder{}
	tap := NewTap(Observers{NewLog(&log, nil, nil), checks, rec}, 0, 0)
	s := &Stdio{Args: []string{"cat", file}, In: strings.NewReader(""), Out: &out, Stderr: io.Discard, Tap: tap}
	if code, err := s.Run(); err != nil || code != 0 {
		t.Fatalf("Run = %d, %v", code, err)
	}
	tap.Close()
	if out.String() != want.String() {
		t.Fatalf("the host got %d bytes, not the %d the server wrote", out.Len(), want.Len())
	}
	if e := rec.event("dropped"); e != nil {
		t.Errorf("frames were dropped: %v", e.Detail)
	}
	if got := strings.Count(log.String(), `"direction":"recv"`); got != n {
		t.Errorf("the log has %d of the %d notifications", got, n)
	}
	if s := checks.Summary(); s.Frames != n || len(s.Flags) != 0 {
		t.Errorf("the checks saw %d frames and flagged %v, want %d and nothing", s.Frames, s.Flags, n)
	}
}
