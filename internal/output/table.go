package output

import (
	"bytes"
	"io"
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

// minTextWidth is the narrowest a free-text column is squeezed to before
// identifiers and dates have to give way too.
const minTextWidth = 10

// fitWidths returns a width per column so that the columns and the gaps
// between them fit in total.
//
// Free text (flexible: values with spaces, such as descriptions and names)
// gives way first, because a cut description still reads while a cut
// payment ID is useless. Only when the text columns, down to minTextWidth,
// cannot make room are all columns squeezed together. Squeezing caps the
// widest columns first: narrow ones keep their natural width, so one long
// value cannot push an ID off the screen.
func fitWidths(natural []int, flexible []bool, total int) []int {
	n := len(natural)
	widths := append([]int(nil), natural...)
	if n == 0 {
		return widths
	}
	available := total - columnGap*(n-1)
	sum := 0
	for _, w := range natural {
		sum += w
	}
	if sum <= available {
		return widths
	}

	var text []int
	rigid, textFloor := 0, 0
	for i, w := range natural {
		if i < len(flexible) && flexible[i] {
			text = append(text, i)
			textFloor += min(w, minTextWidth)
		} else {
			rigid += w
		}
	}
	if len(text) > 0 && available-rigid >= textFloor {
		capWidths(widths, text, available-rigid)
		return widths
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	capWidths(widths, all, available)
	return widths
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

// tableWidths measures header and rows and fits them to the terminal.
func tableWidths(headers []string, rows [][]string, total int) []int {
	natural := make([]int, len(headers))
	flexible := make([]bool, len(headers))
	for i, h := range headers {
		natural[i] = displaywidth.String(h)
	}
	for _, row := range rows {
		for i, cell := range row {
			if i < len(natural) {
				natural[i] = max(natural[i], displaywidth.String(cell))
				flexible[i] = flexible[i] || strings.ContainsRune(cell, ' ')
			}
		}
	}
	return fitWidths(natural, flexible, total)
}

// renderTable writes one borderless table whose cells already fit widths.
// headers may be nil for a batch after the first.
func renderTable(w io.Writer, cs *ColorScheme, headers []string, rows [][]string, widths []int) error {
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
	pad := func(cells []string, style func(string) string) []string {
		out := make([]string, len(widths))
		for i := range widths {
			var c string
			if i < len(cells) {
				c = truncate(cells[i], widths[i])
			}
			fill := strings.Repeat(" ", max(widths[i]-displaywidth.String(c), 0))
			if style != nil {
				c = style(c)
			}
			out[i] = c + fill
		}
		return out
	}
	if headers != nil {
		t.Header(pad(headers, cs.Bold))
	}
	for _, row := range rows {
		if err := t.Append(pad(row, nil)); err != nil {
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
// only shows up as noise in diffs and copied text.
func trimTrailingSpaces(b []byte) []byte {
	lines := bytes.SplitAfter(b, []byte("\n"))
	out := make([]byte, 0, len(b))
	for _, line := range lines {
		nl := bytes.HasSuffix(line, []byte("\n"))
		line = bytes.TrimRight(line, " \n")
		out = append(out, line...)
		if nl {
			out = append(out, '\n')
		}
	}
	return out
}
