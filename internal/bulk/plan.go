package bulk

import (
	"context"
	"fmt"
	"hash/maphash"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/money"
)

// PlanResult is what a run of rows would do, judged against the payments
// as read now, each row after the earlier rows of its payment.
type PlanResult struct {
	Total int
	// Go are the rows that would be sent; Made those whose move the
	// payment already holds (sent again they move nothing); Refused those
	// a run would refuse, with why.
	Go, Made int
	// Refused lists the first MaxPlanRefusals refused rows, in input
	// order; RefusedCount counts them all.
	Refused      []RowError
	RefusedCount int
	// Money is what the rows to go would move, per currency; ByOp
	// splits it by move, for a file of mixed rows.
	Money map[string]decimal.Decimal
	ByOp  map[Op]map[string]decimal.Decimal
}

// String is the plan's summary line.
func (p PlanResult) String() string {
	line := fmt.Sprintf("plan: %d %s: %d would go, %d already made, %d refused", p.Total, plural(p.Total, "row", "rows"), p.Go, p.Made, p.RefusedCount)
	if len(p.Money) > 0 {
		line += "; would move " + TotalsString(p.Money) + byOpString(p.ByOp, "")
	}
	return line
}

// MaxPlanRefusals bounds the refused rows a plan keeps: a file of
// millions of rows, all refused, must not be held in memory to say so.
const MaxPlanRefusals = 1000

// PlanError stops a dry run whose plan refuses rows. Exit 2: nothing was
// sent, and a real run would refuse the same rows.
type PlanError struct{ Plan PlanResult }

func (e *PlanError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d rows would be refused, nothing was sent:", e.Plan.RefusedCount, e.Plan.Total)
	for i, r := range e.Plan.Refused {
		if i == maxListed {
			fmt.Fprintf(&b, "\n  ... and %d more", e.Plan.RefusedCount-maxListed)
			break
		}
		b.WriteString("\n  ")
		b.WriteString(r.String())
	}
	return b.String()
}

func (e *PlanError) ExitCode() int { return 2 }

func (e *PlanError) Hint() string {
	return "fix the rows listed (or remove them), then run the plan again"
}

// DisputeReader reads the disputes of one payment (live payments only).
// A Client that is one lets a refund run refuse, before sending, a refund
// under an open dispute, as a single refund does.
type DisputeReader interface {
	PaymentDisputes(ctx context.Context, paymentID string) ([]api.Dispute, error)
}

// payState is a payment as the earlier rows of a file leave it: the plan
// works it out from one read, a run takes it from the last answer.
type payState struct {
	status                     string
	amount, captured, refunded decimal.Decimal
	// dispute is an open dispute on the payment: refunds wait on it.
	dispute *api.Dispute
}

func newPayState(p *api.Payment, dispute *api.Dispute) *payState {
	return &payState{status: p.Status, amount: p.Amount, captured: p.Captured(), refunded: p.Refunded(), dispute: dispute}
}

// remaining is what op can still move on the payment, by the rules of
// api.Payment's Capturable and Refundable.
func (st *payState) remaining(op Op) decimal.Decimal {
	var rest decimal.Decimal
	switch {
	case op == OpCapture && st.status == api.StatusAuthorized:
		rest = st.amount.Sub(st.captured)
	case op == OpRefund && st.status == api.StatusClosed:
		rest = st.captured.Sub(st.refunded)
	}
	return decimal.Max(rest, decimal.Zero)
}

// apply counts a move of amount made by a row (closing: amount is zero).
func (st *payState) apply(op Op, amount decimal.Decimal) {
	switch op {
	case OpClose:
		st.status = api.StatusClosed
	case OpCapture:
		st.captured = st.captured.Add(amount)
		if !st.amount.GreaterThan(st.captured) {
			st.status = api.StatusClosed // the whole remainder closes the payment
		}
	default:
		st.refunded = st.refunded.Add(amount)
	}
}

