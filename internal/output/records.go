package output

import (
	"strings"

	"github.com/clipperhouse/displaywidth"
)

// overflows reports whether the shown columns of plan, each at its
// planned width, are wider than total cells: the table cannot fit even
// with its cells wrapped, and is shown as records instead.
func overflows(plan []colPlan, total int) bool {
	used, shown := 0, 0
	for _, c := range plan {
		if c.show {
			used += c.width
			shown++
		}
	}
	return used+columnGap*max(shown-1, 0) > total
}

// planWithoutEmpty is planTable for a terminal over columns none of rows
// has a value in left out (webhooks that all lack a header, moves made
// without a reference id), so that their headers take no room from the
// others; a column marked to show whole stays. (Columns asked for by name
// are planned by planTable itself: every one stays.)
func planWithoutEmpty(headers []string, rows [][]string, kinds []Kind, total int) []colPlan {
	var keep []int
	for i := range headers {
		if len(rows) == 0 || kinds[i]&wholeBit != 0 || !emptyColumn(rows, i) {
			keep = append(keep, i)
		}
	}
	if len(keep) == len(headers) || len(keep) == 0 {
		return planTable(headers, rows, kinds, total, true)
	}
	subHeaders := make([]string, len(keep))
	subKinds := make([]Kind, len(keep))
	for j, i := range keep {
		subHeaders[j], subKinds[j] = headers[i], kinds[i]
	}
	subRows := make([][]string, len(rows))
	for r, row := range rows {
		subRows[r] = make([]string, len(keep))
		for j, i := range keep {
			if i < len(row) {
				subRows[r][j] = row[i]
			}
		}
	}
	sub := planTable(subHeaders, subRows, subKinds, total, true)
	plan := make([]colPlan, len(headers))
	for i := range plan {
		plan[i] = colPlan{kind: kinds[i] &^ flagBits}
	}
	for j, i := range keep {
		plan[i] = sub[j]
	}
	return plan
}

// emptyColumn reports whether no row has a value in column i.
func emptyColumn(rows [][]string, i int) bool {
	for _, row := range rows {
		if i < len(row) && strings.TrimSpace(row[i]) != "" {
			return false
		}
	}
	return true
}

// renderRecords writes the pending rows as records, as psql's expanded
// mode does when a result is wider than the terminal: one block per row,
// a "FIELD  value" line per column (every column, none cut or left out),
// a blank line between blocks. A value too long for its line wraps
// between words (JSON between members) under itself; one that cannot (a
// long URL) starts on the next line. No line is wider than the terminal but a word wider than it.
func (s *Stream) renderRecords() error {
	headers := s.tableHeaders()
	labelWidth := 0
	for _, h := range headers {
		labelWidth = max(labelWidth, displaywidth.String(h))
	}
	valueCol := labelWidth + columnGap
	total := s.p.ios.TerminalWidth()
	cs := s.p.ios.Colors()
	styles := s.styles(cs)
	var b strings.Builder
	for _, row := range s.pending {
		if s.shownRecords > 0 {
			b.WriteString("\n")
		}
		s.shownRecords++
		for i, h := range headers {
			var value string
			if i < len(row) {
				value = row[i]
			}
			b.WriteString(cs.Bold(h))
			lines, indent := recordLines(value, valueCol, total)
			if len(lines) == 1 && styles[i] != nil {
				lines[0] = styles[i](lines[0])
			}
			for j, l := range lines {
				switch {
				case j == 0 && l == "":
				case j == 0:
					b.WriteString(strings.Repeat(" ", valueCol-displaywidth.String(h)))
				default:
					b.WriteString("\n" + strings.Repeat(" ", indent))
				}
				b.WriteString(l)
			}
			b.WriteString("\n")
		}
	}
	clear(s.pending)
	s.pending = s.pending[:0]
	s.headerDone = true
	_, err := s.out.WriteString(b.String())
	return err
}

// recordLines lays a record's value out for a terminal total cells wide
// whose values start at column col: whole when it fits; else wrapped
// between words under itself when every word fits there; else (an id, a
// URL) from the next line, indented by fieldNextIndent, wrapped there (a
// word wider than the line is broken where a path or a list breaks, never
// inside a date).
func recordLines(value string, col, total int) (lines []string, indent int) {
	room := total - col
	if displaywidth.String(value) <= room {
		return []string{value}, col
	}
	fitsWords := room >= minTextWidth
	words := strings.Fields(value)
	if isJSONCell(value) {
		words = jsonPieces(value)
	}
	for _, word := range words {
		fitsWords = fitsWords && displaywidth.String(word) <= room
	}
	if fitsWords {
		return wrapCell(value, room), col
	}
	next := wrapCell(value, max(total-fieldNextIndent, minWrapNarrow))
	return append([]string{""}, next...), fieldNextIndent
}
