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

// The bar's frame fits the terminal less a column, however many rows and
// failures it counts; where a bar would be too narrow to read, the counts
// stand alone. A later, shorter frame covers the one before.
func TestBarFitsTheTerminal(t *testing.T) {
	for _, width := range []int{150, 80, 60, 40, 20} {
		var out strings.Builder
		b := newBar(&out, "refund", 100000, width)
		b.describe("refund (12345 failed)")
		b.start = b.start.Add(-90 * time.Second)
		for _, n := range []int64{1, 49999, 50000} {
			b.drawn = time.Time{}
			b.add(n)
			frame := b.frame(90 * time.Second)
			if w := len([]rune(frame)); w > width-1 && width >= 60 {
				t.Errorf("width %d: a frame of %d columns: %q", width, w, frame)
			}
			if !strings.Contains(frame, fmt.Sprintf("(%d/100000", b.done)) {
				t.Errorf("width %d: the frame %q does not count %d rows", width, frame, b.done)
			}
		}
		if width >= 80 && !strings.Contains(out.String(), "% |") {
			t.Errorf("width %d: no bar drawn: %q", width, out.String())
		}
		frames := strings.Split(out.String(), "\r")
		for i := 2; i < len(frames); i++ {
			if len([]rune(frames[i])) < len([]rune(frames[i-1])) {
				t.Errorf("width %d: frame %d (%q) leaves part of the one before (%q)", width, i, frames[i], frames[i-1])
			}
		}
		b.clear()
		if !strings.HasSuffix(out.String(), "\r") || b.shown != 0 {
			t.Errorf("width %d: clear left %q", width, out.String())
		}
	}
}
