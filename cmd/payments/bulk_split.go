package payments

import (
	"fmt"
	"strings"

	"github.com/bnpl-cli/bnpl/internal/bulk"
)

// splitRows are the rows read as written under --allow-split-amounts,
// each a whole amount followed by a cell of two or three digits (an
// unquoted decimal comma?): counted, the first few kept to be listed.
type splitRows struct {
	count int
	rows  []bulk.RowError
}

// reading is ro telling s of each such row.
func (s *splitRows) reading(ro bulk.ReadOptions) bulk.ReadOptions {
	ro.SplitAmount = func(e bulk.RowError) {
		if s.count++; len(s.rows) < bulk.MaxPlanRefusals {
			s.rows = append(s.rows, e)
		}
	}
	return ro
}

// lines say, under a plan or as a run's warning, which rows go as
// written: the first few, and how many more.
func (s *splitRows) lines() []string {
	if s.count == 0 {
		return nil
	}
	lines := []string{fmt.Sprintf("%d %s a whole amount followed by a cell of 2 or 3 digits (an unquoted decimal comma?), going as written with --allow-split-amounts:",
		s.count, plural(s.count, "row has", "rows have"))}
	for i, r := range s.rows {
		if i == 20 {
			lines = append(lines, fmt.Sprintf("  ... and %d more", s.count-i))
			break
		}
		lines = append(lines, "  "+r.String())
	}
	return lines
}

// warn says it once, whatever --quiet says, before a run sends anything.
func (s *splitRows) warn(d *MoveDeps) {
	if lines := s.lines(); lines != nil && d.Warn != nil {
		d.Warn(strings.Join(lines, "\n"), "")
	}
}

// fill adds the rows to a plan's JSON document.
func (s *splitRows) fill(doc *planDocument) {
	if s.count > 0 {
		doc.SplitAmounts, doc.SplitAmountRows = s.count, planRows(s.rows)
	}
}
