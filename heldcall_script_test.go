package main

import (
	"slices"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mcpctl/mcpctl/approval"
)

// waitheld DIR TOOL VAR waits (up to 30 s) until the approval queue in DIR
// holds a pending call of TOOL, and sets VAR to its ID: how a script
// playing the person at another terminal learns which call a proxy in the
// background holds, without sleeping. A call already in VAR's value is
// passed over, so one queue can hold several calls in turn.
func cmdWaitHeld(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: waitheld DIR TOOL VAR")
	}
	store := approval.Store{Dir: ts.MkAbs(args[0])}
	seen := ts.Getenv(args[2])
	deadline := time.Now().Add(30 * time.Second)
	for {
		entries, err := store.List()
		ts.Check(err)
		if i := slices.IndexFunc(entries, func(e approval.Entry) bool {
			return e.State == approval.Pending && e.Tool == args[1] && e.ID != seen
		}); i >= 0 {
			ts.Setenv(args[2], entries[i].ID)
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("no call of %s was held in %s within 30s", args[1], args[0])
		}
		time.Sleep(10 * time.Millisecond)
	}
}
