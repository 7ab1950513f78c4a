//go:build !unix

package userfile

import (
	"io/fs"
	"os"
)

// openNoFollow opens path refusing a symbolic link at it: where the OS
// has no O_NOFOLLOW, by a check first.
func openNoFollow(path string, flag int, perm fs.FileMode) (*os.File, error) {
	if info, err := os.Lstat(path); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		return nil, linkError(path)
	}
	return os.OpenFile(path, flag, perm)
}

func isLinkErr(string, error) bool { return false }

func ownedByMe(fs.FileInfo) bool { return true }

// dirPrivate says nothing on Windows: its ACLs are not Unix modes.
func dirPrivate(string, string, fs.FileInfo) error { return nil }
