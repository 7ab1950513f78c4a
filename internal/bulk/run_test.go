package bulk

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/shopspring/decimal"
	"golang.org/x/time/rate"
)

func testOptions(t *testing.T, op Op) Options {
	dir := t.TempDir()
	return Options{
		Op:          op,
		Concurrency: 8,
		JournalPath: filepath.Join(dir, "input.csv.journal"),
		ReportPath:  filepath.Join(dir, "report.csv"),
		Classify:    classifyFake,
		LedgerDir:   t.TempDir(),
		InputName:   "input.csv",
		// The summary line is written (somewhere), as a run that is not
		// --quiet writes it: the run is then marked summarized.
		Progress: io.Discard,
	}
}

func exitCode(err error) int {
	var coded interface{ ExitCode() int }
	if errors.As(err, &coded) {
		return coded.ExitCode()
	}
	if err != nil {
		return 1
	}
	return 0
}

// readReport returns the report's rows keyed by column name.
func readReport(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	records, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, rec := range records[1:] {
		m := map[string]string{}
		for i, col := range records[0] {
			m[col] = rec[i]
		}
		out = append(out, m)
	}
	return out
}

func captureRows(ids []string, amount string) []Row {
	rows := make([]Row, len(ids))
	for i, id := range ids {
		rows[i] = Row{Line: i + 2, PaymentID: id, Amount: amount}
	}
	return rows
}

func addPayments(f *fakeClient, n int, currency, amount, status string) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = f.add(currency, amount, status)
	}
	return ids
}

func TestRowsOfOnePaymentRunInOrderAndNeverOverlap(t *testing.T) {
	f := newFake(t)
	ids := addPayments(f, 20, "AED", "1000", api.StatusAuthorized)
	var rows []Row
	for k := 1; k <= 10; k++ { // interleaved: every payment's rows are spread over the input
		for _, id := range ids {
			rows = append(rows, Row{Line: len(rows) + 2, PaymentID: id, Amount: fmt.Sprint(k)})
		}
	}
	o := testOptions(t, OpCapture)
	sum, err := Run(context.Background(), f, rows, o)
	if err != nil {
		t.Fatal(err)
	}
	if sum.OK != 200 || sum.Total != 200 {
		t.Fatalf("summary %+v", sum)
	}
	if f.overlaps != 0 {
		t.Fatalf("%d requests overlapped on one payment", f.overlaps)
	}
	perPayment := map[string][]string{}
	for _, c := range f.callsOf("capture") {
		perPayment[c.paymentID] = append(perPayment[c.paymentID], c.amount)
	}
	want := "1 2 3 4 5 6 7 8 9 10"
	for _, id := range ids {
		if got := strings.Join(perPayment[id], " "); got != want {
			t.Errorf("payment %s captured in order %s, want %s", id, got, want)
		}
	}
}

func TestAPaymentWithManyRowsDoesNotHoldUpOthers(t *testing.T) {
	f := newFake(t)
	busy := f.add("AED", "1000", api.StatusAuthorized)
	others := addPayments(f, 10, "AED", "1000", api.StatusAuthorized)
	othersDone := make(chan struct{})
	var finished atomic.Int32
	var once sync.Once
	f.beforeCommit = func(ctx context.Context, c call) error {
		if c.paymentID == busy {
			once.Do(func() {
				select {
				case <-othersDone:
				case <-time.After(30 * time.Second): // a guard against a hang, not a timing check
					t.Error("the other payments waited for the busy one")
				}
			})
		}
		return nil
	}
	f.afterCommit = func(ctx context.Context, c call) error {
		if c.paymentID != busy && finished.Add(1) == int32(len(others)) {
			close(othersDone)
		}
		return nil
	}
	rows := captureRows(append([]string{busy, busy, busy, busy, busy}, others...), "10")
	o := testOptions(t, OpCapture)
	o.Concurrency = 2
	if _, err := Run(context.Background(), f, rows, o); err != nil {
		t.Fatal(err)
	}
	if got := len(f.payment(busy).Captures); got != 5 {
		t.Fatalf("busy payment has %d captures", got)
	}
}

