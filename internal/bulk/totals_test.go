package bulk

import (
	"context"
	"strings"
	"testing"
)

// A second run of the same rows in another input (a file with more rows
// than theirs, so no record of the first is taken up) finds every row
// made by the first (the service deduplicates the derived reference_ids):
// it reconciles them and moves nothing.
func TestASecondRunWithoutItsRecordMovesNothing(t *testing.T) {
	f := newFake(t)
	ids := addPayments(f, 3, "AED", "100", "AUTHORIZED")
	rows := captureRows(ids, "21")
	o := testOptions(t, OpCapture)
	sum, err := Run(context.Background(), f, rows, o)
	if err != nil || sum.OK != 3 || sum.Moved["AED"] != "63.00" {
		t.Fatalf("first run: %v %+v", err, sum)
	}
	more := append(captureRows(addPayments(f, 4, "AED", "100", "AUTHORIZED"), "1"), rows...)
	for i := range more {
		more[i].Line = i + 2
	}
	o.InputName = "other.csv"
	sum, err = Run(context.Background(), f, more, o)
	if err != nil {
		t.Fatal(err)
	}
	if sum.OK != 4 || sum.Reconciled != 3 || sum.Moved["AED"] != "4.00" {
		t.Fatalf("second run: %+v", sum)
	}
	if s := sum.String(); !strings.Contains(s, "4 ok, 3 reconciled") || strings.Contains(s, "moved 6") {
		t.Fatalf("summary line %q", s)
	}
	for _, r := range readReport(t, o.ReportPath)[4:] {
		// Read before sending, or found in the service's answer: either
		// way nothing moved now.
		if r["outcome"] != "reconciled" || !(strings.Contains(r["message"], "before this run sent it") || strings.Contains(r["message"], "nothing was sent")) {
			t.Fatalf("report row %v", r)
		}
	}
	for _, id := range ids {
		if got := f.payment(id).Captured().String(); got != "21" {
			t.Fatalf("payment %s captured %s, want 21", id, got)
		}
	}
}

// The totals count each row once: moved only what this run's own requests
// moved, failed and not sent for rows whose amount and currency are known.
func TestSummaryTotals(t *testing.T) {
	s := Summary{Total: 1, Skipped: 1} // an invalid row passed over
	for _, r := range []rowResult{
		{Outcome: OutcomeOK, Amount: "10.00", currency: "AED", moved: true},
		{Outcome: OutcomeReconciled, Amount: "5.00", currency: "AED", moved: true}, // after an unknown outcome of this run
		{Outcome: OutcomeReconciled, Amount: "7.00", currency: "AED"},              // found made before
		{Outcome: OutcomeOK, Amount: "99.00", currency: "AED", earlier: true},      // settled by an earlier run
		{Outcome: OutcomeFailed, Amount: "8.00", currency: "AED"},
		{Outcome: OutcomeFailed, Amount: "1.500", currency: "KWD"},
		{Outcome: OutcomeFailed, Amount: "3.00"}, // currency never learnt
		{Outcome: OutcomeNotSent, notSent: true, Amount: "12.00", currency: "AED"},
		{Outcome: OutcomeNotSent, notSent: true}, // a "full" row never read
	} {
		s.Total++
		s.count(r)
	}
	if s.OK != 2 || s.Reconciled != 2 || s.Failed != 3 || s.NotSent != 2 || s.Skipped != 1 || s.Earlier != 1 {
		t.Fatalf("counts %+v", s)
	}
	if s.Moved["AED"] != "15.00" || len(s.Moved) != 1 {
		t.Fatalf("moved %v", s.Moved)
	}
	if s.FailedAmounts["AED"] != "8.00" || s.FailedAmounts["KWD"] != "1.500" || s.NotSentAmounts["AED"] != "12.00" || s.Unpriced != 2 {
		t.Fatalf("failed %v not sent %v unpriced %d", s.FailedAmounts, s.NotSentAmounts, s.Unpriced)
	}
	want := "10 rows: 2 ok, 2 reconciled, 3 failed, 1 skipped, 2 not sent (1 settled by an earlier run); moved 15.00 AED; failed 8.00 AED, 1.500 KWD; not sent 12.00 AED (2 rows of unknown amount or currency not totalled)"
	if got := s.String(); got != want {
		t.Fatalf("summary\n got %q\nwant %q", got, want)
	}
}

// A capture row whose tax, shipping or discount is more than its amount is
// invalid before anything is sent: the rule of single captures.
func TestReadRefusesAPartAboveTheAmount(t *testing.T) {
	in := "payment_id,amount,tax_amount,shipping_amount\n" + pidA + ",5,6,\n" + pidB + ",5,5,1\n" + pidB + ",full,6,\n"
	rows, invalid, err := ReadRows(strings.NewReader(in), "cap.csv", OpCapture)
	if err != nil {
		t.Fatal(err)
	}
	if len(invalid) != 1 || invalid[0].Line != 2 || invalid[0].Field != "tax_amount" || !strings.Contains(invalid[0].Message, "more than the capture amount") {
		t.Fatalf("invalid %+v", invalid)
	}
	if len(rows) != 2 {
		t.Fatalf("rows %+v", rows)
	}
}

// A "full" row's parts are checked once its amount is known, before
// anything is sent.
func TestAFullRowWithAPartAboveTheRemainderFails(t *testing.T) {
	f := newFake(t)
	id := f.add("AED", "5", "AUTHORIZED")
	o := testOptions(t, OpCapture)
	sum, err := Run(context.Background(), f, []Row{{Line: 2, PaymentID: id, Amount: FullAmount, TaxAmount: "6"}}, o)
	if exitCode(err) != 11 || sum.Failed != 1 || len(f.callsOf("capture")) != 0 {
		t.Fatalf("err %v sum %+v calls %v", err, sum, f.callsOf("capture"))
	}
	if r := readReport(t, o.ReportPath)[0]; !strings.Contains(r["message"], "tax_amount") || !strings.Contains(r["message"], "nothing was sent") {
		t.Fatalf("report %v", r)
	}
}

// An amount invalid for its currency (10.005 AED) is counted apart, never
// rounded into a total: 500.00 and 10.005 fail as "failed 500.00 AED" and
// one row not totalled, not as 510.01 AED.
func TestAnInvalidAmountIsNotTotalled(t *testing.T) {
	var s Summary
	for _, r := range []rowResult{
		{Outcome: OutcomeFailed, Amount: "500.00", currency: "AED"},
		{Outcome: OutcomeFailed, Amount: "10.005", currency: "AED"},
	} {
		s.Total++
		s.count(r)
	}
	if s.FailedAmounts["AED"] != "500.00" || s.Unpriced != 1 {
		t.Fatalf("failed %v, unpriced %d", s.FailedAmounts, s.Unpriced)
	}
	if got := s.String(); !strings.Contains(got, "failed 500.00 AED") || strings.Contains(got, "510") {
		t.Errorf("summary %q", got)
	}
}
