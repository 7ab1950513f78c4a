package sandbox

import (
	"context"
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
	if e.Path == "" {
		return "the in-memory state cannot be used; restart the sandbox"
	}
	return "check that " + e.Path + " is yours and writable and the disk has room (`bnpl doctor` names the problem); " +
		"or start afresh with `bnpl sandbox reset --force`, which moves the file aside and makes a new one"
}

// stateError wraps err as a *StateError of path, unless it is one.
func stateError(path string, err error) error {
	var se *StateError
	if err == nil || errors.As(err, &se) {
		return err
	}
	return &StateError{Path: path, Err: err}
}

// StateInfo is what InspectState found in a state file.
type StateInfo struct {
	Rules    DeliveryRules
	Served   bool   // a live `bnpl sandbox serve` holds the state
	ServedBy string // its URL
	Pending  int    // deliveries waiting in the outbox
}

// InspectState opens a state file as a command would (creating nothing
// but the schema), checks that SQLite can read all of it, and answers its
// delivery settings; any problem is a *StateError.
func InspectState(ctx context.Context, path string) (*StateInfo, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, stateError(path, err)
	}
	db, err := openStore(path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var check string
	if err := db.QueryRowContext(ctx, `PRAGMA quick_check`).Scan(&check); err != nil {
		return nil, stateError(path, err)
	}
	if check != "ok" {
		return nil, stateError(path, fmt.Errorf("the file is damaged: %s", check))
	}
	info := &StateInfo{}
	rules, ok, err := readRules(ctx, db)
	if err != nil {
		return nil, stateError(path, err)
	}
	if !ok {
		rules = rulesFromOptions(Options{})
	}
	info.Rules = rules
	info.ServedBy, info.Served = servedBy(ctx, db, "")
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM deliveries WHERE status = 'pending'`).Scan(&info.Pending); err != nil {
		return nil, stateError(path, err)
	}
	return info, nil
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
