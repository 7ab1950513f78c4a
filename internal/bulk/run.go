package bulk

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/shopspring/decimal"
	"golang.org/x/time/rate"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/money"
)

const defaultConcurrency = 8

// waiter is what the run needs of a rate limiter.
type waiter interface {
	Wait(ctx context.Context) error
}

// newLimiter spaces requests evenly: a burst of one, so that a rate of 5
// never sends 5 requests in the same instant.
func newLimiter(perSecond float64) *rate.Limiter {
	return rate.NewLimiter(rate.Limit(perSecond), 1)
}

// task is a row still to be sent in this run.
type task struct {
	index int
	row   Row
	key   string
	// referenceID and amount come from the journal's "send" record: a row
	// sent before keeps its reference_id, and a row whose outcome is
	// unknown is re-sent with exactly the amount sent then.
	referenceID string
	amount      string
	// derivedRef is the reference_id a row without one is sent with; see
	// rowIdentity.
	derivedRef string
	// resumed is a row an earlier run sent without a definite answer (or
	// one --retry-failed sends again): the payment is read first, and a
	// move the earlier run did make is reconciled, not sent again.
	resumed bool
	// sentAmount is the amount the earlier run sent, when resumed.
	sentAmount string
}

// paymentQueue holds one payment's rows in input order. A worker takes a
// whole queue and runs its rows one after the other, which is how rows of
// the same payment never overlap (the service locks a payment for each
// request) while other workers go on with other payments.
type paymentQueue struct {
	paymentID string
	tasks     []*task
	// currency is learnt from the first read of the payment.
	currency string
	// payment is the payment as last known: read before its first row,
	// then as each move answered it. Rows are checked against it before
	// they are sent, as a single move is checked against its read.
	payment *api.Payment
	// state is the payment as the rows sent so far leave it, taken from
	// payment; rows are checked against it as the plan checks them.
	state *payState
	// refunds: some row of the payment is a refund, so its disputes are
	// read with the payment.
	refunds bool
	// dispute is an open dispute found at the first read (refunds only).
	dispute     *api.Dispute
	disputeRead bool
}

// setPayment makes p the payment as last known.
func (q *paymentQueue) setPayment(p *api.Payment) {
	q.currency, q.payment = p.Currency, p
	q.state = newPayState(p, q.dispute)
}

type runner struct {
	c        Client
	o        Options
	journal  *journal
	progress *progress
	limiter  waiter

	stopOnce sync.Once
	stopErr  error
	stop     context.CancelFunc
}

// Run sends rows, as validated by ReadRows, and reports what became of each.
//
// With a journal, rows already settled by an earlier run are not sent again
// (see the journal's documentation). On ctx's cancellation Run stops taking
// new rows, lets the requests in flight finish, since cutting one off would
// only make its outcome unknown, records them, and returns with
// Summary.Interrupted set.
//
// The error is an *InvalidRowsError when o.Invalid has rows and
// o.SkipInvalid is false (nothing is sent then), a *JournalBusyError or a
// *JournalError when the journal cannot be used (nothing is sent either), a
// *RunError when rows failed or the run was interrupted, or another error
// when the journal or the report could not be written.
func Run(ctx context.Context, c Client, rows []Row, o Options) (Summary, error) {
	b, err := Prepare(rows, o)
	if err != nil {
		return Summary{Total: len(rows) + len(o.Invalid)}, err
	}
	defer b.Close()
	return b.Run(ctx, c)
}

// Batch is a run made ready by Prepare: its journal is open and locked,
// its report can be written, and it knows which rows are still to send.
type Batch struct {
	r       *runner
	rows    []Row
	skipped []rowResult
	results []rowResult
	queues  []*paymentQueue
	rep     *report
	closed  bool
	// inputLock is the input lock's file, held until Close.
	inputLock *os.File
}

