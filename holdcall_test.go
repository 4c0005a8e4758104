package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/mcpctl/mcpctl/approval"
)

// holdCall is the test binary holdcall: it holds one call in an
// approval queue as a proxy would (package approval, in a process of its
// own), writes its ID to a file, and prints the verdict it waits for. The
// scripts use it to drive `mcpctl proxy approvals|approve|deny` against a
// real holder in another process; the proxy's own use of the queue is
// tested with the governor.
//
//	holdcall -dir DIR -id FILE [-timeout D] SERVER TOOL ARGUMENTS
func holdCall(args []string) int {
	fs := flag.NewFlagSet("holdcall", flag.ContinueOnError)
	dir := fs.String("dir", "", "the queue's folder")
	idFile := fs.String("id", "", "write the held call's ID to this file")
	timeout := fs.Duration("timeout", time.Minute, "deny after this long")
	if err := fs.Parse(args); err != nil || fs.NArg() != 3 || *dir == "" || *idFile == "" {
		fmt.Fprintln(os.Stderr, "usage: holdcall -dir DIR -id FILE [-timeout D] SERVER TOOL ARGUMENTS")
		return 2
	}
	store := approval.Store{Dir: *dir, Poll: 10 * time.Millisecond}
	id, err := store.Hold(approval.Request{
		Server:    fs.Arg(0),
		Tool:      fs.Arg(1),
		Arguments: json.RawMessage(fs.Arg(2)),
		Host:      approval.Host{Name: "scripted-host", Version: "1.0"},
		Rule:      "requires_approval",
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// Written whole, then renamed, so that envfile never reads half an ID.
	if err := os.WriteFile(*idFile+".tmp", []byte(id), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := os.Rename(*idFile+".tmp", *idFile); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	v, err := store.Wait(context.Background(), id, *timeout)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if v.Approved {
		fmt.Printf("approved by %s\n", v.By)
	} else {
		fmt.Printf("denied by %s: %s\n", v.By, v.Reason)
	}
	return 0
}
