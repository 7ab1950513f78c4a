//go:build unix

package har

import (
	"errors"
	"os"
	"syscall"
)

// lock waits for an exclusive lock on f: a recorder and a listen adding
// notifications to one file take turns, entry by entry.
func lock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

func unlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
