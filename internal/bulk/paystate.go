package bulk

import (
	"context"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/money"
)

// payState is a payment as the earlier rows of a file leave it: the plan
// works it out from one read, a run takes it from the last answer.
type payState struct {
	status                     string
	amount, captured, refunded decimal.Decimal
	// earlier counts the rows of the file that moved money on the
	// payment before the row checked now.
	earlier int
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
	st.earlier++
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
	after := "on this payment"
	if st.earlier > 0 {
		after = "after the earlier rows of this payment"
	}
	switch {
	case !amount.IsPositive():
		return colAmount, fmt.Sprintf("nothing left to %s %s", op, after)
	case amount.GreaterThan(remaining):
		return colAmount, fmt.Sprintf("%s is more than the %s left to %s %s",
			money.Display(amount, p.Currency), money.Display(remaining, p.Currency), op, after)
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
