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
	q   *paymentQueue
	row Row
	key string
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

// paymentQueue is what a run knows of one payment its rows name. Every
// row of a payment goes to the same worker, in input order, and that
// worker runs them one after the other, which is how rows of the same
// payment never overlap (the service locks a payment for each request)
// while other workers go on with other payments.
type paymentQueue struct {
	paymentID string
	// waiting are the rows read and not yet taken by a worker; ready:
	// the queue waits for a worker; running: a worker runs its rows.
	// The scheduler guards the three.
	waiting        []*task
	ready, running bool
	// left is how many of its rows have not yet been run, as the count
	// of the pending rows knew them; at none, with nothing waiting or
	// running, the scheduler forgets the queue and its payment with it.
	left int
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

// setPayment makes p the payment as last known: what the checks of its
// later rows read of it, kept for every payment until the run ends.
func (q *paymentQueue) setPayment(p *api.Payment) {
	p = checkedPart(p)
	q.currency, q.payment = p.Currency, p
	q.state = newPayState(p, q.dispute)
}

// checkedPart is the part of p the checks of a row read: its status,
// amounts, expiry, and the reference_id and amounts of each move. A run
// keeps one per payment, and a payment's answer holds every move made on
// it with its items, and the answer's bytes: the rest is left behind.
func checkedPart(p *api.Payment) *api.Payment {
	kept := &api.Payment{ID: p.ID, Amount: p.Amount, Currency: p.Currency, Status: p.Status, IsTest: p.IsTest,
		ExpiresAt: p.ExpiresAt, CreatedAt: p.CreatedAt,
		Captures: make([]api.Capture, len(p.Captures)), Refunds: make([]api.Refund, len(p.Refunds))}
	for i, c := range p.Captures {
		kept.Captures[i] = api.Capture{ID: c.ID, Amount: c.Amount, ReferenceID: c.ReferenceID,
			TaxAmount: c.TaxAmount, ShippingAmount: c.ShippingAmount, DiscountAmount: c.DiscountAmount}
	}
	for i, r := range p.Refunds {
		kept.Refunds[i] = api.Refund{ID: r.ID, Amount: r.Amount, ReferenceID: r.ReferenceID}
	}
	return kept
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

// RowSource yields the valid rows of a run to each, in input order. A
// run calls it more than once (to learn what is pending, for the plan of
// the confirmation, to send), and every call must yield the same rows, or
// return an error: a file is read again for each pass, so a run holds no
// rows, only what it keeps per payment.
type RowSource func(each func(Row)) error

// SliceSource is a RowSource of rows held in memory.
func SliceSource(rows []Row) RowSource {
	return func(each func(Row)) error {
		for _, r := range rows {
			each(r)
		}
		return nil
	}
}

// Batch is a run made ready by Prepare: its journal is open and locked,
// its report can be written, and it knows how many rows are still to send.
type Batch struct {
	r       *runner
	src     RowSource
	skipped []rowResult
	// pending counts the rows no earlier run settled, over the payments
	// of pendingSet.
	pending    int
	pendingSet PaymentSet
	index      *journalIndex
	rep        *report
	closed     bool
	// inputLock is the input lock's file, held until Close.
	inputLock *os.File
}

// Prepare is PrepareSource of rows held in memory.
func Prepare(rows []Row, o Options) (*Batch, error) {
	return PrepareSource(SliceSource(rows), o)
}

// PrepareSource checks the rows and the files of a run before anything is
// sent: it locks the input and the journal (a second run stops here),
// reads what earlier runs settled, makes sure the report can be written,
// and counts the rows still to send. The caller confirms the run, then
// calls Run, and Close in any case.
func PrepareSource(src RowSource, o Options) (*Batch, error) {
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

	b := &Batch{r: &runner{o: o, limiter: o.limiter}, src: withRunOp(o.Op, src), skipped: skipped}
	if o.LockDir != "" && o.InputID != "" {
		var err error
		if b.inputLock, err = lockInput(o.LockDir, o.Op, o.InputID, o.InputName, o.JournalPath, o.now()); err != nil {
			return nil, err
		}
	}
	if o.JournalPath != "" {
		var err error
		if b.r.journal, b.index, err = openJournal(o.JournalPath, o.Op, o.now); err != nil {
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
		b.rep.chunk = o.spill
	}
	if err := b.countPending(); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// withRunOp gives the rows without an Op the run's op, when it is a move:
// rows made by hand for a bulk capture need not name theirs.
func withRunOp(op Op, src RowSource) RowSource {
	if !op.valid() {
		return src
	}
	return func(each func(Row)) error {
		return src(func(r Row) {
			if r.Op == "" {
				r.Op = op
			}
			each(r)
		})
	}
}

// eachRow calls each with every row of the source, its journal key and
// derived reference_id, and what the journal records of it (nil if
// nothing); a journal that cannot be read stops the pass.
func (b *Batch) eachRow(each func(row Row, key, ref string, e *journalEntry)) error {
	id := identifier{prefix: b.r.o.ReferencePrefix}
	var failed error
	err := b.src(func(row Row) {
		if failed != nil {
			return
		}
		if !row.Op.valid() {
			failed = fmt.Errorf("bulk: line %d: unknown op %q", row.Line, row.Op)
			return
		}
		key, ref := id.next(row)
		e, err := b.index.lookup(key)
		if err != nil {
			failed = err
			return
		}
		each(row, key, ref, e)
	})
	if failed != nil {
		return failed
	}
	return err
}

// countPending counts the rows no earlier run settled, and their payments.
func (b *Batch) countPending() error {
	matched := 0
	err := b.eachRow(func(row Row, _, _ string, e *journalEntry) {
		if e != nil {
			matched++
			if _, settled := settledResult(row, e, b.r.o.RetryFailed); settled {
				return
			}
		}
		b.pending++
		b.pendingSet.Add(row)
	})
	if err != nil {
		return err
	}
	o := b.r.o
	if b.index != nil {
		if stray := b.index.ofRun - matched; stray > 0 && o.Progress != nil {
			fmt.Fprintf(o.Progress, "%s: journal %s has records of %d %s not in this input (edited since?); they are ignored\n",
				o.Op, o.JournalPath, stray, plural(stray, "row", "rows"))
		}
	}
	return nil
}

// PendingRows is the number of rows this run is to send: those no earlier
// run settled.
func (b *Batch) PendingRows() int { return b.pending }

// PendingPayments is the number of payments of the pending rows.
func (b *Batch) PendingPayments() int { return b.pendingSet.Len() }

// PlanPending plans the pending rows, as Plan does: what the confirmation
// of a live run shows. The rows are read again, not held.
func (b *Batch) PlanPending(ctx context.Context, read func(ctx context.Context, id string) (*api.Payment, error), disputes DisputeReader, now time.Time) (PlanResult, error) {
	o := b.r.o
	pl, err := NewPlanner(ctx, read, disputes, &b.pendingSet, o.Concurrency, now, o.ReferencePrefix, nil)
	if err != nil {
		return PlanResult{}, err
	}
	err = b.eachRow(func(row Row, _, _ string, e *journalEntry) {
		if e != nil {
			if _, settled := settledResult(row, e, o.RetryFailed); settled {
				return
			}
		}
		pl.Check(row)
	})
	return pl.Result(), err
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

// resultSink takes the rows as they settle: it counts them into the
// summary and hands them to the report, which puts them in input order at
// the end.
type resultSink struct {
	mu      sync.Mutex
	summary Summary
	rep     *report
	err     error // the report's first error: later lines are dropped
}

func (s *resultSink) add(res rowResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.summary.Total++
	s.summary.count(res)
	if s.rep != nil && s.err == nil {
		s.err = s.rep.add(res)
	}
}

// Run sends the pending rows through c; see the package function Run.
func (b *Batch) Run(ctx context.Context, c Client) (Summary, error) {
	if b.closed {
		return Summary{}, errors.New("bulk: the batch was closed")
	}
	r, o := b.r, b.r.o
	r.c = c
	rep := b.rep
	defer func() {
		if rep != nil && b.rep == nil {
			rep.abort() // not finished below: its run files go
		}
		b.Close()
	}()
	b.rep = nil // finished or aborted here

	r.progress = startProgress(o, b.pending)
	sink := &resultSink{rep: rep}
	r.runStream(ctx, b, sink)

	summary := sink.summary
	summary.Total += len(b.skipped)
	summary.Skipped = len(b.skipped)
	// Rows left untouched mean the run did not finish, whatever stopped
	// it; a cancellation that came after the last row changes nothing.
	summary.Interrupted = summary.NotSent > 0

	var reportErr error
	if rep != nil {
		notSent := "not sent: the run was interrupted"
		if r.stopErr != nil {
			notSent = "not sent: the run stopped: " + r.stopErr.Error()
		}
		if reportErr = sink.err; reportErr == nil {
			reportErr = rep.finish(b.skipped, notSent)
		} else {
			reportErr = fmt.Errorf("report %s: %w", rep.path, reportErr)
		}
		if reportErr == nil {
			rep = nil
		}
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
	if o.window <= 0 {
		o.window = windowRows
	}
	if o.spill <= 0 {
		o.spill = spillChunk
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

// windowRows is how many rows a run holds at most waiting for a worker,
// whatever the size of its input.
const windowRows = 4096

// runStream reads the rows once more and runs them: rows an earlier run
// settled are reported as it settled them, the others wait in their
// payment's queue for a worker. A worker takes a payment whose queue has
// rows and runs them one after the other, so a payment's rows run in
// input order and never overlap, while the other workers go on with other
// payments. Reading waits while windowRows rows wait. Once ctx is
// cancelled or the run has to stop, the rows still to come are reported
// not sent.
func (r *runner) runStream(ctx context.Context, b *Batch, sink *resultSink) {
	ctx, r.stop = context.WithCancel(ctx)
	defer r.stop()
	s := newScheduler(r.o.window)
	var wg sync.WaitGroup
	for range max(1, min(r.o.Concurrency, b.pendingSet.Len())) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				q, tasks := s.take()
				if q == nil {
					return
				}
				for _, t := range tasks {
					res := rowResult{notSent: true}
					if ctx.Err() == nil {
						res = r.process(ctx, q, t)
					}
					if !res.notSent {
						r.progress.rowDone(res.Outcome == OutcomeFailed || res.Outcome == OutcomeUnknown)
					}
					sink.add(completed(t, res))
				}
				s.done(q, len(tasks))
			}
		}()
	}
	err := b.eachRow(func(row Row, key, ref string, e *journalEntry) {
		t := &task{row: row, key: key, derivedRef: ref}
		if e != nil {
			if res, settled := settledResult(row, e, r.o.RetryFailed); settled {
				sink.add(res)
				return
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
		s.push(row.PaymentID, t, func() *paymentQueue {
			// A row the first pass did not see (the input changed) may be
			// a refund of a payment it did not know to refund.
			return &paymentQueue{paymentID: row.PaymentID, refunds: b.pendingSet.refunds[row.PaymentID] || row.Op == OpRefund,
				left: b.pendingSet.rows[row.PaymentID]}
		})
	})
	if err != nil {
		r.halt(err)
	}
	s.close()
	wg.Wait()
}

// scheduler hands payments with rows waiting to workers, one worker per
// payment at a time. Its fields, and a queue's waiting, running, ready and
// left, are guarded by mu; the rest of a queue belongs to the worker
// running it. It holds the queues of the payments whose rows are not all
// run: a payment whose last row has run is forgotten, so a run holds the
// payments it is working on, not every payment of its input.
type scheduler struct {
	mu      sync.Mutex
	cond    *sync.Cond
	queues  map[string]*paymentQueue
	ready   []*paymentQueue
	waiting int // rows pushed and not done
	limit   int
	closed  bool
}

func newScheduler(limit int) *scheduler {
	s := &scheduler{limit: limit, queues: map[string]*paymentQueue{}}
	s.cond = sync.NewCond(&s.mu)
	return s
}

// push queues t on its payment's queue (made by mk when the scheduler
// holds none), waiting while limit rows wait.
func (s *scheduler) push(paymentID string, t *task, mk func() *paymentQueue) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.waiting >= s.limit {
		s.cond.Wait()
	}
	q := s.queues[paymentID]
	if q == nil {
		q = mk()
		s.queues[paymentID] = q
	}
	t.q = q
	s.waiting++
	q.waiting = append(q.waiting, t)
	if !q.running && !q.ready {
		q.ready = true
		s.ready = append(s.ready, q)
		s.cond.Broadcast()
	}
}

// take is a payment and its waiting rows, for the calling worker to run;
// nil once the input is read and every row taken.
func (s *scheduler) take() (*paymentQueue, []*task) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.ready) == 0 && !s.closed {
		s.cond.Wait()
	}
	if len(s.ready) == 0 {
		return nil, nil
	}
	q := s.ready[0]
	s.ready[0] = nil
	s.ready = s.ready[1:]
	tasks := q.waiting
	q.waiting, q.ready, q.running = nil, false, true
	return q, tasks
}

// done ends a worker's turn on q, which ran n rows.
func (s *scheduler) done(q *paymentQueue, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.waiting -= n
	q.running = false
	q.left -= n
	switch {
	case len(q.waiting) > 0:
		q.ready = true
		s.ready = append(s.ready, q)
	case q.left <= 0 && s.queues[q.paymentID] == q:
		// Its last row has run. A later row of it (an input changed
		// since it was counted) gets a new queue, which reads the payment
		// afresh before its first row.
		delete(s.queues, q.paymentID)
	}
	s.cond.Broadcast()
}

// close says the input is read.
func (s *scheduler) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.cond.Broadcast()
}

// completed is the report line of a row the run took up: its input values
// kept where the run did not set them, and not_sent when it never ran.
func completed(t *task, res rowResult) rowResult {
	row := t.row
	if res.Line == 0 {
		res.Line, res.Op, res.PaymentID = row.Line, row.Op, row.PaymentID
		if row.Op != OpClose && !row.Full() {
			res.Amount = row.Amount
		}
	}
	if res.currency == "" {
		res.currency = t.q.currency
	}
	// Every line of the report keeps the row's own values.
	if res.Amount == "" && row.Op != OpClose {
		res.Amount = row.Amount
	}
	if res.ReferenceID == "" {
		res.ReferenceID = row.ReferenceID
	}
	if res.Outcome == "" {
		res.Outcome, res.notSent = OutcomeNotSent, true
	}
	return res
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
