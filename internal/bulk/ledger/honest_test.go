package ledger

import (
	"errors"
	"strings"
	"testing"
)

// A ledger that fails under a run (damaged or cut short while it goes on)
// stops it with exit 12, saying the run sent nothing more and what a new
// ledger cannot attribute; one that fails before anything is sent says
// nothing was sent. An *Error is kept as it is.
func TestALedgerThatFailsStopsTheRunWithExit12(t *testing.T) {
	l := openTestLedger(t, t.TempDir())
	malformed := errors.New("database disk image is malformed (11)")
	var e *Error
	if err := l.Stopped(malformed); !errors.As(err, &e) || e.ExitCode() != 12 ||
		!strings.Contains(err.Error(), "the run stopped, and sent nothing more") ||
		!strings.Contains(e.Hint(), "cannot attribute the moves earlier runs made") || !errors.Is(err, malformed) {
		t.Fatalf("stopped: %v (hint %q)", err, e.Hint())
	}
	if err := l.Unusable(malformed); !errors.As(err, &e) || e.ExitCode() != 12 ||
		!strings.Contains(err.Error(), "cannot be used") || !strings.Contains(err.Error(), "nothing was sent") ||
		!strings.Contains(e.Hint(), "A new ledger cannot attribute") {
		t.Fatalf("unusable: %v (hint %q)", err, e.Hint())
	}
	gone := &Error{Where: "x", Err: malformed, gone: true}
	if err := l.Stopped(gone); err != error(gone) {
		t.Fatalf("an *Error became %v", err)
	}
	if l.Stopped(nil) != nil || l.Unusable(nil) != nil {
		t.Fatal("no error became one")
	}
}

// Sent says whether the ledger knows a send of a move; RunInput names the
// input a run read.
func TestTheLedgerKnowsWhatItSent(t *testing.T) {
	l := openTestLedger(t, t.TempDir())
	id := MoveID("scope", "k1")
	if err := l.PlanRows([]PlannedRow{{Seq: 1, Line: 2, MoveID: id, Op: "capture", PaymentID: "p1", ReferenceID: "R1", Amount: "10", MoveAmount: "10"}}); err != nil {
		t.Fatal(err)
	}
	if l.Sent(id) {
		t.Fatal("a move only planned counts as sent")
	}
	if err := l.MarkSent(id, "R1", "10"); err != nil {
		t.Fatal(err)
	}
	if !l.Sent(id) {
		t.Fatal("a move marked sent does not count as sent")
	}
	if got := l.RunInput(l.Run()); got != "caps.csv" {
		t.Fatalf("run input %q", got)
	}
	if got := l.RunInput(999); got != "" {
		t.Fatalf("unknown run's input %q", got)
	}
}
