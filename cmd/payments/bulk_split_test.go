package payments

import (
	"fmt"
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/bulk"
)

// The rows going as written with --allow-split-amounts are all counted,
// the first 20 listed, in the plan's lines and its JSON document.
func TestSplitRowsListed(t *testing.T) {
	var s splitRows
	if s.lines() != nil {
		t.Fatal("lines of no rows")
	}
	in := "payment_id,amount,reference_id\n"
	for i := range 25 {
		in += fmt.Sprintf("6f1c2a9e-0b8d-4c3e-9a51-2d7f4e8b1c06,1,%d\n", 50+i)
	}
	_, invalid, err := bulk.ReadRowsWith(strings.NewReader(in), "s.csv", bulk.OpCapture,
		s.reading(bulk.ReadOptions{AllowSplitAmounts: true}))
	if err != nil || len(invalid) != 0 {
		t.Fatalf("invalid %v err %v", invalid, err)
	}
	lines := s.lines()
	if len(lines) != 22 || !strings.HasPrefix(lines[0], "25 rows have a whole amount followed by a cell of 2 or 3 digits") ||
		lines[1] != `  line 2: amount: 1, then reference_id "50", as written with --allow-split-amounts (not 1.50)` || lines[21] != "  ... and 5 more" {
		t.Fatalf("lines %q", lines)
	}
	var doc planDocument
	s.fill(&doc)
	if doc.SplitAmounts != 25 || len(doc.SplitAmountRows) != 25 || doc.SplitAmountRows[24].Line != 26 || doc.SplitAmountRows[0].Field != "amount" {
		t.Fatalf("doc %+v", doc)
	}
}
