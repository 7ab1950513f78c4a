package bulk

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/bnpl-cli/bnpl/internal/api"
)

// warnings collects a run's warnings.
type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) add(msg string) { w.mu.Lock(); w.msgs = append(w.msgs, msg); w.mu.Unlock() }

func (w *warnings) of(word string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, m := range w.msgs {
		if strings.Contains(m, word) {
			out = append(out, m)
		}
	}
	return out
}

// A row whose move the payment holds, sent by no run this ledger knows
// (a second machine, a single command), is held before: counted apart,
// never as this run's, and the run warns once, naming --ledger.
func TestAMoveSentOutsideTheLedgerIsHeldBefore(t *testing.T) {
	f := newFake(t)
	ids := addPayments(f, 3, "AED", "100", api.StatusAuthorized)
	rows := []Row{
		{Line: 2, PaymentID: ids[0], Amount: "10", ReferenceID: "R0"},
		{Line: 3, PaymentID: ids[1], Amount: "20", ReferenceID: "R1"},
		{Line: 4, PaymentID: ids[2], Amount: "30", ReferenceID: "R2"},
	}
	for _, r := range rows[:2] { // another sender moved two of them
		if _, err := f.Capture(context.Background(), r.PaymentID, api.CaptureRequest{Amount: decimal.RequireFromString(r.Amount), ReferenceID: r.ReferenceID}); err != nil {
			t.Fatal(err)
		}
	}
	o := testOptions(t, OpCapture)
	var w warnings
	o.Warn = w.add
	sum, err := Run(context.Background(), f, rows, o)
	if err != nil || sum.OK != 1 || sum.HeldBefore != 2 || sum.Reconciled != 0 {
		t.Fatalf("err %v summary %+v", err, sum)
	}
	if sum.Moved["AED"] != "30.00" || sum.HeldBeforeAmounts["AED"] != "30.00" || len(sum.MovedByEndedRuns) != 0 {
		t.Fatalf("moved %v held before %v ended %v", sum.Moved, sum.HeldBeforeAmounts, sum.MovedByEndedRuns)
	}
	if s := sum.String(); !strings.Contains(s, "1 ok, 0 reconciled, 2 held before, 0 failed") || !strings.Contains(s, "held before this run, moved outside this ledger 30.00 AED") {
		t.Fatalf("summary line %q", s)
	}
	if got := w.of("--ledger"); len(got) != 1 || !strings.Contains(got[0], "moved outside this machine's ledger") {
		t.Fatalf("warnings %q", w.msgs)
	}
	rep := readReport(t, o.ReportPath)
	for _, r := range rep[:2] {
		if r["outcome"] != "held_before" || !strings.Contains(r["message"], "this machine's ledger does not know") {
			t.Fatalf("report %v", r)
		}
	}
	// The ledger records them settled (reconciled: their money held
	// before, counted once), for a later run of the file to take up.
	for i, rec := range recordedOf(t, o, rows) {
		if want := map[bool]string{true: "reconciled", false: "ok"}[i < 2]; rec == nil || rec.Outcome != want {
			t.Fatalf("row %d recorded %+v, want %s", i, rec, want)
		}
	}
	noJournal(t, o)
	// The same file again resumes from the ledger: every row settled by
	// the earlier run, none this run's.
	sum, err = Run(context.Background(), f, rows, o)
	if err != nil || sum.Earlier != 3 || len(sum.Moved) != 0 || len(sum.HeldBeforeAmounts) != 0 {
		t.Fatalf("again: %v %+v", err, sum)
	}
}

// Machines one after another, each with its own ledger and journal: the
// first moves every row, the later ones find them all held before, and
// what every run says it moved adds up to what the service holds.
func TestMachinesOneAfterAnotherAddUp(t *testing.T) {
	f := newFake(t)
	ids := addPayments(f, 4, "AED", "100", api.StatusAuthorized)
	rows := captureRows(ids, "25")
	moved := decimal.Zero
	for m := range 3 {
		o := testOptions(t, OpCapture) // a state directory of its own
		var w warnings
		o.Warn = w.add
		sum, err := Run(context.Background(), f, rows, o)
		if err != nil {
			t.Fatalf("machine %d: %v", m, err)
		}
		moved = moved.Add(total(sum.Moved["AED"]))
		if m > 0 && (sum.HeldBefore != 4 || sum.HeldBeforeAmounts["AED"] != "100.00" || len(w.of("--ledger")) != 1) {
			t.Fatalf("machine %d: %+v, warnings %q", m, sum, w.msgs)
		}
	}
	held := decimal.Zero
	for _, id := range ids {
		held = held.Add(f.payment(id).Captured())
	}
	if !moved.Equal(held) || !held.Equal(decimal.RequireFromString("100")) {
		t.Fatalf("runs said %s, the service holds %s", moved, held)
	}
}

