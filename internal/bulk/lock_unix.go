//go:build unix

package bulk

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

// privateFile reports what makes info unfit for a journal: a file that is
// not regular, or that someone other than its owner can read or write,
// or that another user owns.
func privateFile(info fs.FileInfo) string {
	if !info.Mode().IsRegular() {
		return "is not a regular file"
	}
	if info.Mode().Perm()&0o077 != 0 {
		return "can be read or written by others (mode " + info.Mode().Perm().String() + "); run chmod 600 on it"
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return "belongs to another user"
	}
	return ""
}
