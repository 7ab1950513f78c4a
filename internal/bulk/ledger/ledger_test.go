package ledger

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/bulk/ledger/pgtest"
)

const (
	pidA = "6f1c2a9e-0b8d-4c3e-9a51-2d7f4e8b1c06"
	pidB = "0a7d4b1e-5c2f-4e8a-b3d9-71c6e2f05a48"
)

// die ends l's run as a kill does: what says it lives goes, and nothing
// else (a PostgreSQL run's session is ended by the server, which waits
// until it is gone).
func die(t *testing.T, l *Ledger) {
	t.Helper()
	switch h := l.half.(type) {
	case *sqliteHalf:
		_ = h.lock.Close()
	case *pgHalf:
		var pid int
		if err := h.conn.QueryRowContext(context.Background(), "SELECT pg_backend_pid()").Scan(&pid); err != nil {
			t.Fatal(err)
		}
		var ended bool
		if err := h.db.QueryRow("SELECT pg_terminate_backend($1, 30000)", pid).Scan(&ended); err != nil || !ended {
			t.Fatalf("ending run %d's session: %v", l.run, err)
		}
	}
}

// openTestLedger is a run recorded in the SQLite ledger in dir.
func openTestLedger(t *testing.T, dir string) *Ledger {
	t.Helper()
	return openRun(t, Options{Dir: dir, Scope: "scope"})
}

// openRun is a run recorded in the ledger o names, closed when t ends.
func openRun(t *testing.T, o Options) *Ledger {
	t.Helper()
	l, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.BeginRun("capture", "caps.csv", "caps.journal"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	return l
}

// opener opens a run of the test's ledger, whose clock is now (nil: the
// machine's).
type opener func(now func() time.Time) *Ledger

// eachHalf runs the contract test fn against a SQLite ledger of its own
// and a PostgreSQL one: the same schema and transactions must behave the
// same in both.
func eachHalf(t *testing.T, fn func(t *testing.T, open opener)) {
	t.Run("sqlite", func(t *testing.T) {
		dir := t.TempDir()
		fn(t, func(now func() time.Time) *Ledger { return openRun(t, Options{Dir: dir, Scope: "scope", Now: now}) })
	})
	t.Run("postgres", func(t *testing.T) {
		url := pgtest.Get(t).NewDatabase(t)
		fn(t, func(now func() time.Time) *Ledger { return openRun(t, Options{URL: url, Scope: "scope", Now: now}) })
	})
}

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Done()
	os.Exit(code)
}

// A payment is claimed by one live run at a time: another waits, told
// which run holds it; a claim of a run that is no longer alive (its lock
// released, as a kill does) is taken over.
func TestClaimsAreHeldByOneLiveRun(t *testing.T) {
	eachHalf(t, func(t *testing.T, open opener) {
		alice, bob := open(nil), open(nil)
		if holder, _, err := alice.tryClaim(pidA, true); err != nil || holder != nil {
			t.Fatalf("alice's claim: holder %v, err %v", holder, err)
		}
		holder, _, err := bob.tryClaim(pidA, true)
		if err != nil || holder == nil || holder.ID != alice.run || holder.Input != "caps.csv" {
			t.Fatalf("bob's claim of alice's payment: holder %+v, err %v", holder, err)
		}
		if holder, _, err := bob.tryClaim(pidB, true); err != nil || holder != nil {
			t.Fatalf("bob's claim of another payment: holder %v, err %v", holder, err)
		}
		// Waiting ends with the run's context, having said whom it waits for.
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		var told []int64
		if _, err := bob.Claim(ctx, pidA, true, func(h *RunInfo) { told = append(told, h.ID) }); err == nil || len(told) != 1 || told[0] != alice.run {
			t.Fatalf("bob's wait: err %v, told %v", err, told)
		}
		// Alice is killed: her lock goes with her process; her claim stays
		// in the ledger, and is taken over.
		die(t, alice)
		if holder, kept, err := bob.tryClaim(pidA, true); err != nil || holder != nil || kept {
			t.Fatalf("bob's claim after alice died: holder %v, kept %v, err %v", holder, kept, err)
		}
		// Given back and taken again with no other run in between, bob's
		// knowledge of the payment is kept; once alice had it, it is not.
		if err := bob.Release(pidA); err != nil {
			t.Fatal(err)
		}
		if _, kept, err := bob.tryClaim(pidA, true); err != nil || !kept {
			t.Fatalf("bob's claim again: kept %v, err %v", kept, err)
		}
		if err := bob.Release(pidB); err != nil {
			t.Fatal(err)
		}
		carol := open(nil)
		if _, kept, err := carol.tryClaim(pidB, true); err != nil || kept {
			t.Fatalf("carol's claim: kept %v, err %v", kept, err)
		}
		_ = carol.Release(pidB)
		if _, kept, err := bob.tryClaim(pidB, true); err != nil || kept {
			t.Fatalf("bob's claim after carol's: kept %v, err %v", kept, err)
		}
	})
}

