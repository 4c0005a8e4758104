//go:build !unix

package auth

import "time"

// lockFile is a no-op where flock is not available: the store is then
// guarded within one process only.
func lockFile(string, time.Duration) (func(), error) { return func() {}, nil }
