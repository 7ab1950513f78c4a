package sandbox

import (
	"errors"
	"fmt"
)

// StateError is a state file that cannot be opened, read or written:
// corrupt, not a database, read-only, or on a full disk. Commands exit
// with their own code for it and point at `bnpl sandbox reset --force`.
type StateError struct {
	Path string // "" for the in-memory state
	Err  error
}

func (e *StateError) Error() string {
	if e.Path == "" {
		return "sandbox state: " + e.Err.Error()
	}
	return fmt.Sprintf("sandbox state %s: %v", e.Path, e.Err)
}

func (e *StateError) Unwrap() error { return e.Err }

// stateError wraps err as a *StateError of path, unless it is one.
func stateError(path string, err error) error {
	var se *StateError
	if err == nil || errors.As(err, &se) {
		return err
	}
	return &StateError{Path: path, Err: err}
}
