//go:build unix

package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// bigLineData is the payload size of the "big" helper's long line.
const bigLineData = 20 << 20

// syncBuffer is a bytes.Buffer safe for the stderr and warning goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// helper returns a Command that runs the test binary as the fake server mode.
func helper(t *testing.T, mode string) *Command {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &Command{Path: exe, Env: []string{helperEnv + "=" + mode}, Grace: 100 * time.Millisecond}
}

// connect starts c and closes the connection when the test ends.
func connect(t *testing.T, c *Command) Connection {
	t.Helper()
	conn, err := c.Connect(context.Background())
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func mustRead(t *testing.T, conn Connection) json.RawMessage {
	t.Helper()
	msg, err := conn.Read(context.Background())
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return msg
}

// readPID reads the {"pid":N,...} message the lifecycle helpers start with.
func readPID(t *testing.T, conn Connection) (pid, grandchild int) {
	t.Helper()
	var v struct{ PID, Grandchild int }
	if err := json.Unmarshal(mustRead(t, conn), &v); err != nil || v.PID == 0 {
		t.Fatalf("helper did not report its pid: %v", err)
	}
	return v.PID, v.Grandchild
}

// gone reports whether pid no longer names a live process. A zombie counts
// as gone: once killed, a grandchild is reaped by whatever adopted it, which
// is outside the test's control.
func gone(pid int) bool {
	if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		return true
	}
	if runtime.GOOS == "linux" {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return true
		}
		// The state follows the parenthesised command name.
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
			return stat[i+2] == 'Z'
		}
	}
	return false
}

func TestCommandString(t *testing.T) {
	tests := []struct {
		cmd  Command
		want string
	}{
		{Command{Path: "npx", Args: []string{"-y", "@modelcontextprotocol/server-everything"}}, "npx -y @modelcontextprotocol/server-everything"},
		{Command{Path: "/opt/my server/bin", Args: []string{"--name", "two words", ""}}, `"/opt/my server/bin" --name "two words" ""`},
		{Command{Path: "sh", Args: []string{`it's`, `a"b`}}, `sh "it's" "a\"b"`},
		{Command{Path: "server"}, "server"},
	}
	for _, tt := range tests {
		if got := tt.cmd.String(); got != tt.want {
			t.Errorf("String() = %s, want %s", got, tt.want)
		}
	}
}

func TestCommandStartError(t *testing.T) {
	tests := []struct {
		cmd  Command
		want string
	}{
		{Command{Path: "mcpctl-no-such-server"}, `starting "mcpctl-no-such-server": exec: "mcpctl-no-such-server": executable file not found in $PATH`},
		{Command{}, "starting server: no command given"},
	}
	for _, tt := range tests {
		conn, err := tt.cmd.Connect(context.Background())
		if err == nil {
			conn.Close()
			t.Errorf("Connect(%s) succeeded, want error", tt.cmd.String())
			continue
		}
		if got := err.Error(); got != tt.want {
			t.Errorf("Connect error = %s, want %s", got, tt.want)
		}
	}
}

func TestCommandRoundTrip(t *testing.T) {
	conn := connect(t, helper(t, "echo"))
	ctx := context.Background()
	msgs := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`[{"jsonrpc":"2.0","id":2,"method":"ping"}]`,
	}
	var got []string
	for _, m := range msgs {
		if err := conn.Write(ctx, json.RawMessage(m), WriteOptions{}); err != nil {
			t.Fatalf("Write: %v", err)
		}
		got = append(got, string(mustRead(t, conn)))
	}
	if diff := cmp.Diff(msgs, got); diff != "" {
		t.Errorf("echoed messages (-sent +got):\n%s", diff)
	}
	if err := conn.Write(ctx, json.RawMessage("{\n}"), WriteOptions{}); err == nil {
		t.Error("Write of a message containing a newline succeeded")
	}
	if err := conn.Close(); err != nil {
		t.Errorf("Close = %v, want nil for a server exiting 0", err)
	}
}

func TestCommandEnvAndDir(t *testing.T) {
	c := helper(t, "env")
	c.Env = append(c.Env, "MCPCTL_TEST_X=from-env")
	c.Dir = t.TempDir()
	conn := connect(t, c)
	var got struct{ X, Dir string }
	if err := json.Unmarshal(mustRead(t, conn), &got); err != nil {
		t.Fatal(err)
	}
	want := struct{ X, Dir string }{"from-env", c.Dir}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("server environment (-want +got):\n%s", diff)
	}
}

