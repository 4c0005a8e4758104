//go:build prefault

package main

// Built with -tags prefault, the floor also imports what mcpctl's main does
// to map in its start-up memory ahead of use (internal/prefault), so the
// like-for-like comparison can be made: the floor as the issue defines it
// has no such step.
import _ "github.com/mcpctl/mcpctl/internal/prefault"
