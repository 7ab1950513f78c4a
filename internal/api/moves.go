package api

import "github.com/shopspring/decimal"

// MoveResult is the outcome of a capture, refund or close.
type MoveResult struct {
	// Payment as the service answered it, or as read back when reconciled;
	// with an error, the payment as read after it, when it was.
	Payment *Payment
	// ReferenceID sent with the move (captures and refunds).
	ReferenceID string
	// Reconciled is true when the move's own answers did not confirm it (an
	// attempt's outcome was unknown, or a refusal answered a re-run of the
	// same caller-supplied reference_id) and a fresh read of the payment
	// showed the move with our reference_id (and amount) had been made
	// after all; for close, that the payment is CLOSED.
	Reconciled bool
	// MadeBefore is true when the service refused a repeat of the move
	// while no attempt of this call had an unknown outcome, and the
	// payment read then showed the move: it was made before this call
	// sent anything, and nothing moved now. A 2xx never sets it: the
	// service answers a reference_id it has seen with the payment as it
	// is, so only what the payment held before the call tells whether
	// the call moved money (a bulk run keeps that in its ledger). No
	// clock is compared.
	MadeBefore bool
	// Attempts is how many requests were sent for the move itself, not
	// counting the read of the payment.
	Attempts int
}

// ExcessCapturePart returns the first of a capture's tax, shipping and
// discount amounts (nil when absent) that is more than the capture amount:
// each is a part of the capture. field is its JSON name ("tax_amount");
// found is false when every part fits. Single captures and bulk rows
// share this rule.
func ExcessCapturePart(amount decimal.Decimal, tax, shipping, discount *decimal.Decimal) (field string, part decimal.Decimal, found bool) {
	for _, p := range []struct {
		field string
		d     *decimal.Decimal
	}{{"tax_amount", tax}, {"shipping_amount", shipping}, {"discount_amount", discount}} {
		if p.d != nil && p.d.GreaterThan(amount) {
			return p.field, *p.d, true
		}
	}
	return "", decimal.Decimal{}, false
}
