package main

import (
	"fmt"
	"os/exec"
	"regexp"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// tmuxAvailable reports whether tmux is on PATH, for the scripts that
// drive the ui in a tmux session; under CI (see interopRequired) its
// absence is an error, not a skip: scripts/install-tools.sh installs
// Debian's.
func tmuxAvailable() (bool, error) {
	if _, err := exec.LookPath("tmux"); err != nil {
		if interopRequired() {
			return false, fmt.Errorf("tmux is required under CI (CI=true or MCPCTL_REQUIRE_INTEROP=1); as root, bash scripts/install-tools.sh installs Debian's: %w", err)
		}
		return false, nil
	}
	return true, nil
}

// cmdTmuxWait is tmuxwait SOCKET TARGET REGEXP: it captures the pane of
// the tmux session TARGET (on the server at SOCKET) as text until it
// matches REGEXP, and fails after a minute with the last capture. It is
// how a script waits for a full-screen program to draw what a key asked
// for: the pane is the terminal as a person would see it.
func cmdTmuxWait(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: tmuxwait SOCKET TARGET REGEXP")
	}
	re, err := regexp.Compile(args[2])
	ts.Check(err)
	deadline := time.Now().Add(time.Minute)
	for {
		out, err := exec.Command("tmux", "-S", ts.MkAbs(args[0]), "capture-pane", "-p", "-t", args[1]).Output()
		if err != nil {
			_ = exec.Command("tmux", "-S", ts.MkAbs(args[0]), "kill-server").Run()
			ts.Fatalf("tmux capture-pane: %v", err)
		}
		if re.Match(out) {
			ts.Logf("pane shows %q", args[2])
			return
		}
		if time.Now().After(deadline) {
			// The server and the programs in it would outlive the failed
			// script.
			_ = exec.Command("tmux", "-S", ts.MkAbs(args[0]), "kill-server").Run()
			ts.Fatalf("the pane did not show %q within a minute; it shows:\n%s", args[2], out)
		}
		// The pane is polled: tmux has no way to wait for a change.
		time.Sleep(50 * time.Millisecond)
	}
}
