//go:build !unix && !windows

// Package filelock takes exclusive advisory locks that several mcpctl
// processes share. Where flock does not exist its locks are no-ops: each
// caller still orders its own process's writes.
package filelock

import (
	"os"
	"time"
)

// Path is a no-op here.
func Path(string, time.Duration) (func(), error) { return func() {}, nil }

// File is a no-op here.
func File(*os.File) (func(), error) { return func() {}, nil }
