// Command mcpctl inspects and exercises MCP (Model Context Protocol) servers.
package main

import (
	"os"

	"github.com/mcpctl/mcpctl/cmd"
)

func main() { os.Exit(cmd.Main()) }