func total(s string) decimal.Decimal {
	if s == "" {
		return decimal.Zero
	}
	return decimal.RequireFromString(s)
}

// An old journal imported on another machine (or after the ledger was
// deleted) records rows settled by a run this ledger does not know:
// whether its summary counted their money, this machine cannot tell. They
// are read again and counted apart as held before, never silently as
// "earlier".
func TestAJournalTheLedgerDoesNotKnowIsHeldBefore(t *testing.T) {
	f := newFake(t)
	ids := addPayments(f, 3, "AED", "100", api.StatusAuthorized)
	rows := captureRows(ids, "40")
	o := testOptions(t, OpCapture)
	writeOldJournal(t, o.JournalPath, movedByOldBnpl(t, f, rows[:2], false)...)
	var w warnings
	o.Warn = w.add
	sum, err := Run(context.Background(), f, rows, o)
	if err != nil || sum.OK != 1 || sum.HeldBefore != 2 || sum.Earlier != 0 || sum.Moved["AED"] != "40.00" || sum.HeldBeforeAmounts["AED"] != "80.00" {
		t.Fatalf("second machine: %v %+v", err, sum)
	}
	if len(w.of("--ledger")) != 1 {
		t.Fatalf("warnings %q", w.msgs)
	}
	rep := readReport(t, o.ReportPath)
	if !strings.Contains(rep[0]["message"], "an earlier run of journal") {
		t.Fatalf("report %v", rep[0])
	}
	f.wantSent(t, "capture", 3)
}

// A row left unknown (an answer lost, a lock) is settled before the run
// ends when the service answers reads: the payment is read, a move it
// shows is this run's, and a move it does not show is sent again with the
// row's reference_id. Exit 0, each move once.
func TestAnUnknownRowIsSettledBeforeTheRunEnds(t *testing.T) {
	f := newFake(t)
	ids := addPayments(f, 2, "AED", "100", api.StatusAuthorized)
	lost, locked := ids[0], ids[1]
	var dropped, refused atomic.Bool
	f.afterCommit = func(_ context.Context, c call) error {
		if c.paymentID == lost && dropped.CompareAndSwap(false, true) {
			return errDropped // committed, the answer lost
		}
		return nil
	}
	f.beforeCommit = func(_ context.Context, c call) error {
		if c.paymentID == locked && refused.CompareAndSwap(false, true) {
			return &fakeErr{status: 409, typ: "conflict", msg: "could not acquire lock: payment is locked", unknown: true}
		}
		return nil
	}
	rows := captureRows(ids, "60")
	o := testOptions(t, OpCapture)
	sum, err := Run(context.Background(), f, rows, o)
	if err != nil || sum.OK != 2 || sum.Unknown != 0 || sum.Moved["AED"] != "120.00" {
		t.Fatalf("err %v summary %+v", err, sum)
	}
	rep := readReport(t, o.ReportPath)
	if rep[0]["outcome"] != "ok" || !strings.Contains(rep[0]["message"], "its outcome was unknown") {
		t.Fatalf("lost row %v", rep[0])
	}
	if rep[1]["outcome"] != "ok" || !strings.Contains(rep[1]["message"], "sent again") {
		t.Fatalf("locked row %v", rep[1])
	}
	for _, id := range ids {
		if p := f.payment(id); len(p.Captures) != 1 || !p.Captured().Equal(decimal.RequireFromString("60")) {
			t.Fatalf("payment %s captures %+v", id, p.Captures)
		}
	}
	if len(f.callsOf("capture")) != 3 || len(f.duplicates()) != 0 {
		t.Fatalf("captures %+v", f.callsOf("capture"))
	}
}

