package ledger

import "testing"

// A run's record is the ledger's, the same in both halves: a move's send
// and outcome are what a run of its input takes up (a new send clears the
// outcome of the one before; a move settled made stays the record of the
// run that settled it); a run's input sketch is kept; an old journal is
// imported once, whoever finds it again; and the moves settled that no
// row of a run is are counted.
func TestARunsRecordIsTheLedgers(t *testing.T) {
	eachHalf(t, func(t *testing.T, open opener) {
		first, other := open(nil), open(nil)
		all := func(int64) bool { return true }
		id, id2 := MoveID("scope", "key-1"), MoveID("scope", "key-2")
		plan := func(l *Ledger, seq int, id string) {
			t.Helper()
			if err := l.PlanRows([]PlannedRow{{Seq: seq, Line: seq + 1, MoveID: id, Op: "capture", PaymentID: pidA, ReferenceID: "R" + id[:4], Amount: "10.00", MoveAmount: "10.00"}}); err != nil {
				t.Fatal(err)
			}
		}
		plan(first, 1, id)
		if rec, err := first.Recorded(id, all); err != nil || rec != nil {
			t.Fatalf("planned: %+v %v", rec, err)
		}
		if err := first.MarkSent(id, "R1", "10.00"); err != nil {
			t.Fatal(err)
		}
		rec, err := first.Recorded(id, all)
		if err != nil || rec == nil || rec.SentRef != "R1" || rec.SentAmount != "10.00" || rec.Outcome != "" {
			t.Fatalf("sent: %+v %v", rec, err)
		}
		if rec, _ := first.Recorded(id, func(run int64) bool { return run == other.run }); rec != nil {
			t.Fatalf("another input's run took up the send: %+v", rec)
		}
		ok := Row{Line: 2, Op: "capture", PaymentID: pidA, ReferenceID: "R1", Amount: "10.00", Outcome: "ok", Moved: true, Record: "ok", PaymentStatus: "AUTHORIZED"}
		if err := first.Settle(1, id, ok, PhaseConfirmed, "caps.csv"); err != nil {
			t.Fatal(err)
		}
		// Another input's run finds it made: the record stays the first's.
		plan(other, 1, id)
		found := ok
		found.Outcome, found.Record, found.Moved = "reconciled", "reconciled", false
		if err := other.Settle(1, id, found, PhaseConfirmed, "other.csv"); err != nil {
			t.Fatal(err)
		}
		rec, err = first.Recorded(id, func(run int64) bool { return run == first.run })
		if err != nil || rec == nil || rec.Outcome != "ok" || rec.PaymentStatus != "AUTHORIZED" {
			t.Fatalf("settled: %+v %v", rec, err)
		}
		// Sent again (--retry-failed, say): the old outcome is not this send's.
		if err := first.MarkSent(id, "R1", "10.00"); err != nil {
			t.Fatal(err)
		}
		if rec, _ := first.Recorded(id, all); rec == nil || rec.Outcome != "" {
			t.Fatalf("sent again: %+v", rec)
		}

		if err := first.SetInputSketch("a,b,c"); err != nil || first.InputSketch(first.run) != "a,b,c" {
			t.Fatalf("sketch %q %v", first.InputSketch(first.run), err)
		}
		inputs, err := other.RunInputs()
		if err != nil || inputs[first.run].Sketch != "a,b,c" || inputs[first.run].Name != "caps.csv" {
			t.Fatalf("inputs %+v %v", inputs, err)
		}

		moves := []ImportedMove{{MoveID: id2, Op: "capture", SentRef: "R2", SentAmount: "5.00", Outcome: "ok", ReferenceID: "R2", Amount: "5.00"}}
		if done, err := first.ImportJournal("digest", "caps.journal", moves); err != nil || !done {
			t.Fatalf("import: %v %v", done, err)
		}
		if done, err := other.ImportJournal("digest", "copy.journal", moves); err != nil || done {
			t.Fatalf("imported twice: %v %v", done, err)
		}
		if done, _ := other.JournalImported("digest"); !done {
			t.Fatal("the import is not known")
		}
		rec, err = other.Recorded(id2, func(run int64) bool { return run == first.run })
		if err != nil || rec == nil || rec.Outcome != "ok" || rec.SentAmount != "5.00" || rec.Journal != "caps.journal" {
			t.Fatalf("imported: %+v %v", rec, err)
		}
		// The imported move is no row of the first run: one stray.
		if n, err := first.StrayOutcomes([]int64{first.run}, []string{"capture"}); err != nil || n != 1 {
			t.Fatalf("stray %d %v", n, err)
		}
		if n, err := first.StrayOutcomes([]int64{first.run}, []string{"refund"}); err != nil || n != 0 {
			t.Fatalf("stray refunds %d %v", n, err)
		}
	})
}
