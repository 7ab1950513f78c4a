package output

import (
	"strings"

	"github.com/clipperhouse/displaywidth"
)

// cellWidth is the columns a laid cell takes on a terminal: its colour
// codes take none.
var cellWidth = displaywidth.Options{ControlSequences: true}.String

// alignColumns lays rows of cells in columns with no borders: each cell is
// padded to the widest cell of its column and followed by columnGap
// spaces; a row shorter than the others is filled with empty cells. The
// padding after a line's last cell is left for trimTrailingSpaces.
func alignColumns(rows [][]string) []string {
	var widths []int
	for _, row := range rows {
		for i, cell := range row {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], cellWidth(cell))
		}
	}
	lines := make([]string, 0, len(rows))
	var b strings.Builder
	for _, row := range rows {
		b.Reset()
		for i, w := range widths {
			cell := ""
			if i < len(row) {
				cell = row[i]
			}
			b.WriteString(cell)
			b.WriteString(strings.Repeat(" ", w-cellWidth(cell)+columnGap))
		}
		lines = append(lines, b.String())
	}
	return lines
}