// A move sent by a run that died before it recorded the answer is
// adopted once, by the first run that finds it; a live run's, or a
// summarized run's confirmed one, never.
func TestAMoveOfAKilledRunIsAdoptedOnce(t *testing.T) {
	eachHalf(t, func(t *testing.T, open opener) {
		killed, first, second := open(nil), open(nil), open(nil)
		id := MoveID("scope", "key-1")
		if err := killed.PlanRows([]PlannedRow{{Seq: 1, Line: 2, MoveID: id, Op: "capture", PaymentID: pidA, ReferenceID: "R1", Amount: "10.00", MoveAmount: "10.00"}}); err != nil {
			t.Fatal(err)
		}
		if err := killed.MarkSent(id, "R1", "10.00"); err != nil {
			t.Fatal(err)
		}
		if ended := first.Adopt(id); ended != nil {
			t.Fatalf("adopted from a live run %d", ended.ID)
		}
		die(t, killed)
		if ended := first.Adopt(id); ended == nil || ended.ID != killed.run {
			t.Fatalf("first adoption: %v", ended)
		}
		if ended := second.Adopt(id); ended != nil {
			t.Fatalf("adopted twice, by %d too", second.run)
		}
		// The adopting run's settle confirms the move, as the killed run's.
		res := Row{Line: 2, Op: "capture", PaymentID: pidA, ReferenceID: "R1", Amount: "10.00", Currency: "AED",
			Outcome: "reconciled", Adopted: true, ByRun: killed.run}
		if err := first.PlanRows([]PlannedRow{{Seq: 1, Line: 2, MoveID: id, Op: "capture", PaymentID: pidA, ReferenceID: "R1", Amount: "10.00", MoveAmount: "10.00"}}); err != nil {
			t.Fatal(err)
		}
		if err := first.Settle(1, id, res, PhaseConfirmed, "caps.csv"); err != nil {
			t.Fatal(err)
		}
		if _, run := second.MadeBy(pidA, "capture", "R1"); run != killed.run {
			t.Fatalf("madeBy names run %d, want the killed run %d", run, killed.run)
		}
		var rows []Row
		if err := first.EachRunRow(func(r Row) error { rows = append(rows, r); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1 || !rows[0].Adopted || rows[0].Moved || rows[0].ByRun != killed.run || rows[0].Amount != "10.00" {
			t.Fatalf("the adopting run's rows: %+v", rows)
		}
	})
}

// The ledger forgets, at most once a day, the rows of runs that ended a
// week ago and the moves settled three months ago.
func TestLedgerPrunesWhatItNoLongerNeeds(t *testing.T) {
	eachHalf(t, func(t *testing.T, open opener) {
		now := time.Now()
		old := open(func() time.Time { return now.Add(-100 * 24 * time.Hour) })
		id := MoveID("scope", "old")
		if err := old.PlanRows([]PlannedRow{{Seq: 1, Line: 2, MoveID: id, Op: "capture", PaymentID: pidA, ReferenceID: "R1", Amount: "1", MoveAmount: "1"}}); err != nil {
			t.Fatal(err)
		}
		if err := old.Settle(1, id, Row{Outcome: "ok", Moved: true, Currency: "AED", Amount: "1.00"}, PhaseConfirmed, "old.csv"); err != nil {
			t.Fatal(err)
		}
		old.Close()
		count := func(l *Ledger, table string) (n int) {
			_ = l.db.QueryRow("SELECT count(*) FROM " + table).Scan(&n)
			return n
		}
		fresh := open(nil) // its beginRun prunes
		if n := count(fresh, "moves"); n != 0 {
			t.Fatalf("%d old moves kept", n)
		}
		if n := count(fresh, "run_rows"); n != 0 {
			t.Fatalf("%d rows of an old run kept", n)
		}
	})
}

// A run that adopts a killed run's move and is killed in turn before its
// summary counted nothing: the move is adopted again by the next run that
// finds it, and by no other once that run has made its summary.
func TestAMoveAdoptedByARunKilledBeforeItsSummaryIsAdoptedAgain(t *testing.T) {
	eachHalf(t, func(t *testing.T, open opener) {
		killed, adopter, next, last := open(nil), open(nil), open(nil), open(nil)
		id := MoveID("scope", "key-1")
		if err := killed.PlanRows([]PlannedRow{{Seq: 1, Line: 2, MoveID: id, Op: "capture", PaymentID: pidA, ReferenceID: "R1", Amount: "10.00", MoveAmount: "10.00"}}); err != nil {
			t.Fatal(err)
		}
		if err := killed.MarkSent(id, "R1", "10.00"); err != nil {
			t.Fatal(err)
		}
		die(t, killed)
		if ended := adopter.Adopt(id); ended == nil || ended.ID != killed.run {
			t.Fatalf("first adoption: %v", ended)
		}
		if ended := next.Adopt(id); ended != nil {
			t.Fatalf("adopted from run %d while its adopter lives", ended.ID)
		}
		die(t, adopter) // killed before its summary
		if ended := next.Adopt(id); ended == nil || ended.ID != killed.run {
			t.Fatalf("adoption after the adopter was killed: %v, want the move counted for run %d", ended, killed.run)
		}
		if err := next.Summarized(); err != nil {
			t.Fatal(err)
		}
		die(t, next) // ended after its summary: it counted the move
		if ended := last.Adopt(id); ended != nil {
			t.Fatalf("adopted again from run %d although run %d's summary counted it", ended.ID, next.run)
		}
	})
}

// A ledger that is not a database stops the run before anything is sent,
// exit 12, saying what to do; so does one bnpl cannot write.
func TestALedgerThatCannotBeUsedSaysWhatToDo(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	if err := os.WriteFile(path, bytes.Repeat([]byte("not a database "), 100), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(Options{Dir: dir, Scope: "scope", Now: time.Now})
	var le *Error
	if !errors.As(err, &le) || le.ExitCode() != 12 || le.access || !strings.Contains(le.Hint(), "mv "+path+" "+path+".damaged") {
		t.Fatalf("a damaged ledger: %v (%#v)", err, le)
	}
	if !strings.Contains(err.Error(), "nothing was sent") {
		t.Errorf("the error does not say nothing was sent: %v", err)
	}
	if le := (&sqliteHalf{path: path}).fail(fs.ErrPermission); !le.access || !strings.Contains(le.Hint(), "XDG_STATE_HOME") {
		t.Errorf("a ledger bnpl may not write: hint %q", le.Hint())
	}
}

// A run that finds made a move another live run sent with no answer yet
// (its outcome unknown) neither moved nor adopted it: the move stays that
// run's send, so that once that run has ended without counting it, the
// next run that finds it counts it for it.
func TestAMoveFoundMadeWhileItsSenderLivesStaysItsSend(t *testing.T) {
	eachHalf(t, func(t *testing.T, open opener) {
		sender, finder, next := open(nil), open(nil), open(nil)
		id := MoveID("scope", "key-1")
		row := []PlannedRow{{Seq: 1, Line: 2, MoveID: id, Op: "capture", PaymentID: pidA, ReferenceID: "R1", Amount: "10.00", MoveAmount: "10.00"}}
		for _, l := range []*Ledger{sender, finder} {
			if err := l.PlanRows(row); err != nil {
				t.Fatal(err)
			}
		}
		if err := sender.MarkSent(id, "R1", "10.00"); err != nil {
			t.Fatal(err)
		}
		unknown := Row{Line: 2, Op: "capture", PaymentID: pidA, ReferenceID: "R1", Amount: "10.00", Currency: "AED", Outcome: "unknown"}
		if err := sender.Settle(1, id, unknown, PhaseUnknown, "caps.csv"); err != nil {
			t.Fatal(err)
		}
		if ended := finder.Adopt(id); ended != nil {
			t.Fatalf("adopted from the live run %d", ended.ID)
		}
		if sent := finder.InDoubt(id); sent == nil || sent.ID != sender.run {
			t.Fatalf("the run that sent the move: %v, want run %d", sent, sender.run)
		}
		found := Row{Line: 2, Op: "capture", PaymentID: pidA, ReferenceID: "R1", Amount: "10.00", Currency: "AED", Outcome: "reconciled"}
		if err := finder.Settle(1, id, found, PhaseConfirmed, "copy.csv"); err != nil {
			t.Fatal(err)
		}
		if who, _ := next.MadeBy(pidA, "capture", "R1"); who != "" {
			t.Errorf("the move is said made by %s", who)
		}
		// The sender ends with the row unknown: its summary did not count it.
		if err := sender.Summarized(); err != nil {
			t.Fatal(err)
		}
		die(t, sender)
		if ended := next.Adopt(id); ended == nil || ended.ID != sender.run {
			t.Fatalf("adoption once the sender ended: %v, want run %d", ended, sender.run)
		}
	})
}

// A run whose ledger was deleted or replaced while it went on (the state
// directory cleaned), or whose lock file was, claims and sends nothing
// more: the runs that start now would not see its claims, or would take
// it for ended.
func TestARunWhoseLedgerIsRemovedStops(t *testing.T) {
	for _, remove := range []string{FileName, "lock"} {
		t.Run(remove, func(t *testing.T) {
			dir := t.TempDir()
			l := openTestLedger(t, dir)
			if _, _, err := l.tryClaim(pidA, true); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, remove)
			if remove == "lock" {
				path = l.half.(*sqliteHalf).lockPath
			}
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			var le *Error
			if _, _, err := l.tryClaim(pidB, true); !errors.As(err, &le) || !le.gone {
				t.Fatalf("a claim after %s was removed: %v", remove, err)
			}
			if err := l.MarkSent(MoveID("scope", "k"), "R1", "1.00"); !errors.As(err, &le) || !strings.Contains(le.Hint(), "run the same command again") {
				t.Fatalf("a send after %s was removed: %v", remove, err)
			}
		})
	}
}

// The service applies a reference_id once per payment, so two moves of
// the ledger with the same payment, op and reference_id (a row given its
// own reference_id, its reason edited since) are one move on the service:
// a run killed while it sent one is counted for by the finder of the
// other, once; and one a run counted is adopted by no one.
func TestMovesOfOneReferenceIDAreAdoptedAsOne(t *testing.T) {
	eachHalf(t, func(t *testing.T, open opener) {
		killed, finder, later := open(nil), open(nil), open(nil)
		sent, edited := MoveID("scope", "damagd"), MoveID("scope", "damaged")
		plan := func(l *Ledger, id string) {
			t.Helper()
			if err := l.PlanRows([]PlannedRow{{Seq: 1, Line: 2, MoveID: id, Op: "refund", PaymentID: pidA, ReferenceID: "R1", Amount: "5.00", MoveAmount: "5.00"}}); err != nil {
				t.Fatal(err)
			}
		}
		plan(killed, sent)
		if err := killed.MarkSent(sent, "R1", "5.00"); err != nil {
			t.Fatal(err)
		}
		die(t, killed)
		plan(finder, edited)
		if ended := finder.Adopt(edited); ended == nil || ended.ID != killed.run {
			t.Fatalf("the finder of the edited row adopted %v, want the killed run %d", ended, killed.run)
		}
		plan(later, sent)
		for _, id := range []string{sent, edited} {
			if ended := later.Adopt(id); ended != nil {
				t.Fatalf("adopted twice, by run %d too", later.run)
			}
		}

		// A move a run moved and counted: its twin sent by a killed run is
		// the same money, adopted by no one.
		mover, twin, finder2 := open(nil), open(nil), open(nil)
		counted, inFlight := MoveID("scope", "c1"), MoveID("scope", "c2")
		for _, m := range []struct {
			l  *Ledger
			id string
		}{{mover, counted}, {twin, inFlight}} {
			if err := m.l.PlanRows([]PlannedRow{{Seq: 1, Line: 2, MoveID: m.id, Op: "capture", PaymentID: pidB, ReferenceID: "C1", Amount: "9.00", MoveAmount: "9.00"}}); err != nil {
				t.Fatal(err)
			}
			if err := m.l.MarkSent(m.id, "C1", "9.00"); err != nil {
				t.Fatal(err)
			}
		}
		ok := Row{Line: 2, Op: "capture", PaymentID: pidB, ReferenceID: "C1", Amount: "9.00", Currency: "AED", Outcome: "ok", Moved: true}
		if err := mover.Settle(1, counted, ok, PhaseConfirmed, "caps.csv"); err != nil {
			t.Fatal(err)
		}
		if err := mover.Summarized(); err != nil {
			t.Fatal(err)
		}
		die(t, mover)
		die(t, twin)
		if ended := finder2.Adopt(inFlight); ended != nil {
			t.Fatalf("adopted run %d's send, whose move run %d counted", ended.ID, mover.run)
		}
	})
}
