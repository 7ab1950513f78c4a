package output

import (
	"strings"

	"github.com/clipperhouse/displaywidth"
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
