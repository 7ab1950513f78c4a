package bulk

import (
	"fmt"

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
