//go:build !unix

package audit

import "os"

// lock is a no-op where flock does not exist: appends of one process are
// still ordered by the Writer's mutex, but concurrent processes are not.
func lock(*os.File) (func(), error) { return func() {}, nil }
