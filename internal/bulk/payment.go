package bulk

import (
	"context"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/money"
)

// ErrorTypeConflict marks, in the report, a row whose reference_id the
// payment holds for another move.
const ErrorTypeConflict = "reference_conflict"

// ReferenceConflict compares what payment p holds under reference_id ref
// with the capture or refund a row asks for. found is whether p holds a
// move of that kind under ref. held is empty when that move is the one
// asked for, and otherwise the refusal of api.CheckCaptureReference or
// api.CheckRefundReference (what ref was used for, that nothing was moved)
// with what to do: single moves and bulk rows share one rule. amount nil
// (a "full" row, whose amount is not fixed) takes any amount as the one
// asked for; tax, shipping and discount are a capture's optional parts,
// nil when absent.
//
// The service answers a reference_id it has already seen with the
// payment as it stands, moving nothing, so a row is checked against the
// payment before it is sent; after the move the client checks the answer
// (a *api.MoveUnknownError).
func ReferenceConflict(op Op, p *api.Payment, ref string, amount, tax, shipping, discount *decimal.Decimal) (found bool, held string) {
	if amount == nil {
		return referenceConflict(op, p, ref, nil)
	}
	return referenceConflict(op, p, ref, &amounts{amount: *amount, tax: tax, shipping: shipping, discount: discount})
}

func referenceConflict(op Op, p *api.Payment, ref string, want *amounts) (found bool, held string) {
	var err error
	switch op {
	case OpCapture:
		if p.CaptureByReference(ref) == nil {
			return false, ""
		}
		if want != nil {
			_, err = api.CheckCaptureReference(p, api.CaptureRequest{ReferenceID: ref, Amount: want.amount,
				TaxAmount: want.tax, ShippingAmount: want.shipping, DiscountAmount: want.discount})
		}
	case OpRefund:
		if p.RefundByReference(ref) == nil {
			return false, ""
		}
		if want != nil {
			_, err = api.CheckRefundReference(p, api.RefundRequest{ReferenceID: ref, Amount: want.amount})
		}
	default:
		return false, ""
	}
	if err == nil {
		return true, ""
	}
	return true, err.Error() + ": if that move is not this row's, give the row a reference_id of its own"
}

// unmatchedMessage says, for a row sent under ref, that payment p does not
// show its move as sent, and what p holds: the row's outcome is unknown.
func unmatchedMessage(op Op, p *api.Payment, ref string) string {
	held := fmt.Sprintf("it holds no %s under that reference_id", op)
	if op != OpClose {
		if found := (op == OpCapture && p.CaptureByReference(ref) != nil) || (op == OpRefund && p.RefundByReference(ref) != nil); found {
			held = fmt.Sprintf("it holds a %s of %s under that reference_id", op, money.Display(heldAmount(op, p, ref), p.Currency))
		}
	}
	return fmt.Sprintf("outcome unknown: the %s with reference_id %s was sent, but the payment does not show it as sent: %s; the payment is %s with %s captured and %s refunded: check it before moving more on it",
		op, ref, held, p.Status, money.Display(p.Captured(), p.Currency), money.Display(p.Refunded(), p.Currency))
}

// heldAmount is the amount of the op's move under ref on p.
func heldAmount(op Op, p *api.Payment, ref string) decimal.Decimal {
	if op == OpCapture {
		if c := p.CaptureByReference(ref); c != nil {
			return c.Amount
		}
	} else if r := p.RefundByReference(ref); r != nil {
		return r.Amount
	}
	return decimal.Zero
}

func pastTense(op Op) string {
	switch op {
	case OpCapture:
		return "captured"
	case OpRefund:
		return "refunded"
	}
	return "closed"
}

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
