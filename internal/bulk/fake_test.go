package bulk

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/bnpl-cli/bnpl/internal/api"
)

// The real client must keep fitting the interface the runs are written to.
var _ Client = (*api.Client)(nil)

// fakeErr stands in for the api package's errors: an answer of the service,
// or, with unknown, a failure after which nobody knows what happened.
type fakeErr struct {
	status  int
	typ     string
	msg     string
	unknown bool
}

func (e *fakeErr) Error() string { return e.msg }

func classifyFake(err error) (int, string, string, bool) {
	var fe *fakeErr
	if errors.As(err, &fe) {
		return fe.status, fe.typ, fe.msg, fe.unknown
	}
	return 0, "", err.Error(), true
}

func badData(msg string) error { return &fakeErr{status: 400, typ: "bad_data", msg: msg} }

var errDropped = &fakeErr{msg: "connection reset", unknown: true}

type fakePayment struct {
	id       string
	currency string
	status   string
	amount   decimal.Decimal
	captures []api.Capture
	refunds  []api.Refund
	busy     bool
}

func (p *fakePayment) snapshot() *api.Payment {
	return &api.Payment{
		ID: p.id, Currency: p.currency, Status: p.status, Amount: p.amount,
		Captures: append([]api.Capture(nil), p.captures...),
		Refunds:  append([]api.Refund(nil), p.refunds...),
	}
}

// call is one request the fake received.
type call struct {
	op, paymentID, referenceID, amount string
	reason                             string
	tax                                string
}

// fakeClient is an in-memory ledger with the service's rules that matter
// here: reference_id idempotency, capturable and refundable limits, and a
// per-payment lock. Two requests overlapping on one payment are counted in
// overlaps, which the ordering tests require to stay at zero.
type fakeClient struct {
	t testing.TB

	mu       sync.Mutex
	payments map[string]*fakePayment
	calls    []call
	overlaps int

	// beforeCommit runs inside the payment's lock before a move is
	// applied; an error refuses the move. afterCommit runs after it was
	// applied; an error is returned in place of the answer, as a dropped
	// connection would.
	beforeCommit func(ctx context.Context, c call) error
	afterCommit  func(ctx context.Context, c call) error
	// reconciled names payments whose moves answer as the real client does
	// after reconciling an unknown outcome.
	reconciled map[string]bool
	// madeBefore names payments whose moves answer as the real client does
	// when the service's answer shows the move made before the request.
	madeBefore map[string]bool
	// readFault, when set, may fail a read of a payment, as a service
	// that does not answer reads would.
	readFault func(id string) error
}

// errDeduped is what a fake move's apply returns for a reference_id the
// payment holds already: the service answers it as a success.
var errDeduped = errors.New("deduplicated")

func newFake(t testing.TB) *fakeClient {
	return &fakeClient{t: t, payments: map[string]*fakePayment{}}
}

// add creates a payment and returns its id.
func (f *fakeClient) add(currency, amount, status string) string {
	id := uuid.NewString()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.payments[id] = &fakePayment{id: id, currency: currency, status: status, amount: decimal.RequireFromString(amount)}
	return id
}

func (f *fakeClient) payment(id string) *api.Payment {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.payments[id].snapshot()
}

func (f *fakeClient) callsOf(op string) []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []call
	for _, c := range f.calls {
		if c.op == op {
			out = append(out, c)
		}
	}
	return out
}

// wantSent checks how many requests of op the client was sent.
func (f *fakeClient) wantSent(t *testing.T, op string, want int) {
	t.Helper()
	if n := len(f.callsOf(op)); n != want {
		t.Fatalf("%d %s requests sent, want %d", n, op, want)
	}
}

// lock takes the payment's lock as the service does, recording an overlap
// instead of waiting. The yields give another goroutine every chance to run
// into the lock if the pool ever let two rows of one payment overlap.
func (f *fakeClient) lock(id string) (*fakePayment, error) {
	f.mu.Lock()
	p := f.payments[id]
	if p == nil {
		f.mu.Unlock()
		return nil, &fakeErr{status: 404, typ: "not_found", msg: "no such payment"}
	}
	if p.busy {
		f.overlaps++
		f.mu.Unlock()
		return nil, &fakeErr{status: 409, typ: "conflict", msg: "could not acquire lock: payment is locked"}
	}
	p.busy = true
	f.mu.Unlock()
	for range 3 {
		runtime.Gosched()
	}
	return p, nil
}

func (f *fakeClient) unlock(p *fakePayment) {
	f.mu.Lock()
	p.busy = false
	f.mu.Unlock()
}

func (f *fakeClient) GetPayment(ctx context.Context, id string) (*api.Payment, error) {
	if f.readFault != nil {
		if err := f.readFault(id); err != nil {
			return nil, err
		}
	}
	p, err := f.lock(id)
	if err != nil {
		return nil, err
	}
	defer f.unlock(p)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call{op: "get", paymentID: id})
	return p.snapshot(), nil
}

