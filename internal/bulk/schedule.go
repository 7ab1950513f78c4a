package bulk

import (
	"context"
	"sync"

	"golang.org/x/time/rate"

	"github.com/bnpl-cli/bnpl/internal/api"
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
	// seq is the row's place among the valid rows; key its identity (see
	// rowIdentity) and moveID its move's key in the ledger.
	seq    int
	key    string
	moveID string
	// referenceID and amount come from the move's last send, as the
	// ledger recorded it for a run of this input (see Batch.recorded): a row
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
	// journal is the old journal the row's earlier send was imported
	// from, if it was (see importJournal).
	journal string
	// recount: a row an earlier run settled, run again to count the
	// money of a run killed before its summary (see runner.uncounted);
	// it is not one of the rows to send the progress counts.
	recount bool
}

// paymentQueue is what a run knows of one payment its rows name. Every
// row of a payment goes to the same worker, in input order, and that
// worker runs them one after the other, holding the payment's claim in
// the ledger, which is how rows of the same payment never overlap (the
// service locks a payment for each request), in this run or another,
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
	// payment is the payment as last known: read once the claim is
	// taken, then as each move answered it; nil makes the next row read
	// it again (after a row of unknown outcome). Rows are checked
	// against it before they are sent, as a single move is checked
	// against its read.
	payment *api.Payment
	// state is the payment as the rows sent so far leave it, taken from
	// payment; rows are checked against it as the plan checks them.
	state *payState
	// closedAtRead: the payment was CLOSED when first read under the
	// claim (firstRead: it is yet to be), so a close row of it is already
	// made.
	closedAtRead, firstRead bool
	// claimed: this run has held the payment's claim before.
	claimed bool
	// fileRefs are the reference_ids this run's rows of the payment send,
	// by op: the moves of it this file accounts for.
	fileRefs map[Op]map[string]bool
	// unresolved are rows of this claim whose outcome is unknown: the
	// next read of the payment settles those it shows made.
	unresolved []unresolvedRow
	// refunds: some row of the payment is a refund, so its disputes are
	// read with the payment.
	refunds bool
	// dispute is an open dispute found at the first read (refunds only).
	dispute     *api.Dispute
	disputeRead bool
}

// unresolvedRow is a row of unknown outcome waiting for the next read of
// its payment.
type unresolvedRow struct {
	t   *task
	res rowResult
	req moveRequest
}

// setPayment makes p the payment as last known: what the checks of its
// later rows read of it.
func (q *paymentQueue) setPayment(p *api.Payment) {
	earlier := 0
	if q.state != nil {
		earlier = q.state.earlier
	}
	p = checkedPart(p)
	q.currency, q.payment = p.Currency, p
	q.state = newPayState(p, q.dispute)
	q.state.earlier = earlier
}

// checkedPart is the part of p the checks of a row read: its status,
// amounts, expiry, and the reference_id and amounts of each move. A run
// keeps one per payment it works on, and a payment's answer holds every
// move made on it with its items, and the answer's bytes: the rest is
// left behind.
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

// windowRows is how many rows a run holds at most waiting for a worker,
// whatever the size of its input.
const windowRows = 4096

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
