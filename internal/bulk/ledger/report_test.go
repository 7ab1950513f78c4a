package ledger

import (
	"fmt"
	"testing"
	"time"
)

// What `payments report --source ledger` reads: the captures and refunds
// the ledger's runs moved on one service, within a window; not a move the
// service held before (held_before), nor a close, nor another service's.
func TestEachMovedIsWhatTheLedgersRunsMoved(t *testing.T) {
	eachHalf(t, func(t *testing.T, open opener) {
		at := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
		l := open(func() time.Time { return at })
		settle := func(seq int, op, ref, amount string, moved bool) {
			t.Helper()
			id := MoveID("scope", fmt.Sprintf("key-%d", seq))
			row := PlannedRow{Seq: seq, Line: seq + 1, MoveID: id, Op: op, PaymentID: pidA, ReferenceID: ref, Amount: amount, MoveAmount: amount}
			if err := l.PlanRows([]PlannedRow{row}); err != nil {
				t.Fatal(err)
			}
			if err := l.MarkSent(id, ref, amount); err != nil {
				t.Fatal(err)
			}
			res := Row{Line: seq + 1, Op: op, PaymentID: pidA, ReferenceID: ref, Amount: amount, Currency: "AED", Outcome: "ok", Moved: moved}
			if !moved {
				res.Outcome = "held_before"
			}
			if err := l.Settle(seq, id, res, PhaseConfirmed, "caps.csv"); err != nil {
				t.Fatal(err)
			}
		}
		settle(1, "capture", "C1", "100.00", true)
		settle(2, "capture", "C2", "7.50", false) // held before: not this ledger's
		settle(3, "close", "", "", true)
		at = at.Add(48 * time.Hour)
		settle(4, "refund", "R1", "20.25", true)
		settle(5, "capture", "C1", "100.00", true) // the same move again: counted once

		var got []string
		collect := func(scope string, since, until time.Time) {
			t.Helper()
			got = nil
			if err := l.EachMoved(scope, since, until, func(m MovedMove) error {
				got = append(got, fmt.Sprintf("%s %s %s %s %s run=%v", m.Op, m.ReferenceID, m.Amount.StringFixed(2), m.Currency, m.At.Format(time.DateOnly), m.Run == l.Run()))
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		all := fmt.Sprint([]string{"capture C1 100.00 AED 2026-11-25 run=true", "refund R1 20.25 AED 2026-11-27 run=true"})
		collect("scope", time.Time{}, at)
		if fmt.Sprint(got) != all {
			t.Errorf("moved:\n got %v\nwant %v", got, all)
		}
		collect("scope", at.Add(-time.Hour), at)
		if fmt.Sprint(got) != fmt.Sprint([]string{"refund R1 20.25 AED 2026-11-27 run=true"}) {
			t.Errorf("moved in the window: %v", got)
		}
		if collect("other", time.Time{}, at); len(got) != 0 {
			t.Errorf("another service's moves: %v", got)
		}
	})
}
