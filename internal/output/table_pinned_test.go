package output

import (
	"strings"
	"testing"
)

// A column named in --columns is never dropped: text is cut as far as its
// kind allows, and what still does not fit is said.
func TestPinnedColumnsStay(t *testing.T) {
	headers := []string{"ID", "STATUS", "AMOUNT", "BUYER", "REFERENCE", "CREATED"}
	rows := [][]string{{"3fa85f64-5717-4562-b3fc-2c963f66afa6", "AUTHORIZED", "1250.00 AED", "Layla Haddad <layla.haddad@example.com>", "ORDER-WITH-A-LONG-NUMBER-2026-000001", "2026-11-25 14:38:00Z"}}
	kinds := []Kind{KindID, KindStatus, KindMoney, KindText, KindReference, KindTime}
	loose := planTable(headers, rows, kinds, 80, true)
	dropped := 0
	for _, c := range loose {
		if !c.show {
			dropped++
		}
	}
	if dropped == 0 {
		t.Fatal("the unpinned table dropped nothing at 80: the test proves nothing")
	}
	pinned := make([]Kind, len(kinds))
	for i, k := range kinds {
		pinned[i] = Pinned(k)
	}
	plan := planTable(headers, rows, pinned, 80, true)
	for i, c := range plan {
		if !c.show {
			t.Errorf("pinned column %s was dropped", headers[i])
		}
		if c.kind == KindID && c.width < len(rows[0][i]) {
			t.Errorf("the id was cut to %d", c.width)
		}
	}
	note := Overflow(headers, plan, 80)
	if plan[3].width >= len(rows[0][3]) && note == "" {
		t.Error("neither cut nor said")
	}
	if note != "" && !strings.Contains(note, "did not fit") {
		t.Errorf("note %q", note)
	}
	if Overflow(headers, planTable(headers, rows, pinned, 200, true), 200) != "" {
		t.Error("a table that fits is said not to")
	}
}

// A wrapped column goes on over more lines, between words, never cut.
func TestWrappedCells(t *testing.T) {
	got := wrapCell("could not capture payment: amount 99999.00 is more than the rest", 12)
	want := []string{"could not", "capture", "payment:", "amount", "99999.00 is", "more than", "the rest"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("wrapCell: %q", got)
	}
	if got := wrapCell("abcdefghijklmnop", 6); strings.Join(got, "|") != "abcdef|ghijkl|mnop" {
		t.Errorf("a long word: %q", got)
	}
	plan := []colPlan{{kind: KindTime, show: true, width: 5}, {kind: KindText, show: true, width: 10, wrap: true}}
	rows := wrapRow([]string{"09:31", "no such payment here"}, plan, true)
	if len(rows) != 3 || rows[2][1] != "here" || rows[0][0] != "09:31" || rows[0][1] != "no such" || rows[1][0] != "" || rows[1][1] != "payment" {
		t.Errorf("wrapRow: %q", rows)
	}
	if rows := wrapRow([]string{"09:31", "no such payment here"}, plan, false); len(rows) != 1 {
		t.Errorf("piped, a row was wrapped: %q", rows)
	}
}
