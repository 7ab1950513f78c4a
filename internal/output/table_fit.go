package output

import (
	"slices"

	"github.com/clipperhouse/displaywidth"
)

// planner holds a plan being fitted.
type planner struct {
	plan  []colPlan
	full  []int // each column's width uncut
	total int
}

func (pl *planner) shown() int {
	n := 0
	for _, c := range pl.plan {
		if c.show {
			n++
		}
	}
	return n
}

func (pl *planner) need() int {
	sum := 0
	for _, c := range pl.plan {
		if c.show {
			sum += c.width
		}
	}
	return sum + columnGap*max(pl.shown()-1, 0)
}

func (pl *planner) fits() bool { return pl.need() <= pl.total }

// of lists the shown columns of kind k, rightmost first.
func (pl *planner) of(k Kind) []int {
	var idx []int
	for i := len(pl.plan) - 1; i >= 0; i-- {
		if pl.plan[i].show && pl.plan[i].kind == k {
			idx = append(idx, i)
		}
	}
	return idx
}

// drop hides columns of kind k, rightmost first, until the table fits;
// one column always stays, and a pinned one is never hidden.
func (pl *planner) drop(k Kind) {
	for _, i := range pl.of(k) {
		if pl.fits() || pl.shown() == 1 {
			return
		}
		if !pl.plan[i].pinned {
			pl.plan[i].show = false
		}
	}
}

// squeeze cuts the shown columns of the given kinds to share what the
// others leave.
func (pl *planner) squeeze(kinds ...Kind) {
	var idx []int
	rigid := 0
	for i, c := range pl.plan {
		if !c.show {
			continue
		}
		// Wrapped columns narrow on their own (narrowWrapped), after the
		// text that is cut has given way; whole ones never do.
		if slices.Contains(kinds, c.kind) && !c.wrap && !c.whole {
			idx = append(idx, i)
		} else {
			rigid += c.width
		}
	}
	if len(idx) == 0 {
		return
	}
	widths := make([]int, len(pl.plan))
	for i, c := range pl.plan {
		widths[i] = c.width
	}
	capWidths(widths, idx, pl.total-columnGap*(pl.shown()-1)-rigid)
	for _, i := range idx {
		pl.plan[i].width = widths[i]
		// A column asked for by name is not cut to where it says nothing:
		// the table is shown as records instead.
		switch {
		case pl.plan[i].pinned:
			pl.plan[i].width = max(widths[i], min(pl.full[i], minTextWidth))
		}
	}
}

// shrink applies the steps of planTable's policy until the table fits,
// then lays out what went under the rows.
func (pl *planner) shrink(headers []string, rows [][]string, allDates []bool) {
	pl.steps(headers, rows, allDates)
}

// narrowWrapped narrows the shown wrapped columns, rightmost first, as far
// as the table needs and no further than minWrapWidth (or their minimum);
// with all set, a column that may go under its row no further either, the
// others to their minimum. A wrapped time (a date over its time of day,
// on the rows where the day changes) narrows first, to its date: it costs
// a line on those rows alone.
func (pl *planner) narrowWrapped(all bool) {
	for i := range pl.plan {
		if c := &pl.plan[i]; c.show && c.dated && !pl.fits() {
			c.width = max(c.min, c.width-(pl.need()-pl.total))
		}
	}
	for i := len(pl.plan) - 1; i >= 0; i-- {
		c := &pl.plan[i]
		if !c.show || !c.wrap || c.dated || pl.fits() {
			continue
		}
		floor := max(c.min, min(pl.full[i], minWrapWidth))
		if !all {
			floor = max(floor, c.belowFloor(pl.full[i]))
		}
		if all && !c.spillable {
			floor = c.min
		}
		c.width = max(floor, c.width-(pl.need()-pl.total))
	}
}

// belowFloor is the narrowest a column that may go under its row is
// made in the line, full being its width uncut. Text: minBelowWidth, or
// its widest word when wider (an id in a detail, up to maxWrapWidth), or
// all of it when narrower; narrower than that, it would run down the
// right edge a few words a line, or part an id inside it. Narrower than
// its floor, a column goes under the row instead, where it has the
// terminal's width. 0 for any other column.
func (c *colPlan) belowFloor(full int) int {
	switch {
	case !c.spillable:
		return 0
	case c.kind == KindID:
		// A URL or an id breaks after a "/" only: it keeps the line with
		// minBelowWidth, or less when no word of it is wider than
		// minWrapWidth.
		if c.word <= minWrapWidth {
			return 0
		}
		return min(c.word, minBelowWidth)
	}
	return min(full, max(minBelowWidth, min(c.word, maxWrapWidth)))
}

