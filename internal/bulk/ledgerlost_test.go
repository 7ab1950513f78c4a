package bulk

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/bulk/ledger"
)

// A journal whose earlier runs sent moves recorded in a ledger that is no
// longer where it was (deleted, moved aside) stops the run before anything
// is read or sent, exit 12, saying what cannot be attributed, however
// often it is run; --ledger-lost (LedgerLost) goes on, the moves held
// before, and the runs after it know the new ledger. The same journal on
// another machine (a ledger elsewhere) is no sign of a lost ledger.
func TestAJournalWhoseLedgerIsGoneStops(t *testing.T) {
	f := newFake(t)
	ids := addPayments(f, 3, "AED", "100", api.StatusAuthorized)
	rows := captureRows(ids, "40")
	o := testOptions(t, OpCapture)
	oldJournalOfLostLedger(t, f, o, rows[:2])
	reads := len(f.callsOf("get"))
	for range 2 { // a new ledger is there after the first refusal: still refused
		_, err := Run(context.Background(), f, rows, o)
		var lost *LedgerLostError
		if !errors.As(err, &lost) || exitCode(err) != 12 || lost.Sent != 2 ||
			!strings.Contains(err.Error(), "nothing was sent") || !strings.Contains(lost.Hint(), "--ledger-lost") {
			t.Fatalf("ledger gone: %v", err)
		}
	}
	if n := len(f.callsOf("capture")); n != 2 || len(f.callsOf("get")) != reads {
		t.Fatalf("%d captures sent, %d reads after the refusals", n, len(f.callsOf("get"))-reads)
	}

	// Carried to another machine, the journal is run as it is.
	other := o
	other.LedgerDir = t.TempDir()
	other.JournalPath = filepath.Join(t.TempDir(), "copy.journal")
	copyFile(t, o.JournalPath, other.JournalPath)
	b, err := Prepare(rows, other)
	if err != nil {
		t.Fatalf("another machine: %v", err)
	}
	b.Close()

	o.LedgerLost = true
	sum, err := Run(context.Background(), f, rows, o)
	if err != nil || sum.OK != 1 || sum.HeldBefore != 2 || sum.Moved["AED"] != "40.00" || sum.HeldBeforeAmounts["AED"] != "80.00" {
		t.Fatalf("--ledger-lost: %v %+v", err, sum)
	}
	o.LedgerLost = false
	if _, err := Run(context.Background(), f, rows, o); err != nil {
		t.Fatalf("the run after: %v", err)
	}
	f.wantSent(t, "capture", 3)
}

// oldJournalOfLostLedger writes the old journal of a run of rows (moved
// on f) recorded in a ledger that was in o.LedgerDir and is gone.
func oldJournalOfLostLedger(t *testing.T, f *fakeClient, o Options, rows []Row) {
	t.Helper()
	gone := journalRecord{Event: eventLedger, Op: OpCapture, Ledger: "0123456789abcdef0123456789abcdef", LedgerAt: ledger.SQLitePlace(o.LedgerDir)}
	writeOldJournal(t, o.JournalPath, append([]journalRecord{gone}, movedByOldBnpl(t, f, rows, false)...)...)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// A dry run checks the ledger as a real run does, and makes nothing: a
// ledger gone from where the journal's runs recorded their moves is a
// *LedgerLostError (not made again by the check), a damaged one the
// ledger's own error, both exit 12; --ledger-lost goes on.
func TestADryRunChecksTheLedgerAsARunDoes(t *testing.T) {
	f := newFake(t)
	rows := captureRows(addPayments(f, 2, "AED", "100", api.StatusAuthorized), "40")
	o := testOptions(t, OpCapture)
	oldJournalOfLostLedger(t, f, o, rows)
	pl := PlanLedger{Dir: o.LedgerDir, Scope: "local", Journal: o.JournalPath, Op: OpCapture}
	path := filepath.Join(o.LedgerDir, ledger.FileName)
	_, err := OpenPlanLedger(pl)
	var lost *LedgerLostError
	if !errors.As(err, &lost) || exitCode(err) != 12 || lost.Sent != 2 {
		t.Fatalf("ledger gone: %v", err)
	}
	if ledger.Exists(o.LedgerDir) {
		t.Fatal("the dry run made a ledger")
	}
	pl.LedgerLost = true
	if l, err := OpenPlanLedger(pl); err != nil || l != nil {
		t.Fatalf("--ledger-lost: %v", err)
	}
	pl.LedgerLost = false

	if _, err := Run(context.Background(), f, rows, o); err == nil {
		t.Fatal("a run went on with the ledger gone")
	}
	// A ledger in place, the journal imported there: no refusal.
	o.LedgerLost = true
	if _, err := Run(context.Background(), f, rows, o); err != nil {
		t.Fatal(err)
	}
	if l, err := OpenPlanLedger(pl); err != nil || l == nil {
		t.Fatalf("the ledger in place: %v", err)
	} else {
		l.Close()
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("not a database, not at all; a file cut short or overwritten"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenPlanLedger(pl); exitCode(err) != 12 {
		t.Fatalf("a damaged ledger: exit %d, %v", exitCode(err), err)
	}
}

// The state directory names the ledger its bulk runs recorded their moves
// in: deleted, or another in its place, a run stops before anything is
// read or sent (exit 12, naming --ledger-lost) and makes no ledger; with
// LedgerLost it goes on, nothing moves twice, and the new ledger is the
// one named from then on.
func TestALedgerGoneFromTheStateDirectoryStops(t *testing.T) {
	f := newFake(t)
	ids := addPayments(f, 2, "AED", "100", api.StatusAuthorized)
	rows := captureRows(ids, "40")
	o := testOptions(t, OpCapture)
	if _, err := Run(context.Background(), f, rows, o); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(filepath.Join(o.LedgerDir, markFile)); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the mark: %v %v", info, err)
	}
	db := ledger.SQLitePath(o.LedgerDir)
	for _, side := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(db + side); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
	}
	sent, reads := len(f.callsOf("capture")), len(f.callsOf("get"))
	for _, made := range []bool{false, false} {
		_, err := Run(context.Background(), f, rows, o)
		var gone *LedgerGoneError
		if !errors.As(err, &gone) || exitCode(err) != 12 || gone.Made != made || gone.Ledger != db ||
			!strings.Contains(err.Error(), "nothing was sent") || !strings.Contains(gone.Hint(), "--ledger-lost") {
			t.Fatalf("ledger gone: %v", err)
		}
		if ledger.Exists(o.LedgerDir) {
			t.Fatal("the stopped run made a ledger")
		}
	}
	if len(f.callsOf("capture")) != sent || len(f.callsOf("get")) != reads {
		t.Fatal("the stopped runs sent or read")
	}

	o.LedgerLost = true
	if _, err := Run(context.Background(), f, rows, o); err != nil {
		t.Fatal(err)
	}
	o.LedgerLost = false
	if _, err := Run(context.Background(), f, rows, o); err != nil {
		t.Fatalf("the new ledger, named since: %v", err)
	}
	if n := len(f.callsOf("capture")); n != sent {
		t.Fatalf("%d captures sent after the ledger was lost", n-sent)
	}

	// Another ledger in the place of the one named.
	if err := os.WriteFile(filepath.Join(o.LedgerDir, markFile), []byte("0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), f, rows, o)
	var gone *LedgerGoneError
	if !errors.As(err, &gone) || !gone.Made || !strings.Contains(err.Error(), "a new one is there now") {
		t.Fatalf("another ledger in its place: %v", err)
	}
}
