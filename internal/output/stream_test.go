package output

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// A streamed table is planned for the widest values its columns' types
// allow: a status of a later batch as wide as the widest of its Values, a
// reason code, an amount ten thousand times the first batch's, all whole,
// the amounts right-aligned under the first batch's. At 80 columns the
// reason has no room: it is dropped whole, not cut.
func TestStreamPlansForLaterRows(t *testing.T) {
	for _, width := range []int{80, 120} {
		got := streamGrowing(t, width)
		if strings.Contains(got, "…") || !strings.Contains(got, "evidence_merchant") || strings.Contains(got, "REASON") != (width > 80) {
			t.Errorf("at %d columns a later value is cut:\n%s", width, got)
		}
		if width > 80 && !strings.Contains(got, "unreceived_refund") {
			t.Errorf("at %d columns the reason is not whole:\n%s", width, got)
		}
		ends := map[int]bool{}
		for _, line := range strings.Split(strings.TrimSpace(got), "\n")[1:] {
			if len(line) > width {
				t.Errorf("line wider than %d: %q", width, line)
			}
			ends[strings.Index(line, " AED")] = true
		}
		if len(ends) != 1 || !strings.Contains(got, "10000.00 AED") {
			t.Errorf("at %d columns the amounts are not aligned on the right:\n%s", width, got)
		}
	}
}

// streamGrowing streams a batch of narrow rows, then one of wider values.
func streamGrowing(t *testing.T, width int) string {
	cols := []Column{
		{Header: "ID", Path: "id", Kind: KindID},
		{Header: "STATUS", Path: "status", Kind: KindStatus, Values: []string{"new", "evidence_merchant"}},
		{Header: "REASON", Path: "reason", Kind: KindEnum, Values: []string{"not_delivered", "unreceived_refund"}},
		{Header: "AMOUNT", Path: "amount", Kind: KindMoney, CurrencyPath: "currency"},
		{Header: "NOTE", Path: "note", Kind: KindText},
	}
	tp := newTestPrinter(t, true, width, Options{})
	s := tp.p.Stream(cols)
	write := func(i int, status, reason, amount string) {
		rec, _ := json.Marshal(map[string]string{"id": fmt.Sprintf("9d7c1c2e-1111-4a5b-9c3d-%012d", i), "status": status, "reason": reason,
			"amount": amount, "currency": "AED", "note": "a note"})
		if err := s.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	for i := range DefaultTableBatch {
		write(i, "new", "not_delivered", "1.00")
	}
	write(99, "evidence_merchant", "unreceived_refund", "10000.00")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return tp.out.String()
}
