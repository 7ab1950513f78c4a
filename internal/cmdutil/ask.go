package cmdutil

import (
	"context"
	"errors"
)

// ErrKept is a declined confirmation of a change that is not a request to
// the service (removing a profile, resetting the sandbox): exit 2, nothing
// changed.
var ErrKept error = &LocalError{Msg: "not confirmed: nothing was changed"}

// AskFirst asks, through the factory's Prompter, before an action that
// cannot be undone (removing a profile and its keys, resetting the sandbox,
// removing a live webhook). It asks only when a person is there to answer,
// stdin and stderr being terminals; --yes skips the question, and off a
// terminal the action goes ahead, as scripts expect. An answer other than
// yes returns declined (ErrNotConfirmed or ErrKept, exit 2); Ctrl-C
// returns ErrInterrupted (exit 130).
func (f *Factory) AskFirst(ctx context.Context, question string, declined error) error {
	if f.Global.Yes || !f.IO.IsStdinTTY() || !f.IO.IsStderrTTY() {
		return nil
	}
	yes, err := f.Prompter(ctx).YesNo(question + " Type yes to confirm: ")
	switch {
	case errors.Is(err, ErrInterrupted):
		return err
	case !yes:
		return declined
	}
	return nil
}
