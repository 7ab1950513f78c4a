package output

import (
	"bytes"
	"io"
	"slices"
	"strings"

	"github.com/clipperhouse/displaywidth"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
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
}

// planTable decides which columns a table shows and how wide, so that it
// fits in total cells when fit is set (a terminal). The one policy every
// table follows:
//
//   - ids and amounts are never cut: they are what people copy and compare;
//   - times give way first (shortened to the date, then dropped), then
//     references (cut to minReferenceWidth, then dropped), then free text is
//     cut (and dropped when even that is not enough), and short plain words
//     last;
//   - a table that still does not fit is wider than the terminal rather
//     than showing a cut id;
//   - not on a terminal (fit unset), nothing is cut or dropped.
//
// Columns are dropped from the right, where the least important sit.
func planTable(headers []string, rows [][]string, kinds []Kind, total int, fit bool) []colPlan {
	plan := make([]colPlan, len(headers))
	for i, h := range headers {
		plan[i] = colPlan{kind: kinds[i], show: true, width: displaywidth.String(h)}
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
	shown := func() int {
		n := 0
		for _, c := range plan {
			if c.show {
				n++
			}
		}
		return n
	}
	need := func() int {
		sum := 0
		for _, c := range plan {
			if c.show {
				sum += c.width
			}
		}
		return sum + columnGap*max(shown()-1, 0)
	}
	of := func(k Kind) []int {
		var idx []int
		for i := len(plan) - 1; i >= 0; i-- {
			if plan[i].show && plan[i].kind == k {
				idx = append(idx, i)
			}
		}
		return idx
	}
	fits := func() bool { return need() <= total }
	if fits() {
		return plan
	}

	// Times: the date alone, then nothing.
	for _, i := range of(KindTime) {
		if allDates[i] && len(rows) > 0 {
			plan[i].dateOnly = true
			plan[i].width = max(displaywidth.String(headers[i]), dateWidth)
		}
	}
	for _, i := range of(KindTime) {
		if fits() || shown() == 1 {
			return plan
		}
		plan[i].show = false
	}
	// References: cut, then dropped.
	for _, i := range of(KindReference) {
		if fits() {
			return plan
		}
		plan[i].width -= min(need()-total, max(plan[i].width-minReferenceWidth, 0))
	}
	for _, i := range of(KindReference) {
		if fits() || shown() == 1 {
			return plan
		}
		plan[i].show = false
	}
	// Free text, then short words, cut to share what is left.
	for _, kinds := range [][]Kind{{KindText}, {KindText, KindPlain, KindStatus}} {
		if fits() {
			return plan
		}
		var idx []int
		rigid := 0
		for i, c := range plan {
			if !c.show {
				continue
			}
			if slices.Contains(kinds, c.kind) {
				idx = append(idx, i)
			} else {
				rigid += c.width
			}
		}
		if len(idx) == 0 {
			continue
		}
		widths := make([]int, len(plan))
		for i, c := range plan {
			widths[i] = c.width
		}
		capWidths(widths, idx, total-columnGap*(shown()-1)-rigid)
		for _, i := range idx {
			plan[i].width = widths[i]
		}
		if kinds[0] == KindText && !fits() {
			// Text cut to a few cells tells nothing; its room is worth
			// more to the short words that come next.
			for _, i := range of(KindText) {
				if fits() || shown() == 1 {
					break
				}
				plan[i].show = false
			}
		}
	}
	return plan
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
// except ids and amounts, and nothing is cut when fit is unset.
func renderTable(w io.Writer, cs *ColorScheme, headers []string, rows [][]string, plan []colPlan, styles []func(string) string, fit bool) error {
	var buf bytes.Buffer
	t := tablewriter.NewTable(&buf,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders:  tw.BorderNone,
			Symbols:  tw.NewSymbols(tw.StyleNone),
			Settings: tw.Settings{Lines: tw.LinesNone, Separators: tw.SeparatorsNone},
		})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithTrimSpace(tw.Off),
		tablewriter.WithPadding(tw.Padding{Left: "", Right: strings.Repeat(" ", columnGap), Overwrite: true}),
	)
	// Pad every cell to its column's width ourselves: when a later batch
	// has only short values, tablewriter would otherwise make its columns
	// narrower than the header printed above them.
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
			if fit && c.kind != KindID && c.kind != KindMoney {
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
	if headers != nil {
		t.Header(pad(headers, true))
	}
	for _, row := range rows {
		if err := t.Append(pad(row, false)); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	_, err := w.Write(trimTrailingSpaces(buf.Bytes()))
	return err
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