// countingLimiter admits every request and counts them.
type countingLimiter struct{ waits atomic.Int64 }

func (l *countingLimiter) Wait(ctx context.Context) error {
	l.waits.Add(1)
	return ctx.Err()
}

func TestEveryRequestWaitsOnTheRateLimiter(t *testing.T) {
	f := newFake(t)
	ids := addPayments(f, 6, "KWD", "100", api.StatusAuthorized)
	rows := captureRows(ids[:3], "10")
	rows = append(rows, captureRows(ids[3:], FullAmount)...)
	for i := range rows {
		rows[i].Line = i + 2
	}
	o := testOptions(t, OpCapture)
	lim := &countingLimiter{}
	o.limiter = lim
	if _, err := Run(context.Background(), f, rows, o); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	requests := len(f.calls)
	f.mu.Unlock()
	// Every payment is read before its first row, then captured.
	if requests != 12 || lim.waits.Load() != int64(requests) {
		t.Fatalf("%d requests, %d waits on the limiter", requests, lim.waits.Load())
	}
}

func TestRateOptionConfiguresALimiter(t *testing.T) {
	o := withDefaults(Options{Op: OpCapture, Rate: 2.5})
	lim, ok := o.limiter.(*rate.Limiter)
	if !ok {
		t.Fatalf("limiter is %T", o.limiter)
	}
	if lim.Limit() != 2.5 || lim.Burst() != 1 {
		t.Fatalf("limit %v burst %d", lim.Limit(), lim.Burst())
	}
	if o := withDefaults(Options{Op: OpCapture}); o.limiter != nil || o.Concurrency != defaultConcurrency {
		t.Fatalf("defaults: limiter %v, concurrency %d", o.limiter, o.Concurrency)
	}
}

func TestInvalidRowsStopTheRunBeforeAnythingIsSent(t *testing.T) {
	f := newFake(t)
	ids := addPayments(f, 2, "AED", "100", api.StatusAuthorized)
	o := testOptions(t, OpCapture)
	o.Invalid = []RowError{{Line: 3, PaymentID: "x", Field: "payment_id", Message: "is not a payment id"}}
	_, err := Run(context.Background(), f, captureRows(ids, "10"), o)
	var ie *InvalidRowsError
	if !errors.As(err, &ie) || exitCode(err) != 2 || !strings.Contains(err.Error(), "line 3: payment_id") {
		t.Fatalf("err = %v", err)
	}
	if len(f.calls) != 0 {
		t.Fatalf("%d requests sent", len(f.calls))
	}
	if _, err := os.Stat(o.JournalPath); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("journal created: %v", err)
	}
}

