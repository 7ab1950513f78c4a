//go:build windows

package userfile

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// Lock takes an exclusive lock on f without waiting; busy is true when
// another open file (another run) holds it. Windows drops the lock when
// the handle is closed or the process ends.
func Lock(f *os.File) (busy bool, err error) {
	// A byte far past any file's end: locking the bytes themselves would
	// keep another run from reading the file to say who holds it.
	ol := &windows.Overlapped{OffsetHigh: 0x7fffffff}
	err = windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return true, nil
	}
	return false, err
}
