//go:build windows

package har

import (
	"os"

	"golang.org/x/sys/windows"
)

// lock waits for an exclusive lock on f: a recorder and a listen adding
// notifications to one file take turns, entry by entry. The locked byte is
// far past any file's end, so readers are not kept out.
func lock(f *os.File) error {
	ol := &windows.Overlapped{OffsetHigh: 0x7fffffff}
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, ol)
}

func unlock(f *os.File) error {
	ol := &windows.Overlapped{OffsetHigh: 0x7fffffff}
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, ol)
}
