package bulk

import (
	"fmt"
	"testing"
)

func sketchOf(rows []Row) []uint64 {
	in := NewInputIdentity(OpCapture, "")
	for _, r := range rows {
		in.Add(r)
	}
	return parseSketch(in.String())
}

func sketchRows(n int, amount func(i int) string) []Row {
	rows := make([]Row, n)
	for i := range rows {
		rows[i] = Row{Line: i + 2, PaymentID: fmt.Sprintf("pay-%04d", i), Amount: amount(i)}
	}
	return rows
}

// An input is the same input, known by its rows' meaning, whatever their
// order or spelling, with one amount edited, or grown by a few rows; one
// that shares few of its rows is another; and a large input is sketched
// in sketchSize numbers.
func TestAnInputIsKnownByWhatItsRowsMean(t *testing.T) {
	same := func(i int) string { return "100.00" }
	base := sketchOf(sketchRows(5, same))
	reordered := sketchRows(5, func(int) string { return "100" })
	reordered[0], reordered[4] = reordered[4], reordered[0]
	edited := sketchOf(sketchRows(5, func(i int) string {
		if i == 2 {
			return "110.00"
		}
		return "100.00"
	}))
	halfEdited := sketchOf(sketchRows(4, func(i int) string {
		if i < 3 {
			return "1.00"
		}
		return "100.00"
	}))
	for name, tc := range map[string]struct {
		other []uint64
		want  bool
	}{
		"reordered, spelt otherwise": {sketchOf(reordered), true},
		"one amount edited":          {edited, true},
		"grown by two rows":          {sketchOf(sketchRows(7, same)), true},
		"three of four edited":       {halfEdited, false},
		"nothing":                    {nil, false},
	} {
		if got := sameInput(base, tc.other); got != tc.want {
			t.Errorf("%s: same input %v, want %v", name, got, tc.want)
		}
	}
	big := sketchOf(sketchRows(5000, same))
	if len(big) != sketchSize {
		t.Fatalf("a sketch of 5000 rows holds %d numbers", len(big))
	}
	bigEdited := sketchOf(sketchRows(5000, func(i int) string {
		if i%10 == 0 {
			return "1.00"
		}
		return "100.00"
	}))
	other := sketchOf(sketchRows(5000, func(int) string { return "7.00" }))
	if !sameInput(big, bigEdited) || sameInput(big, other) {
		t.Fatalf("5000 rows: a tenth edited is the same input %v; every row another %v", sameInput(big, bigEdited), sameInput(big, other))
	}
}