// Prepare checks the rows and the files of a run before anything is sent:
// it locks the journal (a second run of the same journal stops here), reads
// what earlier runs settled, and makes sure the report can be written. The
// caller confirms the run, then calls Run, and Close in any case.
func Prepare(rows []Row, o Options) (*Batch, error) {
	if !o.Op.validRun() {
		return nil, fmt.Errorf("bulk: unknown op %q", o.Op)
	}
	if o.ReferencePrefix != "" {
		if msg := CheckReferencePrefix(o.ReferencePrefix); msg != "" {
			return nil, fmt.Errorf("bulk: reference prefix %s", msg)
		}
	}
	skipped := skippedResults(o.Op, o.Invalid)
	if len(skipped) > 0 && !o.SkipInvalid {
		return nil, &InvalidRowsError{Rows: o.Invalid}
	}
	o = withDefaults(o)
	fillOp(o.Op, rows)
	for _, row := range rows {
		if !row.Op.valid() {
			return nil, fmt.Errorf("bulk: line %d: unknown op %q", row.Line, row.Op)
		}
	}

	b := &Batch{r: &runner{o: o, limiter: o.limiter}, rows: rows, skipped: skipped}
	if o.LockDir != "" && o.InputID != "" {
		var err error
		if b.inputLock, err = lockInput(o.LockDir, o.Op, o.InputID, o.InputName, o.JournalPath, o.now()); err != nil {
			return nil, err
		}
	}
	var entries map[string]*journalEntry
	if o.JournalPath != "" {
		var err error
		if b.r.journal, entries, err = openJournal(o.JournalPath, o.Op, o.now); err != nil {
			b.Close()
			return nil, err
		}
	}
	if o.ReportPath != "" {
		var err error
		if b.rep, err = createReport(o.ReportPath); err != nil {
			b.Close()
			return nil, err
		}
	}
	b.results = make([]rowResult, len(rows))
	b.queues = b.r.plan(rows, entries, b.results)
	return b, nil
}