// spillBelow sends the columns that may go under their row there,
// rightmost first, until the table fits.
func (pl *planner) spillBelow() {
	for i := len(pl.plan) - 1; i >= 0 && !pl.fits(); i-- {
		if c := &pl.plan[i]; c.show && c.spillable && pl.shown() > 1 {
			c.show, c.spill = false, true
		}
	}
}

// unspill brings a column that went under its row back into the line
// when the later steps left room for it.
func (pl *planner) unspill() {
	plan := pl.plan
	for i := range plan {
		c := &plan[i]
		if !c.spill {
			continue
		}
		c.show, c.spill = true, false
		c.width = max(c.min, min(pl.full[i], minWrapWidth), c.belowFloor(pl.full[i]))
		if !pl.fits() {
			c.show, c.spill = false, true
		}
	}
}

// settleBelow gives wrapped columns what room is left, a wrapped time
// (a date over its time of day) last and only all it needs to be on one
// line, and sets the width of what stays under the rows: from the second
// column to the edge.
func (pl *planner) settleBelow() {
	plan := pl.plan
	for i := range plan {
		if c := &plan[i]; c.show && c.wrap && !c.dated && pl.fits() {
			c.width += min(pl.total-pl.need(), pl.full[i]-c.width)
		}
	}
	for i := range plan {
		if c := &plan[i]; c.show && c.dated && pl.total-pl.need() >= pl.full[i]-c.width {
			c.width = pl.full[i]
		}
	}
	for i := range plan {
		if plan[i].spill {
			plan[i].width = max(pl.total-spillIndent(plan), minWrapWidth)
		}
	}
}

// steps are planTable's policy, step by step, each tried only while the
// table does not fit.
func (pl *planner) steps(headers []string, rows [][]string, allDates []bool) {
	plan := pl.plan
	if pl.fits() {
		return
	}
	// 1. Times: the date alone, then nothing.
	for _, i := range pl.of(KindTime) {
		// A history's or a timeline's time keeps its time of day.
		if allDates[i] && len(rows) > 0 && !plan[i].whole && !plan[i].wrap {
			plan[i].dateOnly = true
			plan[i].width = max(displaywidth.String(headers[i]), dateWidth)
		}
	}
	if pl.drop(KindTime); pl.fits() {
		return
	}
	// 2. References: cut, then dropped.
	for _, i := range pl.of(KindReference) {
		if pl.fits() {
			return
		}
		floor := minReferenceWidth
		if plan[i].wrap {
			floor = max(floor, plan[i].min)
		}
		plan[i].width -= min(pl.need()-pl.total, max(plan[i].width-floor, 0))
	}
	if pl.drop(KindReference); pl.fits() {
		return
	}
	// 3. Free text: cut to share the room, then dropped, since text cut
	// to a few cells tells nothing.
	pl.squeeze(KindText)
	// Text cut below a few cells tells nothing: such a column goes.
	for _, i := range pl.of(KindText) {
		if c := &plan[i]; c.width < min(minTextWidth, pl.full[i]) && pl.shown() > 1 && !c.pinned {
			c.show = false
		}
	}
	if pl.fits() {
		return
	}
	if pl.drop(KindText); pl.fits() {
		return
	}
	// Wrapped text narrows to a readable width, and what may go under
	// its row goes there, before any word or status is cut.
	if pl.narrowWrapped(false); pl.fits() {
		return
	}
	if pl.spillBelow(); pl.fits() {
		return
	}
	// 4. Short words.
	if pl.squeeze(KindPlain); pl.fits() {
		return
	}
	// 5. Values of a fixed set, then ids of linked records, whole.
	if pl.drop(KindEnum); pl.fits() {
		return
	}
	if pl.drop(KindLinkID); pl.fits() {
		return
	}
	// 6. Statuses, with the words, as a last resort.
	pl.squeeze(KindPlain, KindStatus)
	// 7. Wrapped cells, narrower still: more lines, the same words.
	pl.narrowWrapped(true)
	// 8. What may go under its row and still has no room goes there.
	pl.spillBelow()
}

// spillIndent is where the lines under a row start: under its second
// column.
func spillIndent(plan []colPlan) int {
	for _, c := range plan {
		if c.show {
			return c.width + columnGap
		}
	}
	return 0
}
