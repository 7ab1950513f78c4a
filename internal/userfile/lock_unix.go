//go:build unix

package userfile

import (
	"errors"
	"os"
	"syscall"
)

// Lock takes an exclusive lock on f without waiting; busy is true when
// another open file (another run) holds it. The lock lasts until f is
// closed or the process ends, however it ends: a killed run leaves no lock
// behind.
func Lock(f *os.File) (busy bool, err error) {
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}