func (f *fakeClient) move(ctx context.Context, c call, apply func(p *fakePayment) error) (*api.MoveResult, error) {
	p, err := f.lock(c.paymentID)
	if err != nil {
		return nil, err
	}
	defer f.unlock(p)
	f.mu.Lock()
	f.calls = append(f.calls, c)
	f.mu.Unlock()
	if f.beforeCommit != nil {
		if err := f.beforeCommit(ctx, c); err != nil {
			return nil, err
		}
	}
	if ctx.Err() != nil {
		f.t.Errorf("%s on %s ran with a cancelled context", c.op, c.paymentID)
	}
	f.mu.Lock()
	err = apply(p)
	snap := p.snapshot()
	f.mu.Unlock()
	madeBefore := f.madeBefore[c.paymentID]
	if err == errDeduped {
		// The service answers a repeat as a success, the payment holding
		// the move; the real client no longer guesses from clocks whether
		// it was made before this request.
		err = nil
	}
	if err != nil {
		// As the real client: a refusal is followed by a read of the
		// payment, returned with the error.
		return &api.MoveResult{Payment: snap, ReferenceID: c.referenceID, Attempts: 1}, err
	}
	if f.afterCommit != nil {
		if err := f.afterCommit(ctx, c); err != nil {
			return nil, err
		}
	}
	return &api.MoveResult{Payment: snap, ReferenceID: c.referenceID, Attempts: 1, Reconciled: f.reconciled[c.paymentID], MadeBefore: madeBefore}, nil
}

func (f *fakeClient) Capture(ctx context.Context, id string, req api.CaptureRequest) (*api.MoveResult, error) {
	c := call{op: "capture", paymentID: id, referenceID: req.ReferenceID, amount: req.Amount.String()}
	if req.TaxAmount != nil {
		c.tax = req.TaxAmount.String()
	}
	return f.move(ctx, c, func(p *fakePayment) error {
		for _, cp := range p.captures {
			if cp.ReferenceID == req.ReferenceID {
				return errDeduped // a retry of a capture already made
			}
		}
		if p.status == api.StatusClosed {
			return badData("already closed")
		}
		if p.status != api.StatusAuthorized {
			return badData("could not capture not authorized payments")
		}
		if req.Amount.GreaterThan(p.snapshot().Capturable()) {
			return badData("could not capture: could not capture more than not captured yet")
		}
		p.captures = append(p.captures, api.Capture{ID: uuid.NewString(), Amount: req.Amount, ReferenceID: req.ReferenceID,
			TaxAmount: req.TaxAmount, ShippingAmount: req.ShippingAmount, DiscountAmount: req.DiscountAmount})
		if p.snapshot().Captured().Equal(p.amount) {
			p.status = api.StatusClosed
		}
		return nil
	})
}

func (f *fakeClient) Refund(ctx context.Context, id string, req api.RefundRequest) (*api.MoveResult, error) {
	c := call{op: "refund", paymentID: id, referenceID: req.ReferenceID, amount: req.Amount.String(), reason: req.Reason}
	return f.move(ctx, c, func(p *fakePayment) error {
		for _, r := range p.refunds {
			if r.ReferenceID == req.ReferenceID {
				return errDeduped
			}
		}
		if p.status != api.StatusClosed || len(p.captures) == 0 {
			return badData("can not refund payment that has no captures and not closed")
		}
		if req.Amount.GreaterThan(p.snapshot().Refundable()) {
			return badData("refund amount should be less or equal than billed amount")
		}
		p.refunds = append(p.refunds, api.Refund{ID: uuid.NewString(), Amount: req.Amount, ReferenceID: req.ReferenceID, Reason: req.Reason})
		return nil
	})
}

func (f *fakeClient) Close(ctx context.Context, id string) (*api.MoveResult, error) {
	return f.move(ctx, call{op: "close", paymentID: id}, func(p *fakePayment) error {
		if p.status == api.StatusClosed {
			return badData("already closed")
		}
		if p.status != api.StatusAuthorized {
			return badData("only authorized payments can be closed")
		}
		p.status = api.StatusClosed
		return nil
	})
}

// duplicates lists reference_ids that appear on more than one capture or
// refund of a payment: money moved twice.
func (f *fakeClient) duplicates() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var dups []string
	for id, p := range f.payments {
		seen := map[string]bool{}
		for _, c := range p.captures {
			if seen[c.ReferenceID] {
				dups = append(dups, fmt.Sprintf("%s capture %s", id, c.ReferenceID))
			}
			seen[c.ReferenceID] = true
		}
		for _, r := range p.refunds {
			if seen[r.ReferenceID] {
				dups = append(dups, fmt.Sprintf("%s refund %s", id, r.ReferenceID))
			}
			seen[r.ReferenceID] = true
		}
	}
	return dups
}
