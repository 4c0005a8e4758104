//go:build !unix

package policy

import "time"

// lockFile is a no-op where flock is not available: the rate-limit file is then
// guarded within one process only.
func lockFile(string, time.Duration) (func(), error) { return func() {}, nil }
