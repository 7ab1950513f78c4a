package bulk

import (
	"context"
	"fmt"
	"sync"

	"github.com/bnpl-cli/bnpl/internal/bulk/ledger"
)

// runner is a run in progress: the client, the options, the ledger and
// the progress display, shared by the workers.
type runner struct {
	c        Client
	o        Options
	ledger   *ledger.Ledger
	progress *progress
	limiter  waiter
	// sketch is what the run knows of its input (see InputIdentity);
	// inputRuns the earlier runs of the same input, whose record of its
	// rows this run takes up.
	sketch    []uint64
	inputRuns map[int64]bool

	stopOnce sync.Once
	stopErr  error
	stop     context.CancelFunc
	// waitMu guards told: the runs a wait for a claim was announced for.
	waitMu sync.Mutex
	told   map[int64]bool
	// senderOnce: the warning of another sender is given once a run.
	senderOnce sync.Once
}

// runStream reads the rows once more and runs them: rows an earlier run
// settled are recorded as it settled them, the others wait in their
// payment's queue for a worker. A worker takes a payment whose queue has
// rows, claims it in the ledger and runs them one after the other, so a
// payment's rows run in input order and never overlap, while the other
// workers go on with other payments. Reading waits while windowRows rows
// wait. Once ctx is cancelled or the run has to stop, the rows still to
// come are left not sent.
func (r *runner) runStream(ctx context.Context, b *Batch) {
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
				r.work(ctx, q, tasks)
				s.done(q, len(tasks))
			}
		}()
	}
	err := b.eachRow(func(rp rowPass) {
		t := r.newTask(rp)
		if rp.entry != nil {
			if res, settled := settledResult(rp.row, rp.entry, r.o.RetryFailed); settled && !r.uncounted(t, res) {
				r.settleRow(t, res)
				return
			}
		}
		s.push(rp.row.PaymentID, t, func() *paymentQueue {
			// A row the first pass did not see (the input changed) may be
			// a refund of a payment it did not know to refund.
			return &paymentQueue{paymentID: rp.row.PaymentID, refunds: b.pendingSet.refunds[rp.row.PaymentID] || rp.row.Op == OpRefund,
				left: b.pendingSet.rows[rp.row.PaymentID]}
		})
	})
	if err != nil {
		r.halt(err)
	}
	s.close()
	wg.Wait()
}

// uncounted reports whether a row an earlier run of this input settled
// as made is a move of a run killed before its summary (no summary counted
// its money), or one this machine's ledger never saw sent (an imported
// journal's, run on another machine or before the ledger was deleted: whether that
// run's summary counted it, this ledger cannot tell). The row is then run
// again (resumed: its payment is read first, and the move found made there
// is counted for the ended run, see ledger.adopt, or apart as held
// before), never sent again while the payment shows it.
func (r *runner) uncounted(t *task, res rowResult) bool {
	if res.Outcome != OutcomeOK && res.Outcome != OutcomeReconciled {
		return false
	}
	if r.ledger.Adoptable(t.moveID) == nil && r.ledger.Sent(t.moveID) {
		return false
	}
	t.resumed, t.recount = true, true
	return true
}

// newTask is the task of a row to run, with what the ledger recorded of
// its last send for a run of this input.
func (r *runner) newTask(rp rowPass) *task {
	t := &task{row: rp.row, seq: rp.seq, key: rp.key, derivedRef: rp.derived, moveID: ledger.MoveID(r.ledger.Scope(), rp.key)}
	e := rp.entry
	if e == nil || e.send == nil {
		return t
	}
	t.referenceID, t.journal = e.send.ReferenceID, e.journal
	t.resumed, t.sentAmount = true, e.send.Amount
	// A "full" row resolves its amount when it is sent, after the earlier
	// rows of its payment: what an earlier run sent is not what is left
	// now.
	if rp.row.Full() {
		t.sentAmount = ""
	} else if e.result == nil || e.result.Outcome == outcomeUnknown {
		t.amount = e.send.Amount
	}
	return t
}

