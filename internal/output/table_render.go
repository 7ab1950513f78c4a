package output

import (
	"bytes"
	"io"
	"strings"

	"github.com/clipperhouse/displaywidth"
)

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

// padCells pads every shown cell of a row to its column's width: when a
// later batch has only short values, its columns stay as wide as the
// header printed above them. A cell is cut as its column's plan says, and
// coloured (a header bold); an amount is aligned right.
func padCells(cs *ColorScheme, plan []colPlan, styles []func(string) string, fit bool, cells []string, header bool) []string {
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
		if fit && c.kind != KindID && c.kind != KindLinkID && c.kind != KindMoney && c.kind != KindEnum && !c.wrap {
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

// renderTable writes one borderless table. headers may be nil for a batch
// after the first. Cells wider than their planned width are cut with "…",
// except ids, amounts and wrapped cells, and nothing is cut when fit is
// unset. A column that spilled goes on the lines under its row.
func renderTable(w io.Writer, cs *ColorScheme, headers []string, rows [][]string, plan []colPlan, styles []func(string) string, fit bool) error {
	var buf bytes.Buffer
	pad := func(cells []string, header bool) []string { return padCells(cs, plan, styles, fit, cells, header) }
	// The grid (header and rows, each cell already padded) is laid out by
	// layGrid; the lines that go under a row, which span columns, are
	// put back between the grid's lines after it: rows stays the grid's
	// rows in order, and under[i] the text lines that follow grid line i.
	var grid [][]string
	under := map[int][]string{}
	spill := newSpill(plan)
	after := func(lines []string) {
		for _, l := range lines {
			// An id wider than the room under the row starts further
			// left, so that it stays whole and within the terminal.
			indent := spill.indent
			if fit {
				indent = max(0, indent-max(displaywidth.String(l)-spill.width, 0))
			}
			under[len(grid)-1] = append(under[len(grid)-1], strings.Repeat(" ", indent)+l)
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
		if len(below) > 0 && len(lines) == 1 && spill.emptyAfterFirst(row) && (!fit || displaywidth.String(below[0]) <= spill.width) {
			// Nothing but the first column in the line: what went under
			// the row starts on it, where it fits (a URL wider than the
			// room stays on a line of its own).
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
// they need, each within the room under the row. An id wider than that
// room (a URL) breaks only where it would in its column, each piece on a
// line of its own even past the edge, so that the words around it still
// wrap within the room rather than at the id's width.
func (s spilled) wrap(row []string) []string {
	var lines, pending []string
	flush := func() {
		if len(pending) > 0 {
			lines = append(lines, wrapCell(strings.Join(pending, spillJoin), s.width)...)
			pending = nil
		}
	}
	for _, i := range s.cols {
		if i >= len(row) || strings.TrimSpace(row[i]) == "" {
			continue
		}
		cell := row[i]
		if s.plan[i].kind != KindID || strings.Contains(cell, " ") || displaywidth.String(cell) <= s.width {
			pending = append(pending, cell)
			continue
		}
		if len(pending) > 0 {
			pending[len(pending)-1] += strings.TrimRight(spillJoin, " ")
		}
		flush()
		pieces := wrapPieces(cell, KindID)
		widest := 0
		for _, p := range pieces {
			widest = max(widest, displaywidth.String(p))
		}
		lines = append(lines, wrapCell(cell, max(widest, s.width))...)
		if !s.lastIn(row, i) {
			lines[len(lines)-1] += strings.TrimRight(spillJoin, " ")
		}
	}
	flush()
	return lines
}

// lastIn reports whether column i is the last of the spilled columns
// that row fills.
func (s spilled) lastIn(row []string, i int) bool {
	for _, j := range s.cols {
		if j > i && j < len(row) && strings.TrimSpace(row[j]) != "" {
			return false
		}
	}
	return true
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
