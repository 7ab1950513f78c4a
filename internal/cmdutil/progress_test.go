package cmdutil

import (
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/output"
)

// Once data went to a pipe, whose reader may print on the same terminal,
// the progress line is taken away for good; to a file or a terminal it
// comes back after the data.
func TestProgressStopsAtDataToAPipe(t *testing.T) {
	for _, pipe := range []bool{true, false} {
		ios, _, _, errOut := output.Test()
		ios.SetStderrTTY(true)
		ios.SetStdoutPipe(pipe)
		p := NewProgress(ios, false)
		p.Show("page %d of %d", 1, 3)
		p.BeforeData()
		if got := errOut.String(); got != "\r\x1b[Kpage 1 of 3\r\x1b[K" {
			t.Fatalf("pipe %v: the line was not taken away: %q", pipe, got)
		}
		errOut.Reset()
		p.Show("page %d of %d", 2, 3)
		p.Clear()
		switch got := errOut.String(); {
		case pipe && got != "":
			t.Errorf("drawn again after data went to a pipe: %q", got)
		case !pipe && got != "\r\x1b[Kpage 2 of 3\r\x1b[K":
			t.Errorf("not drawn again with stdout a file: %q", got)
		}
	}
}

// Plain progress (a CI job) writes its first state at once, then the
// latest state at every tick, whether or not it changed, and nothing after
// Done: a log sees the run alive at least every PlainEvery, and one line
// per tick however many pages came between.
func TestPlainProgressTicks(t *testing.T) {
	ios, _, _, errOut := output.Test()
	ios.SetPlainProgress(true)
	p := NewProgress(ios, false)
	ticks := make(chan time.Time)
	written := make(chan struct{})
	p.ticks, p.tickWritten = ticks, written
	tick := func() {
		ticks <- time.Time{}
		<-written
	}
	p.Show("searching: %d pages read", 1)
	p.Show("searching: %d pages read", 2)
	p.Show("searching: %d pages read", 3)
	tick()
	tick() // nothing new: the same state again, alive
	p.Show("searching: %d pages read", 4)
	tick()
	p.Done()
	select {
	case ticks <- time.Time{}:
		t.Error("a tick was taken after Done")
	default:
	}
	want := "searching: 1 pages read\nsearching: 3 pages read\nsearching: 3 pages read\nsearching: 4 pages read\n"
	if got := errOut.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// Drawn in place, a line is cut to the terminal: one that wrapped could
// not be drawn over.
func TestProgressLineFitsTheTerminal(t *testing.T) {
	ios, _, _, errOut := output.Test()
	ios.SetStderrTTY(true)
	ios.SetTerminalWidth(20)
	p := NewProgress(ios, false)
	p.Show("searching every status for order %s: %d pages read", "ORDER-2026-004711", 12)
	if got := errOut.String(); got != "\r\x1b[Ksearching every st…" {
		t.Errorf("got %q", got)
	}
}
