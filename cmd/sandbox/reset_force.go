package sandbox

import (
	"context"
	"time"

	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/sandbox"
)

// forceReset moves the embedded state file aside without opening it and
// opens a new one: the way out of a state file that cannot be used. It
// acts on the embedded state only; a running sandbox is reset by its own
// process (or stopped, and its file given to --force here).
func forceReset(ctx context.Context, f *cmdutil.Factory) error {
	if f.SandboxURL() != "" {
		return cmdutil.Usagef("--force acts on the embedded state file only; a running sandbox is reset with `bnpl sandbox reset --sandbox-url URL`")
	}
	path := f.EmbeddedStatePath()
	if err := f.AskFirst(ctx, "Move "+path+" aside and start a new, empty sandbox state?", cmdutil.ErrKept); err != nil {
		return err
	}
	aside, err := sandbox.MoveStateAside(path, time.Now())
	if err != nil {
		return &sandbox.StateError{Path: path, Err: err}
	}
	if _, err := f.EmbeddedSandbox(); err != nil {
		return err
	}
	f.Noticef("moved the old state to %s; the embedded sandbox starts afresh in %s", aside, path)
	return nil
}
