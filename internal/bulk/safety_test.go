package bulk

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/bnpl-cli/bnpl/internal/api"
)

func TestDerivedReferenceIDsAreTheSameForEveryRunOfAFile(t *testing.T) {
	rows := []Row{
		{Line: 2, PaymentID: pidA, Amount: "10.00"},
		{Line: 3, PaymentID: pidA, Amount: "10"}, // the same move again: a second capture
		{Line: 4, PaymentID: pidB, Amount: "10.00", ReferenceID: "own"},
	}
	_, refs := rowIdentity("", withOp(OpCapture, rows))
	if !strings.HasPrefix(refs[0], "bnpl-") || len(refs[0]) != len("bnpl-")+24 || refs[0] == refs[1] || refs[2] != "" {
		t.Fatalf("refs %q", refs)
	}
	// Moved lines, another run: the same references.
	moved := []Row{{Line: 9, PaymentID: pidB, Amount: "10.00", ReferenceID: "own"}, {Line: 10, PaymentID: pidA, Amount: "10.0"}, {Line: 11, PaymentID: pidA, Amount: "10.00"}}
	_, again := rowIdentity("", withOp(OpCapture, moved))
	if again[1] != refs[0] || again[2] != refs[1] {
		t.Fatalf("moved rows got %q, want %q", again, refs)
	}
	// Another op, another prefix: other references.
	if _, r := rowIdentity("", withOp(OpRefund, rows)); r[0] == refs[0] {
		t.Error("refund and capture share a reference")
	}
	keys, r := rowIdentity("run2", withOp(OpCapture, rows))
	if !strings.HasPrefix(r[0], "run2-") || r[0][len("run2-"):] != refs[0][len("bnpl-"):] {
		t.Errorf("prefixed ref %q", r[0])
	}
	if base := rowKeys(OpCapture, rows); keys[0] == base[0] || keys[2] != base[2] {
		t.Error("a new prefix must give rows without a reference_id new journal keys, and only them")
	}
	if _, r := rowIdentity("", withOp(OpClose, []Row{{PaymentID: pidA}})); r[0] != "" {
		t.Errorf("close ref %q", r[0])
	}
	for _, bad := range []string{"", "a b", strings.Repeat("x", 33), "ü"} {
		if CheckReferencePrefix(bad) == "" {
			t.Errorf("prefix %q accepted", bad)
		}
	}
}

func TestTwoRunsWithoutAJournalCaptureOnce(t *testing.T) {
	f := newFake(t)
	ids := addPayments(f, 5, "AED", "100", api.StatusAuthorized)
	rows := captureRows(ids, "10")
	for range 2 {
		o := testOptions(t, OpCapture) // a journal of its own each time
		if _, err := Run(context.Background(), f, rows, o); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range ids {
		if n := len(f.payment(id).Captures); n != 1 {
			t.Fatalf("payment %s has %d captures", id, n)
		}
	}
}

// Two runs of one input at once (no journal holds them apart any more)
// both go on: the ledger's claims let one run at a time send a payment's
// moves, and the run that comes second to a payment finds its move made.
func TestASecondRunOfAnInputAtOnceMovesNothingTwice(t *testing.T) {
	f := newFake(t)
	ids := addPayments(f, 2, "AED", "100", api.StatusAuthorized)
	o := testOptions(t, OpCapture)
	first, err := Prepare(captureRows(ids, "10"), o)
	if err != nil {
		t.Fatal(err)
	}
	second := o
	second.ReportPath = filepath.Join(t.TempDir(), "second.csv")
	if sum, err := Run(context.Background(), f, captureRows(ids, "10"), second); err != nil || sum.OK != 2 {
		t.Fatalf("the second run: %v %+v", err, sum)
	}
	sum, err := first.Run(context.Background(), f)
	if err != nil || sum.OK != 0 || sum.Reconciled+sum.Earlier != 2 || len(sum.Moved) != 0 {
		t.Fatalf("the first run: %v %+v", err, sum)
	}
	f.wantSent(t, "capture", 2)
}

func TestAFileThatIsNotAJournalIsNeverTruncated(t *testing.T) {
	f := newFake(t)
	ids := addPayments(f, 1, "AED", "100", api.StatusAuthorized)
	for name, content := range map[string]string{
		"no newline":    "payment_id,amount",
		"csv":           "payment_id,amount\n" + ids[0] + ",10\nhalf",
		"json not ours": `{"event":"send","key":"k"}` + "\n",
	} {
		o := testOptions(t, OpCapture)
		if err := os.WriteFile(o.JournalPath, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Run(context.Background(), f, captureRows(ids, "10"), o)
		var je *JournalError
		if !errors.As(err, &je) || exitCode(err) != 2 || !strings.Contains(err.Error(), "is not a bnpl journal") {
			t.Fatalf("%s: err %v", name, err)
		}
		if got, _ := os.ReadFile(o.JournalPath); string(got) != content {
			t.Fatalf("%s: the file was changed to %q", name, got)
		}
		if _, err := os.Stat(o.ReportPath); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s: a report was written", name)
		}
	}
	f.wantSent(t, "capture", 0)
}

func TestAJournalOthersCanReadIsRefused(t *testing.T) {
	f := newFake(t)
	ids := addPayments(f, 1, "AED", "100", api.StatusAuthorized)
	o := testOptions(t, OpCapture)
	if err := os.WriteFile(o.JournalPath, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(o.JournalPath, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), f, captureRows(ids, "10"), o)
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "can be read or written by others") {
		t.Fatalf("err %v", err)
	}
	o.JournalPath = t.TempDir()
	if _, err := Run(context.Background(), f, captureRows(ids, "10"), o); exitCode(err) != 2 || !strings.Contains(err.Error(), "is not a regular file") {
		t.Fatalf("directory: err %v", err)
	}
	f.wantSent(t, "capture", 0)
}

