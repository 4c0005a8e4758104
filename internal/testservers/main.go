// Command testservers is the in-repo test servers as one program, which
// runs as the server it is called by: testserver, faultserver, authserver
// or oauthfollow (a link of that name, or the name as its first argument).
//
// The scripts run this program by those names: TestScript (main_test.go)
// builds it without the race detector, or scripts/test.sh builds it once
// for both of its tiers and names its folder in MCPCTL_TEST_SERVERS, so
// that under -race only mcpctl, the program under test, carries the
// detector: a race-built server costs several times the CPU, and mcpctl
// starts stdio servers with its safe environment, which leaves out
// GORACE, so each race-built server it stops would sleep the detector's
// second at exit.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpctl/mcpctl/internal/authserver"
	"github.com/mcpctl/mcpctl/internal/faultserver"
	"github.com/mcpctl/mcpctl/internal/testserver"
)

var servers = map[string]func() int{
	"testserver":  testserver.Main,
	"faultserver": faultserver.Main,
	"authserver":  authserver.Main,
	"oauthfollow": authserver.FollowMain,
}

func main() {
	name := strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")
	if run, ok := servers[name]; ok {
		os.Exit(run())
	}
	if len(os.Args) > 1 {
		if run, ok := servers[os.Args[1]]; ok {
			os.Args = os.Args[1:]
			os.Exit(run())
		}
	}
	fmt.Fprintln(os.Stderr, "usage: testservers {testserver|faultserver|authserver|oauthfollow} [ARGS...] (or a link of that name)")
	os.Exit(2)
}
