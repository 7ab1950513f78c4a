package store

import (
	"errors"
	"fmt"
	"io/fs"
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
		return f.Close()
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
