//go:build libs

package main

// Built with -tags libs, the floor also links the four libraries every
// mcpctl command links (the design names them), whose package
// initialisation runs at each start as mcpctl's does; jsonschema/v5
// compiles its meta-schemas then. Against this build, the proxy's
// whole-run ratio is of relaying alone, its start-up counted on both
// sides.
import (
	_ "github.com/charmbracelet/lipgloss"
	_ "github.com/santhosh-tekuri/jsonschema/v5"
	_ "github.com/spf13/cobra"
	_ "github.com/spf13/viper"
)
