//go:build unix

package config

import (
	"io/fs"
	"os"
	"syscall"
)

// ownedByMe reports whether the user running bnpl (or root, who can change
// anything anyway) owns the file.
func ownedByMe(info fs.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
	return int(st.Uid) == os.Getuid() || st.Uid == 0
}
