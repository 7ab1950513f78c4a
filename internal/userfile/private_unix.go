//go:build unix

package userfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// openNoFollow opens path refusing a symbolic link at it (O_NOFOLLOW).
func openNoFollow(path string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, perm)
}

// isLinkErr tells the error of O_NOFOLLOW meeting a link (ELOOP; EMLINK
// on some BSDs).
func isLinkErr(_ string, err error) bool {
	return errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK)
}

// ownedByMe reports whether the user running bnpl (or root, who can
// change anything anyway) owns the file.
func ownedByMe(info fs.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
	return int(st.Uid) == os.Getuid() || st.Uid == 0
}

func dirPrivate(what, dir string, info fs.FileInfo) error {
	if perm := info.Mode().Perm(); perm&0o022 != 0 {
		return &DirError{What: what, Path: dir,
			Problem: fmt.Sprintf("can be written by other users (mode %04o), who could delete or replace what bnpl keeps there", perm),
			Fix:     "make it yours alone: chmod 700 " + quote(dir)}
	}
	if !ownedByMe(info) {
		owner := ""
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			owner = fmt.Sprintf(" (uid %d)", st.Uid)
		}
		return &DirError{What: what, Path: dir,
			Problem: "belongs to another user" + owner + ", who could delete or replace what bnpl keeps there",
			Fix:     "take it: chown $(id -un) " + quote(dir) + ", or set " + envFor(what) + " to a directory of your own"}
	}
	return parentPrivate(what, dir)
}

// parentPrivate refuses a directory whose parent others can write
// without the sticky bit: they could rename it away and put their own in
// its place (a sticky directory, such as /tmp, lets only the owner of an
// entry rename it).
func parentPrivate(what, dir string) error {
	parent := filepath.Dir(filepath.Clean(dir))
	if parent == dir {
		return nil
	}
	info, err := os.Stat(parent)
	if err != nil {
		return nil // it was reached through it: what cannot be read here cannot be judged
	}
	perm := info.Mode().Perm()
	if perm&0o022 == 0 || info.Mode()&fs.ModeSticky != 0 {
		return nil
	}
	return &DirError{What: what, Path: dir,
		Problem: fmt.Sprintf("is in %s, which other users can write (mode %04o, no sticky bit): they could move it away and put their own in its place", parent, perm),
		Fix:     "take the others' write away: chmod go-w " + quote(parent) + ", or set " + envFor(what) + " to a directory of your own"}
}
