package bulk

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// defaultSummaryEvery is how often a run not on a terminal (a CI log, a
// pipe) writes its progress line: often enough that a log shows the run
// moving, and each line counts up from the one before.
const defaultSummaryEvery = 2 * time.Second

// progress shows how a run is going on stderr: a bar on a terminal, where
// it redraws in place, and otherwise a line every so often, because a CI
// log would keep every redraw.
type progress struct {
	w     io.Writer
	op    Op
	total int // rows to send in this run
	start time.Time

	done, failed atomic.Int64

	// barMu makes a row's count, the bar's description and its redraw
	// one step: rows finish on several workers at once, and a worker
	// that counted its failure first but redrew last would leave the
	// bar's final frame behind the summary.
	barMu sync.Mutex
	bar   *bar
	stop  chan struct{}
	wg    sync.WaitGroup
}

func startProgress(o Options, total int) *progress {
	p := &progress{w: o.Progress, op: o.Op, total: total, start: time.Now(), stop: make(chan struct{})}
	if p.w == nil || total == 0 {
		return p
	}
	if o.ProgressTTY {
		p.bar = newBar(p.w, string(o.Op), total, o.ProgressWidth)
		return p
	}
	every := o.SummaryEvery
	if every <= 0 {
		every = defaultSummaryEvery
	}
	tick, stopTicker := o.ticker(every)
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer stopTicker()
		for {
			select {
			case <-p.stop:
				return
			case <-tick:
				fmt.Fprintln(p.w, p.line())
			}
		}
	}()
	return p
}

func realTicker(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTicker(d)
	return t.C, t.Stop
}

func (p *progress) rowDone(failed bool) {
	if p.bar == nil {
		p.done.Add(1)
		if failed {
			p.failed.Add(1)
		}
		return
	}
	p.barMu.Lock()
	defer p.barMu.Unlock()
	p.done.Add(1)
	if failed {
		p.bar.describe(fmt.Sprintf("%s (%d failed)", p.op, p.failed.Add(1)))
	}
	p.bar.add(1)
}

// around runs write, which writes a line on stderr, with the bar cleared
// from its line; the next row's count draws it again.
func (p *progress) around(write func()) {
	if p.bar == nil {
		write()
		return
	}
	p.barMu.Lock()
	defer p.barMu.Unlock()
	p.bar.clear()
	write()
}

// line is the periodic summary: "capture: 120/1000 rows, 3 failed,
// 12.5 rows/s, ETA 1m10s".
func (p *progress) line() string {
	done, failed := p.done.Load(), p.failed.Load()
	return progressLine(p.op, done, failed, int64(p.total), time.Since(p.start))
}

func progressLine(op Op, done, failed, total int64, elapsed time.Duration) string {
	s := fmt.Sprintf("%s: %d/%d rows, %d failed", op, done, total, failed)
	if done == 0 || elapsed <= 0 {
		return s
	}
	perSecond := float64(done) / elapsed.Seconds()
	eta := time.Duration(float64(total-done) / perSecond * float64(time.Second)).Round(time.Second)
	return s + fmt.Sprintf(", %.1f rows/s, ETA %s", perSecond, eta)
}

// finish stops the display and prints the final summary line; the error
// is the line's that could not be written (its reader gone): the run's
// money was then shown nowhere.
func (p *progress) finish(s Summary) error {
	close(p.stop)
	p.wg.Wait()
	if p.w == nil {
		return nil
	}
	if p.bar != nil {
		p.barMu.Lock()
		p.bar.clear()
		p.barMu.Unlock()
	}
	if _, err := fmt.Fprintf(p.w, "%s: %s\n", p.op, s); err != nil {
		return fmt.Errorf("writing the summary: %w", err)
	}
	return nil
}