func TestReportHasALineForEveryOutcome(t *testing.T) {
	for _, name := range []string{"report.csv", "report.jsonl"} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t)
			okID := f.add("AED", "100", api.StatusAuthorized)
			reconciledID := f.add("AED", "100", api.StatusAuthorized)
			closedID := f.add("AED", "100", api.StatusAuthorized)
			f.reconciled = map[string]bool{reconciledID: true}
			// The service refuses what the checks before sending let by.
			f.beforeCommit = func(_ context.Context, c call) error {
				if c.paymentID == closedID {
					return badData("already closed")
				}
				return nil
			}
			rows := []Row{
				{Line: 2, PaymentID: okID, Amount: "40", ReferenceID: "r-ok", TaxAmount: "2"},
				{Line: 3, PaymentID: reconciledID, Amount: "100", ReferenceID: "r-rec"},
				{Line: 5, PaymentID: closedID, Amount: "1.50", ReferenceID: "r-fail"},
			}
			o := testOptions(t, OpCapture)
			o.ReportPath = filepath.Join(filepath.Dir(o.ReportPath), name)
			o.Invalid = []RowError{
				{Line: 4, PaymentID: "nope", Field: "payment_id", Message: "is not a payment id"},
				{Line: 4, PaymentID: "nope", Field: "amount", Message: "is required"},
			}
			o.SkipInvalid = true
			sum, err := Run(context.Background(), f, rows, o)
			if exitCode(err) != 11 {
				t.Fatalf("err = %v (exit %d), want exit 11", err, exitCode(err))
			}
			// The reconciled capture is this run's: its answer was lost,
			// and the payment, which did not show it before, shows it.
			want := Summary{Total: 4, OK: 2, Failed: 1, Skipped: 1}
			if !reflect.DeepEqual(counts(sum), want) {
				t.Fatalf("summary %+v, want %+v", sum, want)
			}
			for _, c := range f.callsOf("capture") {
				if c.paymentID == okID && c.tax != "2" {
					t.Errorf("tax sent %q", c.tax)
				}
			}
			data, err := os.ReadFile(o.ReportPath)
			if err != nil {
				t.Fatal(err)
			}
			var got string
			if strings.HasSuffix(name, ".jsonl") {
				got = string(data)
			} else {
				got = strings.ReplaceAll(string(data), "\r\n", "\n")
			}
			var wantReport string
			if strings.HasSuffix(name, ".jsonl") {
				wantReport = `{"line":2,"op":"capture","payment_id":"` + okID + `","reference_id":"r-ok","amount":"40","outcome":"ok","payment_status":"AUTHORIZED"}
{"line":3,"op":"capture","payment_id":"` + reconciledID + `","reference_id":"r-rec","amount":"100","outcome":"ok","message":"captured by this run: its answer was lost, and the payment shows the move","payment_status":"CLOSED"}
{"line":4,"op":"capture","payment_id":"nope","outcome":"skipped","message":"invalid: payment_id is not a payment id; amount is required"}
{"line":5,"op":"capture","payment_id":"` + closedID + `","reference_id":"r-fail","amount":"1.50","outcome":"failed","http_status":400,"error_type":"bad_data","message":"already closed"}
`
			} else {
				wantReport = `line,op,payment_id,reference_id,amount,outcome,http_status,error_type,message,payment_status
2,capture,` + okID + `,r-ok,40,ok,,,,AUTHORIZED
3,capture,` + reconciledID + `,r-rec,100,ok,,,"captured by this run: its answer was lost, and the payment shows the move",CLOSED
4,capture,nope,,,skipped,,,invalid: payment_id is not a payment id; amount is required,
5,capture,` + closedID + `,r-fail,1.50,failed,400,bad_data,already closed,
`
			}
			if got != wantReport {
				t.Fatalf("report\n got:\n%s\nwant:\n%s", got, wantReport)
			}
		})
	}
}

func TestFailedRowsExit11AndAreKeptUnlessRetryFailed(t *testing.T) {
	f := newFake(t)
	id := f.add("AED", "100", api.StatusAuthorized)
	rows := []Row{{Line: 2, PaymentID: id, Amount: "150"}}
	o := testOptions(t, OpCapture)

	sum, err := Run(context.Background(), f, rows, o)
	var re *RunError
	if !errors.As(err, &re) || exitCode(err) != 11 || sum.Failed != 1 {
		t.Fatalf("first run: err %v, summary %+v", err, sum)
	}
	if !strings.Contains(re.Hint(), "--retry-failed") || !strings.Contains(re.Hint(), o.ReportPath) {
		t.Errorf("hint %q", re.Hint())
	}

	// The over-capture was refused before sending, as a plan refuses it.
	if n := len(f.callsOf("capture")); n != 0 {
		t.Fatalf("%d captures sent for a row the checks refuse", n)
	}
	if rep := readReport(t, o.ReportPath); rep[0]["message"] != "amount: 150.00 AED is more than the 100.00 AED left to capture on this payment; nothing was sent" {
		t.Errorf("report %v", rep)
	}

	// The same run again keeps the definite failure without sending.
	sum, err = Run(context.Background(), f, rows, o)
	if exitCode(err) != 11 || sum.Failed != 1 || sum.Earlier != 1 || len(f.callsOf("capture")) != 0 {
		t.Fatalf("second run: err %v, summary %+v, %d captures sent", err, sum, len(f.callsOf("capture")))
	}
	if rep := readReport(t, o.ReportPath); !strings.HasPrefix(rep[0]["message"], "settled by an earlier run: amount: 150.00 AED is more than") {
		t.Errorf("report %v", rep)
	}

	// Once the cause is fixed, RetryFailed sends it again, same reference_id.
	f.mu.Lock()
	f.payments[id].amount = decimal.RequireFromString("200")
	f.mu.Unlock()
	o.RetryFailed = true
	sum, err = Run(context.Background(), f, rows, o)
	if err != nil || sum.OK != 1 {
		t.Fatalf("retry: err %v, summary %+v", err, sum)
	}
	captures := f.callsOf("capture")
	if len(captures) != 1 || captures[0].amount != "150" {
		t.Fatalf("captures %+v", captures)
	}
}