// Pending are the rows this run is to send, in input order: those no
// earlier run settled.
func (b *Batch) Pending() []Row {
	var out []Row
	for _, q := range b.queues {
		for _, t := range q.tasks {
			out = append(out, t.row)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

// Close releases the journal and drops an unwritten report; it does
// nothing after Run.
func (b *Batch) Close() {
	if b.closed {
		return
	}
	b.closed = true
	if b.rep != nil {
		b.rep.abort()
	}
	if b.r.journal != nil {
		_ = b.r.journal.close()
	}
	if b.inputLock != nil {
		_ = b.inputLock.Close()
	}
}

// Run sends the pending rows through c; see the package function Run.
func (b *Batch) Run(ctx context.Context, c Client) (Summary, error) {
	if b.closed {
		return Summary{}, errors.New("bulk: the batch was closed")
	}
	r, rows, results, o := b.r, b.rows, b.results, b.r.o
	r.c = c
	defer func() {
		b.rep = nil // written or aborted below
		b.Close()
	}()

	r.progress = startProgress(o, countTasks(b.queues))
	r.runQueues(ctx, b.queues, results)

	currencies := map[string]string{}
	for _, q := range b.queues {
		currencies[q.paymentID] = q.currency
	}
	summary := Summary{Total: len(rows) + len(b.skipped), Skipped: len(b.skipped)}
	for i := range results {
		res := &results[i]
		if res.Outcome == "" && !res.notSent {
			res.Line, res.Op, res.PaymentID = rows[i].Line, rows[i].Op, rows[i].PaymentID
			if rows[i].Op != OpClose && !rows[i].Full() {
				res.Amount = rows[i].Amount
			}
			res.currency = currencies[rows[i].PaymentID]
		}
		// Every line of the report keeps the row's own values.
		if res.Amount == "" && rows[i].Op != OpClose {
			res.Amount = rows[i].Amount
		}
		if res.ReferenceID == "" {
			res.ReferenceID = rows[i].ReferenceID
		}
		if res.Outcome == "" {
			res.Outcome, res.notSent = OutcomeNotSent, true
			res.Message = "not sent: the run was interrupted"
			if r.stopErr != nil {
				res.Message = "not sent: the run stopped: " + r.stopErr.Error()
			}
		}
		summary.count(*res)
	}
	// Rows left untouched mean the run did not finish, whatever stopped
	// it; a cancellation that came after the last row changes nothing.
	summary.Interrupted = summary.NotSent > 0

	var reportErr error
	if b.rep != nil {
		reportErr = b.rep.write(append(results, b.skipped...))
	}
	r.progress.finish(summary)

	switch {
	case r.stopErr != nil:
		return summary, r.stopErr
	case summary.Interrupted || summary.Failed > 0 || summary.Unknown > 0:
		runErr := &RunError{Op: o.Op, Summary: summary, JournalPath: o.JournalPath, ReportPath: o.ReportPath}
		if reportErr != nil {
			return summary, errors.Join(runErr, reportErr)
		}
		return summary, runErr
	}
	return summary, reportErr
}

// fillOp gives the rows without an Op the run's op, when it is a move:
// rows made by hand for a bulk capture need not name theirs.
func fillOp(op Op, rows []Row) {
	if !op.valid() {
		return
	}
	for i := range rows {
		if rows[i].Op == "" {
			rows[i].Op = op
		}
	}
}

// ofRun reports whether a journal record is of a row a run of o makes:
// of its op, or of any move for apply.
func (o Options) ofRun(rec *journalRecord) bool {
	return rec != nil && (rec.Op == o.Op || (o.Op == OpApply && rec.Op.valid()))
}

func withDefaults(o Options) Options {
	if o.Concurrency <= 0 {
		o.Concurrency = defaultConcurrency
	}
	if o.limiter == nil && o.Rate > 0 {
		o.limiter = newLimiter(o.Rate)
	}
	if o.now == nil {
		o.now = time.Now
	}
	if o.ticker == nil {
		o.ticker = realTicker
	}
	if o.Classify == nil {
		o.Classify = func(err error) (int, string, string, bool) { return 0, "", err.Error(), true }
	}
	return o
}

func (s *Summary) count(res rowResult) {
	switch {
	case res.notSent:
		s.NotSent++
	case res.Outcome == OutcomeOK:
		s.OK++
	case res.Outcome == OutcomeReconciled:
		s.Reconciled++
	case res.Outcome == OutcomeFailed:
		s.Failed++
	case res.Outcome == OutcomeUnknown:
		s.Unknown++
	}
	if res.earlier {
		s.Earlier++
		return
	}
	if res.Op == OpClose {
		return // a close moves no amount of its own: nothing to total
	}
	var total *map[string]decimal.Decimal
	switch {
	case res.moved:
		total = &s.moved
	case res.notSent:
		total = &s.notSent
	case res.Outcome == OutcomeFailed:
		total = &s.failed
	case res.Outcome == OutcomeUnknown:
		total = &s.unknown
	default:
		return
	}
	// Only a valid amount of its currency is totalled: 10.005 AED is
	// counted apart, never rounded into a total.
	d, err := money.Parse(res.Amount, res.currency)
	if res.Amount == "" || res.currency == "" || err != nil {
		if total != &s.moved {
			s.Unpriced++
		}
		return
	}
	if *total == nil {
		*total = map[string]decimal.Decimal{}
	}
	(*total)[res.currency] = (*total)[res.currency].Add(d)
	if total == &s.moved && res.Op != OpClose {
		if s.movedByOp == nil {
			s.movedByOp = map[Op]map[string]decimal.Decimal{}
		}
		addTo(s.movedByOp, res.Op, res.currency, d)
		s.MovedByOp = map[Op]map[string]string{}
		for op, m := range s.movedByOp {
			s.MovedByOp[op] = movedStrings(m)
		}
	}
	s.Moved, s.FailedAmounts, s.NotSentAmounts = movedStrings(s.moved), movedStrings(s.failed), movedStrings(s.notSent)
	s.UnknownAmounts = movedStrings(s.unknown)
}

func movedStrings(m map[string]decimal.Decimal) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for cur, d := range m {
		out[cur] = money.Format(d, cur)
	}
	return out
}

// skippedResults turns the invalid rows into report lines, one per input
// line whatever the number of problems on it.
func skippedResults(op Op, invalid []RowError) []rowResult {
	byLine := map[int]*rowResult{}
	var lines []int
	for _, e := range invalid {
		res := byLine[e.Line]
		if res == nil {
			if e.Op == "" && op.valid() {
				e.Op = op
			}
			res = &rowResult{Line: e.Line, Op: e.Op, PaymentID: e.PaymentID, Amount: e.Amount, ReferenceID: e.ReferenceID, Outcome: OutcomeSkipped, Message: "invalid: "}
			byLine[e.Line] = res
			lines = append(lines, e.Line)
		} else {
			res.Message += "; "
		}
		if e.Field != "" {
			res.Message += e.Field + " "
		}
		res.Message += e.Message
	}
	sort.Ints(lines)
	out := make([]rowResult, 0, len(lines))
	for _, l := range lines {
		out = append(out, *byLine[l])
	}
	return out
}

// plan fills in the rows an earlier run settled and queues the others by
// payment.
func (r *runner) plan(rows []Row, entries map[string]*journalEntry, results []rowResult) []*paymentQueue {
	keys, refs := rowIdentity(r.o.ReferencePrefix, rows)
	byPayment := map[string]*paymentQueue{}
	var queues []*paymentQueue
	matched := 0
	for i, row := range rows {
		t := &task{index: i, row: row, key: keys[i], derivedRef: refs[i]}
		if e := entries[t.key]; e != nil {
			matched++
			if res, settled := settledResult(row, e, r.o.RetryFailed); settled {
				results[i] = res
				continue
			}
			if e.send != nil {
				t.referenceID = e.send.ReferenceID
				t.resumed, t.sentAmount = true, e.send.Amount
				// A "full" row resolves its amount when it is sent, after
				// the earlier rows of its payment: what an earlier run
				// sent is not what is left now.
				if row.Full() {
					t.sentAmount = ""
				} else if e.result == nil || e.result.Outcome == outcomeUnknown {
					t.amount = e.send.Amount
				}
			}
		}
		q := byPayment[row.PaymentID]
		if q == nil {
			q = &paymentQueue{paymentID: row.PaymentID}
			byPayment[row.PaymentID] = q
			queues = append(queues, q)
		}
		q.tasks = append(q.tasks, t)
		q.refunds = q.refunds || row.Op == OpRefund
	}
	// Longest queues first: a payment with many rows can only run them one
	// by one, so starting it late would leave the run waiting on it alone.
	sort.SliceStable(queues, func(a, b int) bool { return len(queues[a].tasks) > len(queues[b].tasks) })
	stray := 0
	for _, e := range entries {
		if r.o.ofRun(e.send) || r.o.ofRun(e.result) {
			stray++
		}
	}
	if stray -= matched; stray > 0 && r.o.Progress != nil {
		fmt.Fprintf(r.o.Progress, "%s: journal %s has records of %d %s not in this input (edited since?); they are ignored\n",
			r.o.Op, r.o.JournalPath, stray, plural(stray, "row", "rows"))
	}
	return queues
}

// settledResult reports whether the journal holds a final answer for the
// row, and that answer as a report line.
func settledResult(row Row, e *journalEntry, retryFailed bool) (rowResult, bool) {
	rec := e.result
	if rec == nil {
		return rowResult{}, false
	}
	switch {
	case rec.Outcome == OutcomeOK, rec.Outcome == OutcomeReconciled:
	case rec.Outcome == OutcomeFailed && !retryFailed:
	default:
		return rowResult{}, false
	}
	msg := "settled by an earlier run"
	if rec.Message != "" {
		msg += ": " + rec.Message
	}
	return rowResult{
		Line: row.Line, Op: row.Op, PaymentID: row.PaymentID, ReferenceID: rec.ReferenceID, Amount: rec.Amount,
		Outcome: rec.Outcome, HTTPStatus: rec.HTTPStatus, ErrorType: rec.ErrorType, Message: msg,
		PaymentStatus: rec.PaymentStatus, earlier: true,
	}, true
}

func countTasks(queues []*paymentQueue) int {
	n := 0
	for _, q := range queues {
		n += len(q.tasks)
	}
	return n
}

// runQueues hands payment queues to the workers until they are all done,
// ctx is cancelled or the run has to stop.
func (r *runner) runQueues(ctx context.Context, queues []*paymentQueue, results []rowResult) {
	ctx, r.stop = context.WithCancel(ctx)
	defer r.stop()
	work := make(chan *paymentQueue)
	go func() {
		defer close(work)
		for _, q := range queues {
			select {
			case work <- q:
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range min(r.o.Concurrency, len(queues)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for q := range work {
				for _, t := range q.tasks {
					if ctx.Err() != nil {
						break
					}
					res := r.process(ctx, q, t)
					results[t.index] = res
					if !res.notSent {
						r.progress.rowDone(res.Outcome == OutcomeFailed || res.Outcome == OutcomeUnknown)
					}
				}
			}
		}()
	}
	wg.Wait()
}

// halt stops the run for a reason that makes going on unsafe, such as a
// journal that cannot be written.
func (r *runner) halt(err error) {
	r.stopOnce.Do(func() {
		r.stopErr = err
		r.stop()
	})
}

func (r *runner) wait(ctx context.Context) error {
	if r.limiter == nil {
		return ctx.Err()
	}
	return r.limiter.Wait(ctx)
}

// process runs one row. ctx is the run's context: once it is done no new
// request starts, but a money move already sent is completed under a
// context of its own.
func (r *runner) process(ctx context.Context, q *paymentQueue, t *task) rowResult {
	row := t.row
	res := rowResult{Line: row.Line, Op: row.Op, PaymentID: row.PaymentID, currency: q.currency}
	notSent := func() rowResult {
		res.notSent, res.Outcome = true, ""
		if res.Amount == "" && !row.Full() && row.Op != OpClose {
			res.Amount = row.Amount
		}
		if res.currency == "" {
			res.currency = q.currency
		}
		return res
	}

	var req moveRequest
	if row.Op != OpClose {
		req.referenceID = firstNonEmpty(t.referenceID, row.ReferenceID, t.derivedRef)
		req.reason = row.Reason
		res.ReferenceID = req.referenceID
		res.Amount = t.amount
	}

	// The payment is read when the row needs it: to resolve "full" or a
	// currency's places, and for a row an earlier run left without an
	// answer, whose move may have been made.
	p := q.payment
	needAmount := row.Op != OpClose && t.amount == "" && row.Full()
	if t.resumed || needAmount || p == nil {
		var refused *rowResult
		var err error
		if p, refused, err = r.readPayment(ctx, q, t, res); err != nil || ctx.Err() != nil {
			return notSent()
		}
		if refused != nil {
			return *refused
		}
	}
	res.PaymentStatus, res.currency = p.Status, p.Currency
	if row.Currency != "" && row.Currency != p.Currency {
		res.Outcome = OutcomeFailed
		res.Message = colCurrency + ": " + currencyMismatch(row, p) + "; nothing was sent"
		r.record(t, res, OutcomeFailed)
		return res
	}
	if settled, ok := r.madeBefore(t, p, res); ok {
		return settled
	}

	if row.Op != OpClose {
		if t.amount == "" {
			var refused *rowResult
			res, refused = r.resolveAmounts(q, t, p, res)
			if refused != nil {
				return *refused
			}
		}
		var err error
		if req.amounts, err = parseAmounts(row, res.Amount); err != nil {
			res.Outcome, res.Message = OutcomeFailed, err.Error()
			r.record(t, res, OutcomeFailed)
			return res
		}
		// A "full" row's amount is known only now: its parts are checked
		// here, with the rule rows of fixed amounts met when read.
		if row.Op == OpCapture {
			if field, msg := excessPart(row, res.Amount); msg != "" {
				res.Outcome, res.Message = OutcomeFailed, field+": "+msg+"; nothing was sent"
				r.record(t, res, OutcomeFailed)
				return res
			}
		}
	}
	// The checks the plan makes, against the payment as the earlier rows
	// left it: what the plan refuses is refused here, nothing sent.
	if field, msg := checkMove(row.Op, p, q.state, req.amount, r.o.now()); msg != "" {
		res.Outcome, res.Message = OutcomeFailed, refusal(field, msg)
		r.record(t, res, OutcomeFailed)
		return res
	}

	if r.wait(ctx) != nil || ctx.Err() != nil {
		return notSent()
	}
	if r.journal != nil {
		err := r.journal.append(journalRecord{Event: eventSend, Op: row.Op, Key: t.key, Line: row.Line,
			PaymentID: row.PaymentID, ReferenceID: res.ReferenceID, Amount: res.Amount})
		if err != nil {
			r.halt(err)
			return notSent()
		}
	}

	// The request is in flight from here: Ctrl-C must not cut it off, or
	// its outcome would become unknown for no gain.
	reqCtx := context.WithoutCancel(ctx)
	if r.o.RowTimeout > 0 {
		var cancel context.CancelFunc
		reqCtx, cancel = context.WithTimeout(reqCtx, r.o.RowTimeout)
		defer cancel()
	}
	moved, err := r.send(reqCtx, row.Op, row.PaymentID, req)

	// A status read before sending is stale now; only the answer tells.
	res.PaymentStatus = ""
	res.moved = false
	var journalOutcome Outcome
	if err == nil {
		res.Outcome, res.moved = OutcomeOK, true
		if moved != nil {
			if moved.Reconciled {
				res.Outcome = OutcomeReconciled
			}
			if moved.MadeBefore {
				// The service deduplicated the request: the move was
				// made before this run sent it, and nothing moved now.
				res.Outcome, res.moved = OutcomeReconciled, false
				res.Message = fmt.Sprintf("already %s with this reference_id before this run sent it (an earlier or concurrent run of this file): nothing moved now", pastTense(row.Op))
			}
			if moved.Payment == nil {
				q.state.apply(row.Op, req.amount)
			} else {
				q.setPayment(moved.Payment)
				res.PaymentStatus = moved.Payment.Status
				res.currency = moved.Payment.Currency
				// The service answers a reference_id it has seen with the
				// payment as it is, moving nothing: the move is made only
				// if the payment holds it with this row's amounts.
				if row.Op != OpClose {
					if found, held := referenceConflict(row.Op, moved.Payment, req.referenceID, &req.amounts); !found || held != "" {
						res.Outcome, res.moved = OutcomeUnknown, false
						res.Message = unmatchedMessage(row.Op, moved.Payment, req.referenceID)
					}
				}
			}
		}
		journalOutcome = res.Outcome
	} else {
		status, errorType, message, unknown := r.o.Classify(err)
		res.Outcome, res.HTTPStatus, res.ErrorType, res.Message = OutcomeFailed, status, errorType, message
		if moved != nil && moved.Payment != nil {
			res.currency = moved.Payment.Currency // for the summary's totals
		}
		journalOutcome = OutcomeFailed
		if unknown {
			res.Outcome, journalOutcome = OutcomeUnknown, OutcomeUnknown
			res.Message += " (outcome unknown: running again with the same journal reads the payment and re-sends the row with the same reference_id only if the move is not there)"
		}
	}
	if r.journal != nil {
		err := r.journal.append(journalRecord{Event: eventResult, Op: row.Op, Key: t.key, Line: row.Line,
			PaymentID: row.PaymentID, ReferenceID: res.ReferenceID, Amount: res.Amount,
			Outcome: journalOutcome, HTTPStatus: res.HTTPStatus, ErrorType: res.ErrorType,
			Message: res.Message, PaymentStatus: res.PaymentStatus})
		if err != nil {
			// The row itself is done; without its result a re-run re-sends
			// it with the same reference_id, which is safe.
			r.halt(err)
		}
	}
	return res
}

// readPayment reads the row's payment. A non-nil second result is the
// row's final, failed, result: nothing is to be sent. The error means the
// run is stopping and the row was left alone.
func (r *runner) readPayment(ctx context.Context, q *paymentQueue, t *task, res rowResult) (*api.Payment, *rowResult, error) {
	if err := r.wait(ctx); err != nil {
		return nil, nil, err
	}
	p, err := r.c.GetPayment(ctx, t.row.PaymentID)
	if ctx.Err() != nil {
		return nil, nil, ctx.Err()
	}
	if err != nil {
		status, errorType, message, unknown := r.o.Classify(err)
		failed := res
		failed.Outcome, failed.HTTPStatus, failed.ErrorType = OutcomeFailed, status, errorType
		failed.Message = "reading the payment: " + message + "; nothing was sent"
		outcome := OutcomeFailed
		if unknown {
			// A re-run reads it again; a definite answer (no such
			// payment, say) is kept.
			outcome = outcomeUnknown
		}
		if t.resumed {
			// An earlier run sent the row and its outcome is not known:
			// without the payment it still is not.
			failed.Outcome = OutcomeUnknown
			failed.Message = "reading the payment: " + message + "; an earlier run sent this row and whether it moved money is unknown (a re-run reads the payment again)"
			outcome = OutcomeUnknown
		}
		if t.resumed || !unknown {
			r.record(t, failed, outcome)
		}
		return nil, &failed, nil
	}
	if !q.disputeRead {
		q.dispute, q.disputeRead = openDispute(ctx, r.c, q.refunds, p), true
	}
	q.setPayment(p)
	return p, nil, nil
}

// madeBefore settles a row whose move the payment already shows: made by
// an earlier run whose answer was lost, or by another run of the same
// file (which derives the same reference_id). It also refuses a
// reference_id the payment holds for another amount.
func (r *runner) madeBefore(t *task, p *api.Payment, res rowResult) (rowResult, bool) {
	if t.row.Op == OpClose {
		if !t.resumed || p.Status != api.StatusClosed {
			return res, false
		}
		res.Outcome = OutcomeReconciled
		res.Message = "the payment is CLOSED: the close an earlier run sent went through"
		r.record(t, res, res.Outcome)
		return res, true
	}
	var want *amounts
	amount := firstNonEmpty(t.sentAmount, t.amount)
	if t.row.Full() {
		amount = "" // any amount under its reference_id is the row's move
	}
	if amount == "" && !t.row.Full() {
		amount = t.row.Amount
	}
	if amount != "" {
		a, err := parseAmounts(t.row, amount)
		if err != nil {
			return res, false // left to the checks before sending
		}
		want = &a
	}
	found, held := referenceConflict(t.row.Op, p, res.ReferenceID, want)
	if !found {
		return res, false
	}
	if held != "" && t.resumed {
		// An earlier run sent this row under ref; the payment holds
		// another amount there: that cannot be matched to the row.
		res.Outcome, res.Message = OutcomeUnknown, unmatchedMessage(t.row.Op, p, res.ReferenceID)
		r.record(t, res, OutcomeUnknown)
		return res, true
	}
	if held != "" {
		res.Outcome, res.ErrorType, res.Message = OutcomeFailed, ErrorTypeConflict, held
		r.record(t, res, OutcomeFailed)
		return res, true
	}
	if want == nil {
		res.Amount = money.Format(heldAmount(t.row.Op, p, res.ReferenceID), p.Currency)
	} else if res.Amount == "" {
		res.Amount = amount
	}
	res.Outcome = OutcomeReconciled
	res.Message = fmt.Sprintf("already %s with this reference_id (by an earlier or concurrent run): nothing was sent", pastTense(t.row.Op))
	r.record(t, res, res.Outcome)
	return res, true
}

// resolveAmounts settles the amount to send, from the payment p read for
// a "full" row or for an amount with 3 places, which only some currencies
// allow. A non-nil second result is the row's final, failed, result:
// nothing is to be sent.
func (r *runner) resolveAmounts(q *paymentQueue, t *task, p *api.Payment, res rowResult) (rowResult, *rowResult) {
	row := t.row
	res.Amount = row.Amount
	if p != nil && row.Full() {
		remaining := q.state.remaining(row.Op)
		if !remaining.IsPositive() {
			field, msg := checkMove(row.Op, p, q.state, remaining, r.o.now())
			failed := res
			failed.Outcome, failed.Amount = OutcomeFailed, ""
			failed.Message = refusal(field, msg)
			r.record(t, failed, OutcomeFailed)
			return res, &failed
		}
		res.Amount = money.Format(remaining, p.Currency)
	}
	return res, r.checkPlaces(q, t, res)
}

// checkPlaces applies the currency's places, once known, to the row's
// amounts; with the currency unknown no amount has more than two places,
// which every currency allows.
func (r *runner) checkPlaces(q *paymentQueue, t *task, res rowResult) *rowResult {
	row := t.row
	if q.currency == "" {
		return nil
	}
	for _, a := range []struct{ name, value string }{
		{colAmount, res.Amount}, {colTaxAmount, row.TaxAmount}, {colShippingAmount, row.ShippingAmount}, {colDiscountAmount, row.DiscountAmount},
	} {
		if a.value == "" {
			continue
		}
		if _, err := money.Parse(a.value, q.currency); err != nil {
			failed := res
			failed.Outcome = OutcomeFailed
			failed.Message = a.name + ": " + err.Error()
			r.record(t, failed, OutcomeFailed)
			return &failed
		}
	}
	return nil
}

// record journals the result of a row settled without a move of its own:
// refused before anything was sent (a re-run keeps that unless
// RetryFailed), or found made on the payment.
func (r *runner) record(t *task, res rowResult, outcome Outcome) {
	if r.journal == nil {
		return
	}
	err := r.journal.append(journalRecord{Event: eventResult, Op: t.row.Op, Key: t.key, Line: t.row.Line,
		PaymentID: t.row.PaymentID, ReferenceID: res.ReferenceID, Amount: res.Amount,
		Outcome: outcome, HTTPStatus: res.HTTPStatus, ErrorType: res.ErrorType,
		Message: res.Message, PaymentStatus: res.PaymentStatus})
	if err != nil {
		r.halt(err)
	}
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// moveRequest is what process sends, whatever the op.
type moveRequest struct {
	referenceID string
	reason      string
	amounts
}

type amounts struct {
	amount                  decimal.Decimal
	tax, shipping, discount *decimal.Decimal
}

func parseAmounts(row Row, amount string) (amounts, error) {
	var a amounts
	var err error
	if a.amount, err = money.Parse(amount, ""); err != nil {
		return a, err
	}
	optional := func(s string) (*decimal.Decimal, error) {
		if s == "" {
			return nil, nil
		}
		d, err := money.Parse(s, "")
		return &d, err
	}
	if a.tax, err = optional(row.TaxAmount); err != nil {
		return a, err
	}
	if a.shipping, err = optional(row.ShippingAmount); err != nil {
		return a, err
	}
	a.discount, err = optional(row.DiscountAmount)
	return a, err
}

func (r *runner) send(ctx context.Context, op Op, paymentID string, req moveRequest) (*api.MoveResult, error) {
	switch op {
	case OpCapture:
		return r.c.Capture(ctx, paymentID, api.CaptureRequest{
			Amount: req.amount, ReferenceID: req.referenceID,
			TaxAmount: req.tax, ShippingAmount: req.shipping, DiscountAmount: req.discount,
		})
	case OpRefund:
		return r.c.Refund(ctx, paymentID, api.RefundRequest{Amount: req.amount, ReferenceID: req.referenceID, Reason: req.reason})
	default:
		return r.c.Close(ctx, paymentID)
	}
}

// refusal is the report's message for a row refused before sending.
func refusal(field, msg string) string {
	if field != "" {
		msg = field + ": " + msg
	}
	return msg + "; nothing was sent"
}