// work runs a worker's turn on q: it claims the payment in the ledger
// (waiting while another run holds it), runs the rows taken, and gives
// the payment back.
func (r *runner) work(ctx context.Context, q *paymentQueue, tasks []*task) {
	claimed := ctx.Err() == nil && r.claim(ctx, q) == nil
	for _, t := range tasks {
		res := rowResult{notSent: true}
		if claimed && ctx.Err() == nil {
			res = r.runRow(ctx, q, t)
		}
		res = completed(t, res)
		if !res.notSent && !t.recount {
			r.progress.rowDone(res.Outcome == OutcomeFailed || res.Outcome == OutcomeUnknown)
		}
		r.settleRow(t, res)
		if res.Outcome == OutcomeUnknown && !res.earlier {
			// The payment may hold the move or not: the next row reads
			// it again, and settles this one if it shows it.
			q.payment = nil
		}
	}
	if claimed && ctx.Err() == nil && len(q.unresolved) > 0 {
		r.settleUnresolved(ctx, q)
	}
	if claimed {
		if err := r.ledger.Release(q.paymentID); err != nil {
			r.halt(r.ledger.Stopped(err))
		}
	}
}

// notice writes a notice of the run in progress, the progress bar
// cleared first (it redraws with the next row), so that the two do not
// share a line.
func (r *runner) notice(format string, args ...any) {
	if r.progress == nil {
		r.o.notice(format, args...)
		return
	}
	r.progress.around(func() { r.o.notice(format, args...) })
}

// warn writes a warning of the run in progress through o.Warn (a notice
// without it), the progress bar cleared first.
func (r *runner) warn(format string, args ...any) {
	write := func() { r.o.notice(format, args...) }
	if r.o.Warn != nil {
		write = func() { r.o.Warn(fmt.Sprintf(format, args...)) }
	}
	if r.progress == nil {
		write()
		return
	}
	r.progress.around(write)
}

// notice writes a notice through o.Notice, or on o.Progress.
func (o Options) notice(format string, args ...any) {
	switch {
	case o.Notice != nil:
		o.Notice(format, args...)
	case o.Progress != nil:
		fmt.Fprintf(o.Progress, format+"\n", args...)
	}
}

// settleRow records what became of a row in the ledger, in one
// transaction: the run's row, the move's phase, and the outcome a later
// run of this input takes up.
func (r *runner) settleRow(t *task, res rowResult) {
	row := res.ledgerRow()
	if !res.notSent {
		row.Record = string(res.journal)
	}
	if err := r.ledger.Settle(t.seq, t.moveID, row, movePhase(res), r.o.InputName); err != nil {
		r.halt(r.ledger.Stopped(err))
	}
}

// movePhase is the phase a row's result leaves its move in; "" leaves it
// as it is (a row not sent, or settled by an earlier run).
func movePhase(res rowResult) string {
	if res.notSent || res.earlier {
		return ""
	}
	switch res.Outcome {
	case OutcomeOK, OutcomeReconciled, OutcomeHeldBefore:
		return ledger.PhaseConfirmed
	case OutcomeUnknown:
		return ledger.PhaseUnknown
	case OutcomeFailed:
		return ledger.PhaseFailed
	}
	return ""
}

// completed is the report line of a row the run took up: its input values
// kept where the run did not set them, and not_sent when it never ran.
func completed(t *task, res rowResult) rowResult {
	row := t.row
	if res.Line == 0 {
		res.Line, res.Op, res.PaymentID = row.Line, row.Op, row.PaymentID
	}
	if res.currency == "" && t.q != nil {
		res.currency = t.q.currency
	}
	// Every line of the report keeps the row's own values.
	if res.Amount == "" && row.Op != OpClose {
		res.Amount = row.Amount
	}
	if res.ReferenceID == "" {
		res.ReferenceID = firstNonEmpty(t.referenceID, row.ReferenceID, t.derivedRef)
	}
	if res.Outcome == "" {
		res.Outcome, res.notSent = OutcomeNotSent, true
	}
	return res
}

// halt stops the run for a reason that makes going on unsafe, such as a
// ledger that cannot be written.
func (r *runner) halt(err error) {
	r.stopOnce.Do(func() {
		r.stopErr = err
		if r.stop != nil {
			r.stop()
		}
	})
}

func (r *runner) wait(ctx context.Context) error {
	if r.limiter == nil {
		return ctx.Err()
	}
	return r.limiter.Wait(ctx)
}
