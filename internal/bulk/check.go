package bulk

import (
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/money"
)

// errorTypeConflict marks, in the report, a row whose reference_id the
// payment holds for another move.
const errorTypeConflict = "reference_conflict"

// ReferenceConflict compares what payment p holds under reference_id ref
// with the capture or refund a row asks for. found is whether p holds a
// move of that kind under ref. held is empty when that move is the one
// asked for (the same amount and, for a capture, the same tax, shipping and
// discount amounts), and otherwise a sentence saying what ref was used
// for, that nothing was moved, and what to do. amount nil (a "full" row,
// whose amount is not fixed) takes any amount as the one asked for; tax,
// shipping and discount are a capture's optional parts, nil when absent.
//
// The service answers a reference_id it has already seen with the
// payment as it stands, moving nothing, so the same check serves before a
// move (on the payment read) and after it (on the payment answered).
func ReferenceConflict(op Op, p *api.Payment, ref string, amount, tax, shipping, discount *decimal.Decimal) (found bool, held string) {
	if amount == nil {
		return referenceConflict(op, p, ref, nil)
	}
	return referenceConflict(op, p, ref, &amounts{amount: *amount, tax: tax, shipping: shipping, discount: discount})
}

func referenceConflict(op Op, p *api.Payment, ref string, want *amounts) (found bool, held string) {
	var have decimal.Decimal
	var parts [3]*decimal.Decimal
	switch op {
	case OpCapture:
		c := p.CaptureByReference(ref)
		if c == nil {
			return false, ""
		}
		have, parts = c.Amount, [3]*decimal.Decimal{c.TaxAmount, c.ShippingAmount, c.DiscountAmount}
	case OpRefund:
		r := p.RefundByReference(ref)
		if r == nil {
			return false, ""
		}
		have = r.Amount
	default:
		return false, ""
	}
	if want == nil {
		return true, ""
	}
	differs := !have.Equal(want.amount)
	if op == OpCapture {
		for i, w := range []*decimal.Decimal{want.tax, want.shipping, want.discount} {
			if !sameOptional(parts[i], w) {
				differs = true
			}
		}
	}
	if !differs {
		return true, ""
	}
	what := fmt.Sprintf("%s %s", money.Format(have, p.Currency), p.Currency)
	asked := money.Format(want.amount, p.Currency)
	if have.Equal(want.amount) {
		what += " with other tax, shipping or discount amounts"
		asked += " with this row's"
	}
	return true, fmt.Sprintf("reference_id %s was already used on this payment for a %s of %s; this row asks %s, and nothing was moved: use a new reference_id, or leave it empty to get one",
		ref, op, what, asked)
}

// sameOptional compares an optional amount, absent counting as zero.
func sameOptional(a, b *decimal.Decimal) bool {
	x, y := decimal.Zero, decimal.Zero
	if a != nil {
		x = *a
	}
	if b != nil {
		y = *b
	}
	return x.Equal(y)
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
