//go:build !unix && !windows

package har

import "os"

// lock is a no-op where the platform has no file lock: one process
// writes a recording at a time there.
func lock(*os.File) error { return nil }

func unlock(*os.File) error { return nil }