func TestCommandSkipsNonJSON(t *testing.T) {
	c := helper(t, "noise")
	var warn syncBuffer
	c.OnViolation = func(v Violation) {
		if v.Kind != ViolationStdoutLine {
			t.Errorf("violation of kind %d, want ViolationStdoutLine", v.Kind)
		}
		fmt.Fprintf(&warn, "%q\n", v.Line)
	}
	conn := connect(t, c)
	var got []string
	for range 3 {
		got = append(got, string(mustRead(t, conn)))
	}
	want := []string{
		`{"jsonrpc":"2.0","method":"one"}`,
		`[{"jsonrpc":"2.0","method":"two"}]`,
		`{"jsonrpc":"2.0","method":"three"}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	// Warnings are written before the message after them is handed over,
	// so all three are in by now.
	wantWarn := `"Server starting on stdio..."
"\"a string is JSON but not JSON-RPC\""
"{\"truncated\":"
`
	if diff := cmp.Diff(wantWarn, warn.String()); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestCommandBigLine(t *testing.T) {
	conn := connect(t, helper(t, "big"))
	msg := mustRead(t, conn)
	if want := bigLineData + len(`{"data":""}`); len(msg) != want {
		t.Fatalf("big message has %d bytes, want %d", len(msg), want)
	}
	if !bytes.HasPrefix(msg, []byte(`{"data":"xxx`)) || !bytes.HasSuffix(msg, []byte(`xxx"}`)) {
		t.Errorf("big message is mangled: %.20s…%s", msg, msg[len(msg)-20:])
	}
	if got := string(mustRead(t, conn)); got != `{"end":true}` {
		t.Errorf("message after the big one = %s", got)
	}
}

func TestCommandExitError(t *testing.T) {
	c := helper(t, "crash")
	// The server exits by itself; a long grace only keeps a loaded machine
	// from cutting short the wait for its last stderr line.
	c.Grace = 10 * time.Second
	var stderr syncBuffer
	c.Stderr = &stderr
	conn := connect(t, c)

	_, err := conn.Read(context.Background())
	if !errors.Is(err, io.EOF) {
		t.Errorf("Read error %v does not wrap io.EOF", err)
	}
	var exitErr *ExitError
	if !errors.As(err, &exitErr) {
		t.Fatalf("Read error %v (%T) is not an *ExitError", err, err)
	}
	want := &ExitError{Exited: true, ExitCode: 3, LastStderr: "fatal: boom"}
	if diff := cmp.Diff(want, exitErr); diff != "" {
		t.Errorf("ExitError (-want +got):\n%s", diff)
	}
	if got, want := err.Error(), `server exited with status 3 (last stderr line: "fatal: boom")`; got != want {
		t.Errorf("Error() = %s, want %s", got, want)
	}
	if _, err2 := conn.Read(context.Background()); err2 != err {
		t.Errorf("second Read = %v, want the same error", err2)
	}

	err = conn.Write(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), WriteOptions{})
	if got, want := errString(err), `writing to server: server exited with status 3 (last stderr line: "fatal: boom")`; got != want {
		t.Errorf("Write after exit = %s, want %s", got, want)
	}

	err = conn.Close()
	if !errors.As(err, &exitErr) || exitErr.ExitCode != 3 {
		t.Errorf("Close = %v, want *ExitError with status 3", err)
	}
	if got, want := stderr.String(), "starting\nfatal: boom\n\n"; got != want {
		t.Errorf("copied stderr = %q, want %q", got, want)
	}
}

func TestExitErrorMessage(t *testing.T) {
	tests := []struct {
		err  ExitError
		want string
	}{
		{ExitError{Exited: true, ExitCode: 1, LastStderr: "panic: boom"}, `server exited with status 1 (last stderr line: "panic: boom")`},
		{ExitError{Exited: true, ExitCode: 0}, "server exited with status 0"},
		{ExitError{Exited: true, ExitCode: -1, Signal: "SIGSEGV"}, "server was killed by signal SIGSEGV"},
		{ExitError{ExitCode: -1}, "server closed its stdout"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %s, want %s", got, tt.want)
		}
	}
}

func TestCommandClosedStdout(t *testing.T) {
	conn := connect(t, helper(t, "closeout"))
	_, err := conn.Read(context.Background())
	var exitErr *ExitError
	if !errors.As(err, &exitErr) {
		t.Fatalf("Read error %v (%T) is not an *ExitError", err, err)
	}
	if diff := cmp.Diff(&ExitError{ExitCode: -1}, exitErr); diff != "" {
		t.Errorf("ExitError (-want +got):\n%s", diff)
	}
	if err := conn.Close(); err != nil {
		t.Errorf("Close = %v, want nil", err)
	}
}

func TestCommandReadCancel(t *testing.T) {
	conn := connect(t, helper(t, "echo"))
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error)
	go func() {
		_, err := conn.Read(ctx)
		errc <- err
	}()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Read with cancelled context = %v, want context.Canceled", err)
	}
	// The connection stays usable and nothing is lost.
	if err := conn.Write(context.Background(), json.RawMessage(`{"id":1}`), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := string(mustRead(t, conn)); got != `{"id":1}` {
		t.Errorf("Read after cancel = %s", got)
	}
}

func TestCommandWriteCancel(t *testing.T) {
	conn := connect(t, helper(t, "deaf"))
	readPID(t, conn)
	// Far more than a pipe buffer, to a server that never reads.
	big := json.RawMessage(`"` + strings.Repeat("x", 4<<20) + `"`)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := conn.Write(ctx, big, WriteOptions{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Write to a server that does not read = %v, want context.DeadlineExceeded", err)
	}
	if err := conn.Close(); err != nil {
		t.Errorf("Close = %v, want nil", err)
	}
}

func TestCommandUseAfterClose(t *testing.T) {
	conn := connect(t, helper(t, "echo"))
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Read(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Read after Close = %v, want ErrClosed", err)
	}
	if err := conn.Write(context.Background(), json.RawMessage(`{}`), WriteOptions{}); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Close = %v, want ErrClosed", err)
	}
	if err := conn.Close(); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
}

func TestCommandCloseUnblocksRead(t *testing.T) {
	conn := connect(t, helper(t, "hang"))
	readPID(t, conn)
	errc := make(chan error)
	go func() {
		_, err := conn.Read(context.Background())
		errc <- err
	}()
	conn.Close()
	if err := <-errc; !errors.Is(err, ErrClosed) {
		t.Errorf("pending Read after Close = %v, want ErrClosed", err)
	}
}

func TestCommandCloseEscalation(t *testing.T) {
	tests := []struct {
		mode       string
		grace      time.Duration // long where the server should exit by itself
		wantStatus int           // 0: Close returns nil, else *ExitError with this status
	}{
		{"exit0", 10 * time.Second, 0},          // exits when stdin closes
		{"exit1", 10 * time.Second, 1},          // exits unsuccessfully when stdin closes
		{"hang", 100 * time.Millisecond, 0},     // needs SIGTERM
		{"stubborn", 100 * time.Millisecond, 0}, // ignores SIGTERM, needs SIGKILL
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			c := helper(t, tt.mode)
			c.Grace = tt.grace
			conn := connect(t, c)
			pid, _ := readPID(t, conn)
			err := conn.Close()
			if tt.wantStatus == 0 && err != nil {
				t.Errorf("Close = %v, want nil", err)
			}
			if tt.wantStatus != 0 {
				var exitErr *ExitError
				if !errors.As(err, &exitErr) || exitErr.ExitCode != tt.wantStatus {
					t.Errorf("Close = %v, want *ExitError with status %d", err, tt.wantStatus)
				}
			}
			// Close reaped the child, so its pid is free at once.
			if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("server pid %d still exists after Close (kill 0: %v)", pid, err)
			}
			if err2 := conn.Close(); errString(err2) != errString(err) {
				t.Errorf("second Close = %v, want %v", err2, err)
			}
		})
	}
}

// TestCommandKill checks that Kill stops at once a server that ignores
// both stdin's end and SIGTERM, without the grace periods of Close.
func TestCommandKill(t *testing.T) {
	c := helper(t, "stubborn")
	c.Grace = time.Hour
	conn := connect(t, c)
	pid, _ := readPID(t, conn)
	if err := conn.(interface{ Kill() error }).Kill(); err != nil {
		t.Errorf("Kill = %v", err)
	}
	// The server is not reaped until Close, so its death is polled.
	deadline := time.Now().Add(10 * time.Second)
	for !gone(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("server pid %d survived Kill", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	conn.Close()
}

func TestCommandKillsProcessGroup(t *testing.T) {
	c := helper(t, "orphan")
	var stderr syncBuffer
	c.Stderr = &stderr
	conn := connect(t, c)
	pid, grandchild := readPID(t, conn)
	if grandchild == 0 {
		t.Fatal("helper did not report its grandchild")
	}
	if err := conn.Close(); err != nil {
		t.Errorf("Close = %v, want nil", err)
	}
	if !gone(pid) {
		t.Errorf("server pid %d still running after Close", pid)
	}
	// The grandchild is not ours to reap, so its death can only be polled.
	deadline := time.Now().Add(10 * time.Second)
	for !gone(grandchild) {
		if time.Now().After(deadline) {
			syscall.Kill(grandchild, syscall.SIGKILL)
			t.Fatalf("grandchild pid %d survived Close", grandchild)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestCommandEnvironment(t *testing.T) {
	environ := []string{
		"PATH=/usr/bin:/bin",
		"HOME=/home/u",
		"LANG=C.UTF-8",
		"MCPCTL_SECRET_TOKEN=hunter2-secret",
		"BASH_FUNC_f%%=() {  echo; }",
		"HTTPS_PROXY=http://user:pw@proxy:3128",
		"http_proxy=http://proxy:3128",
	}
	tests := []struct {
		name    string
		inherit bool
		want    []string
	}{
		{"default", false, []string{
			"PATH=/usr/bin:/bin",
			"HOME=/home/u",
			"LANG=C.UTF-8",
			"http_proxy=http://proxy:3128",
			helperEnv + "=env",
			"MCPCTL_TEST_X=from-env",
		}},
		{"inherit", true, append(append([]string(nil), environ...), helperEnv+"=env", "MCPCTL_TEST_X=from-env")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := helper(t, "env")
			c.Env = append(c.Env, "MCPCTL_TEST_X=from-env")
			c.Environ = environ
			c.InheritEnv = tt.inherit
			conn := connect(t, c)
			var got struct{ Environ []string }
			if err := json.Unmarshal(mustRead(t, conn), &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.Environ); diff != "" {
				t.Errorf("server environment (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCommandLineTooLarge(t *testing.T) {
	c := helper(t, "endless")
	c.MaxMessageSize = 1 << 20
	conn := connect(t, c)
	_, err := conn.Read(context.Background())
	var tooLarge *MessageTooLargeError
	if !errors.As(err, &tooLarge) || tooLarge.Limit != 1<<20 {
		t.Fatalf("Read of an endless line = %v, want a *MessageTooLargeError with the limit", err)
	}
	want := "server sent a stdio line larger than the 1 MiB message size limit (raise it with --max-message-size)"
	if err.Error() != want {
		t.Errorf("error = %s, want %s", err, want)
	}
	// The connection is over: the transport cannot tell which request the
	// line answered.
	if _, err2 := conn.Read(context.Background()); err2 != err {
		t.Errorf("second Read = %v, want the same error", err2)
	}
	// The server still writes (stdout is drained) and ignores stdin EOF:
	// Close needs SIGTERM, within the grace periods.
	start := time.Now()
	if err := conn.Close(); err != nil {
		t.Errorf("Close = %v, want nil", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Close took %s", d)
	}
}

// TestCommandCloseDuringHugeLine is defect 10 of issue 10: a timeout with a
// huge line in flight must not wait for the line to end.
func TestCommandCloseDuringHugeLine(t *testing.T) {
	c := helper(t, "endless")
	c.Grace = 200 * time.Millisecond
	c.MaxMessageSize = 64 << 30 // the line would never be refused
	conn := connect(t, c)
	errc := make(chan error, 1)
	go func() {
		_, err := conn.Read(context.Background())
		errc <- err
	}()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	// Let the reader get well into the line, event-driven: wait until it
	// has collected several MiB.
	deadline := time.Now().Add(30 * time.Second)
	for {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		if m.TotalAlloc-before.TotalAlloc > 8<<20 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the reader made no progress into the line")
		}
		runtime.Gosched()
	}
	start := time.Now()
	if err := conn.Close(); err != nil {
		t.Errorf("Close = %v, want nil", err)
	}
	// Close waits a grace period after closing stdin, then one after
	// SIGTERM at most; the slack is for a loaded machine, far below what
	// reading an endless line to its end would take.
	if d := time.Since(start); d > 2*c.Grace+5*time.Second {
		t.Errorf("Close took %s, want about %s", d, c.Grace)
	}
	if err := <-errc; !errors.Is(err, ErrClosed) {
		t.Errorf("pending Read = %v, want ErrClosed", err)
	}
}

// TestCommandHugeLineMemory reads a 100 MB line through Read and checks
// that it cost about twice its size in allocations and that only the
// returned message stays reachable.
func TestCommandHugeLineMemory(t *testing.T) {
	size := 100 << 20
	if raceEnabled {
		size = 20 << 20
	}
	c := helper(t, "huge")
	c.Env = append(c.Env, "MCPCTL_TEST_SIZE="+strconv.Itoa(size))
	conn := connect(t, c)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	msg := mustRead(t, conn)
	runtime.ReadMemStats(&after)
	if len(msg) != size {
		t.Fatalf("message has %d bytes, want %d", len(msg), size)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(size)*22/10 {
		t.Errorf("reading a %d-byte line allocated %d bytes (%.2fx), want at most 2.2x", size, alloc, float64(alloc)/float64(size))
	}
	// The transport keeps no reference to the pieces the line was read in:
	// once collected (here, by the test), the heap holds the message alone.
	runtime.GC()
	runtime.ReadMemStats(&after)
	if live := int64(after.HeapAlloc) - int64(before.HeapAlloc); live > int64(size)*11/10 {
		t.Errorf("heap grew by %d bytes (%.2fx) reading a %d-byte line, want about 1x", live, float64(live)/float64(size), size)
	}
	if got := string(mustRead(t, conn)); got != `{"end":true}` {
		t.Errorf("message after the huge one = %s", got)
	}
	runtime.KeepAlive(msg)
}