// checkMove is the check a single move of op makes against the payment as
// read, here the payment p as st says the earlier rows leave it: status,
// an expired authorization, an open dispute, and the amount against what
// is left. It returns the refusal (field may be empty), or "" when the row
// would go. A plan and a real run refuse with these same words.
func checkMove(op Op, p *api.Payment, st *payState, amount decimal.Decimal, now time.Time) (field, msg string) {
	need := api.StatusAuthorized
	if op == OpRefund {
		need = api.StatusClosed
	}
	if st.status != need {
		return "", fmt.Sprintf("the payment is %s; only %s payments can be %s", st.status, need, pastTense(op))
	}
	switch op {
	case OpClose:
		return "", ""
	case OpCapture:
		if p.AuthorizationExpired(now) {
			return "", fmt.Sprintf("the authorization expired at %s: nothing can be captured", p.ExpiresAt.UTC().Format(time.RFC3339))
		}
	case OpRefund:
		if st.dispute != nil {
			return "", fmt.Sprintf("dispute %s is open (status %s): refunds wait until it is resolved", st.dispute.ID, st.dispute.Status)
		}
	}
	remaining := st.remaining(op)
	switch {
	case !amount.IsPositive():
		return colAmount, fmt.Sprintf("nothing left to %s after the earlier rows of this payment", op)
	case amount.GreaterThan(remaining):
		return colAmount, fmt.Sprintf("%s is more than the %s left to %s after the earlier rows of this payment",
			money.Display(amount, p.Currency), money.Display(remaining, p.Currency), op)
	}
	return "", ""
}

// openDispute reads the disputes of a live CLOSED payment a refund is to
// be made on, and returns the open one. When they cannot be read the
// refund goes ahead and the service decides, as with a single refund.
func openDispute(ctx context.Context, c any, refunds bool, p *api.Payment) *api.Dispute {
	dr, ok := c.(DisputeReader)
	if !ok || !refunds || p.IsTest || p.Status != api.StatusClosed {
		return nil
	}
	ds, err := dr.PaymentDisputes(ctx, p.ID)
	if err != nil {
		return nil
	}
	return api.ActiveDispute(ds)
}

// Plan reads every payment the rows name, concurrency at a time, and
// checks every row as a single move of its op would be checked: the
// currency's places and the row's currency, what is left to capture or
// refund after the earlier rows of the same payment, the payment's status,
// an expired authorization, an open dispute (for refunds, when disputes is
// a DisputeReader) and a reference_id the payment holds for another
// amount. progress, when set, is called after each read.
//
// read reads one payment; a dry run passes a read that is sent even then.
// op is the run's: a row without an Op of its own makes that move. prefix
// is the run's Options.ReferencePrefix: a row without a reference_id is
// checked under the one a run derives for it, so that a move an earlier
// run of the file made counts as already made.
func Plan(ctx context.Context, read func(ctx context.Context, id string) (*api.Payment, error), disputes DisputeReader, op Op, rows []Row, concurrency int, now time.Time, prefix string, progress func(done, total int)) (PlanResult, error) {
	fillOp(op, rows)
	var set PaymentSet
	for _, r := range rows {
		set.Add(r)
	}
	pl, err := NewPlanner(ctx, read, disputes, &set, concurrency, now, prefix, progress)
	if err != nil {
		return PlanResult{}, err
	}
	for _, r := range rows {
		pl.Check(r)
	}
	return pl.Result(), nil
}

// PaymentSet is the payments rows name, in the order first named, and
// which of them some row refunds; what a plan reads before it checks
// the rows, kept while the rows themselves are not.
type PaymentSet struct {
	ids     []string
	refunds map[string]bool
	rows    map[string]int // rows per payment
}

// Add counts the payment of row.
func (s *PaymentSet) Add(row Row) {
	if s.refunds == nil {
		s.refunds, s.rows = map[string]bool{}, map[string]int{}
	}
	s.rows[row.PaymentID]++
	refund, seen := s.refunds[row.PaymentID]
	if !seen {
		s.ids = append(s.ids, row.PaymentID)
	}
	s.refunds[row.PaymentID] = refund || row.Op == OpRefund
}

// Len is the number of payments.
func (s *PaymentSet) Len() int { return len(s.ids) }

// Planner checks rows one at a time, in input order, against the payments
// read when it was made: a plan of a file too large to hold, whose rows
// are read a second time to be checked.
type Planner struct {
	payments map[string]*api.Payment
	open     map[string]*api.Dispute
	readErrs map[string]error
	states   map[string]*payState
	now      time.Time
	res      PlanResult
	// prefix and seen derive the reference_id of a row without one, as a
	// run does (see rowIdentity): seen counts the rows of each content,
	// by a 64-bit hash.
	prefix string
	seen   lineTable
	seed   maphash.Seed
}