// A row whose amount was edited since it ran is a possible repeat, as one
// whose reason was: the payment holds the move an earlier run of this
// input made under the old row's reference_id. Refused, naming the run,
// row and amount; sent with --allow-repeats; the plan says the same.
func TestAnEditedAmountIsARepeat(t *testing.T) {
	f := newFake(t)
	ids := addPayments(f, 2, "AED", "1000", api.StatusAuthorized)
	o := testOptions(t, OpCapture)
	if _, err := Run(context.Background(), f, captureRows(ids, "250"), o); err != nil {
		t.Fatal(err)
	}
	edited := captureRows(ids, "260")
	sum, err := Run(context.Background(), f, edited, o)
	if exitCode(err) != 11 || sum.Failed != 2 || len(sum.Moved) != 0 {
		t.Fatalf("edited: %v %+v", err, sum)
	}
	rep := readReport(t, o.ReportPath)
	for _, r := range rep {
		if r["error_type"] != ErrorTypeRepeat || !strings.Contains(r["message"], "a capture of 250.00 AED under reference_id bnpl-") ||
			!strings.Contains(r["message"], "line 2 of input.csv") && !strings.Contains(r["message"], "line 3 of input.csv") ||
			!strings.Contains(r["message"], "if this row (260.00 AED) is that capture with its amount edited since it ran") {
			t.Fatalf("report %v", r)
		}
	}
	// The plan, reading the same ledger, refuses them too.
	fillOp(OpCapture, edited)
	var set PaymentSet
	for _, r := range edited {
		set.Add(r)
	}
	pl, err := NewPlanner(context.Background(), f.GetPayment, nil, &set, 2, time.Now(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	pl.OfInput(o.InputName)
	defer pl.NameMovesFrom(o.LedgerDir, "local")()
	for _, r := range edited {
		pl.Check(r)
	}
	plan := pl.Result()
	if plan.RefusedCount != 2 || plan.RepeatsRefused != 2 || !strings.Contains(plan.Refused[0].Message, "made by run 1") {
		t.Fatalf("plan %+v %+v", plan, plan.Refused)
	}
	o.AllowRepeats = true
	var w warnings
	o.Warn = w.add
	if sum, err := Run(context.Background(), f, edited, o); err != nil || sum.OK != 2 || len(w.of("as a new capture of 260.00 AED")) != 2 {
		t.Fatalf("allowed: %v %+v %q", err, sum, w.msgs)
	}
	// Rows still in the file account for their moves: a new row of
	// another amount beside them is no repeat.
	more := []Row{{Line: 2, PaymentID: ids[0], Amount: "250"}, {Line: 3, PaymentID: ids[0], Amount: "260"}, {Line: 4, PaymentID: ids[0], Amount: "30"}}
	// (The same file, its earlier rows taken up as settled.)
	o.AllowRepeats = false
	if sum, err := Run(context.Background(), f, more, o); err != nil || sum.OK != 3 || sum.Earlier != 2 || sum.Moved["AED"] != "30.00" {
		t.Fatalf("a new row beside the old: %v %+v", err, sum)
	}
}

// An old journal cut short (truncated) while a run wrote to it is a
// journal bnpl wrote, never "a file bnpl did not write": cut inside its
// first record, it imports nothing (a torn line); cut and then written
// to (the run appended after the cut), the records after the cut are
// imported.
func TestAJournalCutShortIsNoForeignFile(t *testing.T) {
	f := newFake(t)
	ids := addPayments(f, 2, "AED", "100", api.StatusAuthorized)
	rows := captureRows(ids, "10")
	o := testOptions(t, OpCapture)
	data := writeOldJournal(t, o.JournalPath, movedByOldBnpl(t, f, rows, false)...)
	first := strings.IndexByte(string(data), '\n')
	// Cut inside the first record, nothing after it.
	if err := os.WriteFile(o.JournalPath, data[:first/2], 0o600); err != nil {
		t.Fatal(err)
	}
	if sum, err := Run(context.Background(), f, rows, o); err != nil || sum.HeldBefore != 2 {
		t.Fatalf("cut in its first record: %v %+v", err, sum)
	}
	// Cut inside the first record, then the rest written after the cut.
	cut := append(append([]byte{}, data[:first/2]...), data[first+1:]...)
	if err := os.WriteFile(o.JournalPath, cut, 0o600); err != nil {
		t.Fatal(err)
	}
	sum, err := Run(context.Background(), f, rows, o)
	if err != nil || sum.Earlier != 2 || len(f.callsOf("capture")) != 2 {
		t.Fatalf("cut, then written: %v %+v", err, sum)
	}
}

// A repeat the service refused, the move found made between the read
// under the claim and the send (another sender, outside this ledger), is
// held before and warned of; a close so found moves no money and stays
// reconciled.
func TestARepeatTheServiceRefusedIsHeldBefore(t *testing.T) {
	f := newFake(t)
	ids := addPayments(f, 2, "AED", "100", api.StatusAuthorized)
	f.madeBefore = map[string]bool{ids[0]: true, ids[1]: true}
	o := testOptions(t, OpCapture)
	var w warnings
	o.Warn = w.add
	sum, err := Run(context.Background(), f, captureRows(ids[:1], "25"), o)
	if err != nil || sum.HeldBefore != 1 || len(sum.Moved) != 0 || sum.HeldBeforeAmounts["AED"] != "25.00" || len(w.of("--ledger")) != 1 {
		t.Fatalf("capture: %v %+v %q", err, sum, w.msgs)
	}
	o = testOptions(t, OpClose)
	var wc warnings
	o.Warn = wc.add
	sum, err = Run(context.Background(), f, []Row{{Line: 2, PaymentID: ids[1]}}, o)
	if err != nil || sum.Reconciled != 1 || sum.HeldBefore != 0 || len(wc.msgs) != 0 {
		t.Fatalf("close: %v %+v %q", err, sum, wc.msgs)
	}
}

// failingWriter is a stderr whose reader has gone: every write fails.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// A summary line that cannot be written (stderr's reader gone) has shown
// the run's money nowhere: the run is not marked summarized, so the next
// run of the journal counts that money for it, as with -o json.
func TestASummaryLineNotWrittenIsNotSummarized(t *testing.T) {
	f := newFake(t)
	ids := addPayments(f, 2, "AED", "100", api.StatusAuthorized)
	rows := captureRows(ids, "30")
	o := testOptions(t, OpCapture)
	o.Progress = failingWriter{}
	if _, err := Run(context.Background(), f, rows, o); err == nil || !strings.Contains(err.Error(), "broken pipe") {
		t.Fatalf("a summary not written: %v", err)
	}
	o.Progress = io.Discard
	sum, err := Run(context.Background(), f, rows, o)
	if err != nil || sum.MovedByEndedRuns["AED"] != "60.00" || len(sum.Moved) != 0 {
		t.Fatalf("the next run: %v %+v", err, sum)
	}
	sum, err = Run(context.Background(), f, rows, o)
	if err != nil || sum.Earlier != 2 || len(sum.MovedByEndedRuns) != 0 {
		t.Fatalf("the run after: %v %+v", err, sum)
	}
	f.wantSent(t, "capture", 2)
}

// A run that writes its summary nowhere (--quiet without -o json: no
// summary line, no JSON) is not marked summarized: the next run that finds
// its moves counts them for it, once.
func TestAQuietRunIsNotSummarized(t *testing.T) {
	f := newFake(t)
	ids := addPayments(f, 2, "AED", "100", api.StatusAuthorized)
	rows := captureRows(ids, "30")
	o := testOptions(t, OpCapture)
	o.Progress = nil
	sum, err := Run(context.Background(), f, rows, o)
	if err != nil || sum.Moved["AED"] != "60.00" {
		t.Fatalf("the quiet run: %v %+v", err, sum)
	}
	o.Progress = io.Discard
	sum, err = Run(context.Background(), f, rows, o)
	if err != nil || sum.MovedByEndedRuns["AED"] != "60.00" || len(sum.Moved) != 0 {
		t.Fatalf("the next run: %v %+v", err, sum)
	}
	sum, err = Run(context.Background(), f, rows, o)
	if err != nil || sum.Earlier != 2 || len(sum.MovedByEndedRuns) != 0 {
		t.Fatalf("the run after: %v %+v", err, sum)
	}
	// With a summary written elsewhere (the JSON summary), it is marked.
	o = testOptions(t, OpCapture)
	o.Progress = nil
	var wrote Summary
	o.WriteSummary = func(s Summary) error { wrote = s; return nil }
	rows = captureRows(addPayments(f, 1, "AED", "100", api.StatusAuthorized), "10")
	if _, err := Run(context.Background(), f, rows, o); err != nil || wrote.Moved["AED"] != "10.00" {
		t.Fatalf("-o json -q: %v %+v", err, wrote)
	}
	o.WriteSummary = nil
	o.Progress = io.Discard
	if sum, err := Run(context.Background(), f, rows, o); err != nil || sum.Earlier != 1 || len(sum.MovedByEndedRuns) != 0 {
		t.Fatalf("after -o json -q: %v %+v", err, sum)
	}
}
