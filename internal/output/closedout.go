package output

import (
	"errors"
	"io"
	"os"
	"sync"
	"syscall"
)

// ErrStdoutClosed is what a write to stdout returns once its reader has
// gone (`bnpl payments list --all | head -1`): the command stops, and the
// run ends quietly with exit 0, since the reader took what it wanted.
var ErrStdoutClosed = errors.New("stdout closed by its reader")

// closedOutWriter is stdout for a process: the first write that fails with
// a broken pipe marks stdout gone and calls onGone (which ends the run's
// context, so a walk or a follow stops instead of going on for nobody);
// that write and every later one return ErrStdoutClosed.
type closedOutWriter struct {
	w io.Writer

	mu     sync.Mutex
	gone   bool
	onGone func()
}

func (c *closedOutWriter) Write(b []byte) (int, error) {
	c.mu.Lock()
	gone := c.gone
	c.mu.Unlock()
	if gone {
		return 0, ErrStdoutClosed
	}
	n, err := c.w.Write(b)
	if err != nil && isBrokenPipe(err) {
		c.mu.Lock()
		c.gone = true
		hook := c.onGone
		c.onGone = nil
		c.mu.Unlock()
		if hook != nil {
			hook()
		}
		return n, ErrStdoutClosed
	}
	return n, err
}

func (c *closedOutWriter) isGone() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gone
}

func isBrokenPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed)
}

// OnStdoutClosed sets what to do when stdout's reader goes away (Execute
// cancels the run's context). Only the streams of System watch for it.
func (s *IOStreams) OnStdoutClosed(hook func()) {
	if c, ok := s.stdoutWatch(); ok {
		c.mu.Lock()
		c.onGone = hook
		c.mu.Unlock()
	}
}

// StdoutClosed reports whether stdout's reader has gone: whatever the
// command then says went wrong is a consequence, not a failure to report.
func (s *IOStreams) StdoutClosed() bool {
	c, ok := s.stdoutWatch()
	return ok && c.isGone()
}

func (s *IOStreams) stdoutWatch() (*closedOutWriter, bool) {
	c, ok := s.watchedOut.(*closedOutWriter)
	return c, ok
}
