package userfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// bnpl's own directories (the state directory, with the sandbox's state,
// the bulk runs' ledger and the redaction key; the config directory, with
// the keys) and the files in them are private to the user: a directory
// others can write, or another user owns, would let them delete or replace
// what bnpl relies on (the ledger is what keeps a bulk run from moving
// money twice), and a symbolic link planted at a file's path would make
// bnpl write, or change the mode of, a file elsewhere. So every directory
// is checked before use (PrivateDir), every file is opened without
// following a link (OpenPrivate), and a file another library opens by its
// name (SQLite's database and its -wal and -shm files) is checked first
// (CheckPrivateFile). Every file bnpl writes there is 0600, also when it
// existed with a wider mode.

// ExitState is the exit code of a state or config directory, or a file
// in one, that cannot be used: the sandbox's state and a bulk run's ledger
// exit with it too.
const ExitState = 12

// DirError is a state or config directory that is not private to the
// user, or cannot be made. Nothing was sent; it exits 12.
type DirError struct {
	What    string // "state directory", "config directory"
	Path    string
	Problem string
	Fix     string
	Err     error
}

func (e *DirError) Error() string { return fmt.Sprintf("%s %s %s", e.What, e.Path, e.Problem) }
func (e *DirError) Hint() string  { return e.Fix }
func (e *DirError) Unwrap() error { return e.Err }
func (e *DirError) ExitCode() int { return ExitState }

// FileError is a file in bnpl's own directories (or a recording) that
// bnpl will not open: a symbolic link, not a regular file, or another
// user's. It exits 12.
type FileError struct {
	Path    string
	Problem string
	Fix     string
}

func (e *FileError) Error() string { return e.Path + " " + e.Problem }
func (e *FileError) Hint() string  { return e.Fix }
func (e *FileError) ExitCode() int { return ExitState }

// envFor names the variable that moves a directory of that kind.
func envFor(what string) string {
	if strings.Contains(what, "--state") {
		return "--state"
	}
	if strings.HasPrefix(what, "config") {
		return "XDG_CONFIG_HOME"
	}
	return "XDG_STATE_HOME"
}

// PrivateDir makes dir (mode 0700, and its parents) unless it exists,
// and answers nil when it is a directory private to the user: not
// writable by group or others, and owned by the user (or root). what
// names it in errors ("state directory"). On Windows, whose ACLs Unix
// modes do not describe, only the making is checked.
func PrivateDir(what, dir string) error {
	if dir == "" {
		return &DirError{What: what, Path: "(none)", Problem: "cannot be found: neither " + envFor(what) + " nor HOME is an absolute directory",
			Fix: "set HOME (or " + envFor(what) + ") to a directory of your own"}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return &DirError{What: what, Path: dir, Problem: "cannot be made: " + errText(err), Err: err,
			Fix: "set " + envFor(what) + " (or HOME) to a directory you can write"}
	}
	return CheckPrivateDir(what, dir)
}

// CheckPrivateDir is PrivateDir for a directory that need not exist yet:
// a missing one is fine (it is made 0700 when first written).
func CheckPrivateDir(what, dir string) error {
	info, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return &DirError{What: what, Path: dir, Problem: "cannot be read: " + errText(err), Err: err,
			Fix: "set " + envFor(what) + " (or HOME) to a directory of your own"}
	}
	if !info.IsDir() {
		return &DirError{What: what, Path: dir, Problem: "is not a directory", Fix: "remove it (rm " + quote(dir) + ") and run the command again"}
	}
	return dirPrivate(what, dir, info)
}

// errText is an error of the os package without the operation's repeat
// of the path when it is the whole story.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + " " + pe.Path + ": " + pe.Err.Error()
	}
	return err.Error()
}

// quote quotes a path for a shell, only when it needs it.
func quote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '_' || r == '-' || r == '~' ||
			('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z'))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// OpenPrivate opens path with flag (os.O_CREATE makes it 0600) without
// following a symbolic link at it, and refuses what is not a regular file
// or belongs to another user. A file that existed with a wider mode is
// made 0600.
func OpenPrivate(path string, flag int) (*os.File, error) {
	f, err := openNoFollow(path, flag, 0o600)
	if err != nil {
		if isLinkErr(path, err) {
			return nil, linkError(path)
		}
		return nil, err
	}
	if err := private(f, path); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// CheckPrivateFile checks a file another library opens by its name
// (SQLite's database, -wal and -shm files), before it does: absent is
// fine; a symbolic link, what is not a regular file, and another user's
// file are refused; a wider mode is made 0600 (through a descriptor
// opened without following links).
func CheckPrivateFile(path string) error {
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		return linkError(path)
	}
	if !info.Mode().IsRegular() {
		return &FileError{Path: path, Problem: "is not a regular file", Fix: "remove it (rm " + quote(path) + ") and run the command again"}
	}
	f, err := OpenPrivate(path, os.O_RDONLY)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return f.Close()
}

func linkError(path string) error {
	return &FileError{Path: path, Problem: "is a symbolic link: bnpl does not follow links to the files it keeps private",
		Fix: "remove the link (rm " + quote(path) + ") and run the command again"}
}

// private checks an open file: regular, the user's, mode 0600.
func private(f *os.File, path string) error {
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return &FileError{Path: path, Problem: "is not a regular file", Fix: "remove it (rm " + quote(path) + ") and run the command again"}
	}
	if !ownedByMe(info) {
		return &FileError{Path: path, Problem: "belongs to another user", Fix: "remove it, or give it to yourself: chown $(id -un) " + quote(path)}
	}
	if info.Mode().Perm()&0o077 != 0 {
		return f.Chmod(0o600)
	}
	return nil
}

// PrivateSQLite checks an SQLite database and the files SQLite keeps
// beside it (-wal, -shm, -journal) before SQLite opens them by name, as
// CheckPrivateFile does: SQLite follows links, and gives the files it
// makes the database's mode.
func PrivateSQLite(path string) error {
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal"} {
		if err := CheckPrivateFile(p); err != nil {
			return err
		}
	}
	return nil
}

// Refused tells an error of PrivateDir, OpenPrivate or CheckPrivateFile
// that says what to do, to be passed on as it is.
func Refused(err error) bool {
	var de *DirError
	var fe *FileError
	return errors.As(err, &de) || errors.As(err, &fe)
}
