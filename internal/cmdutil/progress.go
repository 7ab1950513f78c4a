package cmdutil

import (
	"fmt"
	"sync"

	"github.com/bnpl-cli/bnpl/internal/output"
)

// Progress is a one-line counter on stderr ("page 3 of 50") that a long
// walk redraws in place. It draws only when stderr is a terminal and
// --quiet is not given; otherwise every method does nothing, so callers
// need not check. When the streams ask for plain progress (a CI job), it
// writes each new state as a line of its own instead, terminal or not.
// Safe for concurrent use.
type Progress struct {
	mu    sync.Mutex
	ios   *output.IOStreams
	shown bool
	plain bool
	last  string // the last plain line, not written twice in a row
	// stopped: data went to a pipe whose reader may print on this
	// terminal; a line drawn now would mix with its output and stay.
	stopped bool
}

// NewProgress answers a counter on ios's stderr.
func NewProgress(ios *output.IOStreams, quiet bool) *Progress {
	// Under a pager the terminal is the pager's: a counter would draw over it.
	if quiet || ios == nil || ios.IsPaging() {
		return &Progress{}
	}
	if ios.PlainProgress() {
		return &Progress{ios: ios, plain: true}
	}
	if !ios.IsStderrTTY() {
		return &Progress{}
	}
	return &Progress{ios: ios}
}

// Show redraws the line.
func (p *Progress) Show(format string, args ...any) {
	if p.ios == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	if p.plain {
		line := fmt.Sprintf(format, args...)
		if line != p.last {
			fmt.Fprintln(p.ios.ErrOut, line)
			p.last = line
		}
		return
	}
	fmt.Fprintf(p.ios.ErrOut, "\r\x1b[K"+format, args...)
	p.shown = true
}

// Clear takes the line away, before anything else is written to the
// terminal; the next Show draws it again.
func (p *Progress) Clear() {
	if p.ios == nil || p.plain {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.ios.ErrOut, "\r\x1b[K")
		p.shown = false
	}
}

// BeforeData takes the line away before data goes to stdout. When stdout
// is a pipe, whose reader may print the data on this same terminal, the
// line is not drawn again: drawn between two of its rows it would sit in
// the middle of the output and stay there. Data to a terminal or a file
// leaves the line free to come back.
func (p *Progress) BeforeData() {
	p.Clear()
	if p.ios == nil || p.plain || !p.ios.IsStdoutPipe() {
		return
	}
	p.mu.Lock()
	p.stopped = true
	p.mu.Unlock()
}
