package bulk

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// lastFrame is the bar as last drawn before the summary: the frames are
// separated by carriage returns, and blank ones erase the line.
func lastFrame(out string) string {
	last := ""
	for _, f := range strings.Split(out, "\r") {
		if strings.Contains(f, "% |") {
			last = strings.TrimSpace(f)
		}
	}
	return last
}

// TestProgressBarLastFrameCountsEveryRow finishes rows on many workers at
// once, as a run does: whichever worker draws last, the bar's final frame
// counts every row and every failure.
func TestProgressBarLastFrameCountsEveryRow(t *testing.T) {
	for _, rows := range []int{2, 7, 64} {
		for round := range 20 {
			out := &syncBuffer{}
			p := startProgress(Options{Op: OpRefund, Progress: out, ProgressTTY: true}, rows)
			start := make(chan struct{})
			var wg sync.WaitGroup
			for i := range rows {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					p.rowDone(i%3 != 0)
				}()
			}
			close(start)
			wg.Wait()
			failed := 0
			for i := range rows {
				if i%3 != 0 {
					failed++
				}
			}
			p.finish(Summary{Total: rows, OK: rows - failed, Failed: failed})
			want := fmt.Sprintf("refund (%d failed) 100%% |", failed)
			if f := lastFrame(out.String()); !strings.HasPrefix(f, want) || !strings.Contains(f, fmt.Sprintf("(%d/%d,", rows, rows)) {
				t.Fatalf("%d rows, round %d: last frame %q, want it to start %q and count %d/%d", rows, round, f, want, rows, rows)
			}
		}
	}
}

// Off a terminal (a CI log, a pipe) a run writes its progress line every
// 2 s unless told otherwise, so that a short run shows it too.
func TestPlainProgressEveryTwoSecondsByDefault(t *testing.T) {
	var every time.Duration
	o := Options{Op: OpCapture, Progress: io.Discard, ticker: func(d time.Duration) (<-chan time.Time, func()) {
		every = d
		return nil, func() {}
	}}
	p := startProgress(o, 10)
	p.finish(Summary{})
	if every != 2*time.Second {
		t.Fatalf("progress every %s, want 2s", every)
	}
}