// NewPlanner reads the payments of set, concurrency at a time (their
// disputes too, for those some row refunds, when disputes is set).
func NewPlanner(ctx context.Context, read func(ctx context.Context, id string) (*api.Payment, error), disputes DisputeReader, set *PaymentSet, concurrency int, now time.Time, prefix string, progress func(done, total int)) (*Planner, error) {
	pl := &Planner{payments: make(map[string]*api.Payment, len(set.ids)), open: map[string]*api.Dispute{},
		readErrs: map[string]error{}, states: map[string]*payState{}, now: now,
		prefix: prefix, seed: maphash.MakeSeed(),
		res: PlanResult{Money: map[string]decimal.Decimal{}, ByOp: map[Op]map[string]decimal.Decimal{}}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	slots := make(chan struct{}, max(concurrency, 1))
	done := 0
	for _, id := range set.ids {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return nil, ctx.Err()
		}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			p, err := read(ctx, id)
			var d *api.Dispute
			if err == nil && disputes != nil {
				d = openDispute(ctx, disputes, set.refunds[id], p)
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				pl.readErrs[id] = err
			} else {
				pl.payments[id], pl.open[id] = p, d
			}
			done++
			if progress != nil {
				progress(done, len(set.ids))
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return pl, nil
}

// Check judges one row, after the rows checked before it.
func (pl *Planner) Check(row Row) {
	res := &pl.res
	res.Total++
	op := row.Op // the row's move
	ref := row.ReferenceID
	if ref == "" && op != OpClose {
		content := rowContent(row)
		h := maphash.String(pl.seed, content)
		count, _ := pl.seen.get(h)
		pl.seen.put(h, count+1)
		ref = derivedReference(pl.prefix, content, int(count)+1)
	}
	refuse := func(field, format string, args ...any) {
		if res.RefusedCount++; len(res.Refused) >= MaxPlanRefusals {
			return
		}
		res.Refused = append(res.Refused, RowError{Line: row.Line, Op: op, PaymentID: row.PaymentID, Amount: row.Amount,
			ReferenceID: row.ReferenceID, Field: field, Message: fmt.Sprintf(format, args...)})
	}
	p := pl.payments[row.PaymentID]
	if p == nil {
		refuse(colPaymentID, "cannot be read: %v", pl.readErrs[row.PaymentID])
		return
	}
	st := pl.states[p.ID]
	if st == nil {
		st = newPayState(p, pl.open[p.ID])
		pl.states[p.ID] = st
	}
	if row.Currency != "" && row.Currency != p.Currency {
		refuse(colCurrency, "%s", currencyMismatch(row, p))
		return
	}
	var amount decimal.Decimal
	if op != OpClose {
		if row.Full() {
			amount = st.remaining(op)
		} else {
			var err error
			if amount, err = money.Parse(row.Amount, p.Currency); err != nil {
				refuse(colAmount, "%v", err)
				return
			}
		}
	}
	if ref != "" {
		var want *decimal.Decimal
		if !row.Full() {
			want = &amount
		}
		// The parts were checked when the rows were read; "1" stands
		// for a full row's amount, which the check then ignores.
		a, _ := parseAmounts(row, "1")
		if found, held := ReferenceConflict(op, p, ref, want, a.tax, a.shipping, a.discount); found && held != "" {
			refuse(colReferenceID, "%s", held)
			return
		} else if found {
			res.Made++
			return
		}
	}
	if field, msg := checkMove(op, p, st, amount, pl.now); msg != "" {
		refuse(field, "%s", msg)
		return
	}
	st.apply(op, amount)
	res.Go++
	if op != OpClose {
		res.Money[p.Currency] = res.Money[p.Currency].Add(amount)
		addTo(res.ByOp, op, p.Currency, amount)
	}
}

// Result is the plan of the rows checked so far.
func (pl *Planner) Result() PlanResult { return pl.res }

// currencyMismatch is the refusal of a row whose currency column is not
// the payment's.
func currencyMismatch(row Row, p *api.Payment) string {
	return fmt.Sprintf("the row says %s, the payment is in %s", row.Currency, p.Currency)
}
