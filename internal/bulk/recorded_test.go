package bulk

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/bulk/ledger"
)

// recordedOf is what the ledger of o holds of each of rows, for any run:
// the record a later run of their input takes up.
func recordedOf(t *testing.T, o Options, rows []Row) []*ledger.Recorded {
	t.Helper()
	l, err := ledger.Open(ledger.Options{Dir: o.LedgerDir, Scope: "local"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	keys, _ := rowIdentity(o.ReferencePrefix, withRunOpRows(o.Op, rows))
	out := make([]*ledger.Recorded, len(rows))
	for i, k := range keys {
		if out[i], err = l.Recorded(ledger.MoveID("local", k), func(int64) bool { return true }); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func withRunOpRows(op Op, rows []Row) []Row {
	out := append([]Row(nil), rows...)
	fillOp(op, out)
	return out
}

// writeOldJournal writes, at path, a journal as an earlier bnpl kept it:
// a run record, then recs, each a line.
func writeOldJournal(t *testing.T, path string, recs ...journalRecord) []byte {
	t.Helper()
	var data []byte
	for _, rec := range append([]journalRecord{{Event: eventRun, Op: OpCapture, Format: 1, PID: 1}}, recs...) {
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		data = append(append(data, b...), '\n')
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return data
}

// noJournal fails when a run wrote a journal: the ledger is its only
// record.
func noJournal(t *testing.T, o Options) {
	t.Helper()
	if _, err := os.Stat(o.JournalPath); !os.IsNotExist(err) {
		t.Fatalf("a journal was written at %s: %v", o.JournalPath, err)
	}
}

// movedByOldBnpl captures rows on f as an earlier bnpl did, and returns
// the records its journal kept of them: each row's send, and its result
// unless torn (then the result is cut in the middle, the last line).
func movedByOldBnpl(t *testing.T, f *fakeClient, rows []Row, torn bool) []journalRecord {
	t.Helper()
	rows = withRunOpRows(OpCapture, rows)
	keys, refs := rowIdentity("", rows)
	var recs []journalRecord
	for i, r := range rows {
		ref := firstNonEmpty(r.ReferenceID, refs[i])
		if _, err := f.Capture(context.Background(), r.PaymentID, api.CaptureRequest{Amount: decimal.RequireFromString(r.Amount), ReferenceID: ref}); err != nil {
			t.Fatal(err)
		}
		rec := journalRecord{Op: OpCapture, Key: keys[i], Line: r.Line, PaymentID: r.PaymentID, ReferenceID: ref, Amount: r.Amount}
		send, result := rec, rec
		send.Event, result.Event, result.Outcome = eventSend, eventResult, OutcomeOK
		recs = append(recs, send)
		if !torn || i < len(rows)-1 {
			recs = append(recs, result)
		}
	}
	return recs
}
