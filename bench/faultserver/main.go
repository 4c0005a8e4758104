// Command faultserver is the test fault server (internal/faultserver) as a
// program of its own, for the benchmark scripts: scripts/bench-compare.sh
// serves a huge result with it to measure mcpctl's peak memory. It is not
// part of the shipped binary.
package main

import (
	"os"

	"github.com/mcpctl/mcpctl/internal/faultserver"
)

func main() { os.Exit(faultserver.Main()) }