func TestTheReportReplacesALinkInsteadOfWritingThroughIt(t *testing.T) {
	f := newFake(t)
	ids := addPayments(f, 1, "AED", "100", api.StatusAuthorized)
	o := testOptions(t, OpCapture)
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, o.ReportPath); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), f, captureRows(ids, "10"), o); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(victim); string(got) != "keep me" {
		t.Fatalf("the link's target was written: %q", got)
	}
	info, err := os.Lstat(o.ReportPath)
	if err != nil || !info.Mode().IsRegular() || info.Mode().Perm() != 0o600 {
		t.Fatalf("report %v %v", info, err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(o.ReportPath), ".*.tmp")); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

func TestAReusedReferenceIDIsAFailedRow(t *testing.T) {
	f := newFake(t)
	ids := addPayments(f, 2, "AED", "100", api.StatusAuthorized)
	if _, err := f.Capture(context.Background(), ids[0], api.CaptureRequest{Amount: decimal.RequireFromString("7"), ReferenceID: "R1"}); err != nil {
		t.Fatal(err)
	}
	rows := []Row{
		{Line: 2, PaymentID: ids[0], Amount: "8.00", ReferenceID: "R1"},
		{Line: 3, PaymentID: ids[0], Amount: "7.00", ReferenceID: "R1-again"},
		{Line: 4, PaymentID: ids[1], Amount: "5.00"},
	}
	o := testOptions(t, OpCapture)
	sum, err := Run(context.Background(), f, rows, o)
	if exitCode(err) != 11 || sum.Failed != 1 || sum.OK != 2 {
		t.Fatalf("err %v summary %+v", err, sum)
	}
	rep := readReport(t, o.ReportPath)
	if rep[0]["outcome"] != "failed" || rep[0]["error_type"] != "reference_conflict" ||
		!strings.Contains(rep[0]["message"], "reference_id R1 was already used on payment "+ids[0]+" for a capture of 7.00 AED (asked now: 8.00 AED): nothing was moved") {
		t.Fatalf("report %v", rep[0])
	}
	if got := f.payment(ids[0]).Captured(); !got.Equal(decimal.RequireFromString("14")) {
		t.Fatalf("captured %s", got)
	}
	// The same row with the same amount is done, not failed; it moved
	// nothing now.
	again := []Row{{Line: 2, PaymentID: ids[0], Amount: "7", ReferenceID: "R1"}}
	// Run with a ledger of its own, it is held before: moved outside
	// that ledger, counted apart.
	if sum, err := Run(context.Background(), f, again, testOptions(t, OpCapture)); err != nil || sum.HeldBefore != 1 || len(sum.Moved) != 0 ||
		sum.HeldBeforeAmounts["AED"] != "7.00" {
		t.Fatalf("same amount: %v %+v", err, sum)
	}
}

