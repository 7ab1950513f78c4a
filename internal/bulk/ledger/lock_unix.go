//go:build unix

package ledger

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on f without waiting; busy is true when
// another open file (another run) holds it. The lock lasts until f is
// closed or the process ends, however it ends: a killed run leaves no lock
// behind.
func lockFile(f *os.File) (busy bool, err error) {
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

// otherOwner reports whether another user owns the file of info.
func otherOwner(info fs.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) != os.Getuid()
}
