package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// StateError is a state file that cannot be opened, read or written:
// corrupt, not a database, read-only, or on a full disk. Commands exit
// with their own code for it and point at `bnpl sandbox reset --force`.
type StateError struct {
	Path string // "" for the in-memory state
	Err  error
	hint string // what to do, when not the usual (Hint)
}

func (e *StateError) Error() string {
	if e.Path == "" {
		return "sandbox state: " + e.Err.Error()
	}
	return fmt.Sprintf("sandbox state %s: %v", e.Path, e.Err)
}

func (e *StateError) Unwrap() error { return e.Err }

// ExitCode is the exit code of a state file that cannot be used (the
// exit-codes table of bnpl help calls it 12).
func (e *StateError) ExitCode() int { return 12 }

// Hint says what to do: fix the file's permissions or space, or start
// afresh with a new state, keeping the old one aside.
func (e *StateError) Hint() string {
	if e.hint != "" {
		return e.hint
	}
	if e.Path == "" {
		return "the in-memory state cannot be used; restart the sandbox"
	}
	return "check that " + e.Path + " is yours and writable and the disk has room (`bnpl doctor` names the problem); " +
		"or start afresh with `bnpl sandbox reset --force`, which moves the file aside and makes a new one"
}

// NewStateError wraps err as a *StateError of path, unless it is one.
func NewStateError(path string, err error) error {
	var se *StateError
	if err == nil || errors.As(err, &se) {
		return err
	}
	return &StateError{Path: path, Err: err}
}

// MoveStateAside renames a state file and its SQLite companions to
// PATH.broken-TIME and answers the new name, so that the next open
// starts a new state and the old one is kept for a look.
func MoveStateAside(path string, now time.Time) (string, error) {
	aside := path + ".broken-" + now.UTC().Format("20060102T150405Z")
	if err := os.Rename(path, aside); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	for _, ext := range []string{"-wal", "-shm"} {
		if err := os.Rename(path+ext, aside+ext); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
	}
	return aside, nil
}

// SandboxState names the state file: how a client of the in-process
// sandbox tells a state that failed under a request (answered with its own
// exit code, never retried) from a network failure.
func (e *StateError) SandboxState() string { return e.Path }

// storageCodes are the SQLite result codes (primary, the low byte) of a
// file that cannot be used: permission, read-only, I/O, corrupt, full,
// cannot open, not a database. Busy and locked are not among them: those
// pass.
var storageCodes = map[int]bool{3: true, 8: true, 10: true, 11: true, 13: true, 14: true, 26: true}

// StorageFailure is err as a *StateError of path when it says the state
// file itself failed (a StateError, or an SQLite error of storageCodes),
// else nil.
func StorageFailure(path string, err error) error {
	var se *StateError
	if errors.As(err, &se) {
		return se
	}
	var coded interface{ Code() int }
	if errors.As(err, &coded) && storageCodes[coded.Code()&0xff] {
		return &StateError{Path: path, Err: err}
	}
	return nil
}