// The ledger records a row's send (its reference_id and amount) before
// its request goes out: a run killed with it in flight leaves the next
// run to read the payment before sending it again.
func TestTheLedgerRecordsTheSendBeforeTheRequest(t *testing.T) {
	f := newFake(t)
	ids := addPayments(f, 5, "AED", "100", api.StatusAuthorized)
	o := testOptions(t, OpCapture)
	rows := captureRows(ids, "10")
	f.beforeCommit = func(_ context.Context, c call) error {
		found := false
		for i, rec := range recordedOf(t, o, rows) {
			if rows[i].PaymentID == c.paymentID && rec != nil && rec.SentRef == c.referenceID && rec.SentAmount == "10" {
				found = true
			}
		}
		if !found {
			t.Errorf("capture %s sent before the ledger recorded it", c.referenceID)
		}
		return nil
	}
	if _, err := Run(context.Background(), f, rows, o); err != nil {
		t.Fatal(err)
	}
}

// syncBuffer is written by the progress goroutine and read by the test.
type syncBuffer struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	lines chan string
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.lines != nil {
		b.lines <- string(p)
	}
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestPeriodicProgressLine(t *testing.T) {
	f := newFake(t)
	ids := addPayments(f, 3, "AED", "100", api.StatusAuthorized)
	gate := make(chan struct{})
	f.beforeCommit = func(context.Context, call) error { <-gate; return nil }

	tick := make(chan time.Time)
	var every time.Duration
	out := &syncBuffer{lines: make(chan string, 10)}
	o := testOptions(t, OpCapture)
	o.Progress = out
	o.SummaryEvery = 3 * time.Second
	o.ticker = func(d time.Duration) (<-chan time.Time, func()) {
		every = d
		return tick, func() {}
	}
	done := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), f, captureRows(ids, "10"), o)
		done <- err
	}()
	tick <- time.Now()
	if line := <-out.lines; line != "capture: 0/3 rows, 0 failed\n" {
		t.Fatalf("progress line %q", line)
	}
	close(gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if every != 3*time.Second {
		t.Errorf("ticker every %s", every)
	}
	if !strings.HasSuffix(out.String(), "capture: 3 rows: 3 ok, 0 reconciled, 0 failed, 0 skipped, 0 not sent; moved 30.00 AED\n") {
		t.Fatalf("output %q", out.String())
	}
}

func TestProgressBarOnATerminal(t *testing.T) {
	f := newFake(t)
	ids := addPayments(f, 4, "AED", "100", api.StatusClosed)
	out := &syncBuffer{}
	o := testOptions(t, OpCapture)
	o.Progress, o.ProgressTTY = out, true
	_, err := Run(context.Background(), f, captureRows(ids, "10"), o)
	if exitCode(err) != 11 {
		t.Fatalf("err %v", err)
	}
	s := out.String()
	if f := lastFrame(s); !strings.HasPrefix(f, "capture (4 failed) 100% |") || !strings.Contains(f, "(4/4,") {
		t.Fatalf("the bar's last frame %q does not say what the summary says; output %q", f, s)
	}
	if !strings.HasSuffix(s, "capture: 4 rows: 0 ok, 0 reconciled, 4 failed, 0 skipped, 0 not sent; nothing moved; failed 40.00 AED\n") {
		t.Fatalf("output %q", s)
	}
}

