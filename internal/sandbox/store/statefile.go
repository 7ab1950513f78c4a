package store

import (
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"runtime"
)

// stateFileMode is the mode of the state file and of SQLite's -wal and -shm
// files beside it: the state holds webhook header values and dispute
// evidence, so only its owner may read it.
const stateFileMode = 0o600

// prepareStateFile creates the state file private before SQLite opens it
// (SQLite would create it 0644 less the umask, and gives the -wal and -shm
// files the mode of the database file), and makes an existing state file
// and its companions private if an older bnpl left them readable by
// others. A path that exists and is not a regular file is refused.
func prepareStateFile(path string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, stateFileMode)
		if errors.Is(err, fs.ErrExist) {
			return prepareStateFile(path) // another process made it first
		}
		if err != nil {
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		// The page size is worth having, not worth failing for: a file
		// it could not be given (busy, a driver's refusal) stays empty,
		// and SQLite makes it with its defaults on the first open.
		_ = initStateFile(path)
		return nil
	case err != nil:
		return err
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file (%s)", path, fi.Mode().Type())
	}
	if runtime.GOOS == "windows" {
		return nil // no Unix modes to tighten
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if err != nil {
			continue // the companions come and go with SQLite
		}
		if fi.Mode().IsRegular() && fi.Mode().Perm()&0o077 != 0 {
			if err := os.Chmod(p, fi.Mode().Perm()&0o700); err != nil {
				return fmt.Errorf("make %s private: %w", p, err)
			}
		}
	}
	return nil
}

// statePageSize is the page size of a new state file. A busy payment's
// record is tens of kilobytes (its doc and its view each hold every
// capture): with SQLite's default 4 KiB it spans a chain of overflow
// pages, each a page to find on a read and a frame of its own in the WAL
// on a write (a header and a page, two writes); 16 KiB pages hold it in a
// few. It can be chosen only before the file's first write, and not once
// the file is in WAL mode: a state file made by an older bnpl keeps its
// 4 KiB pages, which every bnpl reads.
const statePageSize = 16 << 10

// initStateFile gives a state file just created its page size, then WAL
// mode. Another process that opens the empty file first makes it with
// SQLite's defaults, as before: nothing depends on the size.
func initStateFile(path string) error {
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+
		fmt.Sprintf("?_pragma=busy_timeout(10000)&_pragma=page_size(%d)", statePageSize))
	if err != nil {
		return err
	}
	defer db.Close()
	var mode string
	return db.QueryRow(`PRAGMA journal_mode=WAL`).Scan(&mode)
}
