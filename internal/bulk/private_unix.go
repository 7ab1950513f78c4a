//go:build unix

package bulk

import (
	"io/fs"
	"os"
	"syscall"
)

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
