package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestShippedDeps checks that the shipped program links no test machinery:
// the test-only modules (testscript and the rest of go-internal, the
// official Go SDK the test servers are written with), the test servers
// themselves, and the standard library's testing packages. It asks the go
// command what the module root (package main) links.
func TestShippedDeps(t *testing.T) {
	t.Parallel()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list the program's dependencies: %v", err)
	}
	list := exec.Command(goCmd, "list", "-deps", ".")
	var stderr strings.Builder
	list.Stderr = &stderr
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list -deps .: %v\n%s", err, stderr.String())
	}
	const module = "github.com/mcpctl/mcpctl"
	forbidden := []string{
		"github.com/rogpeppe/go-internal",
		"github.com/modelcontextprotocol/go-sdk",
		module + "/internal/testserver",
		module + "/internal/faultserver",
		module + "/internal/authserver",
		module + "/internal/defectserver",
		module + "/internal/signserver",
		"testing",
	}
	deps := strings.Fields(string(out))
	demo := false
	for _, pkg := range deps {
		demo = demo || pkg == module+"/internal/demo"
		for _, f := range forbidden {
			if pkg == f || strings.HasPrefix(pkg, f+"/") {
				t.Errorf("the shipped program links %s (from %s), which is for tests only", pkg, f)
			}
		}
		if strings.HasSuffix(pkg, "/testscript") {
			t.Errorf("the shipped program links %s, which is for tests only", pkg)
		}
	}
	// The built-in demo server is shipped; that it is in the list is what
	// makes the checks above cover it (it must not pull in the go-sdk).
	if !demo {
		t.Errorf("go list -deps . does not list %s/internal/demo: is the list the shipped program's?", module)
	}
	if len(deps) < 50 {
		t.Errorf("go list -deps . listed %d packages, too few to be the program's: %q", len(deps), deps)
	}
}
