package output

import (
	"bytes"
	"fmt"
	"io"
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
	capped    bool // a view's wrapped text: at most maxWrapWidth wide
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

// wrapMinimum is the narrowest wrapped column i may be: its header, and
// its longest word (at least minWrapNarrow cells, at most maxWordWidth;
// never more than its widest cell). The cells of an
// id-like column (a request path) break only after a "/", so its minimum
// is its widest piece: an id inside it stays whole on one line.
func wrapMinimum(header string, rows [][]string, i int, k Kind) int {
	widest, piece := 0, 0
	for _, row := range rows {
		if i >= len(row) {
			continue
		}
		widest = max(widest, displaywidth.String(row[i]))
		for _, p := range wrapPieces(row[i], k) {
			piece = max(piece, displaywidth.String(strings.TrimSpace(p)))
		}
	}
	// A word is not split while it is no wider than maxWordWidth.
	m := min(widest, max(minWrapNarrow, min(piece, maxWordWidth)))
	if k == KindID {
		m = max(m, piece)
	}
	return max(m, displaywidth.String(header))
}

// maxWordWidth is the widest word a wrapped column keeps on one line
// whatever the room; a wider one may be split.
const maxWordWidth = 20

// wrapPieces splits s where a wrapped line may break: after each space,
// after each "/" (a path or URL) but in a time, and after each "-" but in
// a time or an id (a reference "ORDER-2026-004711").
func wrapPieces(s string, k Kind) []string {
	breaks := " /-"
	switch k {
	case KindTime:
		breaks = " "
	case KindID, KindLinkID:
		breaks = " /"
	}
	var pieces []string
	start := 0
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(breaks, s[i]) >= 0 {
			pieces = append(pieces, s[start:i+1])
			start = i + 1
		}
	}
	if start < len(s) {
		pieces = append(pieces, s[start:])
	}
	return pieces
}

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
// never drops it. A table of pinned columns that cannot fit is wider than
// the terminal, and Overflow names what did not fit.
func Pinned(k Kind) Kind { return k | pinnedBit }