func TestReferenceConflict(t *testing.T) {
	d := func(s string) *decimal.Decimal { v := decimal.RequireFromString(s); return &v }
	p := &api.Payment{Currency: "KWD", Captures: []api.Capture{{ReferenceID: "c", Amount: *d("5"), TaxAmount: d("1")}}, Refunds: []api.Refund{{ReferenceID: "r", Amount: *d("2")}}}
	cases := []struct {
		op                  Op
		ref                 string
		amount, tax         *decimal.Decimal
		found, wantConflict bool
	}{
		{OpCapture, "c", d("5.000"), d("1"), true, false},
		{OpCapture, "c", d("5"), nil, true, true}, // tax differs
		{OpCapture, "c", d("6"), d("1"), true, true},
		{OpCapture, "c", nil, nil, true, false}, // a full row: any amount
		{OpCapture, "x", d("5"), nil, false, false},
		{OpRefund, "r", d("2"), nil, true, false},
		{OpRefund, "r", d("3"), nil, true, true},
		{OpRefund, "c", d("5"), nil, false, false},
	}
	for _, c := range cases {
		found, held := ReferenceConflict(c.op, p, c.ref, c.amount, c.tax, nil, nil)
		if found != c.found || (held != "") != c.wantConflict {
			t.Errorf("%s %s %v: found %v held %q", c.op, c.ref, c.amount, found, held)
		}
	}
	if _, held := ReferenceConflict(OpCapture, p, "c", d("6"), d("1"), nil, nil); !strings.Contains(held, "reference_id c was already used on payment  for a capture of 5.000 KWD with tax 1.000 KWD (asked now: 6.000 KWD with tax 1.000 KWD): nothing was moved") {
		t.Errorf("message %q", held)
	}
}

func TestAResumedCloseIsReconciledAgainstThePayment(t *testing.T) {
	f := newFake(t)
	ids := addPayments(f, 3, "AED", "100", api.StatusAuthorized)
	var dropped atomic.Int32
	var unread sync.Map // payments whose reads fail once their answer was lost
	f.afterCommit = func(_ context.Context, c call) error {
		if dropped.Add(1) <= 2 {
			unread.Store(c.paymentID, true)
			return errDropped // closed, but the answer was lost
		}
		return nil
	}
	f.readFault = func(id string) error {
		if _, ok := unread.Load(id); ok {
			return errDropped
		}
		return nil
	}
	rows := []Row{{Line: 2, PaymentID: ids[0]}, {Line: 3, PaymentID: ids[1]}, {Line: 4, PaymentID: ids[2]}}
	o := testOptions(t, OpClose)
	o.Concurrency = 1
	if sum, err := Run(context.Background(), f, rows, o); exitCode(err) != 10 || sum.Unknown != 2 {
		t.Fatalf("first run: %v %+v", err, sum)
	}
	f.readFault = nil
	sum, err := Run(context.Background(), f, rows, o)
	if err != nil || sum.Reconciled != 2 || sum.OK != 1 {
		t.Fatalf("resume: %v %+v", err, sum)
	}
	if n := len(f.callsOf("close")); n != 3 {
		t.Fatalf("%d closes sent, want 3 (none again)", n)
	}
	// A close an earlier run recorded as failed, though the payment is
	// CLOSED: --retry-failed reconciles it too.
	id := f.add("AED", "100", api.StatusAuthorized)
	f.afterCommit = nil
	f.beforeCommit = func(context.Context, call) error { return badData("could not acquire lock") }
	rows = []Row{{Line: 2, PaymentID: id}}
	o = testOptions(t, OpClose)
	if _, err := Run(context.Background(), f, rows, o); exitCode(err) != 11 {
		t.Fatalf("first run: %v", err)
	}
	f.beforeCommit = nil
	if _, err := f.Close(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	o.RetryFailed = true
	if sum, err := Run(context.Background(), f, rows, o); err != nil || sum.Reconciled != 1 {
		t.Fatalf("retry: %v %+v", err, sum)
	}
}

func TestSummaryCountsEachRowOnce(t *testing.T) {
	s := Summary{Total: 10, OK: 3, Reconciled: 1, Failed: 2, Skipped: 1, NotSent: 3, Interrupted: true,
		moved: map[string]decimal.Decimal{"KWD": decimal.RequireFromString("1.5"), "AED": decimal.RequireFromString("20")}}
	s.Moved = movedStrings(s.moved)
	want := "10 rows: 3 ok, 1 reconciled, 2 failed, 1 skipped, 3 not sent; moved 20.00 AED, 1.500 KWD; interrupted"
	if got := s.String(); got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}
