package output

import (
	"slices"
	"strings"

	"github.com/clipperhouse/displaywidth"
)

// columnGap is the space between table columns, as in the GitHub CLI: no
// borders, so a table can still be read with cut or awk in a pinch.
const columnGap = 2

// minColumnWidth keeps a squeezed column wide enough to show that
// something was cut ("ab…").
const minColumnWidth = 3

// minReferenceWidth is how far a reference is cut before it is dropped.
const minReferenceWidth = 8

// dateWidth is a time shortened to its date, "2026-11-22".
const dateWidth = 10

// colPlan is how one column of a table is shown.
type colPlan struct {
	kind     Kind
	show     bool
	width    int
	dateOnly bool // a time shown as its date
	// pinned: the person named the column (--columns); it may be cut as
	// its kind allows but is never dropped.
	pinned bool
	// wrap: a cell wider than the column goes on over more lines, broken
	// between words, instead of being cut.
	wrap bool
	// whole: never shortened (a time keeps its time of day).
	whole bool
	// min is the narrowest a wrapped column is made: its header, and no
	// piece it cannot break (an id in a path stays on one line).
	min int
	// spill: a wrapped column of the view that could not keep even its
	// minimum in the line: its cells go on the lines under their row,
	// from the second column to the edge of the terminal.
	spill     bool
	spillable bool
	// word is the widest word of a wrapped column's cells (a URL).
	word   int
	capped bool // a view's wrapped text: at most maxWrapWidth wide
	// dated: a time the view marks Wrapped, whose cells are a time of
	// day, with the date before it where the day changes (sandbox logs):
	// it is narrowed to the date first, and widened only to be whole.
	dated bool
}

// wholeBit marks a kind shown whole: never dropped nor shortened.
const wholeBit Kind = 1 << 18

// Whole marks a column kind that is never dropped nor shortened, such as
// the time of a history or a timeline, which rows are read by.
func Whole(k Kind) Kind { return k | wholeBit | pinnedBit }

// wrapBit marks a kind whose cells wrap rather than being cut.
const wrapBit Kind = 1 << 17

// minWrapWidth is the narrowest a wrapped column is made while others can
// still give way; minWrapNarrow the narrowest once nothing else can;
// maxWrapWidth the widest a view's wrapped text is shown.
const (
	minWrapWidth  = 16
	minWrapNarrow = 8
	maxWrapWidth  = 60
)

// minBelowWidth is the narrowest a column that may go under its row is
// made in the line (see belowFloor); narrower, it goes under the row,
// where it has the terminal's width.
const minBelowWidth = 32

// Wrapped marks a column kind whose cells wrap onto more lines, between
// words, when the table is too wide: it is never dropped or cut (a
// history's content, a log's error). Other columns of the row keep their
// one line.
func Wrapped(k Kind) Kind { return k | wrapBit | pinnedBit }

// belowBit marks a wrapped kind whose cells may go under their row.
const belowBit Kind = 1 << 19

// Below marks a column kind whose cells wrap like Wrapped ones and, when
// even so the line has no room for them, go on the lines under their row
// (a timeline's event and detail beside its time, amount and id).
func Below(k Kind) Kind { return k | belowBit | pinnedBit }

// flagBits are the marks a Column's Kind may carry besides its kind.
const flagBits = pinnedBit | wrapBit | wholeBit | belowBit

// pinnedBit marks a kind whose column was asked for by name.
const pinnedBit Kind = 1 << 16

// Pinned marks a column kind as asked for by name (--columns): planTable
// never drops it. A table of pinned columns that cannot fit is shown as
// records (renderRecords).
func Pinned(k Kind) Kind { return k | pinnedBit }

// minTextWidth is the narrowest a free-text column comes back at once
// room has been made for it: fewer cells tell nothing.
const minTextWidth = 8

