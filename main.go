// Command mcpctl inspects and exercises MCP (Model Context Protocol) servers.
package main

import (
	"os"

	"github.com/mcpctl/mcpctl/cmd"
	// Maps in the memory start-up touches, before the libraries initialise.
	_ "github.com/mcpctl/mcpctl/internal/prefault"
)

func main() { os.Exit(cmd.Main()) }
