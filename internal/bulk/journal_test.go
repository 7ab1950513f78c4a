package bulk

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/bulk/ledger"
)

// An old journal (kept by an earlier bnpl beside the input) is imported
// into the ledger by the first run that finds it, torn last line and all,
// and left as it was: the rows it records sent are read before anything
// is sent, their moves found made (held before: this ledger did not send
// them). Found again, here or copied elsewhere, it is not imported twice.
func TestAnOldJournalIsImportedOnceAndLeftAsItWas(t *testing.T) {
	f := newFake(t)
	ids := addPayments(f, 2, "AED", "100", api.StatusAuthorized)
	rows := captureRows(ids, "10")
	o := testOptions(t, OpCapture)
	recs := movedByOldBnpl(t, f, rows, true)
	data := writeOldJournal(t, o.JournalPath, recs...)
	torn, _ := json.Marshal(journalRecord{Event: eventResult, Op: OpCapture, Key: recs[len(recs)-1].Key, Outcome: OutcomeOK})
	data = append(data, torn[:len(torn)/2]...)
	if err := os.WriteFile(o.JournalPath, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var notices []string
	o.Notice = func(format string, args ...any) { notices = append(notices, fmt.Sprintf(format, args...)) }
	sum, err := Run(context.Background(), f, rows, o)
	if err != nil || sum.HeldBefore != 2 || len(sum.Moved) != 0 {
		t.Fatalf("resume: err %v, summary %+v", err, sum)
	}
	if len(notices) != 2 || !strings.Contains(notices[0], "imported into the ledger of bulk moves (2 rows)") ||
		!strings.Contains(notices[0], "left as it was") {
		t.Fatalf("notices %q", notices)
	}
	if got, _ := os.ReadFile(o.JournalPath); !bytes.Equal(got, data) {
		t.Fatal("the journal was changed")
	}
	if n := len(f.callsOf("capture")); n != 2 {
		t.Fatalf("%d captures, want the old bnpl's 2", n)
	}
	notices = nil
	if sum, err := Run(context.Background(), f, rows, o); err != nil || sum.Earlier != 2 || len(notices) != 0 {
		t.Fatalf("again: %v %+v %q", err, sum, notices)
	}
	copied := filepath.Join(t.TempDir(), "copied.journal")
	copyFile(t, o.JournalPath, copied)
	o.JournalPath = copied
	if sum, err := Run(context.Background(), f, rows, o); err != nil || sum.Earlier != 2 || len(notices) != 0 {
		t.Fatalf("copied: %v %+v %q", err, sum, notices)
	}
}

func TestDamagedJournalLineStopsTheRun(t *testing.T) {
	f := newFake(t)
	ids := addPayments(f, 1, "AED", "100", api.StatusAuthorized)
	o := testOptions(t, OpCapture)
	content := `{"event":"run","op":"capture","format":1,"pid":` + strconv.Itoa(os.Getpid()) + `,"at":"2026-11-21T12:00:00Z"}` + "\n" +
		"garbage\n" +
		`{"event":"run","op":"capture","format":1,"pid":` + strconv.Itoa(os.Getpid()) + `,"at":"2026-11-21T12:00:00Z"}` + "\n"
	if err := os.WriteFile(o.JournalPath, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), f, captureRows(ids, "10"), o)
	if err == nil || !strings.Contains(err.Error(), "line 2 is damaged") {
		t.Fatalf("err = %v", err)
	}
	if len(f.calls) != 0 {
		t.Fatal("rows were sent despite a damaged journal")
	}
}

// A run keeps its record in the ledger alone: each move's send (the
// reference_id and the amount sent) and its outcome, which a later run of
// the input takes up. No journal is written.
func TestTheLedgerHoldsTheRun(t *testing.T) {
	f := newFake(t)
	id := f.add("AED", "100", api.StatusAuthorized)
	o := testOptions(t, OpCapture)
	rows := []Row{{Line: 2, PaymentID: id, Amount: "40.00", ReferenceID: "order-7"}}
	if _, err := Run(context.Background(), f, rows, o); err != nil {
		t.Fatal(err)
	}
	rec := recordedOf(t, o, rows)[0]
	want := ledger.Recorded{SentRef: "order-7", SentAmount: "40.00", Outcome: "ok", ReferenceID: "order-7", Amount: "40.00", PaymentStatus: "AUTHORIZED"}
	if rec == nil || *rec != want {
		t.Fatalf("recorded %+v, want %+v", rec, want)
	}
	noJournal(t, o)
}

func TestRowKeys(t *testing.T) {
	a := Row{Line: 2, PaymentID: pidA, Amount: "100.00"}
	b := Row{Line: 3, PaymentID: pidB, Amount: "5"}
	base := rowKeys(OpCapture, []Row{a, b})

	// Another row inserted before them, lines shifted: their keys hold.
	inserted := rowKeys(OpCapture, []Row{{Line: 2, PaymentID: pidB, Amount: "7"}, {Line: 3, PaymentID: pidA, Amount: "100.00"}, {Line: 4, PaymentID: pidB, Amount: "5"}})
	if inserted[1] != base[0] || inserted[2] != base[1] {
		t.Error("inserting a row changed the keys of the others")
	}
	// The same amount written differently is the same row.
	if k := rowKeys(OpCapture, []Row{{PaymentID: pidA, Amount: "100"}}); k[0] != base[0] {
		t.Error("100 and 100.00 have different keys")
	}
	// An edited row is a new row, and so is the same row for another op.
	if k := rowKeys(OpCapture, []Row{{PaymentID: pidA, Amount: "100.01"}}); k[0] == base[0] {
		t.Error("an edited amount kept its key")
	}
	if k := rowKeys(OpRefund, []Row{a}); k[0] == base[0] {
		t.Error("capture and refund rows share a key")
	}
	// Two identical rows, two partial captures, are two rows.
	if k := rowKeys(OpCapture, []Row{a, a}); k[0] == k[1] {
		t.Error("identical rows share a key")
	}
}

func rowKeys(op Op, rows []Row) []string {
	keys, _ := rowIdentity("", withOp(op, rows))
	return keys
}

// withOp is rows, copied, each making op.
func withOp(op Op, rows []Row) []Row {
	out := append([]Row(nil), rows...)
	for i := range out {
		out[i].Op = op
	}
	return out
}