// planTable decides which columns a table shows and how wide, so that it
// fits in total cells when fit is set (a terminal). The one policy every
// table follows, in the order things give way:
//
//  1. times are shortened to the date, then dropped;
//  2. references (an order number, a move's reference_id) are cut to
//     minReferenceWidth, then dropped;
//  3. free text (descriptions, URLs, names) is cut, then dropped;
//  4. short plain words (a mode, a header title) are cut;
//  5. values of a fixed set (a reason code, KindEnum), then ids of other
//     records a row points to (a dispute's payment, KindLinkID), are
//     dropped whole, rightmost first;
//  6. only then are statuses cut, as a last resort.
//
// Ids (KindID, KindLinkID) and amounts are never cut: they are what people
// copy and compare, and a cut id is worse than none. A status is short and
// carries the row's meaning, and values such as evidence_merchant and
// evidence_customer differ only at the end: a dispute's payment id can be
// read with `disputes get` or asked for with --columns, a cut status cannot
// be read anywhere, so the linked id goes first. What gave way comes back,
// most important first, when a later step left room for it (a reason
// dropped at step 3 returns once step 5 dropped the payment id). A
// table that still does not fit is shown as records (renderRecords) rather
// than with a cut id. Not on a terminal (fit unset), nothing is cut or dropped.
//
// Columns of one kind give way from the right, where the least important sit.
func planTable(headers []string, rows [][]string, kinds []Kind, total int, fit bool) []colPlan {
	plan := make([]colPlan, len(headers))
	for i, h := range headers {
		c := colPlan{kind: kinds[i] &^ flagBits, pinned: kinds[i]&pinnedBit != 0, wrap: kinds[i]&(wrapBit|belowBit) != 0, whole: kinds[i]&wholeBit != 0, show: true, width: displaywidth.String(h)}
		// A view's wrapped text is never wider than maxWrapWidth, and a
		// Below column may go under its row. A column the person named
		// (--columns) wraps in its place, but ids and amounts, which are
		// never broken.
		c.spillable = kinds[i]&belowBit != 0
		c.dated = kinds[i]&wrapBit != 0 && c.kind == KindTime
		c.capped = c.wrap && c.kind != KindID
		if c.pinned && !c.whole && c.kind != KindID && c.kind != KindLinkID && c.kind != KindMoney {
			c.wrap = true
		}
		plan[i] = c
	}
	allDates := make([]bool, len(headers))
	for i := range allDates {
		allDates[i] = true
	}
	for _, row := range rows {
		for i, cell := range row {
			if i >= len(plan) {
				break
			}
			plan[i].width = max(plan[i].width, displaywidth.String(cell))
			if plan[i].kind == KindPlain && strings.ContainsRune(cell, ' ') {
				plan[i].kind = KindText
			}
			allDates[i] = allDates[i] && (cell == "" || startsWithDate(cell))
		}
	}
	if !fit {
		return plan
	}
	full := make([]int, len(plan))
	for i := range plan {
		c := &plan[i]
		if c.wrap {
			c.min = wrapMinimum(headers[i], rows, i, c.kind)
			c.word = widestWord(rows, i)
			if c.capped {
				// A view's wrapped text goes on over more lines rather than
				// making its column wider than a line is read at.
				c.width = max(min(c.width, maxWrapWidth), c.min)
			}
		}
		full[i] = c.width
	}
	pl := &planner{plan: plan, full: full, total: total}
	pl.shrink(headers, rows, allDates)
	if pl.fits() {
		// Room left by a later step goes back to what gave way before it,
		// most important first: linked ids, short words and statuses,
		// free text, references, times.
		// What went under its row comes back into the line before free
		// text does.
		for _, kinds := range [][]Kind{{KindLinkID}, {KindStatus, KindPlain, KindEnum}, nil, {KindText}, {KindReference}, {KindTime}} {
			if kinds == nil {
				pl.unspill()
			}
			for i := range plan {
				if slices.Contains(kinds, plan[i].kind) {
					pl.restore(i, full[i], headers[i])
				}
			}
		}
	}
	pl.settleBelow()
	return plan
}

// restore gives column i back what room there is: its full width, or for
// text and references at least a useful part of it; a time its date, or
// all of it.
func (pl *planner) restore(i, full int, header string) {
	c := &pl.plan[i]
	if c.spill || c.show && c.width >= full {
		return
	}
	if !c.show {
		c.show = true
		c.width = full
		// A time comes back whole where it has the room, else as its date.
		if c.dateOnly {
			c.dateOnly = false
			if !pl.fits() {
				c.dateOnly, c.width = true, max(displaywidth.String(header), dateWidth)
			}
		}
		if pl.fits() {
			return
		}
		room := c.width - (pl.need() - pl.total)
		switch {
		case c.kind == KindText && room >= min(minTextWidth, full),
			c.kind == KindReference && room >= min(minReferenceWidth, full):
			c.width = room
		default:
			c.show = false
			c.width = full
		}
		return
	}
	if c.dateOnly {
		c.dateOnly, c.width = false, full
		if !pl.fits() {
			c.dateOnly, c.width = true, max(displaywidth.String(header), dateWidth)
		}
		return
	}
	spare := pl.total - pl.need()
	switch {
	case c.dated:
		// A date over its time of day: on one line, or as narrow as it
		// was made (see narrowWrapped).
		if spare >= full-c.width {
			c.width = full
		}
	case spare > 0:
		c.width += min(spare, full-c.width)
	}
}

// startsWithDate reports whether s begins "YYYY-MM-DD ", as a time in the
// utc and local styles does.
func startsWithDate(s string) bool {
	if len(s) < dateWidth+1 || s[dateWidth] != ' ' {
		return false
	}
	for i := 0; i < dateWidth; i++ {
		c := s[i]
		if i == 4 || i == 7 {
			if c != '-' {
				return false
			}
		} else if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// capWidths finds the largest cap such that the chosen columns, each cut
// to at most the cap, fit in budget; leftover cells go to the first capped
// columns.
func capWidths(widths []int, cols []int, budget int) {
	fixed := make(map[int]bool, len(cols))
	remaining, open := budget, len(cols)
	for changed := true; changed && open > 0; {
		changed = false
		share := remaining / open
		for _, i := range cols {
			if !fixed[i] && widths[i] <= share {
				fixed[i] = true
				remaining -= widths[i]
				open--
				changed = true
			}
		}
	}
	if open == 0 {
		return
	}
	share, extra := remaining/open, remaining%open
	for _, i := range cols {
		if fixed[i] {
			continue
		}
		w := share
		if extra > 0 {
			w++
			extra--
		}
		widths[i] = max(w, minColumnWidth)
	}
}
