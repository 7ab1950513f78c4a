package ledger

import (
	"testing"

	"github.com/bnpl-cli/bnpl/internal/bulk/ledger/pgtest"
)

// endingHalf is a run's half whose first question whether run lives is
// asked only once ending has run: the other run makes its summary and ends
// at that moment, between what the asking run read of it before and what
// it reads after.
type endingHalf struct {
	half
	run    int64
	ending func()
	ended  bool
}

func (h *endingHalf) alive(run int64, lock string) bool {
	if run == h.run && !h.ended {
		h.ended = true
		h.ending()
	}
	return h.half.alive(run, lock)
}

// A run that moved a move, or adopted one, and makes its summary and ends
// while another run finds the move made, counted it: the finder does not
// count it again for it as a run that ended before its summary, whatever
// the moment the run ends at. The runs share a PostgreSQL ledger, whose
// readers do not wait for a run that makes its summary.
func TestAMoveOfARunThatEndsAfterItsSummaryAsItIsFoundIsNotAdopted(t *testing.T) {
	url := pgtest.Get(t).NewDatabase(t)
	open := func() *Ledger { return openRun(t, Options{URL: url, Scope: "scope"}) }
	row := func(ref string) []PlannedRow {
		return []PlannedRow{{Seq: 1, Line: 2, MoveID: MoveID("scope", ref), Op: "capture", PaymentID: pidA, ReferenceID: ref, Amount: "10.00", MoveAmount: "10.00"}}
	}
	// endsAsFound has finder find the move of ref while run l makes its
	// summary and ends.
	endsAsFound := func(finder, l *Ledger, ref string) {
		t.Helper()
		id := MoveID("scope", ref)
		h := &endingHalf{half: finder.half, run: l.run, ending: func() {
			if err := l.Summarized(); err != nil {
				t.Fatal(err)
			}
			l.Close()
		}}
		finder.half = h
		if ended := finder.Adopt(id); ended != nil {
			t.Errorf("%s: counted again for run %d, although run %d counted it in its summary", ref, ended.ID, l.run)
		}
		if !h.ended {
			t.Fatalf("%s: run %d's liveness was never asked", ref, l.run)
		}
		if ended := finder.Adoptable(id); ended != nil {
			t.Errorf("%s: adoptable for run %d, although run %d counted it in its summary", ref, ended.ID, l.run)
		}
	}

	// A killed run sent R1; the mover sends it again and records it moved.
	killed, mover := open(), open()
	for _, l := range []*Ledger{killed, mover} {
		if err := l.PlanRows(row("R1")); err != nil {
			t.Fatal(err)
		}
		if err := l.MarkSent(MoveID("scope", "R1"), "R1", "10.00"); err != nil {
			t.Fatal(err)
		}
	}
	die(t, killed)
	moved := Row{Line: 2, Op: "capture", PaymentID: pidA, ReferenceID: "R1", Amount: "10.00", Currency: "AED", Outcome: "ok", Moved: true}
	if err := mover.Settle(1, MoveID("scope", "R1"), moved, PhaseConfirmed, "copy.csv"); err != nil {
		t.Fatal(err)
	}
	endsAsFound(open(), mover, "R1")

	// A killed run sent R2; the adopter finds it made and counts it for it.
	killed, adopter := open(), open()
	if err := killed.PlanRows(row("R2")); err != nil {
		t.Fatal(err)
	}
	if err := killed.MarkSent(MoveID("scope", "R2"), "R2", "10.00"); err != nil {
		t.Fatal(err)
	}
	die(t, killed)
	if ended := adopter.Adopt(MoveID("scope", "R2")); ended == nil || ended.ID != killed.run {
		t.Fatalf("adoption of the killed run's move: %v, want run %d", ended, killed.run)
	}
	endsAsFound(open(), adopter, "R2")
}
