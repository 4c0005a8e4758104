//go:build libs

package main

// Built with -tags libs, the floor also links the four libraries of
// mcpctl's design, as mcpctl must: their package initialisation (the draft
// meta-schemas jsonschema/v5 compiles, viper's decoders, lipgloss's
// terminal detection) runs in every process, and Go cannot defer it. The
// floor's work is unchanged; the distance from this build to the plain one
// is what the design's libraries cost a batch before mcpctl does anything.
import (
	_ "github.com/charmbracelet/lipgloss"
	_ "github.com/santhosh-tekuri/jsonschema/v5"
	_ "github.com/spf13/cobra"
	_ "github.com/spf13/viper"
)