func TestProgressLineFormat(t *testing.T) {
	got := progressLine(OpRefund, 50, 2, 100, 10*time.Second)
	if want := "refund: 50/100 rows, 2 failed, 5.0 rows/s, ETA 10s"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestUnwritableJournalOrReportStopsBeforeSending(t *testing.T) {
	f := newFake(t)
	ids := addPayments(f, 2, "AED", "100", api.StatusAuthorized)
	dir := t.TempDir()

	o := testOptions(t, OpCapture)
	o.JournalPath = dir // a directory cannot be a journal
	if _, err := Run(context.Background(), f, captureRows(ids, "10"), o); err == nil {
		t.Fatal("no error for an unusable journal")
	}
	o = testOptions(t, OpCapture)
	o.ReportPath = filepath.Join(dir, "missing", "report.csv")
	if _, err := Run(context.Background(), f, captureRows(ids, "10"), o); err == nil || !strings.Contains(err.Error(), "report") {
		t.Fatalf("err = %v", err)
	}
	if len(f.calls) != 0 {
		t.Fatalf("%d requests sent", len(f.calls))
	}
}

func TestWithoutClassifyEveryErrorIsAnUnknownOutcome(t *testing.T) {
	f := newFake(t)
	id := f.add("AED", "100", api.StatusAuthorized)
	f.beforeCommit = func(context.Context, call) error { return badData("already closed") }
	o := testOptions(t, OpCapture)
	o.Classify = nil
	_, err := Run(context.Background(), f, []Row{{Line: 2, PaymentID: id, Amount: "5"}}, o)
	if exitCode(err) != 10 {
		t.Fatalf("err %v", err)
	}
	if rep := readReport(t, o.ReportPath); !strings.Contains(rep[0]["message"], "already closed (outcome unknown") {
		t.Fatalf("report %v", rep)
	}
}

func TestRowTimeoutBoundsTheRequestButNotCancellation(t *testing.T) {
	f := newFake(t)
	id := f.add("AED", "100", api.StatusAuthorized)
	f.beforeCommit = func(ctx context.Context, c call) error {
		if _, ok := ctx.Deadline(); !ok {
			t.Error("request context has no deadline")
		}
		return nil
	}
	o := testOptions(t, OpCapture)
	o.RowTimeout = time.Minute
	if _, err := Run(context.Background(), f, []Row{{Line: 2, PaymentID: id, Amount: "5"}}, o); err != nil {
		t.Fatal(err)
	}
}

func TestOneJournalServesSeveralOpsAndNoticesEditedRows(t *testing.T) {
	f := newFake(t)
	id := f.add("AED", "100", api.StatusAuthorized)
	out := &syncBuffer{}
	o := testOptions(t, OpCapture)
	o.Progress = out
	if _, err := Run(context.Background(), f, []Row{{Line: 2, PaymentID: id, Amount: "100"}}, o); err != nil {
		t.Fatal(err)
	}
	o.Op = OpRefund
	sum, err := Run(context.Background(), f, []Row{{Line: 2, PaymentID: id, Amount: "100"}}, o)
	if err != nil || sum.OK != 1 || sum.Earlier != 0 {
		t.Fatalf("refund over the capture's journal: err %v, summary %+v", err, sum)
	}
	if strings.Contains(out.String(), "not in this input") {
		t.Fatalf("the capture's records were taken for edited rows:\n%s", out)
	}
	// The refund row edited: its old record matches nothing, and is said so.
	if _, err := Run(context.Background(), f, []Row{{Line: 2, PaymentID: id, Amount: "99"}}, o); exitCode(err) != 11 {
		t.Fatalf("err %v", err)
	}
	if !strings.Contains(out.String(), "earlier runs of this input settled 1 row not in it now (edited since?)") {
		t.Fatalf("output:\n%s", out)
	}
}

// counts is a summary without its money totals, to compare with ==.
func counts(s Summary) Summary {
	s.Moved, s.moved, s.MovedByOp, s.movedByOp = nil, nil, nil, nil
	s.FailedAmounts, s.NotSentAmounts, s.failed, s.notSent, s.Unpriced = nil, nil, nil, nil, 0
	return s
}
