package bulk

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/api"
)

// A run whose rows outnumber the rows it may hold waiting and the report
// lines it may hold: every row is run in its payment's order, and the
// report, merged from the lines spilled to run files, has every row once,
// in input order, with its own values; the run files are gone.
func TestARunLargerThanItsWindowsKeepsOrderAndReportsEveryRow(t *testing.T) {
	f := newFake(t)
	ids := addPayments(f, 3, "AED", "100", api.StatusAuthorized)
	var rows []Row
	for k := 1; k <= 20; k++ {
		for _, id := range ids {
			rows = append(rows, Row{Line: len(rows) + 2, PaymentID: id, Amount: strconv.Itoa(k)})
		}
	}
	o := testOptions(t, OpCapture)
	o.window, o.Concurrency = 4, 2
	sum, err := Run(context.Background(), f, rows, o)
	// 1+…+13 = 91 ≤ 100 goes; 14 and above would over-capture.
	if exitCode(err) != 11 {
		t.Fatalf("err %v, want a run error of failed rows", err)
	}
	if sum.Total != 60 || sum.OK != 39 || sum.Failed != 21 {
		t.Fatalf("summary %+v", sum)
	}
	perPayment := map[string][]string{}
	for _, c := range f.callsOf("capture") {
		perPayment[c.paymentID] = append(perPayment[c.paymentID], c.amount)
	}
	for _, id := range ids {
		if got := fmt.Sprint(perPayment[id]); got != "[1 2 3 4 5 6 7 8 9 10 11 12 13]" {
			t.Errorf("payment %s captured %s", id, got)
		}
	}
	lines := readReport(t, o.ReportPath)
	if len(lines) != len(rows) {
		t.Fatalf("report has %d lines, want %d", len(lines), len(rows))
	}
	for i, l := range lines {
		want := "ok"
		if k, _ := strconv.Atoi(rows[i].Amount); k > 13 {
			want = "failed"
		}
		if l["line"] != strconv.Itoa(rows[i].Line) || l["payment_id"] != rows[i].PaymentID || l["amount"] != rows[i].Amount || l["outcome"] != want {
			t.Errorf("report line %d: %v, want row %+v %s", i, l, rows[i], want)
		}
	}
	entries, err := os.ReadDir(filepath.Dir(o.ReportPath))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != filepath.Base(o.ReportPath) && e.Name() != filepath.Base(o.JournalPath) {
			t.Errorf("left behind: %s", e.Name())
		}
	}

	// The re-run finds each row in the journal by key, reads its record
	// back from the file, and settles it without a request.
	before := len(f.callsOf("capture"))
	sum, err = Run(context.Background(), f, rows, o)
	if exitCode(err) != 11 || sum.Earlier != 60 || sum.OK != 39 {
		t.Fatalf("re-run: %+v, %v", sum, err)
	}
	if got := len(f.callsOf("capture")); got != before {
		t.Fatalf("the re-run sent %d captures", got-before)
	}
}

// Rows of one payment more than the rows a run may hold waiting: the
// reader waits for the worker, which takes the rows as they come.
func TestOnePaymentWithMoreRowsThanTheWindow(t *testing.T) {
	f := newFake(t)
	id := f.add("AED", "1000", api.StatusAuthorized)
	var rows []Row
	for k := 1; k <= 30; k++ {
		rows = append(rows, Row{Line: k + 1, PaymentID: id, Amount: "1", ReferenceID: "R" + strconv.Itoa(k)})
	}
	o := testOptions(t, OpCapture)
	o.window = 2
	sum, err := Run(context.Background(), f, rows, o)
	if err != nil || sum.OK != 30 {
		t.Fatalf("%+v, %v", sum, err)
	}
	for i, c := range f.callsOf("capture") {
		if c.referenceID != "R"+strconv.Itoa(i+1) {
			t.Fatalf("capture %d has reference_id %s", i+1, c.referenceID)
		}
	}
}

// An input that fails while the run reads it to send (changed since it
// was counted) stops the run: every row counted is reported (those not
// run as not sent), and the error is the run's.
func TestAnInputThatFailsWhileSendingStopsTheRun(t *testing.T) {
	f := newFake(t)
	ids := addPayments(f, 6, "AED", "100", api.StatusAuthorized)
	rows := captureRows(ids, "10")
	changed := errors.New("the input changed")
	passes := 0
	src := func(each func(Row)) error {
		passes++
		for i, r := range rows {
			if passes > 2 && i == 3 { // identify, record, then send
				return changed
			}
			each(r)
		}
		return nil
	}
	o := testOptions(t, OpCapture)
	b, err := PrepareSource(src, o)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.PendingRows() != 6 || b.PendingPayments() != 6 {
		t.Fatalf("pending %d rows over %d payments", b.PendingRows(), b.PendingPayments())
	}
	sum, err := b.Run(context.Background(), f)
	if !errors.Is(err, changed) {
		t.Fatalf("err %v", err)
	}
	if sum.Total != 6 || sum.OK+sum.NotSent != 6 {
		t.Fatalf("summary %+v", sum)
	}
	if got := len(f.callsOf("capture")); got > 3 {
		t.Fatalf("%d captures sent", got)
	}
	if lines := readReport(t, o.ReportPath); len(lines) != 6 {
		t.Fatalf("report has %d lines", len(lines))
	}
}
