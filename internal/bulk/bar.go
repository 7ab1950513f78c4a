package bulk

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// barEvery is how often the bar redraws at most: a run of thousands of
// rows a second would otherwise spend its terminal's time on frames.
const barEvery = 100 * time.Millisecond

// barCells is the bar's widest; a narrow terminal gets fewer cells.
const barCells = 30

// bar is a run's progress drawn in place on one line of a terminal:
//
//	capture (2 failed)  45% |█████████████                 | (45/100, 12.3 rows/s) [4s:5s]
//
// It redraws at most every barEvery, and always for the last row, so its
// final frame counts every row. Each frame starts with a carriage return
// and is padded to the width of the one before, which it covers. Its
// caller serialises the calls.
type bar struct {
	w     io.Writer
	desc  string
	total int64
	width int // the terminal's columns
	start time.Time

	done  int64
	drawn time.Time // when last drawn
	shown int       // the width of the frame on the line; 0: none
}

func newBar(w io.Writer, desc string, total, width int) *bar {
	if width <= 0 {
		width = 80
	}
	return &bar{w: w, desc: desc, total: int64(total), width: width, start: time.Now()}
}

// describe sets the words before the percentage, drawn with the next frame.
func (b *bar) describe(desc string) { b.desc = desc }

// add counts n more rows done and redraws when it is time to.
func (b *bar) add(n int64) {
	b.done += n
	now := time.Now()
	if b.done < b.total && now.Sub(b.drawn) < barEvery {
		return
	}
	b.drawn = now
	frame := b.frame(now.Sub(b.start))
	pad := max(b.shown-len([]rune(frame)), 0)
	fmt.Fprintf(b.w, "\r%s%s", frame, strings.Repeat(" ", pad))
	b.shown = len([]rune(frame))
}

// clear blanks the line the bar is on, leaving the cursor at its start.
func (b *bar) clear() {
	if b.shown == 0 {
		return
	}
	fmt.Fprintf(b.w, "\r%s\r", strings.Repeat(" ", b.shown))
	b.shown = 0
}

// frame is the bar's line after elapsed, no wider than the terminal less
// one column (a line that reaches the last column wraps on some). A
// narrow terminal loses the times first, then the rate, then the bar.
func (b *bar) frame(elapsed time.Duration) string {
	done, total := b.done, max(b.total, 1)
	head := fmt.Sprintf("%s %3d%% ", b.desc, done*100/total)
	counts := fmt.Sprintf("(%d/%d)", done, total)
	tails := []string{counts}
	if done > 0 && elapsed > 0 {
		perSecond := float64(done) / elapsed.Seconds()
		eta := time.Duration(float64(total-done) / perSecond * float64(time.Second)).Round(time.Second)
		rated := fmt.Sprintf("(%d/%d, %.1f rows/s)", done, total, perSecond)
		tails = []string{fmt.Sprintf("%s [%s:%s]", rated, elapsed.Round(time.Second), eta), rated, counts}
	}
	room := b.width - 1
	for _, tail := range tails {
		if cells := min(barCells, room-len(head)-len(tail)-3); cells >= 5 {
			filled := int(int64(cells) * done / total)
			return head + "|" + strings.Repeat("█", filled) + strings.Repeat(" ", cells-filled) + "| " + tail
		}
	}
	// No room for a bar worth reading: the counts alone.
	for _, tail := range tails {
		if line := head + tail; len(line) <= room {
			return line
		}
	}
	return head + counts
}
