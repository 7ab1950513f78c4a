package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/userfile"
)

// statePath is the state serve opens ("" in memory), once its directory
// has proved private and (with the file, when there is one) writable: a state that
// cannot be written would fail at the first request, or, in a container
// whose volume is a host directory owned by another user, at once with a
// hint that cannot help there.
func (o *ServeOptions) statePath(f *cmdutil.Factory) (string, error) {
	switch o.State {
	case ":memory:":
		return "", nil
	case "":
		path := f.EmbeddedStatePath()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return "", o.stateNotWritable(filepath.Dir(path), err)
		}
		if err := userfile.PrivateDir("state directory", filepath.Dir(path)); err != nil {
			return "", err
		}
		if err := userfile.PrivateSQLite(path); err != nil {
			return "", err
		}
		return path, o.checkWritable(path)
	}
	// A state file named by --state is kept as bnpl's own: its directory
	// private (nobody else can write it or move it away), the file and
	// SQLite's beside it no link and 0600.
	if err := o.checkWritable(o.State); err != nil {
		return "", err
	}
	if err := userfile.CheckPrivateDir("directory of --state", filepath.Dir(o.State)); err != nil {
		return "", err
	}
	return o.State, userfile.PrivateSQLite(o.State)
}

// checkWritable opens the state file for writing when it exists, and
// creates (and removes) a file beside it, as SQLite's journal will.
func (o *ServeOptions) checkWritable(path string) error {
	dir := filepath.Dir(path)
	if file, err := os.OpenFile(path, os.O_RDWR, 0); err == nil {
		file.Close()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return o.stateNotWritable(path, err)
	}
	probe, err := os.CreateTemp(dir, ".bnpl-write-check-*")
	if err != nil {
		return o.stateNotWritable(dir, err)
	}
	probe.Close()
	return os.Remove(probe.Name())
}

// stateNotWritable is a state path serve cannot write: exit 12, saying
// which user needs it and the ways to give it.
func (o *ServeOptions) stateNotWritable(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		err = errors.New("no such directory")
	}
	if !errors.Is(err, fs.ErrPermission) {
		return &stateDirError{msg: fmt.Sprintf("sandbox state %s: %v", path, err),
			hint: "give " + o.setting("state") + " a file in a directory that exists and is writable, or :memory:"}
	}
	who, owner := runningAs(), ownerOf(path)
	msg := fmt.Sprintf("sandbox state %s: not writable by %s, the user serve runs as", path, who)
	if owner != "" {
		msg += " (it belongs to " + owner + ")"
	}
	hint := fmt.Sprintf("make it writable by %s (a container's volume: on the host, chown %s the directory mounted there), "+
		"or run as its owner (docker or podman run --user %s), or keep the state in memory (%s)",
		who, chownArg(), ownerArg(owner), o.given("state", ":memory:"))
	return &stateDirError{msg: msg, hint: hint}
}

// stateDirError is a state serve cannot use, found before it listens.
type stateDirError struct{ msg, hint string }

func (e *stateDirError) Error() string { return e.msg }
func (e *stateDirError) Hint() string  { return e.hint }
func (e *stateDirError) ExitCode() int { return cmdutil.ExitState }
