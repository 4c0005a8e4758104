package testserver

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// execEnv, when set, makes the test binary run Main instead of the tests, so
// the tests below can run the server as a real child process.
const execEnv = "MCPCTL_TESTSERVER_EXEC"

func TestMain(m *testing.M) {
	if os.Getenv(execEnv) == "1" {
		os.Exit(Main())
	}
	os.Exit(m.Run())
}

// command returns a command running Main with args in a child process.
func command(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), execEnv+"=1")
	return cmd
}

func exitCode(err error) int {
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return exitErr.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

func TestMainRejectsUnknownMode(t *testing.T) {
	cmd := command(t, "nope")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if code := exitCode(cmd.Run()); code != 2 {
		t.Errorf("exit status %d, want 2", code)
	}
	if !strings.Contains(stderr.String(), `unknown mode "nope"`) || !strings.Contains(stderr.String(), "usage: testserver") {
		t.Errorf("stderr:\n%s", &stderr)
	}
}

func TestCrashExits3(t *testing.T) {
	cmd := command(t, "crash")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// stdin stays open: at EOF the server would stop before crashing.
	_, err = io.WriteString(stdin, strings.Join([]string{
		initialize,
		initialized,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"crash","arguments":{}}}`,
	}, "\n")+"\n")
	if err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	if code := exitCode(err); code != 3 {
		t.Errorf("exit status %d, want 3 (%v)", code, err)
	}
	if want := "testserver: started crash\n" + crashMessage + "\n"; stderr.String() != want {
		t.Errorf("stderr = %q, want %q", &stderr, want)
	}
	// Only the initialize result: nothing for the tools/call.
	if got := lines(stdout.String()); len(got) != 1 || !strings.Contains(got[0], `"id":1,`) {
		t.Errorf("stdout:\n%s\nwant the initialize result only", &stdout)
	}
}

func TestStubborn(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pid")
	cmd := command(t, "-pidfile", pidfile, "stubborn")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdoutPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderrPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	stdout, stderr := bufio.NewReader(stdoutPipe), bufio.NewScanner(stderrPipe)

	if !stderr.Scan() || stderr.Text() != "testserver: started stubborn" {
		t.Fatalf("first stderr line %q, want the start line", stderr.Text())
	}
	data, err := os.ReadFile(pidfile)
	if err != nil || strings.TrimSpace(string(data)) != strconv.Itoa(cmd.Process.Pid) {
		t.Errorf("pid file holds %q (%v), want %d", data, err, cmd.Process.Pid)
	}

	signalAll := func() {
		t.Helper()
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatalf("sending %v: %v", sig, err)
			}
		}
	}
	signalAll()
	// Still serving after the signals.
	if _, err := io.WriteString(stdin, initialize+"\n"); err != nil {
		t.Fatal(err)
	}
	if line, err := stdout.ReadString('\n'); err != nil || !strings.Contains(line, `"id":1,`) {
		t.Fatalf("initialize answer %q, %v", line, err)
	}

	stdin.Close()
	if !stderr.Scan() || stderr.Text() != stubbornMessage {
		t.Fatalf("stderr line %q, want %q", stderr.Text(), stubbornMessage)
	}
	signalAll()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, stderrPipe)
	err = cmd.Wait()
	// Killed by our SIGKILL, so none of the earlier signals ended it.
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("wait: %v, want death by SIGKILL", err)
	}
}