// Overflow says which shown columns run past total cells, for a notice on
// stderr ("" when the table fits): a table keeps the columns asked for,
// and ids and amounts whole, rather than fit.
func Overflow(headers []string, plan []colPlan, total int) string {
	used, first := 0, true
	var past []string
	for i, c := range plan {
		if !c.show {
			continue
		}
		if !first {
			used += columnGap
		}
		first = false
		used += c.width
		if used > total && i < len(headers) {
			past = append(past, headers[i])
		}
	}
	if len(past) == 0 {
		return ""
	}
	return fmt.Sprintf("the table is %d columns wide, wider than the terminal's %d: %s did not fit (ids, amounts and the columns --columns names are never cut short or left out; -o tsv or a wider terminal shows them on one line)",
		used, total, strings.Join(past, ", "))
}

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
//  5. ids of other records a row points to (a dispute's payment, KindLinkID)
//     are dropped whole, rightmost first;
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
// table that still does not fit is wider than the terminal rather than
// showing a cut id. Not on a terminal (fit unset), nothing is cut or dropped.
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
		for _, kinds := range [][]Kind{{KindLinkID}, {KindStatus, KindPlain}, nil, {KindText}, {KindReference}, {KindTime}} {
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
		if c.dateOnly {
			c.width = max(displaywidth.String(header), dateWidth)
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
	if spare := pl.total - pl.need(); spare > 0 {
		c.width += min(spare, full-c.width)
	}
}

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
		// text that is cut has given way.
		if slices.Contains(kinds, c.kind) && !c.wrap {
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
		// the table is wider instead, and Overflow says so.
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
// others to their minimum.
func (pl *planner) narrowWrapped(all bool) {
	for i := len(pl.plan) - 1; i >= 0; i-- {
		c := &pl.plan[i]
		if !c.show || !c.wrap || pl.fits() {
			continue
		}
		floor := max(c.min, min(pl.full[i], minWrapWidth))
		if all && !c.spillable {
			floor = c.min
		}
		c.width = max(floor, c.width-(pl.need()-pl.total))
	}
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
		c.width = max(c.min, min(pl.full[i], minWrapWidth))
		if !pl.fits() {
			c.show, c.spill = false, true
		}
	}
}

// settleBelow gives wrapped columns what room is left, and sets the width
// of what stays under the rows: from the second column to the edge.
func (pl *planner) settleBelow() {
	plan := pl.plan
	for i := range plan {
		if c := &plan[i]; c.show && c.wrap && pl.fits() {
			c.width += min(pl.total-pl.need(), pl.full[i]-c.width)
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
	// 5. Ids of linked records, whole.
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

// truncate cuts s to width display cells, ending in "…" when cut.
func truncate(s string, width int) string {
	if displaywidth.String(s) <= width {
		return s
	}
	if width <= 0 {
		return ""
	}
	if width == 1 {
		return "…"
	}
	return displaywidth.TruncateString(s, width, "…")
}

// sanitize makes a value safe for a one-line cell: tabs and newlines would
// break TSV rows and table lines, and other control characters from the
// service must not reach a terminal as escape sequences.
func sanitize(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		// 0xc2 leads the UTF-8 of the C1 controls (U+0080–U+009F), CSI
		// among them; the slow path looks at those runes properly.
		if c := s[i]; c < 0x20 || c == 0x7f || c == 0xc2 {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return ' '
		}
		return r
	}, s)
}

// renderTable writes one borderless table. headers may be nil for a batch
// after the first. Cells wider than their planned width are cut with "…",
// except ids, amounts and wrapped cells, and nothing is cut when fit is
// unset. A column that spilled goes on the lines under its row.
func renderTable(w io.Writer, cs *ColorScheme, headers []string, rows [][]string, plan []colPlan, styles []func(string) string, fit bool) error {
	var buf bytes.Buffer
	// Every cell is padded to its column's width here: when a later batch
	// has only short values, its columns stay as wide as the header
	// printed above them.
	pad := func(cells []string, header bool) []string {
		out := make([]string, 0, len(plan))
		for i, c := range plan {
			if !c.show {
				continue
			}
			var cell string
			if i < len(cells) {
				cell = cells[i]
			}
			if !header && c.dateOnly && startsWithDate(cell) {
				cell = cell[:dateWidth]
			}
			if fit && c.kind != KindID && c.kind != KindLinkID && c.kind != KindMoney && !c.wrap {
				cell = truncate(cell, c.width)
			}
			fill := strings.Repeat(" ", max(c.width-displaywidth.String(cell), 0))
			switch {
			case header:
				cell = cs.Bold(cell)
			case i < len(styles) && styles[i] != nil:
				cell = styles[i](cell)
			}
			if !header && c.kind == KindMoney {
				out = append(out, fill+cell)
			} else {
				out = append(out, cell+fill)
			}
		}
		return out
	}
	// The grid (header and rows, each cell already padded) is laid out by
	// layGrid; the lines that go under a row, which span columns, are
	// put back between the grid's lines after it: rows stays the grid's
	// rows in order, and under[i] the text lines that follow grid line i.
	var grid [][]string
	under := map[int][]string{}
	spill := newSpill(plan)
	after := func(lines []string) {
		for _, l := range lines {
			under[len(grid)-1] = append(under[len(grid)-1], strings.Repeat(" ", spill.indent)+l)
		}
	}
	if headers != nil {
		grid = append(grid, pad(headers, true))
		if spill.on() {
			after([]string{cs.Bold(spill.text(headers))})
		}
	}
	for _, row := range rows {
		lines := wrapRow(row, plan, fit)
		below := spill.wrap(row)
		if len(below) > 0 && len(lines) == 1 && spill.emptyAfterFirst(row) {
			// Nothing but the first column in the line: what went under
			// the row starts on it.
			first := pad(lines[0], false)[0]
			grid = append(grid, []string{first + strings.Repeat(" ", max(spill.indent-displaywidth.String(first), 0)) + below[0]})
			below = below[1:]
			lines = nil
		}
		for _, l := range lines {
			grid = append(grid, pad(l, false))
		}
		after(below)
	}
	if err := layGrid(&buf, grid, under); err != nil {
		return err
	}
	_, err := w.Write(trimTrailingSpaces(buf.Bytes()))
	return err
}

// spilled is how a table shows the columns that went under their rows:
// their cells joined by spillJoin, from indent cells to the edge.
type spilled struct {
	plan   []colPlan
	cols   []int
	indent int
	width  int
}

func newSpill(plan []colPlan) spilled {
	s := spilled{plan: plan}
	s.indent = spillIndent(plan)
	for i, c := range plan {
		if c.spill {
			s.cols = append(s.cols, i)
		}
	}
	for _, i := range s.cols {
		s.width = max(s.width, plan[i].width)
	}
	return s
}

func (s spilled) on() bool { return len(s.cols) > 0 }

// text is what the row's spilled columns hold.
func (s spilled) text(row []string) string {
	var parts []string
	for _, i := range s.cols {
		if i < len(row) && strings.TrimSpace(row[i]) != "" {
			parts = append(parts, row[i])
		}
	}
	return strings.Join(parts, spillJoin)
}

// spillJoin parts the cells of a row's spilled columns: "closed: captured
// in full" under the row of a timeline.
const spillJoin = ": "

// wrap is what goes under row: its spilled cells over as many lines as
// they need.
func (s spilled) wrap(row []string) []string {
	text := s.text(row)
	if text == "" {
		return nil
	}
	width := s.width
	for _, i := range s.cols {
		if s.plan[i].kind == KindID && i < len(row) && !strings.Contains(row[i], " ") {
			// An id under its row breaks only where it would in its
			// column (a URL after a "/"): each piece stays on one line,
			// even past the edge.
			for _, p := range wrapPieces(row[i], KindID) {
				width = max(width, displaywidth.String(p))
			}
		}
	}
	return wrapCell(text, width)
}

// emptyAfterFirst reports whether the row shows nothing in the line but
// in its first column.
func (s spilled) emptyAfterFirst(row []string) bool {
	first := true
	for i, c := range s.plan {
		if !c.show {
			continue
		}
		if first {
			first = false
			continue
		}
		if i < len(row) && row[i] != "" {
			return false
		}
	}
	return true
}

// layGrid writes the grid's lines in aligned columns (alignColumns), each
// followed by the lines under[i] that span its columns. A grid line of one
// cell (a row whose other columns all went under it) is written as it is,
// since it does not follow the columns.
func layGrid(buf *bytes.Buffer, grid [][]string, under map[int][]string) error {
	var multi [][]string // the grid lines laid in columns, in order
	for _, cells := range grid {
		if len(cells) > 1 {
			multi = append(multi, cells)
		}
	}
	laidLines := alignColumns(multi)
	next := 0
	for i, cells := range grid {
		if len(cells) > 1 {
			buf.WriteString(laidLines[next])
			next++
		} else {
			buf.WriteString(strings.Join(cells, ""))
		}
		buf.WriteString("\n")
		for _, l := range under[i] {
			buf.WriteString(l + "\n")
		}
	}
	return nil
}

// wrapRow splits a row whose wrapped cells are wider than their columns
// into lines: the first holds every cell, the next ones only what the
// wrapped cells go on with.
func wrapRow(row []string, plan []colPlan, fit bool) [][]string {
	if !fit {
		return [][]string{row}
	}
	parts := map[int][]string{}
	lines := 1
	for i, c := range plan {
		if c.wrap && c.show && i < len(row) && displaywidth.String(row[i]) > c.width {
			parts[i] = wrapCell(row[i], c.width)
			lines = max(lines, len(parts[i]))
		}
	}
	if lines == 1 {
		return [][]string{row}
	}
	out := make([][]string, lines)
	for l := range out {
		if l == 0 {
			out[l] = append([]string(nil), row...)
		} else {
			out[l] = make([]string, len(row))
		}
		for i, p := range parts {
			out[l][i] = ""
			if l < len(p) {
				out[l][i] = p[l]
			}
		}
	}
	return out
}

// wrapCell breaks s into lines of at most width cells, between words; a
// word wider than a line is split, after a "/" where it has one.
func wrapCell(s string, width int) []string {
	var lines []string
	cur, curW := "", 0
	for _, word := range strings.Fields(s) {
		for displaywidth.String(word) > width {
			if cur != "" {
				lines = append(lines, cur)
				cur, curW = "", 0
			}
			head := displaywidth.TruncateString(word, width, "")
			// A path or URL breaks after a "/", so that what lies between
			// two (an id) stays on one line; else a reference after a "-".
			if cut := strings.LastIndexByte(head, '/'); cut > 0 {
				head = head[:cut+1]
			} else if cut := strings.LastIndexByte(head, '-'); cut > 0 {
				head = head[:cut+1]
			}
			lines = append(lines, head)
			word = word[len(head):]
		}
		w := displaywidth.String(word)
		switch {
		case word == "":
		case cur == "":
			cur, curW = word, w
		case curW+1+w <= width:
			cur, curW = cur+" "+word, curW+1+w
		default:
			lines = append(lines, cur)
			cur, curW = word, w
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// trimTrailingSpaces drops the padding after each line's last cell, which
// only shows up as noise in diffs and copied text, and on a terminal as a
// line one cell too wide that wraps into a blank line. The padding may sit
// among colour resets; one reset is kept at the end of a coloured line.
func trimTrailingSpaces(b []byte) []byte {
	reset := []byte("\x1b[0m")
	lines := bytes.SplitAfter(b, []byte("\n"))
	out := make([]byte, 0, len(b))
	for _, line := range lines {
		nl := bytes.HasSuffix(line, []byte("\n"))
		line = bytes.TrimRight(line, "\n")
		hadReset := false
		for {
			trimmed := bytes.TrimRight(line, " ")
			if bytes.HasSuffix(trimmed, reset) {
				trimmed = trimmed[:len(trimmed)-len(reset)]
				hadReset = true
			}
			if len(trimmed) == len(line) {
				break
			}
			line = trimmed
		}
		out = append(out, line...)
		if hadReset && bytes.Contains(line, []byte("\x1b[")) {
			out = append(out, reset...)
		}
		if nl {
			out = append(out, '\n')
		}
	}
	return out
}
