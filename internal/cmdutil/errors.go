// Package cmdutil holds what every command shares: the factory that builds
// dependencies lazily, the usage error, and the mapping of errors to the
// documented exit codes.
package cmdutil

import (
	"context"
	"errors"
	"fmt"
)

// Exit codes of the command-line surface.
const (
	ExitOK          = 0
	ExitError       = 1
	ExitUsage       = 2
	ExitBadData     = 3
	ExitAuth        = 4
	ExitPermission  = 5
	ExitNotFound    = 6
	ExitConflict    = 7
	ExitRateLimited = 8
	ExitServer      = 9
	ExitNetwork     = 10
	ExitBulkFailed  = 11
	// ExitState: the sandbox's state file cannot be opened, read or
	// written (sandbox.StateError answers it).
	ExitState = 12
	// ExitWaitTimedOut: payments wait saw its time-out pass first.
	ExitWaitTimedOut = 13
	// ExitWaitUnreachable: payments wait saw a status from which the
	// awaited one can no longer come.
	ExitWaitUnreachable = 14
	// ExitDifferences: sandbox verify or replay found differences between
	// a recording and what was replayed.
	ExitDifferences = 15
	ExitInterrupted = 130
)

// UsageError is a mistake in how the command was called: nothing was sent.
// The root prints the command's usage after it.
type UsageError struct {
	Err  error
	hint string
}

func (e *UsageError) Error() string    { return e.Err.Error() }
func (e *UsageError) Unwrap() error    { return e.Err }
func (e *UsageError) ExitCode() int    { return ExitUsage }
func (e *UsageError) Hint() string     { return e.hint }
func (e *UsageError) ShowsUsage() bool { return true }

// Usagef makes a UsageError from a format.
func Usagef(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// UsageHint makes a UsageError with a hint line.
func UsageHint(hint, format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...), hint: hint}
}

// LocalError is a refusal decided before anything was sent (a missing live
// key, a file of the wrong type, a live move without confirmation). It
// exits 2 like a usage error but does not print the usage.
type LocalError struct {
	Msg  string
	hint string
}

func (e *LocalError) Error() string { return e.Msg }
func (e *LocalError) ExitCode() int { return ExitUsage }
func (e *LocalError) Hint() string  { return e.hint }

// Refuse makes a LocalError with a hint.
func Refuse(hint, format string, args ...any) error {
	return &LocalError{Msg: fmt.Sprintf(format, args...), hint: hint}
}

// ExitCode maps err to the documented exit code. Errors carry their own code
// (ExitCode() int); anything else is an unexpected failure.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var coded interface{ ExitCode() int }
	if errors.As(err, &coded) {
		return coded.ExitCode()
	}
	if errors.Is(err, context.Canceled) {
		return ExitInterrupted
	}
	return ExitError
}

// ShowsUsage reports whether the root should print the usage after err.
func ShowsUsage(err error) bool {
	var u interface{ ShowsUsage() bool }
	return errors.As(err, &u) && u.ShowsUsage()
}

// Silent marks an error whose message was already shown (a failed smoke test
// with its own report, a dry run): only its exit code matters.
type Silent struct{ Code int }

func (s *Silent) Error() string { return fmt.Sprintf("exit status %d", s.Code) }
func (s *Silent) ExitCode() int { return s.Code }

// WithHint gives err a hint line, keeping its message and exit code.
func WithHint(err error, hint string) error { return &hinted{err: err, hint: hint} }

type hinted struct {
	err  error
	hint string
}

func (h *hinted) Error() string { return h.err.Error() }
func (h *hinted) Unwrap() error { return h.err }
func (h *hinted) Hint() string  { return h.hint }
