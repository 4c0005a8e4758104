package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpctl/mcpctl/pin"
)

// pinObserve is the scripts' `pinobserve SERVER FILE`: it shows the tool
// pins in $XDG_STATE_HOME/mcpctl/pins a tools/list result (FILE, an object
// with "tools") as the proxy does when a host lists a server's tools, and
// prints the report a line per kind. The scripts of `proxy pins` and
// `proxy accept` get their state from it without a proxy session, so they
// test the commands on state written by the package itself.
func pinObserve(args []string) int {
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: pinobserve SERVER FILE")
		return 2
	}
	data, err := os.ReadFile(args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var list struct{ Tools []json.RawMessage }
	if err := json.Unmarshal(data, &list); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	store := pin.Store{Dir: filepath.Join(os.Getenv("XDG_STATE_HOME"), "mcpctl", "pins")}
	rep, err := store.Observe(args[0], list.Tools)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var changed []string
	for _, c := range rep.Changed {
		changed = append(changed, c.Tool)
	}
	for _, line := range []struct {
		kind  string
		tools []string
	}{{"new", rep.New}, {"unchanged", rep.Unchanged}, {"changed", changed}, {"removed", rep.Removed}} {
		if len(line.tools) > 0 {
			fmt.Printf("%s: %s\n", line.kind, strings.Join(line.tools, " "))
		}
	}
	return 0
}
