package cmdutil

import (
	"fmt"
	"sync"
	"time"

	"github.com/bnpl-cli/bnpl/internal/output"
)

// PlainEvery is how often plain progress (a CI job's log) is written: the
// latest state at most and at least this often, so that a log shows the
// run alive through a slow page without a line per page.
const PlainEvery = 2 * time.Second

// Progress is a one-line counter on stderr ("page 3 of 50") that a long
// walk redraws in place. It draws only when stderr is a terminal and
// --quiet is not given; otherwise every method does nothing, so callers
// need not check. When the streams ask for plain progress (a CI job), it
// writes the state as a line of its own instead, terminal or not: the
// first at once, then the latest every PlainEvery until Done, so the log
// gains a line at least that often and never one per page. Callers show
// states that only count up. Safe for concurrent use.
type Progress struct {
	mu    sync.Mutex
	ios   *output.IOStreams
	shown bool
	plain bool
	// latest is the state plain progress writes next; ticks, when set,
	// times the plain lines (a ticker of PlainEvery unless a test set
	// one), and done ends them.
	latest  string
	ticks   <-chan time.Time
	ticker  *time.Ticker
	done    chan struct{}
	started bool
	// tickWritten, when set (tests), hears of each line a tick wrote.
	tickWritten chan<- struct{}
	// stopped: data went to a pipe whose reader may print on this
	// terminal; a line drawn now would mix with its output and stay.
	stopped bool
}

// NewProgress answers a counter on ios's stderr.
func NewProgress(ios *output.IOStreams, quiet bool) *Progress {
	// Under a pager the terminal is the pager's: a counter would draw
	// over it (Show stops too once a pager starts, at the first row).
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
	if p.ios.IsPaging() {
		// The first row started the pager: the terminal is its now.
		p.stopped = true
		return
	}
	line := fmt.Sprintf(format, args...)
	if p.plain {
		p.latest = line
		if !p.started {
			p.started = true
			fmt.Fprintln(p.ios.ErrOut, line)
			p.startTicks()
		}
		return
	}
	// Drawn in place, the line must not wrap: cut to the terminal.
	if w := p.ios.ErrWidth(); w > 1 {
		line = output.Truncate(line, w-1)
	}
	fmt.Fprint(p.ios.ErrOut, "\r\x1b[K"+line)
	p.shown = true
}

// startTicks writes the latest plain state every PlainEvery until Done.
func (p *Progress) startTicks() {
	p.done = make(chan struct{})
	if p.ticks == nil {
		p.ticker = time.NewTicker(PlainEvery)
		p.ticks = p.ticker.C
	}
	ticks, done := p.ticks, p.done
	go func() {
		for {
			select {
			case <-done:
				return
			case <-ticks:
				p.mu.Lock()
				if !p.stopped && p.done == done && !p.ios.IsPaging() {
					fmt.Fprintln(p.ios.ErrOut, p.latest)
				}
				heard := p.tickWritten
				p.mu.Unlock()
				if heard != nil {
					heard <- struct{}{}
				}
			}
		}
	}()
}

// Done ends the progress: the line is taken away, and plain lines stop.
func (p *Progress) Done() {
	p.Clear()
	if p.ios == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done != nil {
		close(p.done)
		p.done = nil
	}
	if p.ticker != nil {
		p.ticker.Stop()
	}
	p.stopped = true
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
